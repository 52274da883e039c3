"""SmartThings commands run from the LLM API's tool, for devices only SmartThings has."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from homeassistant.core import HomeAssistant

from custom_components.context_retrieval.core import CommandSpec
from custom_components.context_retrieval.core.smartthings import InvalidCommandError, smartthings_command
from custom_components.context_retrieval.llm_api import API_ID, SMARTTHINGS_COMMAND_TOOL
from demo.smartthings_replay import LOCATION, TOKEN, Failure, SmartThingsReplay

from .conftest import settle
from .ollama_server import FakeOllama, ModelTurn, ToolCall
from .test_llm_api import AGENT, add_agent, converse

pytestmark = pytest.mark.usefixtures("socket_enabled")
LEVEL = CommandSpec(
    "main-switchLevel-setLevel", "亮度", "integer", {"minimum": 0, "maximum": 100, "unit": "%"}
)
MODE = CommandSpec(
    "main-airConditionerMode-setAirConditionerMode",
    "空调模式",
    "string",
    value_list=[{"value": "cool", "description": "制冷"}, {"value": "dry", "description": "除湿"}],
)


def test_a_command_id_becomes_the_api_command():
    assert smartthings_command(CommandSpec("main-switch-on", "打开"), None) == {
        "component": "main",
        "capability": "switch",
        "command": "on",
        "arguments": [],
    }
    assert smartthings_command(LEVEL, 50)["arguments"] == [50]
    assert smartthings_command(MODE, "dry")["command"] == "setAirConditionerMode"


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        (LEVEL, 150, "from 0 to 100"),
        (LEVEL, "half", "takes a number"),
        (MODE, "heat", "takes one of"),
        (CommandSpec("main-switch-on", "打开"), 1, "takes no value"),
        (CommandSpec("main-switch", "电源", readable=True), None, "is not a command"),
    ],
)
def test_a_value_that_does_not_fit_is_refused(spec, value, message):
    with pytest.raises(InvalidCommandError, match=message):
        smartthings_command(spec, value)


@pytest.fixture
def capable_light(smartthings: SmartThingsReplay) -> None:
    """Give 灯带 (阳台) the capabilities the real API lists for each component."""
    for item in smartthings.devices:
        if item["deviceId"] == "device-light-010":
            item["components"] = copy.deepcopy(item["components"])
            item["components"][0]["capabilities"] = [{"id": "switch"}, {"id": "switchLevel"}]


@pytest.fixture
def entry_options(smartthings: SmartThingsReplay) -> dict[str, Any]:
    return {"smartthings_token": TOKEN, "smartthings_location_id": LOCATION, "delegate_agent": AGENT}


@pytest.fixture
async def ollama() -> FakeOllama:
    server = FakeOllama()
    yield server
    await server.close()


@pytest.fixture
async def agent(capable_light, loaded_entry, home: HomeAssistant, ollama: FakeOllama, smartthings):
    await home.async_block_till_done(wait_background_tasks=True)
    await settle(home)
    return await add_agent(home, ollama, [API_ID])


def level_call(value: Any, device: str = "device-light-010") -> ToolCall:
    return ToolCall(
        SMARTTHINGS_COMMAND_TOOL,
        {"device_id": device, "command_id": "main-switchLevel-setLevel", "value": value},
    )


async def test_the_agent_runs_a_listed_command_on_a_smartthings_device(agent, home, ollama, smartthings):
    ollama.scripts["把阳台的灯带调到50%"] = ModelTurn([level_call(50)])
    await converse(home, "把阳台的灯带调到50%")
    prompt = ollama.system_prompt(0)
    assert "device-light-010" in prompt
    assert "main-switchLevel-setLevel" in prompt
    assert SMARTTHINGS_COMMAND_TOOL in ollama.tool_names(0)
    answer = ollama.tool_results()[-1]
    assert answer["error"] is False
    assert smartthings.commands == [
        (
            "device-light-010",
            [{"component": "main", "capability": "switchLevel", "command": "setLevel", "arguments": [50]}],
        )
    ]


async def test_bad_commands_and_smartthings_errors_reach_the_model_as_data(agent, home, ollama, smartthings):
    ollama.scripts["把阳台的灯带调到150%"] = ModelTurn([level_call(150), level_call(50, "light.kitchen")])
    await converse(home, "把阳台的灯带调到150%")
    out_of_range, not_smartthings = ollama.tool_results()[-2:]
    assert "from 0 to 100" in out_of_range["data"]["error"]
    assert "no SmartThings device" in not_smartthings["data"]["error"]
    smartthings.failures = [Failure(409, '{"error": {"code": "ConflictError"}}')]
    ollama.scripts["把阳台的灯带调到60%"] = ModelTurn([level_call(60)])
    await converse(home, "把阳台的灯带调到60%")
    refused = ollama.tool_results()[-1]
    assert refused["error"] is True
    assert "SmartThings refused it" in refused["data"]["error"]
    assert smartthings.commands == []
