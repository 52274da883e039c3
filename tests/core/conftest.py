"""Shared fixtures of the engine tests: a small home and a fake LLM speaking the wire format."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from custom_components.context_retrieval.core.models import CommandSpec, Device, RetrievalResult
from custom_components.context_retrieval.core.pipeline import retrieve
from custom_components.context_retrieval.core.state import ConversationState

SHARED_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "smartthings"

ON = CommandSpec("main-switch-on", "电源启用")
OFF = CommandSpec("main-switch-off", "电源关闭")
LEVEL = CommandSpec(
    "main-switchLevel-setLevel", "调光器", "integer", {"minimum": 0, "maximum": 100, "unit": "%"}
)
SWITCH_STATE = CommandSpec(
    "main-switch", "电源", "string", value_list=[{"value": "on", "description": "开"}], readable=True
)
OPEN = CommandSpec("main-windowShade-open", "打开")
CLOSE = CommandSpec("main-windowShade-close", "关闭")
SHADE = CommandSpec("main-windowShadeLevel-setShadeLevel", "设置窗帘遮光等级", "integer")
COOL = CommandSpec("main-thermostatCoolingSetpoint-setCoolingSetpoint", "设置制冷设定点为特定温度值")
AC_MODE = CommandSpec(
    "main-airConditionerMode-setAirConditionerMode",
    "设置空调模式",
    "string",
    value_list=[{"value": "cooling", "description": "制冷"}, {"value": "heating", "description": "制热"}],
)
TEMPERATURE = CommandSpec("main-temperatureMeasurement-temperature", "读取温度", "number", readable=True)


class DistinctEmbedder:
    """Every distinct text gets its own axis: no command looks like any action."""

    def __init__(self) -> None:
        self.axes: dict[str, int] = {}

    def embed(self, texts):
        matrix = np.zeros((len(texts), 256), dtype=np.float32)
        for row, text in enumerate(texts):
            matrix[row, self.axes.setdefault(text, len(self.axes))] = 1.0
        return matrix


def light(device_id: str, name: str, room: str, *, dimmable: bool = True) -> Device:
    commands = [ON, OFF, SWITCH_STATE] + ([LEVEL] if dimmable else [])
    return Device(id=device_id, name=name, room=room, category="Light", commands=commands)


@pytest.fixture
def home() -> list[Device]:
    return [
        light("lamp-1", "老伙计", "客厅"),
        light("lamp-2", "卧室灯", "卧室"),
        light("lamp-3", "主灯", "客厅"),
        light("lamp-4", "吊灯", "厨房", dimmable=False),
        light("lamp-5", "床头灯", "卧室"),
        Device(id="blind-1", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE, SHADE]),
        Device(
            id="ac-1", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, COOL, AC_MODE]
        ),
        Device(id="thermo-1", name="温度计", room="客厅", category="Sensor", commands=[TEMPERATURE]),
        Device(id="fan-1", name="客厅风扇", room="", category="Fan", commands=[ON, OFF]),
        Device(id="plug-1", name="落地台灯", room="书房", category="SmartPlug", commands=[ON, OFF]),
    ]


@dataclass
class FakeLLM:
    """Answers each utterance with a preset command array (or any preset text)."""

    answers: dict[str, object]
    calls: list[tuple[str, str]] = field(default_factory=list)

    def complete(self, system_prompt: str, user_text: str) -> str:
        self.calls.append((system_prompt, user_text))
        answer = self.answers.get(user_text, "[]")
        return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def cmd(a: str, s: str = "*", n: str = "*", t: str = "Unknown", q: str = "one", **extra: object) -> dict:
    return {"a": a, "s": s, "n": n, "t": t, "q": q, **extra}


def run_commands(devices, text, *commands, state=None, top_k=5, index=None) -> list[RetrievalResult]:
    """Retrieve ``text`` with a fake LLM that parses it into ``commands``."""
    llm = FakeLLM({text: list(commands)})
    return retrieve(text, devices, llm, state or ConversationState(), top_k=top_k, vector_searcher=index)


def targets(result: RetrievalResult) -> list[str]:
    """Return the device ids a result points at, group members expanded, in rank order."""
    found: list[str] = []
    for candidate in result.candidates:
        if candidate.entity_kind == "group":
            found += result.groups[candidate.entity_id].device_ids
        else:
            found.append(candidate.entity_id)
    return found
