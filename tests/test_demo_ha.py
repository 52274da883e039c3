"""scripts/demo end to end: a real Home Assistant on the demo home, the integration added, the service asked.

The demo runs as a subprocess of the project's Python (it starts Home Assistant as its
own subprocess), so pytest-socket, which guards this process only, does not get in the way.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from demo.ha import DEFAULT_UTTERANCES, LLM_SETTINGS
from demo.layout import load_layout
from demo.replayed_home import CONFIG_SPEC_FILE, ReplayedHome
from demo.report import (
    changed_states,
    display_width,
    format_agent_reply,
    format_answer,
    format_change,
    format_command,
    format_delegate_prompt,
    format_prompt,
)
from tests.openai_server import FakeOpenAI, Reply

REPOSITORY = Path(__file__).resolve().parent.parent
SHARED_SMARTTHINGS = Path(__file__).resolve().parents[1] / "tests" / "data" / "smartthings"
DEMO_TIMEOUT = 240
"""Seconds the whole demo may take here (it takes well under 15 s)."""
CONVERSATION = ("打开客厅的灯", "把它们调到50%", "客厅温度多少", "打开那个灯")
"""The demo run's conversation: a room, 它, a question, and an unclear one the agent asks back about."""
BALCONY_STRIP = "打开阳台的灯带"
STUDY_AC = "把书房空调调到26度"


