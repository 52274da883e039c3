"""The "Context Retrieval" LLM API, through a real conversation agent (Home Assistant's Ollama).

Home Assistant's Ollama integration talks to a local server speaking Ollama's protocol; the
"model" is scripted, everything between it and the entities is Home Assistant's and ours.
Both setups run several different utterances in one conversation: the recommended one (the
Context Retrieval agent hands each utterance to the Ollama agent with its devices) and the
direct one (the Ollama agent selected the API and is talked to itself).
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
    CONTEXT_BY_TOOL,
    CONTEXT_IN_PROMPT,
    LIVE_CONTEXT_TOOL,
    REQUEST_CONTEXT_HEADER,
    REQUEST_CONTEXT_TOOL,
    SEARCH_TOOL,
)
from custom_components.context_retrieval.repairs import ASSIST_ALSO_SELECTED, DELEGATE_WITHOUT_API

from .ollama_server import FakeOllama, ModelTurn, ToolCall

AGENT = "conversation.ollama_conversation"
OURS = "conversation.context_retrieval"
ASSIST_OVERVIEW = "Static Context: An overview of the areas and the devices in this smart home:"
ASSIST_TOOL_USAGE = "When controlling Home Assistant always call the intent tools."
pytestmark = pytest.mark.usefixtures("socket_enabled")


@pytest.fixture
def entry_options() -> dict[str, str]:
    """The recommended setup: the Context Retrieval agent hands requests to the Ollama agent."""
    return {"delegate_agent": AGENT}


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


async def converse(hass: HomeAssistant, text: str, conversation_id: str | None = None, agent_id: str = OURS):
    return await conversation.async_converse(
        hass,
        text=text,
        conversation_id=conversation_id,
        context=Context(),
        language="zh-Hans",
        agent_id=agent_id,
    )


def targets(calls: list) -> list[str]:
    """Return the entities the recorded service calls acted on."""
    return [entity_id for call in calls for entity_id in call.data["entity_id"]]


def split_prompt(prompt: str) -> tuple[str, str]:
    """Return the static part of a system prompt and the request's devices after the header."""
    static, header, devices = prompt.partition(REQUEST_CONTEXT_HEADER)
    assert header, "the request's devices are missing from the system prompt"
    return static, devices


@pytest.fixture
async def agent(loaded_entry, home: HomeAssistant, ollama: FakeOllama) -> MockConfigEntry:
    return await add_agent(home, ollama, [API_ID])


THREE_TURNS = (
    ("打开厨房灯", ToolCall("intent__HassTurnOn", {"name": "厨房灯"}), "light.kitchen"),
    (
        "把客厅空调调到26度",
        ToolCall("intent__HassClimateSetTemperature", {"temperature": 26}),
        "climate.living_ac",
    ),
    ("关上车库门", ToolCall("intent__HassTurnOff", {"name": "车库门"}), "cover.garage_door"),
)


async def test_the_api_is_listed_while_the_entry_is_loaded(loaded_entry, home: HomeAssistant):
    apis = {api.id: api.name for api in llm.async_get_apis(home)}
    assert apis[API_ID] == API_NAME
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    assert API_ID not in {api.id for api in llm.async_get_apis(home)}


async def test_every_turn_carries_its_own_devices_and_the_static_prompt_stays_the_same(
    agent, home: HomeAssistant, ollama
):
    conversation_id = None
    statics, tool_lists = [], []
    for number, (text, call, device) in enumerate(THREE_TURNS):
        ollama.scripts[text] = ModelTurn([call])
        before = len(ollama.requests)
        result = await converse(home, text, conversation_id)
        conversation_id = result.conversation_id
        assert len(ollama.requests) - before == 2  # the tool call and the answer: no extra round trip
        static, devices = split_prompt(ollama.system_prompt(before))
        assert device in devices
        for _, _, other in THREE_TURNS[:number] + THREE_TURNS[number + 1 :]:
            assert other not in devices
        assert CONTEXT_IN_PROMPT.strip() in static
        assert ASSIST_OVERVIEW not in static  # Assist's overview of every entity is gone
        assert ASSIST_TOOL_USAGE in static  # the other platforms' prompts stay
        statics.append(static)
        tool_lists.append(ollama.requests[before]["tools"])
    assert statics[0] == statics[1] == statics[2]  # byte-identical: providers' prompt caches hold
    assert tool_lists[0] == tool_lists[1] == tool_lists[2]
    names = ollama.tool_names(0)
    assert {"intent__HassTurnOn", "intent__HassTurnOff", LIVE_CONTEXT_TOOL, SEARCH_TOOL} <= set(names)
    assert REQUEST_CONTEXT_TOOL not in names  # the devices are in the prompt already
    assert not any(name.startswith("homeassistant__") for name in names)


