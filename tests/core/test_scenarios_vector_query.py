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
    assert query.text == "设置摆风"
    assert query.fallback_reason is None


def test_a_value_that_is_not_on_or_off_is_kept():
    assert vector_query_for(ir("风扇调成自然风", "设置风模式=自然风")).text == "设置风模式 自然风"


def test_switching_oscillation_on_chooses_the_oscillation_command(home):
    fan = Device(id="fan-2", name="卧室风扇", room="卧室", category="Fan", commands=[ON, OFF, OSCILLATION])
    (result,) = run([*home, fan], "把卧室风扇设置为摆风", cmd("设置摆风=开启", s="卧室", n="风扇", t="Fan"))
    assert result.meta["vector_query"] == "设置摆风"
    assert result.candidates[0].entity_id == "fan-2"
    assert result.candidates[0].capability_id == OSCILLATION.id
