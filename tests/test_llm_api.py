"""The "Context Retrieval" LLM API, through a real conversation agent (Home Assistant's Ollama).

Home Assistant's Ollama integration talks to a local server speaking Ollama's protocol; the
"model" is scripted, everything between it and the entities is Home Assistant's and ours.
"""

from __future__ import annotations

import pytest
from homeassistant.components import conversation
from homeassistant.components.intent import llm as intent_llm
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.context_retrieval.const import DOMAIN
from custom_components.context_retrieval.llm_api import (
    API_ID,
    API_NAME,
    LIVE_CONTEXT_TOOL,
    NO_REQUEST_PROMPT,
    SEARCH_TOOL,
)
from custom_components.context_retrieval.repairs import ASSIST_ALSO_SELECTED

from .ollama_server import FakeOllama, ModelTurn, ToolCall

AGENT = "conversation.ollama_conversation"
ASSIST_OVERVIEW = "Static Context: An overview of the areas and the devices in this smart home:"
ASSIST_TOOL_USAGE = "When controlling Home Assistant always call the intent tools."
pytestmark = pytest.mark.usefixtures("socket_enabled")


@pytest.fixture
async def ollama() -> FakeOllama:
    server = FakeOllama()
    yield server
    await server.close()


async def add_agent(hass: HomeAssistant, server: FakeOllama, apis: list[str]) -> MockConfigEntry:
    """Set up Home Assistant's Ollama integration with one conversation agent using ``apis``."""
    url = server.server.make_url("") if server.server else await server.start()
    entry = MockConfigEntry(
        domain="ollama",
        data={"url": str(url).rstrip("/")},
        version=3,
        minor_version=3,
        subentries_data=[
            ConfigSubentryData(
                data={"model": "qwen3:4b", "llm_hass_api": apis},
                subentry_type="conversation",
                title="Ollama Conversation",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def converse(hass: HomeAssistant, text: str, conversation_id: str | None = None):
    return await conversation.async_converse(
        hass,
        text=text,
        conversation_id=conversation_id,
        context=Context(),
        language="zh-Hans",
        agent_id=AGENT,
    )


def targets(calls: list) -> list[str]:
    """Return the entities the recorded service calls acted on."""
    return [entity_id for call in calls for entity_id in call.data["entity_id"]]


@pytest.fixture
async def agent(loaded_entry, home: HomeAssistant, ollama: FakeOllama) -> MockConfigEntry:
    return await add_agent(home, ollama, [API_ID])


async def test_the_api_is_listed_while_the_entry_is_loaded(loaded_entry, home: HomeAssistant):
    apis = {api.id: api.name for api in llm.async_get_apis(home)}
    assert apis[API_ID] == API_NAME
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    assert API_ID not in {api.id for api in llm.async_get_apis(home)}


async def test_the_agent_sees_only_the_devices_the_request_needs(agent, home: HomeAssistant, ollama):
    turn_on = async_mock_service(home, "light", "turn_on")
    ollama.scripts["把客厅主灯打开"] = ModelTurn([ToolCall("intent__HassTurnOn", {"name": "客厅主灯"})])
    result = await converse(home, "把客厅主灯打开")
    assert result.response.response_type.value == "action_done"
    prompt = ollama.system_prompt(0)
    assert "light.living_main" in prompt
    assert "客厅主灯" in prompt
    for unrelated in ("车库门", "饮水机插座", "cover.garage_door", "电视"):
        assert unrelated not in prompt
    assert ASSIST_OVERVIEW not in prompt  # Assist's overview of every entity is gone
    assert ASSIST_TOOL_USAGE in prompt  # the other platforms' prompts stay
    tools = ollama.tool_names(0)
    assert {"intent__HassTurnOn", "intent__HassTurnOff", LIVE_CONTEXT_TOOL, SEARCH_TOOL} <= set(tools)
    assert not any(name.startswith("homeassistant__") for name in tools)
    assert targets(turn_on) == ["light.living_main"]


async def test_a_follow_up_refers_to_the_device_of_the_last_turn(agent, home: HomeAssistant, ollama):
    async_mock_service(home, "light", "turn_on")
    turn_off = async_mock_service(home, "light", "turn_off")
    ollama.scripts["打开客厅主灯"] = ModelTurn([ToolCall("intent__HassTurnOn", {"name": "客厅主灯"})])
    first = await converse(home, "打开客厅主灯")
    ollama.scripts["把它关掉"] = ModelTurn([ToolCall("intent__HassTurnOff", {"name": "light.living_main"})])
    await converse(home, "把它关掉", first.conversation_id)
    follow_up = ollama.system_prompt()
    assert "light.living_main" in follow_up
    assert "车库门" not in follow_up
    assert targets(turn_off) == ["light.living_main"]


async def test_the_live_context_tool_reads_only_the_devices_in_context(agent, home: HomeAssistant, ollama):
    ollama.scripts["客厅温度多少"] = ModelTurn([ToolCall(LIVE_CONTEXT_TOOL)], "26.5 度。")
    result = await converse(home, "客厅温度多少")
    assert result.response.speech["plain"]["speech"] == "26.5 度。"
    (answer,) = ollama.tool_results()
    assert answer["error"] is False
    live = answer["data"]["result"]
    assert "客厅温度" in live
    assert "26.5" in live
    for unrelated in ("车库门", "饮水机插座", "床头灯"):
        assert unrelated not in live


async def test_a_device_retrieval_missed_is_found_by_search_and_then_readable(
    agent, home: HomeAssistant, ollama
):
    ollama.scripts["帮我看看那个门"] = ModelTurn(
        [ToolCall(SEARCH_TOOL, {"query": "车库门"}), ToolCall(LIVE_CONTEXT_TOOL)], "车库门关着。"
    )
    await converse(home, "帮我看看那个门")
    search, live = ollama.tool_results()
    assert "cover.garage_door" in search["data"]["result"]
    assert "车库门" in live["data"]["result"]
    assert "客厅主灯" not in live["data"]["result"]


async def test_tool_failures_reach_the_model_as_data(agent, home: HomeAssistant, ollama):
    ollama.scripts["随便找找"] = ModelTurn([ToolCall(SEARCH_TOOL, {"query": "   "}), ToolCall(SEARCH_TOOL)])
    await converse(home, "随便找找")
    empty, missing = ollama.tool_results()
    assert empty["error"] is True
    assert "empty" in empty["data"]["error"]
    assert missing["error"] is True
    assert "query" in missing["data"]["error"]


async def test_a_turn_without_an_utterance_gets_a_short_context(agent, home: HomeAssistant):
    context = llm.LLMContext(
        platform="ai_task", context=None, language="zh-Hans", assistant="conversation", device_id=None
    )
    instance = await llm.async_get_api(home, API_ID, context)
    assert NO_REQUEST_PROMPT.strip() in instance.api_prompt
    for name in ("客厅主灯", "车库门", "电视"):
        assert name not in instance.api_prompt
    assert SEARCH_TOOL in {tool.name for tool in instance.tools}


async def test_an_agent_with_assist_selected_too_raises_a_repair_issue(
    loaded_entry, home: HomeAssistant, ollama
):
    agent_entry = await add_agent(home, ollama, [llm.LLM_API_ASSIST, API_ID])
    await converse(home, "打开厨房灯")
    issue = ir.async_get(home).async_get_issue(DOMAIN, ASSIST_ALSO_SELECTED)
    assert issue is not None
    assert issue.translation_placeholders == {"agents": "Ollama Conversation"}
    assert "饮水机插座" in ollama.system_prompt()  # the merged prompt still carries Assist's dump
    subentry = next(iter(agent_entry.subentries.values()))
    home.config_entries.async_update_subentry(
        agent_entry, subentry, data={**subentry.data, "llm_hass_api": [API_ID]}
    )
    await home.async_block_till_done()
    await converse(home, "打开厨房灯")
    assert ir.async_get(home).async_get_issue(DOMAIN, ASSIST_ALSO_SELECTED) is None


async def test_unloading_and_reloading_while_an_agent_uses_the_api(
    agent, loaded_entry, home: HomeAssistant, ollama
):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    result = await converse(home, "打开厨房灯")
    assert result.response.error_code is not None  # Home Assistant's "Error preparing LLM API"
    assert await home.config_entries.async_setup(loaded_entry.entry_id)
    await home.async_block_till_done()
    ollama.requests.clear()
    await converse(home, "打开厨房灯")
    assert "light.kitchen" in ollama.system_prompt()


async def test_a_failing_tool_platform_is_skipped_as_assist_skips_it(
    agent, home: HomeAssistant, ollama, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    def broken(*_: object) -> None:
        raise RuntimeError("broken platform")

    monkeypatch.setattr(intent_llm, "async_get_tools", broken)
    await converse(home, "打开厨房灯")
    assert "light.kitchen" in ollama.system_prompt()
    assert "intent__HassTurnOn" not in ollama.tool_names()
    assert "Error getting tools from the LLM platform of intent" in caplog.text


@pytest.mark.parametrize(
    "entry_options",
    [{"embedding_backend": "openai", "embedding_base_url": "http://127.0.0.1:9/v1", "embedding_model": "m"}],
)
async def test_with_the_embedding_endpoint_down_the_agent_still_gets_its_devices(agent, home, ollama):
    turn_on = async_mock_service(home, "light", "turn_on")
    ollama.scripts["打开厨房灯"] = ModelTurn([ToolCall("intent__HassTurnOn", {"name": "厨房灯"})])
    await converse(home, "打开厨房灯")
    prompt = ollama.system_prompt(0)
    assert "light.kitchen" in prompt
    assert "车库门" not in prompt
    assert targets(turn_on) == ["light.kitchen"]
