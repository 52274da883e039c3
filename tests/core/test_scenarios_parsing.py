"""Seed scenarios of the parse step: utterance -> wire commands -> QueryIR (seed 004 语义解析)."""

from __future__ import annotations

from custom_components.context_retrieval.core import ConversationState, Quantifier, retrieve
from custom_components.context_retrieval.core.gating import category_for_type_hint
from custom_components.context_retrieval.core.parsing import command_to_ir, parse_offline

from .conftest import FakeLLM, cmd

ROOMS = ["客厅", "卧室", "厨房", "书房"]
NAMES = ["老伙计", "卧室灯", "主灯", "吊灯", "床头灯", "窗帘", "空调"]


def parse_both(home, text, answer):
    """Return the QueryIR read from a fake LLM's answer and from the offline parser."""
    (result,) = retrieve(text, home, FakeLLM({text: [answer]}), ConversationState())
    (offline,) = parse_offline(text, ROOMS, NAMES)
    return command_to_ir(result.command, text), command_to_ir(offline, text)


def test_action_and_name_are_parsed(home):
    for ir in parse_both(home, "打开老伙计", cmd("打开", n="老伙计")):
        assert ir.action == "打开"
        assert ir.name_hint == "老伙计"
        assert ir.raw == "打开老伙计"


def test_quantifier_and_included_room_are_parsed(home):
    answer = cmd("关闭", s="卧室", n="灯", t="light", q="all")
    for ir in parse_both(home, "关闭所有卧室的灯", answer):
        assert ir.action == "关闭"
        assert ir.quantifier is Quantifier.ALL
        assert ir.scope_include == {"卧室"}
        assert ir.scope_exclude == frozenset()
        assert category_for_type_hint(ir.type_hint) == "Light"


def test_exclusion_is_parsed(home):
    answer = cmd("打开", s="*,!卧室", n="灯", t="Light", q="except")
    for ir in parse_both(home, "打开除卧室以外的灯", answer):
        assert ir.quantifier is Quantifier.EXCEPT
        assert ir.scope_exclude == {"卧室"}
        assert ir.scope_include == frozenset()


def test_reference_is_parsed(home):
    for ir in parse_both(home, "打开那个", cmd("打开", n="@last")):
        assert ir.references == ("last-mentioned",)
        assert ir.name_hint is None


def test_one_llm_call_per_utterance_whatever_the_number_of_commands(home):
    text = "打开窗帘然后关闭空调再打开主灯"
    llm = FakeLLM(
        {
            text: [
                cmd("打开", n="窗帘", t="Blind"),
                cmd("关闭", n="空调", t="AirConditioner"),
                cmd("打开", n="主灯", t="Light"),
            ]
        }
    )
    results = retrieve(text, home, llm, ConversationState())
    assert len(llm.calls) == 1
    assert [result.candidates[0].entity_id for result in results] == ["blind-1", "ac-1", "lamp-3"]
