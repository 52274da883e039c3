"""Seed scenarios of the conversation state (seed 002 §1.3: 请求1/2/3, ~5 minutes)."""

from __future__ import annotations

from custom_components.context_retrieval.core import ConversationState, retrieve

from .conftest import FakeLLM, cmd


def run(home, state, text, command):
    (result,) = retrieve(text, home, FakeLLM({text: [command]}), state)
    return result


def test_three_request_dialogue_of_seed_002(home):
    state = ConversationState()
    first = run(home, state, "打开客厅灯", cmd("打开", s="客厅", n="主灯", t="Light"))
    assert first.candidates[0].entity_id == "lamp-3"
    assert state.last_mentioned() == ["lamp-3"]  # 请求1: state.update
    second = run(home, state, "调亮它", cmd("调亮", n="@last"))
    assert [c.entity_id for c in second.candidates] == ["lamp-3"]  # 请求2: 它 = lamp
    assert second.candidates[0].capability_id == "main-switchLevel-setLevel"
    assert second.meta["reference"] == "explicit"
    third = run(home, state, "关掉", cmd("关闭"))
    assert [c.entity_id for c in third.candidates] == ["lamp-3"]  # 请求3: implicit reference
    assert third.candidates[0].capability_id == "main-switch-off"
    assert third.meta["reference"] == "implicit"


def test_reference_resolves_within_five_minutes(home):
    now = [0.0]
    state = ConversationState(clock=lambda: now[0])
    run(home, state, "打开老伙计", cmd("打开", n="老伙计"))
    now[0] += 240
    result = run(home, state, "关掉它", cmd("关闭", n="@last"))
    assert [c.entity_id for c in result.candidates] == ["lamp-1"]
    now[0] += 300
    expired = run(home, state, "关掉它", cmd("关闭", n="@last"))
    assert expired.meta["reference_unresolved"] is True
