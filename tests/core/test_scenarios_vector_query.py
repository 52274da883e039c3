"""Vector query text: an on/off value does not steer the embedded action (our refinement)."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.fusion import vector_query_for
from custom_components.context_retrieval.core.models import CommandSpec, Device, QueryIR

from .conftest import OFF, ON, cmd
from .conftest import run_commands as run

OSCILLATION = CommandSpec(
    "main-fanOscillationMode-setFanOscillationMode",
    "风扇摆动模式",
    "string",
    value_list=[{"value": "swing", "description": "摇摆"}, {"value": "fixed", "description": "固定"}],
)


def ir(raw: str, action: str) -> QueryIR:
    return QueryIR(raw=raw, action=action, name_hint="风扇", type_hint="Fan")


@pytest.mark.parametrize("value", ["开启", "开", "打开", "关闭", "关"])
def test_on_off_value_is_dropped_from_the_vector_query(value):
    query = vector_query_for(ir("把卧室风扇设置为摆风", f"设置摆风={value}"))
    assert "摆风" in query.text
    assert value not in query.text
    assert query.fallback_reason is None


def test_a_value_that_is_not_on_or_off_is_kept():
    assert "自然风" in vector_query_for(ir("风扇调成自然风", "设置风模式=自然风")).text


def test_switching_oscillation_on_chooses_the_oscillation_command(home):
    fan = Device(id="fan-2", name="卧室风扇", room="卧室", category="Fan", commands=[ON, OFF, OSCILLATION])
    (result,) = run([*home, fan], "把卧室风扇设置为摆风", cmd("设置摆风=开启", s="卧室", n="风扇", t="Fan"))
    assert "摆风" in result.meta["vector_query"]
    assert "开启" not in result.meta["vector_query"]
    assert result.candidates[0].entity_id == "fan-2"
    assert result.candidates[0].capability_id == OSCILLATION.id


def test_shared_setter_verbs_are_dropped_from_the_vector_query():
    assert vector_query_for(ir("把亮度调到50%", "设置亮度=50%")).text == "亮度"
    assert vector_query_for(ir("设置", "设置")).text == "设置"  # nothing would be left


def test_question_leaves_the_devices_name_and_room_out_of_the_utterance():
    query = vector_query_for(
        QueryIR(raw="厨房烟雾报警器电池还有多少", action="查询电量", name_hint="烟雾报警器", type_hint=None,
                scope_include=frozenset({"厨房"}))
    )  # fmt: skip
    assert "烟雾" not in query.text
    assert "厨房" not in query.text
    assert query.text.startswith("电量")
    assert query.is_question