async def test_the_direct_setup_gets_each_turns_devices_from_a_tool(agent, home: HomeAssistant, ollama):
    turn_on = async_mock_service(home, "light", "turn_on")
    conversation_id, prompts = None, []
    for number, (text, call, device) in enumerate(THREE_TURNS):
        ollama.scripts[text] = ModelTurn([ToolCall(REQUEST_CONTEXT_TOOL), call])
        before = len(ollama.requests)
        result = await converse(home, text, conversation_id, agent_id=AGENT)
        conversation_id = result.conversation_id
        assert len(ollama.requests) - before == 3  # one more round trip: the request-context tool
        prompts.append(ollama.system_prompt(before))
        context = ollama.tool_results(before + 1)[-1]  # the answer to this turn's first call
        assert context["error"] is False
        devices = context["data"]["result"]
        assert device in devices
        for _, _, other in THREE_TURNS[:number] + THREE_TURNS[number + 1 :]:
            assert other not in devices
    assert prompts[0] == prompts[1] == prompts[2]
    assert CONTEXT_BY_TOOL.strip() in prompts[0]
    assert REQUEST_CONTEXT_HEADER not in prompts[0]
    for name in ("厨房灯", "车库门", "light.kitchen"):
        assert name not in prompts[0]
    assert REQUEST_CONTEXT_TOOL in ollama.tool_names(0)
    assert targets(turn_on) == ["light.kitchen"]


async def test_a_follow_up_refers_to_the_device_of_the_last_turn(agent, home: HomeAssistant, ollama):
    async_mock_service(home, "light", "turn_on")
    turn_off = async_mock_service(home, "light", "turn_off")
    ollama.scripts["打开客厅主灯"] = ModelTurn([ToolCall("intent__HassTurnOn", {"name": "客厅主灯"})])
    first = await converse(home, "打开客厅主灯")
    ollama.scripts["把它关掉"] = ModelTurn([ToolCall("intent__HassTurnOff", {"name": "light.living_main"})])
    await converse(home, "把它关掉", first.conversation_id)
    _, follow_up = split_prompt(ollama.system_prompt())
    assert "light.living_main" in follow_up
    assert "车库门" not in follow_up
    assert targets(turn_off) == ["light.living_main"]


@pytest.mark.parametrize("agent_id", [OURS, AGENT])
async def test_the_live_context_tool_reads_the_current_requests_devices(
    agent, home: HomeAssistant, ollama, agent_id: str
):
    ollama.scripts["打开车库门"] = ModelTurn([ToolCall(LIVE_CONTEXT_TOOL)], "车库门关着。")
    first = await converse(home, "打开车库门", agent_id=agent_id)
    ollama.scripts["客厅温度多少"] = ModelTurn([ToolCall(LIVE_CONTEXT_TOOL)], "26.5 度。")
    result = await converse(home, "客厅温度多少", first.conversation_id, agent_id=agent_id)
    assert result.response.speech["plain"]["speech"] == "26.5 度。"
    answer = ollama.tool_results()[-1]
    assert answer["error"] is False
    live = answer["data"]["result"]
    assert "客厅温度" in live
    assert "26.5" in live
    for unrelated in ("车库门", "饮水机插座", "床头灯"):  # 车库门: the last turn's device
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


async def test_a_turn_without_an_utterance_gets_the_static_prompt_and_no_devices(agent, home: HomeAssistant):
    context = llm.LLMContext(
        platform="ai_task", context=None, language="zh-Hans", assistant="conversation", device_id=None
    )
    instance = await llm.async_get_api(home, API_ID, context)
    assert CONTEXT_BY_TOOL.strip() in instance.api_prompt
    for name in ("客厅主灯", "车库门", "电视"):
        assert name not in instance.api_prompt
    tools = {tool.name: tool for tool in instance.tools}
    assert SEARCH_TOOL in tools
    result = await instance.async_call_tool(llm.ToolInput(REQUEST_CONTEXT_TOOL, {}))
    assert result.error is True
    assert SEARCH_TOOL in result.data["error"]