def run_demo(report: Path, *arguments: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run ``python -m demo --json REPORT ARGUMENTS`` offline; return the process and its JSON report."""
    env = {key: value for key, value in os.environ.items() if key not in LLM_SETTINGS.values()}
    process = subprocess.run(
        [sys.executable, "-m", "demo", "--json", str(report), *arguments],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    assert report.exists(), process.stdout + process.stderr
    return process, json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run the demo once on a short conversation."""
    return run_demo(tmp_path_factory.mktemp("demo") / "report.json", *CONVERSATION)


@pytest.fixture(scope="module")
def smartthings_demo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run the demo on the shared SmartThings dump (a path relative to the repository)."""
    dump = os.path.relpath(SHARED_SMARTTHINGS, REPOSITORY)
    report = tmp_path_factory.mktemp("demo-smartthings") / "report.json"
    return run_demo(report, "--smartthings-replay", dump, BALCONY_STRIP, STUDY_AC)


def test_demo_runs_home_assistant_end_to_end(demo_run):
    process, report = demo_run
    assert process.returncode == 0, process.stdout + process.stderr
    assert report["succeeded"] is True
    assert report["error"] is None
    assert report["ha_version"].startswith("2026.")
    assert report["entry_id"]
    assert report["ha_exit_code"] == 0
    assert set(report["phases"]) >= {
        "start Home Assistant",
        "onboard",
        "add Context Retrieval",
        "wait for the index",
        "utterances",
        "stop Home Assistant",
        "confirm HTTP settings",
        "tidy up onboarding",
        "Assist pipeline",
    }
    assert "add Context Retrieval: added through the config flow (offline parser)" in process.stdout
    # Home Assistant would otherwise revert the YAML's HTTP settings after 5 minutes, and restart.
    assert "confirm HTTP settings: 127.0.0.1 port " in process.stdout
    assert (
        "Assist pipeline: preferred pipeline 'Home Assistant' converses through "
        "conversation.context_retrieval in zh-Hans"
    ) in process.stdout


def test_demo_converses_with_the_agent_and_shows_what_changed(demo_run):
    process, report = demo_run
    turns = {answer["text"]: answer for answer in report["answers"]}
    assert list(turns) == list(CONVERSATION)
    agent_ids = {answer["agent"]["result"]["conversation_id"] for answer in report["answers"]}
    assert len(agent_ids) == 1  # one conversation, so 它 refers back
    # The living-room lights: the ceiling light and the strip start on, the floor lamp off.
    lit = {change["entity_id"]: change["to"] for change in turns["打开客厅的灯"]["agent"]["changes"]}
    assert lit == {"light.living_room_floor_lamp": "on"}
    dimmed = {change["entity_id"]: change for change in turns["把它们调到50%"]["agent"]["changes"]}
    assert set(dimmed) == {f"light.living_room_{name}" for name in ("ceiling", "floor_lamp", "strip")}
    assert dimmed["light.living_room_ceiling"]["attributes"]["brightness"] == [180, 128]
    question = turns["客厅温度多少"]["agent"]
    assert question["result"]["response"]["response_type"] == "query_answer"
    assert "24.5" in question["result"]["response"]["speech"]["plain"]["speech"]
    assert question["changes"] == []
    unclear = turns["打开那个灯"]["agent"]
    assert unclear["result"]["continue_conversation"] is True
    assert unclear["changes"] == []
    assert "agent conversation.context_retrieval (" in process.stdout
    assert "    changed light.living_room_ceiling: brightness 180 → 128" in process.stdout
    assert "asks back): " in process.stdout


def test_demo_service_answers_with_demo_entities(demo_run):
    process, report = demo_run
    demo_entities = set(load_layout().entity_ids())
    answer = report["answers"][0]
    assert answer["text"] == "打开客厅的灯"
    response = answer["response"]
    candidates = [candidate for result in response["results"] for candidate in result["candidates"]]
    assert candidates
    named = set()
    for candidate in candidates:
        named.update(candidate.get("device_ids") or [candidate["entity_id"]])
    assert named <= demo_entities
    assert {candidate.get("room") for candidate in candidates} == {"客厅"}
    assert response["yaml"]
    assert "» 打开客厅的灯" in process.stdout
    assert "light.living_room_ceiling" in process.stdout


def test_demo_prints_what_an_llm_agent_would_receive(demo_run):
    process, report = demo_run
    answer = report["answers"][0]
    agent = answer["agent_prompt"]
    assert "light.living_room_ceiling" in agent["prompt"]
    assert "车库门" not in agent["prompt"]
    assert agent["assist_size"]["characters"] > agent["size"]["characters"]
    assert "LLM agent prompt through Context Retrieval" in process.stdout
    assert "│ # 以下是与用户请求相关的设备信息" in process.stdout


@pytest.mark.usefixtures("socket_enabled")
async def test_demo_passes_the_llm_settings_to_the_config_flow(tmp_path):
    fake = FakeOpenAI([Reply(content='[{"a":"打开","s":"客厅","n":"灯","t":"Light","q":"all"}]')])
    base_url = await fake.start()
    report = tmp_path / "report.json"
    env = os.environ | {"LLM_BASE_URL": base_url, "LLM_API_KEY": "sk-demo", "LLM_MODEL": "demo-model"}
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "demo",
            "--json",
            str(report),
            "打开客厅的灯",
            cwd=REPOSITORY,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        async with asyncio.timeout(DEMO_TIMEOUT):
            output, _ = await process.communicate()
    finally:
        await fake.close()
    assert process.returncode == 0, output.decode()
    assert f"added through the config flow (LLM demo-model at {base_url})" in output.decode()
    [answer] = json.loads(report.read_text(encoding="utf-8"))["answers"]
    [result] = answer["response"]["results"]
    assert result["meta"]["parse"] == "llm"
    assert result["command"]["q"] == "all"
    # The flow checks the endpoint once; the demo's readiness probe and utterance parse through it.
    assert len(fake.requests) >= 2
    assert all(request["model"] == "demo-model" for request in fake.requests)


def test_demo_home_is_big_enough():
    layout = load_layout()
    domains = Counter(entity_id.partition(".")[0] for entity_id in layout.entity_ids())
    assert len(layout.entity_ids()) >= 60
    assert len(layout.areas()) >= 8
    assert len(layout.floors) == 2
    assert all(floor.aliases for floor in layout.floors)
    assert all(area.aliases for _, area in layout.areas())
    assert set(domains) >= {
        "light",
        "switch",
        "cover",
        "climate",
        "fan",
        "media_player",
        "lock",
        "sensor",
        "binary_sensor",
        "vacuum",
        "scene",
        "script",
    }
    device_classes = {placement.device_class for _, placement in layout.placements()}
    assert "outlet" in device_classes
    assert set(layout.initial_states()) <= set(layout.entity_ids())


def test_default_utterances_use_aliases_floors_and_names():
    layout = load_layout()
    aliases = {alias for _, area in layout.areas() for alias in area.aliases}
    floors = {floor.name for floor in layout.floors}
    assert len(DEFAULT_UTTERANCES) >= 8
    assert any(alias in text for text in DEFAULT_UTTERANCES for alias in aliases)
    assert any(floor in text for text in DEFAULT_UTTERANCES for floor in floors)
    assert any("它" in text for text in DEFAULT_UTTERANCES)


def test_answer_formatting_is_compact_and_aligned():
    answer = {
        "results": [
            {
                "command": {"a": "关闭", "s": "一楼", "n": "灯", "t": "Light", "q": "all"},
                "candidates": [
                    {
                        "entity_id": "group-1",
                        "kind": "group",
                        "name": "客厅、餐厅 Light ×4",
                        "room": None,
                        "capability_id": "light.turn_off",
                        "device_ids": ["light.a", "light.b", "light.c", "light.d"],
                        "score": 0.66,
                        "reasons": ["room_hit", "quantifier_all"],
                    },
                    {
                        "entity_id": "light.garage_light",
                        "kind": "device",
                        "name": "车库灯",
                        "room": "车库",
                        "capability_id": "light.turn_on",
                        "field": "brightness_pct",
                        "score": 0.5,
                        "reasons": [],
                    },
                ],
                "hint": None,
                "meta": {"parse": "offline"},
            }
        ],
        "yaml": "devices: []\n",
    }
    lines = format_answer("一楼的灯都关掉", answer, 0.0123)
    assert lines[0] == "» 一楼的灯都关掉   (12 ms)"
    assert lines[1] == "  command 1: a=关闭 s=一楼 n=灯 t=Light q=all   parse=offline hint=-"
    group, members, device = lines[2:5]
    assert members.strip() == "= light.a, light.b, light.c, +1"
    assert "车库灯 @车库" in device
    assert "light.turn_on:brightness_pct" in device
    assert display_width(group.split("light.turn_off")[0]) == display_width(device.split("light.turn_on")[0])
    assert lines[-1] == "  YAML context: 12 characters"
    assert format_command({}) == "(empty)"


async def test_demo_serve_keeps_home_assistant_running_until_interrupted(tmp_path):
    state = tmp_path / "state"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "demo",
        "--serve",
        "--state",
        str(state),
        cwd=REPOSITORY,
        env={key: value for key, value in os.environ.items() if key not in LLM_SETTINGS.values()},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    lines: list[str] = []
    try:
        async with asyncio.timeout(DEMO_TIMEOUT):
            while not any("Ctrl-C stops it." in line for line in lines):
                line = await process.stdout.readline()
                assert line, "".join(lines)
                lines.append(line.decode())
        process.send_signal(signal.SIGINT)
        async with asyncio.timeout(DEMO_TIMEOUT):
            rest, _ = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    output = "".join(lines) + rest.decode()
    assert process.returncode == 0, output
    assert "Home Assistant is running at http://127.0.0.1:" in output
    assert "log in as demo / demo-password" in output
    assert "stop Home Assistant: exit code 0" in output
    assert (state / "config" / ".storage" / "auth").exists()  # kept for the next run


def test_smartthings_replay_demo_runs_through_the_replay(smartthings_demo_run):
    process, report = smartthings_demo_run
    assert process.returncode == 0, process.stdout + process.stderr
    assert report["succeeded"] is True
    assert report["ha_exit_code"] == 0
    assert report["layout"].startswith("30 SmartThings devices in 5 rooms")
    assert "replay SmartThings" in report["phases"]
    assert "added through the config flow (offline parser, SmartThings replay)" in process.stdout
    smartthings = report["smartthings"]
    assert smartthings["spec"] == CONFIG_SPEC_FILE
    # The config flow's check is the first request: the API root was patched inside Home
    # Assistant's process, on the module it loaded, before the flow ran.
    assert smartthings["requests"][0] == "GET /v1/locations/location-1/rooms"
    assert "GET /v1/devices?locationId=location-1" in smartthings["requests"]
    assert "GET /v1/devices?locationId=location-1&page=4" in smartthings["requests"]  # every page
    assert smartthings["commands"] == []


def test_smartthings_replay_demo_finds_the_balcony_light_strip(smartthings_demo_run):
    process, report = smartthings_demo_run
    strip, ac = report["answers"]
    assert [strip["text"], ac["text"]] == [BALCONY_STRIP, STUDY_AC]
    [result] = strip["response"]["results"]
    top = result["candidates"][0]
    assert (top["entity_id"], top["capability_id"], top["room"]) == (
        "device-light-010",
        "main-switch-on",
        "阳台",
    )
    [result] = ac["response"]["results"]
    top = result["candidates"][0]
    assert top["entity_id"] == "device-ac-003"
    assert top["capability_id"] == "main-thermostatCoolingSetpoint-setCoolingSetpoint"
    # Only the replayed household is indexed: the bundled home's entities stay unexposed.
    ids = {
        c["entity_id"]
        for answer in report["answers"]
        for r in answer["response"]["results"]
        for c in r["candidates"]
    }
    assert all("." not in entity_id for entity_id in ids)
    assert "SmartThings device ids (not Home Assistant entity ids)" in process.stdout
    assert "device-light-010  灯带 @阳台  main-switch-on" in process.stdout


def test_smartthings_replay_demo_prompt_lists_spec_commands(smartthings_demo_run):
    process, report = smartthings_demo_run
    strip, ac = (answer["agent_prompt"] for answer in report["answers"])
    assert "id: device-light-010" in strip["prompt"]
    assert "id: main-switch-on\n    description: 电源启用" in strip["prompt"]
    assert "context_retrieval__SmartThingsCommand" in strip["tools"]
    assert "description: 设置制冷设定点为特定温度值" in ac["prompt"]
    assert "value_range:\n      minimum: 16\n      maximum: 30" in ac["prompt"]
    assert "│     description: 电源启用" in process.stdout
    assert "Assist cannot see these devices" in process.stdout
    assert "SmartThings replay: 7 requests answered, 0 commands" in process.stdout


def test_replayed_home_samples_labelled_queries_else_device_names(tmp_path):
    labelled = ReplayedHome.from_dump(SHARED_SMARTTHINGS)
    assert len(labelled.samples) == len(set(labelled.samples)) == 8
    assert labelled.samples[0] == "打开客厅主灯"  # spread over pipeline_cases.jsonl, first case first
    for name in ("devices.jsonl", "rooms.jsonl"):
        shutil.copyfile(SHARED_SMARTTHINGS / name, tmp_path / name)
    bare = ReplayedHome.from_dump(tmp_path)
    assert bare.samples[:3] == ["打开客厅的主灯", "打开客厅的窗帘", "打开客厅的空调"]  # one per category
    assert len(bare.samples) == 8
    assert bare.install_spec(tmp_path) is None
    assert set(bare.flow_settings(None)) == {"smartthings_token", "smartthings_location_id"}
    assert labelled.install_spec(tmp_path) == CONFIG_SPEC_FILE
    assert (tmp_path / CONFIG_SPEC_FILE).read_bytes() == (SHARED_SMARTTHINGS / "spec.jsonl").read_bytes()
    assert labelled.flow_settings(CONFIG_SPEC_FILE)["smartthings_spec"] == CONFIG_SPEC_FILE
    (tmp_path / "devices.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="no named device"):
        ReplayedHome.from_dump(tmp_path)


def test_changed_states_show_state_and_meaningful_attributes():
    before = {
        "light.a": {"state": "off", "attributes": {"friendly_name": "A"}},
        "light.b": {"state": "on", "attributes": {"brightness": 180, "color_mode": "brightness"}},
        "light.c": {"state": "on", "attributes": {"brightness": 90, "color_mode": "brightness"}},
        "sensor.t": {"state": "24.5", "attributes": {}},
        "conversation.context_retrieval": {"state": "2026-11-24T10:00:00", "attributes": {}},
    }
    after = {
        "light.a": {"state": "on", "attributes": {"friendly_name": "A", "brightness": 255}},
        "light.b": {"state": "on", "attributes": {"brightness": 128, "color_mode": "brightness"}},
        "light.c": {"state": "off", "attributes": {"brightness": None, "color_mode": None}},
        "sensor.t": {"state": "24.5", "attributes": {}},
        "conversation.context_retrieval": {"state": "2026-11-24T10:00:01", "attributes": {}},
    }
    changes = changed_states(before, after)
    assert [change["entity_id"] for change in changes] == ["light.a", "light.b", "light.c"]
    assert [format_change(change) for change in changes] == [
        "light.a: off → on, brightness 255",
        "light.b: brightness 180 → 128",
        "light.c: on → off",
    ]
    result = {
        "response": {"speech": {"plain": {"speech": "哪一个？"}}, "response_type": "action_done"},
        "continue_conversation": True,
    }
    assert format_agent_reply("conversation.x", result, [], 0.012) == [
        "  agent conversation.x (12 ms, action_done, asks back): 哪一个？",
        "    (no state changed)",
    ]


def test_delegate_prompt_is_shown_short():
    request = "\n".join(f"line {number}" for number in range(15))
    agent = {
        "prompt": f"static\n{request}",
        "static_prompt": "static",
        "request_prompt": request,
        "tools": ["a", "b"],
        "size": {"characters": 200, "tokens": 50},
        "assist_size": {"characters": 100, "tokens": 25},
    }
    lines = format_delegate_prompt(agent)
    assert "2.0x larger): the static prompt (6 characters, the same every turn)" in lines[0]
    assert lines[1:-2] == [f"    │ line {number}" for number in range(10)]
    assert lines[-2:] == ["    │ … 5 more lines", "  its tools: 2"]


def test_prompt_without_assist_comparison_for_smartthings_devices():
    agent = {
        "prompt": "devices: []",
        "tools": ["context_retrieval__SmartThingsCommand"],
        "size": {"characters": 11, "tokens": 3},
        "assist_size": {"characters": 116, "tokens": 29},
    }
    compared = format_prompt(agent)
    alone = format_prompt(agent, compare_with_assist=False)
    assert "10.5x smaller" in compared[0]
    assert alone[0].endswith(
        "~3 tokens (Assist cannot see these devices: they are not Home Assistant entities)"
    )
    assert (
        alone[1:]
        == compared[1:]
        == ["    │ devices: []", "  its tools: context_retrieval__SmartThingsCommand"]
    )
