"""``context_retrieval/agent_prompt``: what an LLM agent would receive for an utterance."""

from __future__ import annotations

from homeassistant.core import HomeAssistant

from custom_components.context_retrieval.llm_api import LIVE_CONTEXT_TOOL, SEARCH_TOOL
from custom_components.context_retrieval.websocket_api import AGENT_PROMPT


async def test_the_prompt_of_a_turn_and_both_sizes(loaded_entry, home: HomeAssistant, hass_ws_client):
    client = await hass_ws_client(home)
    await client.send_json({"id": 1, "type": AGENT_PROMPT, "text": "打开客厅主灯", "conversation_id": "c1"})
    answer = await client.receive_json()
    assert answer["success"], answer
    result = answer["result"]
    assert "light.living_main" in result["prompt"]
    assert "车库门" not in result["prompt"]
    assert {LIVE_CONTEXT_TOOL, SEARCH_TOOL, "intent__HassTurnOn"} <= set(result["tools"])
    assert result["size"]["characters"] == len(result["prompt"])
    assert 0 < result["size"]["tokens"] < result["size"]["characters"]
    assert result["assist_size"]["characters"] > result["size"]["characters"]
    await client.send_json({"id": 2, "type": AGENT_PROMPT, "text": "把它关掉", "conversation_id": "c1"})
    follow_up = (await client.receive_json())["result"]["prompt"]
    assert "light.living_main" in follow_up


async def test_without_a_loaded_entry_it_says_so(loaded_entry, home: HomeAssistant, hass_ws_client):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    client = await hass_ws_client(home)
    await client.send_json({"id": 1, "type": AGENT_PROMPT, "text": "打开客厅主灯"})
    answer = await client.receive_json()
    assert not answer["success"]
    assert answer["error"]["code"] == "not_loaded"


async def test_an_empty_utterance_is_refused(loaded_entry, home: HomeAssistant, hass_ws_client):
    client = await hass_ws_client(home)
    await client.send_json({"id": 1, "type": AGENT_PROMPT, "text": ""})
    answer = await client.receive_json()
    assert not answer["success"]
    assert answer["error"]["code"] == "invalid_format"
