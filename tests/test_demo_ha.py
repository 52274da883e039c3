"""scripts/demo end to end: a real Home Assistant on the demo home, the integration added, the service asked.

The demo runs as a subprocess of the project's Python (it starts Home Assistant as its
own subprocess), so pytest-socket, which guards this process only, does not get in the way.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from demo.ha import DEFAULT_UTTERANCES, LLM_SETTINGS
from demo.layout import load_layout
from demo.report import display_width, format_answer, format_command
from tests.openai_server import FakeOpenAI, Reply

REPOSITORY = Path(__file__).resolve().parent.parent
DEMO_TIMEOUT = 240
"""Seconds the whole demo may take here (it takes well under 15 s)."""


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run ``python -m demo`` once, offline, with one utterance; return the process and its JSON report."""
    report = tmp_path_factory.mktemp("demo") / "report.json"
    env = {key: value for key, value in os.environ.items() if key not in LLM_SETTINGS.values()}
    process = subprocess.run(
        [sys.executable, "-m", "demo", "--json", str(report), "打开客厅的灯"],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    assert report.exists(), process.stdout + process.stderr
    return process, json.loads(report.read_text(encoding="utf-8"))


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
    }
    assert "add Context Retrieval: added through the config flow (offline parser)" in process.stdout


def test_demo_service_answers_with_demo_entities(demo_run):
    process, report = demo_run
    demo_entities = set(load_layout().entity_ids())
    [answer] = report["answers"]
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
    [answer] = report["answers"]
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