@pytest.mark.parametrize("whole_home_api", [llm.LLM_API_ASSIST, "homeassistant"])
async def test_an_agent_with_a_whole_home_api_selected_too_raises_a_repair_issue(
    loaded_entry, home: HomeAssistant, ollama, whole_home_api: str
):
    if whole_home_api not in {api.id for api in llm.async_get_apis(home)}:
        llm.async_register_api(home, WholeHomeAPI(hass=home, id=whole_home_api, name="Home Assistant"))
    agent_entry = await add_agent(home, ollama, [whole_home_api, API_ID])
    await converse(home, "打开厨房灯", agent_id=AGENT)
    issue = ir.async_get(home).async_get_issue(DOMAIN, ASSIST_ALSO_SELECTED)
    assert issue is not None
    assert issue.translation_placeholders == {"agents": "Ollama Conversation"}
    await select_only_our_api(home, agent_entry)
    await converse(home, "打开厨房灯", agent_id=AGENT)
    assert ir.async_get(home).async_get_issue(DOMAIN, ASSIST_ALSO_SELECTED) is None


async def select_only_our_api(home: HomeAssistant, agent_entry) -> None:
    """Give the LLM agent's conversation subentry the Context Retrieval API alone, as its owner would."""
    subentry = next(iter(agent_entry.subentries.values()))
    home.config_entries.async_update_subentry(
        agent_entry, subentry, data={**subentry.data, "llm_hass_api": [API_ID]}
    )
    await home.async_block_till_done()


class WholeHomeAPI(llm.API):
    """Stands for 2026.11's admin-only ``homeassistant`` API on 2026.10 (an API reaching every entity)."""

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        return llm.APIInstance(api=self, api_prompt="Every entity.", llm_context=llm_context, tools=[])


async def test_unloading_and_reloading_while_an_agent_uses_the_api(
    agent, loaded_entry, home: HomeAssistant, ollama
):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    result = await converse(home, "打开厨房灯", agent_id=AGENT)
    assert result.response.error_code is not None  # Home Assistant's "Error preparing LLM API"
    assert await home.config_entries.async_setup(loaded_entry.entry_id)
    await home.async_block_till_done()
    ollama.requests.clear()
    await converse(home, "打开厨房灯")
    assert "light.kitchen" in split_prompt(ollama.system_prompt())[1]


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
    [
        {
            "delegate_agent": AGENT,
            "embedding_backend": "openai",
            "embedding_base_url": "http://127.0.0.1:9/v1",
            "embedding_model": "m",
        }
    ],
)
async def test_with_the_embedding_endpoint_down_the_agent_still_gets_its_devices(agent, home, ollama):
    turn_on = async_mock_service(home, "light", "turn_on")
    ollama.scripts["打开厨房灯"] = ModelTurn([ToolCall("intent__HassTurnOn", {"name": "厨房灯"})])
    await converse(home, "打开厨房灯")
    _, devices = split_prompt(ollama.system_prompt(0))
    assert "light.kitchen" in devices
    assert "车库门" not in devices
    assert targets(turn_on) == ["light.kitchen"]


async def test_when_the_delegate_fails_the_agent_acts_on_its_own(
    agent, home: HomeAssistant, ollama, caplog: pytest.LogCaptureFixture
):
    turn_on = async_mock_service(home, "light", "turn_on")
    await ollama.close()  # the model server is gone
    result = await converse(home, "打开厨房灯")
    assert targets(turn_on) == ["light.kitchen"]
    assert result.response.response_type.value == "action_done"
    assert "厨房灯" in result.response.speech["plain"]["speech"]
    await converse(home, "打开厨房灯")
    assert (
        caplog.text.count("The delegate agent conversation.ollama_conversation failed") == 1
    )  # once an outage


async def test_a_delegate_without_the_api_raises_a_repair_issue(loaded_entry, home: HomeAssistant, ollama):
    agent_entry = await add_agent(home, ollama, [llm.LLM_API_ASSIST])
    await converse(home, "打开厨房灯")
    issue = ir.async_get(home).async_get_issue(DOMAIN, DELEGATE_WITHOUT_API)
    assert issue is not None
    assert issue.translation_placeholders == {"agent": "Ollama Conversation"}
    await select_only_our_api(home, agent_entry)
    await converse(home, "打开厨房灯")
    assert ir.async_get(home).async_get_issue(DOMAIN, DELEGATE_WITHOUT_API) is None
