"""End-to-end retrieval on a small home through ``retrieve`` (seeds 001-004)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from custom_components.context_retrieval.core import bulk
from custom_components.context_retrieval.core.decision import Outcome, decide
from custom_components.context_retrieval.core.embedding import LocalNgramEmbedder
from custom_components.context_retrieval.core.models import CommandSpec, Device, Room
from custom_components.context_retrieval.core.pipeline import build_vector_searcher, retrieve
from custom_components.context_retrieval.core.state import ConversationState

from .conftest import (
    CLOSE,
    COOL,
    LEVEL,
    OFF,
    ON,
    OPEN,
    SHADE,
    TEMPERATURE,
    DistinctEmbedder,
    FakeLLM,
    cmd,
    light,
)
from .conftest import run_commands as run
from .conftest import targets as members


def ids(result):
    return [candidate.entity_id for candidate in result.candidates]


def by_id(home):
    return {device.id: device for device in home}


# --- seed 004: recall by type/room/name -------------------------------------------------


def test_exact_name_ranks_first_with_name_hit(home):
    (result,) = run(home, "打开老伙计", cmd("打开", n="老伙计"))
    assert ids(result)[0] == "lamp-1"
    assert "name_hit" in result.candidates[0].reasons
    assert result.candidates[0].capability_id == "main-switch-on"


def test_traditional_characters_find_simplified_names_and_back(home):
    (offline,) = retrieve("打開客廳的老夥計", home, None, ConversationState())
    assert ids(offline)[0] == "lamp-1"
    named = [*home, light("lamp-9", "書房檯燈", "書房")]
    (result,) = retrieve("打开书房台灯", named, None, ConversationState())
    assert ids(result)[0] == "lamp-9"


def test_room_and_type_return_only_that_rooms_lights(home):
    (result,) = run(home, "打开卧室的灯", cmd("打开", s="卧室", n="灯", t="Light", q="one"))
    assert set(ids(result)) == {"lamp-2", "lamp-5"}
    for candidate in result.candidates:
        assert {"room_hit", "type_hit"} <= set(candidate.reasons)


def test_device_without_matching_command_is_filtered(home):
    # 温度计 only reads temperature: it can't be switched on.
    (result,) = run(home, "打开客厅的设备", cmd("打开", s="客厅"))
    assert "thermo-1" not in ids(result)
    assert result.candidates


def test_question_retrieves_the_readable_attribute(home):
    (result,) = run(home, "客厅温度多少", cmd("查询温度", s="客厅", n="温度计", t="Sensor"))
    assert ids(result) == ["thermo-1"]
    assert result.candidates[0].capability_id == "main-temperatureMeasurement-temperature"


# --- seed 001: category gating and hybrid weights -----------------------------------------


def test_type_hint_gates_to_the_category(home):
    (result,) = run(home, "打开灯", cmd("打开", n="灯", t="Light"))
    assert {by_id(home)[i].category for i in ids(result)} == {"Light"}
    assert result.meta["gating"] == "Light"
    assert result.meta["weights"] == {"keyword": 1.0, "vector": 0.5}


@pytest.mark.parametrize("type_hint", ["UnknownCategory", "Unknown", ""])
def test_invalid_or_unknown_type_skips_gating_and_favours_keywords(home, type_hint):
    (result,) = run(home, "打开落地台灯", cmd("打开", n="落地台灯", t=type_hint))
    assert result.meta["gating"] is None
    assert result.meta["weights"] == {"keyword": 1.5, "vector": 0.2}
    assert ids(result)[0] == "plug-1"


def test_missing_type_hint_skips_gating(home):
    (result,) = run(home, "打开老伙计", {"a": "打开", "n": "老伙计"})
    assert result.meta["gating"] is None
    assert ids(result)[0] == "lamp-1"


def test_scope_exclude_removes_devices_before_recall(home):
    (result,) = run(home, "打开客厅以外的灯", cmd("打开", s="*,!客厅", n="灯", t="Light"))
    assert not {"lamp-1", "lamp-3"} & set(ids(result))


def test_room_match_is_scored_and_named_room_devices_are_kept(home):
    # seed 001 + 003: 客厅风扇 has no room, its name says 客厅.
    (result,) = run(home, "打开客厅风扇", cmd("打开", s="客厅", n="风扇", t="Fan"))
    assert ids(result) == ["fan-1"]
    assert "room_hit" in result.candidates[0].reasons
    assert result.meta["room_name_used"] >= 1


def test_include_falls_back_when_no_device_is_in_the_room(home):
    (result,) = run(home, "打开书房的老伙计", cmd("打开", s="阁楼", n="老伙计"))
    assert ids(result)[0] == "lamp-1"
    assert result.meta["scope_include_fallback"] == 1
    assert result.meta["room_unknown_terms"] == ["阁楼"]


# --- seed 001 / 004: vector query text -----------------------------------------------------


def test_chinese_action_is_the_vector_query(home):
    (result,) = run(home, "打开客厅的灯", cmd("打开", s="客厅", n="灯", t="Light", q="all"))
    assert result.meta["vector_query"] == "打开"
    assert "vector_query_fallback" not in result.meta


def test_english_action_falls_back_to_raw_text_with_a_debug_log(home, caplog):
    caplog.set_level(logging.DEBUG, logger="custom_components.context_retrieval.core.fusion")
    (result,) = run(home, "打开老伙计", cmd("turn on", n="老伙计"))
    assert result.meta["vector_query"] == "打开老伙计"
    assert result.meta["vector_query_fallback"] == "non_chinese_action"
    assert "turn on" in caplog.text
    assert ids(result)[0] == "lamp-1"


def test_empty_action_falls_back_to_raw_text(home, caplog):
    caplog.set_level(logging.DEBUG, logger="custom_components.context_retrieval.core.fusion")
    (result,) = run(home, "打开老伙计", cmd("", n="老伙计"))
    assert "No action parsed" in caplog.text
    assert result.meta["vector_query"] == "打开老伙计"
    assert result.meta["vector_query_fallback"] == "empty_action"


def test_value_description_reaches_the_mode_command(home):
    # seed 001: 空调制冷 recalls 设置空调模式 (制冷 is one of its values).
    (result,) = run(home, "空调制冷", cmd("设置模式=制冷", n="空调", t="AirConditioner"))
    assert result.candidates[0].capability_id == "main-airConditionerMode-setAirConditionerMode"


def test_brightness_ranks_set_level_above_switch_on(home):
    (result,) = run(home, "调亮度", cmd("调亮度", n="老伙计"))
    assert result.candidates[0].capability_id == "main-switchLevel-setLevel"


# --- seed 001: output bounds and validity ---------------------------------------------------


def test_default_top_k_is_five_and_candidates_reference_real_commands(home):
    (result,) = run(home, "打开", cmd("打开"))
    assert 0 < len(result.candidates) <= 5
    devices = by_id(home)
    for candidate in result.candidates:
        assert candidate.entity_kind == "device"
        assert candidate.capability_id in {c.id for c in devices[candidate.entity_id].commands}


def test_top_k_is_respected(home):
    (result,) = run(home, "打开灯", cmd("打开", n="灯", t="Light"), top_k=2)
    assert len(result.candidates) == 2


def test_all_returns_groups_covering_every_target(home):
    (result,) = run(home, "打开所有灯", cmd("打开", n="灯", t="Light", q="all"), top_k=1)
    # 落地台灯, a lamp on a smart plug, is one of the lights: its name ends with 灯.
    lights = {d.id for d in home if d.category == "Light"} | {"plug-1"}
    assert set(members(result)) == lights
    assert all(candidate.entity_kind == "group" for candidate in result.candidates)


def test_except_returns_groups_of_everything_outside_the_room(home):
    (result,) = run(home, "除了客厅都关掉", cmd("关闭", s="*,!客厅", n="灯", t="Light", q="except"))
    expected = {d.id for d in home if d.category == "Light" and d.room != "客厅"} | {"plug-1"}
    assert set(members(result)) == expected


def test_everything_of_a_room_said_as_things_switches_all_that_switches(home):
    """客厅的东西全部关掉: the lights, the air conditioner, not the curtain (it closes); 客厅全部关掉 asks."""
    (things,) = run(home, "客厅的东西全部关掉", cmd("关闭", s="客厅", q="all"))
    (bare,) = run(home, "客厅全部关掉", cmd("关闭", s="客厅", q="all"))
    decision = decide([things], by_id(home), "客厅的东西全部关掉")
    switched = {d for action in decision.actions for d in action.device_ids}
    assert {"lamp-1", "lamp-3", "ac-1"} <= switched
    assert "blind-1" not in switched
    assert decide([bare], by_id(home), "客厅全部关掉").outcome is Outcome.ASK


def test_a_set_leaving_out_a_room_with_none_of_it_is_a_guess(home):
    """空调除了卧室都关掉, no air conditioner in the bedroom: the user thinks one is there; ask, don't act."""
    (guess,) = run(
        home, "空调除了卧室都关掉", cmd("关闭", s="*,!卧室", n="空调", t="AirConditioner", q="except")
    )
    (lights,) = run(home, "灯除了卧室都关掉", cmd("关闭", s="*,!卧室", n="灯", t="Light", q="except"))
    assert guess.meta["exclusion_unmatched"] == ["卧室"]
    assert decide([guess], by_id(home), "空调除了卧室都关掉").outcome is Outcome.ASK
    assert "exclusion_unmatched" not in lights.meta


def test_a_room_said_earlier_picks_among_the_devices_called_exactly_what_was_said(home):
    """打开卧室灯和床头灯 where 床头灯 is the living room's: that one, not a light of the bedroom."""
    named = [*home, light("lamp-9", "阅读灯", "书房")]
    _, reading = run(
        named,
        "打开卧室灯和阅读灯",
        cmd("打开", s="卧室", n="灯", t="Light"),
        cmd("打开", n="阅读灯", t="Light"),
    )
    _, kind = run(
        named, "打开卧室灯和灯", cmd("打开", s="卧室", n="灯", t="Light"), cmd("打开", n="灯", t="Light")
    )
    assert ids(reading)[0] == "lamp-9"
    assert ids(kind)[0] in {"lamp-2", "lamp-5"}  # no name: the room said earlier


def test_groups_are_formed_by_the_chosen_command_valid_for_every_member(home):
    (result,) = run(home, "把所有灯打开", cmd("打开", n="灯", t="Light", q="all"))
    devices = by_id(home)
    (group,) = result.groups.values()  # 吊灯 cannot dim, but switches on like the others
    assert set(group.device_ids) == {d.id for d in home if d.category == "Light"} | {"plug-1"}
    assert group.capability_id == "main-switch-on"
    assert all(group.capability_id in {c.id for c in devices[i].commands} for i in group.device_ids)
    assert group.name == "客厅、卧室、厨房…的灯、插座 (6)"


def test_members_that_need_another_command_form_their_own_group():
    home = [
        light("l-1", "主灯", "客厅"),
        Device(id="p-1", name="台灯插座", room="客厅", category="SmartPlug", commands=[ON, OFF]),
        Device(id="b-1", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(home, "客厅的都关掉", cmd("关闭", s="客厅", n="*", q="all"))
    by_command = {group.capability_id: set(group.device_ids) for group in result.groups.values()}
    assert by_command == {"main-switch-off": {"l-1", "p-1"}, "main-windowShade-close": {"b-1"}}
    names = [group.name for group in result.groups.values()]
    assert names == ["客厅的灯、插座 (2)", "客厅窗帘"]


def test_bulk_set_level_leaves_out_devices_that_cannot_do_it(home):
    (result,) = run(home, "把所有灯调到50%", cmd("设置亮度=50%", n="灯", t="Light", q="all"))
    assert "lamp-4" not in members(result)
    assert result.meta["unsupported_targets"] == 2  # lamp-4 and the plug of 落地台灯
    assert {c.capability_id for c in result.candidates} == {"main-switchLevel-setLevel"}


def test_bulk_with_a_specific_name_targets_that_name_only(home):
    (result,) = run(home, "打开所有床头灯", cmd("打开", n="床头灯", t="Light", q="all"))
    assert members(result) == ["lamp-5"]


def test_set_explosion_is_bounded_with_a_hint(monkeypatch):
    many = [light(f"lamp-{i}", f"灯{i}", f"房间{i % 7}", dimmable=i % 3 == 0) for i in range(40)]
    monkeypatch.setattr(bulk, "MAX_BULK_TARGETS", 10)
    (result,) = run(many, "打开所有灯", cmd("打开", n="灯", t="Light", q="all"))
    assert result.hint == "too_many_targets"
    assert len(members(result)) == 10
    assert len(result.candidates) <= bulk.MAX_GROUPS
    assert result.meta["targets"] == 40


def test_group_ids_are_unique_across_the_commands_of_one_utterance(home):
    first, second = run(
        home,
        "打开所有灯然后关闭所有窗帘",
        cmd("打开", n="灯", t="Light", q="all"),
        cmd("关闭", n="窗帘", t="Blind", q="all"),
    )
    assert not set(first.groups) & set(second.groups)


def test_any_with_count_returns_that_many(home):
    (result,) = run(home, "打开两盏灯", cmd("打开", n="灯", t="Light", q="any", c=2))
    assert len(result.candidates) == 2


# --- seed 002: hint and conversation state --------------------------------------------------


def test_close_scores_give_a_hint(home):
    (result,) = run(home, "打开卧室的灯", cmd("打开", s="卧室", n="灯", t="Light"))
    assert result.hint == "multiple_close_matches"


def test_clear_winner_has_no_hint(home):
    (result,) = run(home, "打开老伙计", cmd("打开", n="老伙计", t="Light"))
    assert result.hint is None


def test_pronoun_and_bare_follow_up_resolve_to_the_last_device(home):
    state = ConversationState()
    run(home, "打开老伙计", cmd("打开", n="老伙计"), state=state)
    (second,) = run(home, "调亮它", cmd("设置亮度=80%", n="@last"), state=state)
    assert ids(second) == ["lamp-1"]
    assert second.candidates[0].capability_id == "main-switchLevel-setLevel"
    assert "last_mentioned" in second.candidates[0].reasons
    (third,) = run(home, "关掉", cmd("关闭"), state=state)
    assert ids(third) == ["lamp-1"]
    assert third.candidates[0].capability_id == "main-switch-off"


def test_a_bare_command_after_a_question_answered_of_several_says_so(home):
    """关掉 after 卧室的灯开着吗 read both lamps: the result says those answered of the room said."""
    state = ConversationState()
    run(home, "卧室的灯开着吗", cmd("查询状态", s="卧室", n="灯", t="Light"), state=state)
    (after_question,) = run(home, "关掉", cmd("关闭"), state=state)
    assert set(members(after_question)) == {"lamp-2", "lamp-5"}
    assert after_question.meta.get("reference_answered") is True
    state = ConversationState()
    run(home, "打开卧室的灯", cmd("打开", s="卧室", n="灯", t="Light"), state=state)
    (after_command,) = run(home, "关掉", cmd("关闭"), state=state)
    assert "reference_answered" not in after_command.meta
    state = ConversationState()  # 我房间的灯开着吗, no room found: the lamps answered are a guess
    run(home, "我房间的灯开着吗", cmd("查询状态", n="灯", t="Light"), state=state)
    (after_guess,) = run(home, "关掉", cmd("关闭"), state=state)
    assert "reference_answered" not in after_guess.meta


def test_a_kind_said_after_an_appliance_is_its_part_of_that_kind():
    """好太太放下来, 灯也开开: the airer's own light, not every light of the home; 都 says every one."""
    cover_close = CommandSpec("cover.close_cover", "关闭晾衣架")
    light_on = CommandSpec("light.turn_on", "打开灯")
    home = [
        Device(
            id="airer", name="好太太", room="阳台", category="Blind", commands=[cover_close], part_of="d1"
        ),
        Device(
            id="airer_light", name="照明灯", room="阳台", category="Light", commands=[light_on], part_of="d1"
        ),
        Device(id="lamp", name="台灯", room="书房", category="Light", commands=[light_on], part_of="d2"),
        Device(id="main", name="主灯", room="客厅", category="Light", commands=[light_on]),
    ]
    state = ConversationState()
    run(home, "好太太放下来", cmd("关闭", n="好太太"), state=state)
    (light,) = run(home, "灯也开开", cmd("打开", n="灯", t="Light", q="all"), state=state)
    assert members(light) == ["airer_light"]
    assert "part_of_last" in light.candidates[0].reasons
    (every,) = run(home, "灯都开开", cmd("打开", n="灯", t="Light", q="all"), state=state)
    assert set(members(every)) == {"airer_light", "lamp", "main"}


def test_pronoun_after_a_group_targets_the_whole_group(home):
    state = ConversationState()
    run(home, "打开卧室的灯", cmd("打开", s="卧室", n="灯", t="Light", q="all"), state=state)
    (result,) = run(home, "把它们关掉", cmd("关闭", n="@last"), state=state)
    assert set(members(result)) == {"lamp-2", "lamp-5"}


def test_expired_state_does_not_resolve(home):
    now = [0.0]
    state = ConversationState(clock=lambda: now[0])
    run(home, "打开老伙计", cmd("打开", n="老伙计"), state=state)
    now[0] += 301
    (result,) = run(home, "关掉它", cmd("关闭", n="@last"), state=state)
    assert result.meta.get("reference_unresolved") is True


def test_later_command_of_one_utterance_refers_to_an_earlier_one(home):
    first, second = run(
        home, "打开老伙计然后把它调到50%", cmd("打开", n="老伙计"), cmd("设置亮度=50%", n="@last")
    )
    assert ids(first) == ids(second) == ["lamp-1"]


# --- seed 003: command array, degradation, index reuse --------------------------------------


def test_one_result_per_command_in_order(home):
    results = run(
        home,
        "打开窗帘然后关闭空调",
        cmd("打开", n="窗帘", t="Blind"),
        cmd("关闭", n="空调", t="AirConditioner"),
    )
    assert [r.command.a for r in results] == ["打开", "关闭"]
    assert ids(results[0])[0] == "blind-1"
    assert results[0].candidates[0].capability_id == "main-windowShade-open"
    assert ids(results[1])[0] == "ac-1"
    assert results[1].candidates[0].capability_id == "main-switch-off"


@pytest.mark.parametrize("answer", ["I cannot help", '[{"a": 1}]', "[", "[]", "{}"])
def test_bad_llm_output_degrades_to_unknown_and_raw_text(home, answer):
    llm = FakeLLM({"打开老伙计": answer})
    (result,) = retrieve("打开老伙计", home, llm, ConversationState())
    assert result.command.a == "UNKNOWN"
    assert result.meta["parse"] == "degraded"
    assert result.meta["fallback"] == "raw_text"
    assert ids(result)[0] == "lamp-1"


@pytest.mark.parametrize("escaped", ["\\udfff老伙计", "老伙计\\ud800", "老\\ud83d伙计"])
def test_lone_surrogates_in_llm_output_are_dropped(home, escaped):
    # JSON escapes may decode to lone surrogates, which cannot be encoded as UTF-8.
    llm = FakeLLM({"打开老伙计": '[{"a": "打开", "n": "' + escaped + '"}]'})
    (result,) = retrieve("打开老伙计", home, llm, ConversationState())
    assert result.command.n == "老伙计"
    assert ids(result)[0] == "lamp-1"


def test_llm_exception_uses_the_offline_parser(home):
    class Broken:
        def complete(self, _system_prompt, _user_text):
            raise ConnectionError("down")

    (result,) = retrieve("打开老伙计", home, Broken(), ConversationState())
    assert result.meta["parse"] == "offline"
    assert result.meta["llm_error"] == "ConnectionError"
    assert ids(result)[0] == "lamp-1"


def test_no_llm_uses_the_offline_parser(home):
    results = retrieve("打开卧室的灯", home, None, ConversationState())
    assert results[0].meta["parse"] == "offline"
    assert set(members(results[0])) == {"lamp-2", "lamp-5"}


@pytest.mark.parametrize("text", ["", "   ", "😀😀", "a" * 5000, "\x00\n\t"])
def test_odd_text_and_empty_homes_never_raise(home, text):
    for devices in (home, []):
        results = retrieve(text, devices, None, ConversationState())
        assert len(results) >= 1


def test_system_prompt_lists_the_homes_rooms(home):
    llm = FakeLLM({"打开老伙计": [cmd("打开", n="老伙计")]})
    retrieve("打开老伙计", home, llm, ConversationState())
    system_prompt, user_text = llm.calls[0]
    assert user_text == "打开老伙计"
    for room in ("客厅", "卧室", "厨房", "书房"):
        assert room in system_prompt


class CountingEmbedder:
    def __init__(self):
        self.inner = LocalNgramEmbedder()
        self.batches: list[int] = []

    def embed(self, texts):
        self.batches.append(len(texts))
        return self.inner.embed(texts)


def test_index_is_built_once_and_reused_across_commands_and_calls(home):
    embedder = CountingEmbedder()
    index = build_vector_searcher(home, embedder=embedder)
    documents = embedder.batches[0]
    assert documents < sum(len(d.commands) for d in home)  # identical documents embedded once
    for _ in range(3):
        run(home, "打开窗帘然后关闭空调", cmd("打开", n="窗帘"), cmd("关闭", n="空调"), index=index)
    assert embedder.batches[1:] == [1] * 6  # one query embedding per command, no rebuild


def test_an_index_for_other_devices_is_not_used(home, caplog):
    index = build_vector_searcher(home[:2])
    with caplog.at_level(logging.WARNING):
        (result,) = run(home, "打开窗帘", cmd("打开", n="窗帘", t="Blind"), index=index)
    assert ids(result) == ["blind-1"]
    assert "built for other devices" in caplog.text


def test_devices_without_specs_are_indexed_by_name(home, caplog):
    bare = [*home, Device(id="x-1", name="小白", room="客厅", category="RobotCleaner")]
    with caplog.at_level(logging.WARNING):
        index = build_vector_searcher(bare)
    assert "no command spec" in caplog.text
    (result,) = run(bare, "小白", cmd("UNKNOWN"), index=index)
    assert ids(result)[0] == "x-1"
    assert result.candidates[0].capability_id is None


def test_candidate_scores_are_finite_and_sorted(home):
    (result,) = run(home, "打开", cmd("打开"))
    totals = [c.total_score for c in result.candidates]
    assert totals == sorted(totals, reverse=True)
    assert np.isfinite(totals).all()


def test_bad_llm_output_still_reads_quantifiers_from_the_raw_text(home):
    llm = FakeLLM({"把所有灯都打开": "sorry, I cannot help"})
    (result,) = retrieve("把所有灯都打开", home, llm, ConversationState())
    assert result.command.a == "UNKNOWN"
    assert result.meta["fallback"] == "raw_text"
    assert result.meta["raw_text_reading"][0]["q"] == "all"
    assert set(members(result)) == {d.id for d in home if d.category == "Light"} | {"plug-1"}
    assert {c.capability_id for c in result.candidates} == {"main-switch-on"}


def test_raw_text_readings_together_stay_within_top_k(home):
    llm = FakeLLM({"打开主灯然后关闭窗帘": "sorry, I cannot help"})
    (result,) = retrieve("打开主灯然后关闭窗帘", home, llm, ConversationState(), top_k=1)
    assert len(result.meta["raw_text_reading"]) == 2
    assert len(result.candidates) == 1
    assert set(result.groups) <= {c.entity_id for c in result.candidates}


def test_unreadable_raw_text_falls_back_to_names_and_vectors(home):
    llm = FakeLLM({"老伙计": "garbage"})
    (result,) = retrieve("老伙计", home, llm, ConversationState())
    assert "raw_text_reading" not in result.meta  # no action to read: names and vectors decide
    assert ids(result)[0] == "lamp-1"
    assert "name_hit" in result.candidates[0].reasons


def test_unknown_action_with_a_target_still_scopes_by_room_and_type(home):
    (result,) = run(home, "把客厅窗帘拉上", cmd("UNKNOWN", s="客厅", n="窗帘", t="Blind"))
    assert ids(result) == ["blind-1"]
    assert result.meta["vector_query"] == "把客厅窗帘拉上"
    assert "fallback" not in result.meta


def test_more_groups_than_top_k_are_cut_with_a_hint():
    home = [
        light("l-1", "主灯", "客厅"),
        Device(id="b-1", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(home, "客厅的都关掉", cmd("关闭", s="客厅", n="*", q="all"), top_k=1)
    assert len(result.candidates) == 1
    assert result.hint == "too_many_targets"
    assert result.meta["targets"] == 2


@pytest.mark.parametrize(("top_k", "expected"), [(0, 1), (-3, 1), (None, 5), ("2", 5), (1000, 12)])
def test_odd_top_k_is_clamped_or_defaulted(home, top_k, expected):
    many = [light(f"lamp-{i}", f"灯{i}", "客厅") for i in range(12)]
    (result,) = retrieve(
        "打开灯",
        many,
        FakeLLM({"打开灯": [cmd("打开", n="灯", t="Light")]}),
        ConversationState(),
        top_k=top_k,
    )
    assert len(result.candidates) == expected


def test_devices_without_specs_are_found_by_their_name_document():
    bare = [
        Device(id="a", name="客厅吸顶灯", room="客厅", category="Light"),
        Device(id="b", name="卧室台灯", room="卧室", category="Light"),
        Device(id="c", name="厨房排气扇", room="厨房", category="Fan"),
    ]
    llm = FakeLLM({"吸顶灯亮一下": "garbage"})
    (result,) = retrieve("吸顶灯亮一下", bare, llm, ConversationState())
    assert ids(result) == ["a"]  # the part of its name said (吸顶灯) finds it
    assert result.candidates[0].capability_id is None
    assert {"name_partial", "vector_hit"} <= set(result.candidates[0].reasons)


def test_unknown_name_is_flagged_for_clarification(home):
    (result,) = run(home, "打开小黑", cmd("打开", n="小黑"))
    assert result.hint == "name_not_found"
    assert result.meta["keyword_miss"] is True


def test_question_uses_the_utterance_to_pick_the_attribute():
    door = Device(
        id="door-1",
        name="阳台门磁",
        room="阳台",
        category="Sensor",
        commands=[
            CommandSpec("main-contactSensor-contact", "接触传感器", readable=True),
            CommandSpec("main-battery-battery", "电池", readable=True),
        ],
    )
    (result,) = run([door], "阳台门关了没", cmd("查询状态", s="阳台", n="门磁", t="Sensor"))
    assert result.candidates[0].capability_id == "main-contactSensor-contact"
    (battery,) = run([door], "门磁还有多少电", cmd("查询电量", n="门磁", t="Sensor"))
    assert battery.candidates[0].capability_id == "main-battery-battery"


def test_question_keeps_devices_that_can_answer_it(home):
    # 查询 a device with readable attributes never drops it for a low similarity.
    (result,) = run(home, "老伙计怎么样", cmd("查询状态", n="老伙计"))
    assert ids(result) == ["lamp-1"]
    assert result.candidates[0].capability_id == "main-switch"


def test_a_question_over_a_set_reads_what_answers_it_not_the_kind_nor_batteries(home):
    """有没有窗户开着: the window contacts, not their batteries nor curtains; 窗帘都拉上了吗: the curtains."""
    state = CommandSpec("state", "状态", readable=True)
    sensors = [
        Device(
            id=f"{room}-window",
            name=f"{room}窗",
            room=room,
            category="Sensor",
            commands=[state],
            kind="窗户是否开着",
        )
        for room in ("客厅", "卧室")
    ] + [
        Device(
            id=f"{room}-battery",
            name=f"{room}窗电量",
            room=room,
            category="Sensor",
            commands=[state],
            kind="电量",
        )
        for room in ("客厅", "卧室")
    ]
    (windows,) = run([*home, *sensors], "有没有窗户开着", cmd("查询状态", n="窗户", t="Blind", q="all"))
    assert set(members(windows)) == {"客厅-window", "卧室-window"}
    assert windows.meta["gating"] == "read"
    curtain = Device(
        id="curtain", name="客厅窗帘", room="客厅", category="Blind", commands=[state], kind="窗帘"
    )
    (curtains,) = run(
        [*home, *sensors, curtain], "窗帘都拉上了吗", cmd("查询状态", n="窗帘", t="Blind", q="all")
    )
    assert set(members(curtains)) == {"curtain"}


@pytest.mark.parametrize(("name", "type_hint"), [("卧室床头灯", "Light"), ("卧室床头灯", "Unknown")])
def test_room_said_inside_the_name_scopes_the_command(home, name, type_hint):
    (result,) = run(home, "打开卧室床头灯", cmd("打开", n=name, t=type_hint))
    assert ids(result)[0] == "lamp-5"
    assert result.meta["room_from_name_hint"] == "卧室"
    assert "room_hit" in result.candidates[0].reasons


def test_room_inside_a_bulk_name_scopes_the_group(home):
    (result,) = run(home, "打开客厅灯", cmd("打开", n="客厅灯", t="Light", q="all"))
    assert set(members(result)) == {"lamp-1", "lamp-3"}


def test_a_name_that_contains_a_room_still_matches_exactly(home):
    (result,) = run(home, "打开客厅风扇", cmd("打开", n="客厅风扇"))
    assert ids(result) == ["fan-1"]
    assert "name_hit" in result.candidates[0].reasons


def test_a_guess_for_an_unknown_name_is_not_remembered(home):
    state = ConversationState()
    run(home, "打开老伙计", cmd("打开", n="老伙计"), state=state)
    run(home, "打开小黑", cmd("打开", n="小黑"), state=state)
    assert state.last_mentioned() == ["lamp-1"]


def test_close_matches_are_all_remembered(home):
    """客厅的灯开着吗 finds two lights alike: 那个 next may mean either, so both are remembered."""
    state = ConversationState()
    (result,) = run(home, "客厅的灯开着吗", cmd("查询状态", "客厅", "灯", "Light"), state=state)
    assert result.hint == "multiple_close_matches"
    assert sorted(state.last_mentioned()) == ["lamp-1", "lamp-3"]


def test_ungated_type_word_matches_every_device_of_its_category(home):
    shutters = [
        *home,
        Device(id="blind-2", name="百叶窗", room="书房", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(shutters, "关闭所有窗帘", cmd("关闭", n="窗帘", t="Unknown", q="all"))
    assert set(members(result)) == {"blind-1", "blind-2"}
    assert result.meta["gating"] is None
    (single,) = run(shutters, "关闭窗帘", cmd("关闭", s="书房", n="窗帘", t="Unknown"))
    assert ids(single) == ["blind-2"]
    assert "type_hit" in single.candidates[0].reasons


def test_a_set_named_by_its_word_leaves_out_what_people_do_not_call_that(home):
    covers = [
        *home,
        Device(id="sheer", name="纱帘", room="主卧", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="rack", name="阳台晾衣架", room="阳台", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="sky", name="天窗", room="书房", category="Blind", commands=[OPEN, CLOSE], kind="窗户"),
        Device(
            id="shutter",
            name="阳台防台",
            room="阳台",
            category="Blind",
            commands=[OPEN, CLOSE],
            kind="卷帘窗",
        ),
        Device(id="roller", name="车库卷闸", room="阳台", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (curtains,) = run(covers, "关闭所有窗帘", cmd("关闭", n="窗帘", t="Blind", q="all"))
    assert set(members(curtains)) == {"blind-1", "sheer"}  # no rack, window or shutter
    (windows,) = run(covers, "关闭所有窗户", cmd("关闭", n="窗户", t="Blind", q="all"))
    assert "sky" in set(members(windows))
    except_bedroom = cmd("关闭", s="*,!主卧", n="窗帘", t="Blind", q="except")
    (except_study,) = run(covers, "除了主卧都关上窗帘", except_bedroom)
    assert "rack" not in set(members(except_study))


def test_a_set_of_only_things_apart_keeps_them(home):
    rack = Device(id="rack", name="晾衣架", room="阳台", category="Blind", commands=[OPEN, CLOSE])
    racks = [*home[:1], rack]
    (result,) = run(racks, "关闭所有窗帘", cmd("关闭", n="窗帘", t="Blind", q="all"))
    assert members(result) == ["rack"]


@pytest.mark.parametrize("quantifier", ["one", "all"])
def test_a_room_whose_only_device_of_the_word_is_apart_has_none_of_it(home, quantifier):
    """阳台的窗帘 where the balcony's one cover is the clothes airer: asked back, never the airer."""
    rack = Device(id="rack", name="晾衣架", room="阳台", category="Blind", commands=[OPEN, CLOSE])
    (result,) = run([*home, rack], "阳台的窗帘拉上", cmd("关闭", s="阳台", n="窗帘", t="Blind", q=quantifier))
    assert result.hint == "name_not_found"
    with_curtain = [
        *home,
        rack,
        Device(id="c", name="窗帘", room="阳台", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (kept,) = run(with_curtain, "阳台的窗帘拉上", cmd("关闭", s="阳台", n="窗帘", t="Blind", q=quantifier))
    assert (members(kept) or ids(kept))[0] == "c"  # the curtain first; a set leaves the airer out
    assert kept.hint is None


@pytest.mark.parametrize(
    ("text", "command", "quantifier", "expected"),
    [
        (
            # Without t the name decides: every Light, and 落地台灯 (a lamp on a smart plug).
            "把所有灯都打开",
            {"a": "打开", "n": "灯"},
            "all",
            {"lamp-1", "lamp-2", "lamp-3", "lamp-4", "lamp-5", "plug-1"},
        ),
        (
            "关闭客厅以外的灯",
            cmd("关闭", s="*,!客厅", n="灯", t="Light"),
            "except",
            {"lamp-2", "lamp-4", "lamp-5", "plug-1"},
        ),
    ],
)
def test_a_set_said_plainly_is_treated_as_a_set_even_when_q_says_one(
    home, text, command, quantifier, expected
):
    (result,) = run(home, text, command)
    assert result.meta["quantifier_from_text"] == quantifier
    assert set(members(result)) == expected


def test_all_words_of_another_command_do_not_turn_a_single_target_into_a_set(home):
    first, second = run(
        home, "打开所有灯然后关闭空调", cmd("打开", n="灯", t="Light", q="all"), cmd("关闭", n="空调")
    )
    assert "quantifier_from_text" not in second.meta
    assert ids(second) == ["ac-1"]
    assert second.candidates[0].entity_kind == "device"


def test_bare_all_word_follow_up_stays_with_the_last_devices(home):
    state = ConversationState()
    run(home, "打开卧室的灯", cmd("打开", s="卧室", n="灯", t="Light", q="all"), state=state)
    (result,) = run(home, "都关掉", cmd("关闭"), state=state)
    assert "quantifier_from_text" not in result.meta
    assert set(members(result)) == {"lamp-2", "lamp-5"}


@pytest.mark.parametrize("command", [cmd("关闭"), cmd("关闭", n="@last")])
def test_follow_up_with_nothing_to_refer_to_is_flagged(home, command):
    state = ConversationState()
    (result,) = run(home, "关掉", command, state=state)
    assert result.meta["reference_unresolved"] is True
    assert result.hint == "no_target"
    assert state.last_mentioned() == []


# --- issue 6: a room said once applies to what follows -------------------------------------


def _two_rooms_home():
    return [
        light("l-1", "主灯", "客厅"),
        light("l-2", "主灯", "卧室"),
        Device(id="ac-bed", name="空调", room="卧室", category="AirConditioner", commands=[ON, OFF, COOL]),
        Device(id="ac-liv", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, COOL]),
    ]


def test_a_room_said_in_the_first_command_is_preferred_by_the_next():
    home = _two_rooms_home()
    lights, climate = run(
        home,
        "打开客厅的灯然后把空调调到26度",
        cmd("打开", s="客厅", n="灯", t="Light", q="all"),
        cmd("设置温度=26", n="空调", t="AirConditioner"),
    )
    assert members(lights) == ["l-1"]
    assert ids(climate) == ["ac-liv", "ac-bed"]  # the other stays, ranked lower
    assert "room_carried" in climate.candidates[0].reasons
    assert "room_carried" not in climate.candidates[1].reasons
    assert climate.meta["rooms_carried"] == ["客厅"]


def test_a_command_naming_its_own_room_keeps_it():
    home = _two_rooms_home()
    _, climate = run(
        home,
        "打开客厅的灯然后把卧室空调调到26度",
        cmd("打开", s="客厅", n="灯", t="Light", q="all"),
        cmd("设置温度=26", s="卧室", n="空调", t="AirConditioner"),
    )
    assert ids(climate) == ["ac-bed"]
    assert "rooms_carried" not in climate.meta


def test_no_room_is_carried_into_a_room_without_such_a_device():
    home = [*_two_rooms_home()[:3]]  # no air conditioner in 客厅
    _, climate = run(
        home,
        "打开客厅的灯然后把空调调到26度",
        cmd("打开", s="客厅", n="灯", t="Light", q="all"),
        cmd("设置温度=26", n="空调", t="AirConditioner"),
    )
    assert ids(climate) == ["ac-bed"]
    assert "room_carried" not in climate.candidates[0].reasons


# --- issue 6: a name beats a type word ------------------------------------------------------


@pytest.mark.parametrize("type_hint", ["Blind", "Unknown"])
def test_a_device_named_by_a_type_word_is_found_by_that_name_first(type_hint):
    home = [
        Device(id="b-1", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="b-2", name="纱帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="b-3", name="卷帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(home, "把卷帘拉上", cmd("关闭", n="卷帘", t=type_hint))
    assert ids(result)[0] == "b-3"
    assert "name_hit" in result.candidates[0].reasons
    assert result.candidates[0].total_score > result.candidates[1].total_score


def test_a_type_word_nobody_is_called_still_means_the_type():
    home = [
        Device(id="b-1", name="纱帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="b-2", name="遮光帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(home, "把窗帘拉上", cmd("关闭", s="客厅", n="窗帘", t="Blind"))
    assert set(ids(result)) == {"b-1", "b-2"}
    assert result.hint == "multiple_close_matches"


def test_a_device_called_exactly_that_passes_the_category_gate():
    home = [
        Device(id="f-1", name="吊扇", room="客厅", category="Fan", commands=[ON, OFF]),
        Device(id="s-1", name="排气扇", room="卫生间", category="Switch", commands=[ON, OFF]),
    ]
    (result,) = run(home, "排气扇开一下", cmd("打开", n="排气扇", t="Fan"))
    assert ids(result)[0] == "s-1"
    assert "name_hit" in result.candidates[0].reasons


def test_an_exact_name_outranks_siblings_whose_commands_are_worded_closer():
    lower = CommandSpec("main-windowShade-close", "放下")
    home = [
        Device(id="b-1", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="b-2", name="卷帘", room="书房", category="Blind", commands=[lower]),
    ]
    (result,) = run(home, "把卷帘关上", cmd("关闭", n="卷帘", t="Blind"))
    assert ids(result) == ["b-2", "b-1"]


def test_a_room_said_earlier_outranks_an_exact_name_elsewhere():
    home = [
        Device(id="tv-old", name="电视", room="老人房", category="Television", commands=[ON, OFF]),
        Device(id="bk-main", name="电热毯", room="主卧", category="Unknown", commands=[ON, OFF]),
        Device(id="bk-old", name="奶奶的电热毯", room="老人房", category="Unknown", commands=[ON, OFF]),
    ]
    _, blanket = run(
        home,
        "老人房电视关了，电热毯开一下",
        cmd("关闭", s="老人房", n="电视", t="Television"),
        cmd("打开", n="电热毯"),
    )
    assert ids(blanket) == ["bk-old", "bk-main"]
    assert "room_carried" in blanket.candidates[0].reasons


def test_a_set_command_after_a_room_is_said_stays_in_that_room():
    home = [*_two_rooms_home(), light("l-3", "台灯", "卧室")]
    _, lights = run(
        home,
        "卧室空调打开，灯都调到50%",
        cmd("打开", s="卧室", n="空调", t="AirConditioner"),
        cmd("设置亮度=50%", n="灯", t="Light", q="all"),
    )
    assert set(members(lights)) == {"l-2", "l-3"}
    assert lights.meta["rooms_carried"] == ["卧室"]
    assert "room_hit" in lights.candidates[0].reasons


def test_a_set_command_covers_the_home_when_the_room_said_has_none_of_it():
    home = [light("l-1", "主灯", "客厅"), light("l-2", "主灯", "卧室")]
    home.append(Device(id="tv", name="电视", room="书房", category="Television", commands=[ON, OFF]))
    _, lights = run(
        home,
        "书房电视打开，灯都关了",
        cmd("打开", s="书房", n="电视", t="Television"),
        cmd("关闭", n="灯", t="Light", q="all"),
    )
    assert set(members(lights)) == {"l-1", "l-2"}
    assert "rooms_carried" not in lights.meta


# --- issue 6: questions ---------------------------------------------------------------------


def test_a_question_lists_what_else_can_answer_it_after_the_type_asked():
    ac_temperature = CommandSpec(
        "main-temperatureMeasurement-temperature", "室内温度", "number", readable=True
    )
    home = [
        Device(id="thermo", name="温湿度计", room="客厅", category="Sensor", commands=[TEMPERATURE]),
        Device(
            id="ac", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, ac_temperature]
        ),
        light("lamp", "主灯", "客厅"),
    ]
    (result,) = run(home, "客厅温度多少", cmd("查询温度", s="客厅", t="Sensor"))
    assert ids(result) == ["thermo", "ac"]
    assert result.candidates[1].capability_id == ac_temperature.id
    assert "type_hit" in result.candidates[0].reasons
    assert "type_hit" not in result.candidates[1].reasons


def test_an_utterance_is_read_into_at_most_ten_commands(home):
    text = "，然后".join(["打开主灯", "关闭主灯"] * 15)
    results = retrieve(text, home, FakeLLM({text: [cmd("打开", n="主灯")] * 30}), ConversationState())
    assert len(results) == 10
    assert results[0].meta["commands_dropped"] == 20
    offline = retrieve(text, home, None, ConversationState())
    assert len(offline) == 10


def test_a_name_sharing_characters_but_no_two_in_a_row_still_matches():
    home = [light("l-1", "玄关灯", "玄关"), light("l-2", "鞋柜灯", "玄关")]
    (result,) = run(home, "柜子灯也开", cmd("打开", n="柜子灯", t="Light"))
    assert ids(result)[0] == "l-2"
    assert "name_partial" in result.candidates[0].reasons


def test_a_question_reads_its_own_clause_of_the_utterance():
    window = CommandSpec("state", "窗户是否开着", readable=True)
    thermometer = CommandSpec("state", "当前温度", readable=True)
    home = [
        Device(id="w", name="卧室窗户", room="卧室", category="Sensor", commands=[window]),
        Device(id="t", name="卧室温度", room="卧室", category="Sensor", commands=[thermometer]),
    ]
    first, second = run(
        home,
        "卧室窗户关了没，温度多少",
        cmd("查询状态", s="卧室", n="窗户", t="Sensor"),
        cmd("查询温度", t="Sensor"),
    )
    assert first.meta["vector_query"] == "关了没"
    assert ids(first)[0] == "w"
    assert ids(second)[0] == "t"


def test_a_named_device_of_the_type_asked_answers_first_whatever_its_wording():
    gas = CommandSpec("main-gasDetector-gas", "燃气泄漏", readable=True)
    motion = CommandSpec("main-motionSensor-motion", "有没有人", readable=True)
    home = [
        Device(id="m", name="人体感应", room="过道", category="Sensor", commands=[motion]),
        Device(id="g", name="燃气报警器", room="厨房", category="Sensor", commands=[gas]),
    ]
    (result,) = run(home, "燃气有没有漏", cmd("查询状态", n="燃气", t="Sensor"))
    assert ids(result)[0] == "g"


def test_a_blind_described_by_its_own_words_closes_on_close():
    raise_ = CommandSpec("main-windowShade-open", "升起")
    lower = CommandSpec("main-windowShade-close", "放下")
    stop = CommandSpec("main-windowShade-pause", "停止")
    home = [Device(id="r", name="卷帘", room="书房", category="Blind", commands=[raise_, lower, stop])]
    (result,) = run(home, "把卷帘关上", cmd("关闭", n="卷帘", t="Blind"))
    assert result.candidates[0].capability_id == "main-windowShade-close"


def test_a_raw_utterance_is_read_for_its_room_and_the_part_of_a_name_it_says():
    home = [
        Device(id="feeder", name="旺财喂食器", room="阳台", category="PetFeeder", commands=[ON, OFF]),
        light("lamp", "主灯", "阳台"),
        Device(
            id="ac-bed", name="主卧空调", room="主卧", category="AirConditioner", commands=[ON, OFF, COOL]
        ),
        Device(id="ac-liv", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, COOL]),
    ]
    (fed,) = retrieve("旺财饿了", home, None, ConversationState())
    assert ids(fed)[0] == "feeder"
    (cool,) = retrieve("主卧给我凉快一下", home, None, ConversationState())
    assert ids(cool) == ["ac-bed"]
    assert "room_hit" in cool.candidates[0].reasons


def test_a_named_set_is_not_cut_to_a_room_said_before_that_has_none_of_it():
    home = [light("l-1", "主灯", "客厅"), light("d-1", "台灯", "卧室"), light("d-2", "台灯", "书房")]
    _, lamps = run(
        home,
        "打开客厅的灯然后关掉所有台灯",
        cmd("打开", s="客厅", n="灯", t="Light", q="all"),
        cmd("关闭", n="台灯", t="Light", q="all"),
    )
    assert set(members(lamps)) == {"d-1", "d-2"}


def test_a_value_keeps_the_device_whose_argument_takes_it():
    home = [
        light("l-1", "主灯", "客厅"),
        Device(id="p-1", name="插座", room="客厅", category="SmartPlug", commands=[ON, OFF]),
    ]
    (result,) = run(home, "客厅开到50%", cmd("开到=50%", s="客厅"))
    by_device = {c.entity_id: c.capability_id for c in result.candidates}
    assert by_device.get("l-1") == LEVEL.id


def test_a_device_without_specs_does_not_count_as_matching_the_action():
    home = [
        light("l-1", "主灯", "客厅"),
        light("l-2", "吊灯", "客厅"),
        Device(id="x", name="灯串", room="客厅", category="Light"),
    ]
    index = build_vector_searcher(home, embedder=DistinctEmbedder())
    (result,) = run(home, "客厅的灯都整暗", cmd("整暗", s="客厅", n="灯", t="Light", q="all"), index=index)
    assert {"l-1", "l-2"} <= set(members(result))


def test_a_name_containing_the_word_beats_a_device_of_that_type_alone():
    home = [
        Device(id="ac", name="卧室空调", room="卧室", category="AirConditioner", commands=[ON, OFF]),
        Device(id="proj", name="投影仪", room="卧室", category="NetworkAudio", commands=[ON, OFF]),
        Device(id="spk", name="卧室智能音箱", room="卧室", category="NetworkAudio", commands=[ON, OFF]),
        Device(id="other", name="音箱", room="书房", category="NetworkAudio", commands=[ON, OFF]),
    ]
    _, speaker = run(
        home,
        "卧室空调开了，音箱关了",
        cmd("打开", s="卧室", n="空调", t="AirConditioner"),
        cmd("关闭", n="音箱", t="NetworkAudio"),
    )
    assert ids(speaker)[:2] == ["spk", "proj"]  # both in the room said; the one called 音箱 first
    assert speaker.candidates[0].total_score > speaker.candidates[1].total_score


def test_between_equal_devices_the_one_whose_name_the_utterance_says_comes_first():
    start = CommandSpec("button.press", "按下")
    program = CommandSpec("select.select_option:option", "选择")
    home = [
        Device(
            id="select",
            name="洗衣程序",
            room="阳台",
            category="Washer",
            commands=[program],
            aliases=["洗衣机"],
        ),
        Device(
            id="button",
            name="洗衣机启动",
            room="阳台",
            category="Washer",
            commands=[start],
            aliases=["洗衣机"],
        ),
    ]
    (result,) = run(home, "洗衣机启动", cmd("启动", n="洗衣机", t="Washer"))
    assert ids(result) == ["button", "select"]


def test_the_room_said_is_no_part_of_a_name_for_the_tie_break():
    home = [light("l-1", "吊灯", "卧室"), light("l-2", "卧室吸顶灯", "卧室")]
    (result,) = run(home, "卧室的灯开一下", cmd("打开", s="卧室", n="灯", t="Light"))
    first, second = result.candidates
    assert first.total_score == second.total_score  # neither name was said; 卧室 is the scope


def test_an_end_of_the_range_finds_the_named_device_s_ranged_command():
    percent = {"minimum": 0, "maximum": 100}
    speed = CommandSpec("fan.set_percentage:percentage", "设置风扇速度", "integer", percent)
    presets = [{"value": "auto", "description": "自动"}]
    preset = CommandSpec("fan.set_preset_mode:preset_mode", "设置风扇模式", "string", value_list=presets)
    home = [Device(id="hood", name="油烟机", room="厨房", category="Fan", commands=[speed, preset])]
    for action in ("设置风速=最大", "设置档位=最大", "设置=最大"):
        (result,) = run(home, "油烟机开到最大档", cmd(action, n="油烟机"))
        assert result.candidates[0].capability_id == speed.id
        assert "kept_for_unfamiliar_action" not in result.meta
    # a setting it lacks (亮度) is no other setting's end: kept as named, no command of it able
    (result,) = run(home, "油烟机亮度开到最大", cmd("设置亮度=最大", n="油烟机"))
    assert result.meta["kept_unfamiliar"] == ["hood"]


@pytest.mark.parametrize(
    ("action", "expected"),
    [("关闭", "vacuum.stop"), ("打开", "vacuum.start")],
)
def test_a_vacuum_starts_and_stops_on_switch_words(action, expected):
    commands = [
        CommandSpec("vacuum.start", "开始扫地机清扫"),
        CommandSpec("vacuum.pause", "暂停清扫"),
        CommandSpec("vacuum.stop", "停止清扫"),
        CommandSpec("vacuum.return_to_base", "回去充电"),
    ]
    home = [Device(id="v", name="扫地机器人", room="客厅", category="RobotCleaner", commands=commands)]
    (result,) = run(home, "扫地机器人" + action, cmd(action, n="扫地机器人"))
    assert result.candidates[0].capability_id == expected
    assert "kept_for_unfamiliar_action" not in result.meta


def test_turning_off_a_speaker_that_cannot_be_switched_off_stops_it():
    commands = [
        CommandSpec("media_player.volume_up", "调高音量"),
        CommandSpec("media_player.media_pause", "暂停播放"),
        CommandSpec("media_player.media_stop", "停止播放"),
    ]
    home = [Device(id="r", name="收音机", room="老人房", category="NetworkAudio", commands=commands)]
    (result,) = run(home, "收音机关了", cmd("关闭", n="收音机"))
    assert result.candidates[0].capability_id == "media_player.media_stop"


def test_a_setting_that_names_nothing_takes_the_device_s_main_setting():
    percent = {"minimum": 0, "maximum": 100, "unit": "%"}
    position = CommandSpec("cover.set_cover_position:position", "设置百叶窗位置", "integer", percent)
    tilt = CommandSpec("cover.set_cover_tilt_position:tilt_position", "设置叶片角度", "integer", percent)
    home = [Device(id="b", name="百叶窗", room="次卧", category="Blind", commands=[OPEN, position, tilt])]
    (result,) = run(home, "百叶窗开到一半", cmd("设置=50%", n="百叶窗"))
    assert result.candidates[0].capability_id == position.id


def test_a_set_leaves_out_the_devices_named_in_x(home):
    (result,) = run(home, "除了床头灯，灯都关了", cmd("关闭", n="灯", t="Light", q="except", x=["床头灯"]))
    assert set(members(result)) == {"lamp-1", "lamp-2", "lamp-3", "lamp-4", "plug-1"}
    assert result.meta["excluded_by_name"] == 1
    (unmatched,) = run(home, "除了沙发灯，灯都关了", cmd("关闭", n="灯", t="Light", q="except", x=["沙发灯"]))
    assert unmatched.meta["exclusion_unmatched"] == ["沙发灯"]


def test_the_agent_acts_on_a_set_leaving_out_a_name_only_when_the_name_calls_a_device(home):
    text = "除了床头灯，灯都关了"
    results = run(home, text, cmd("关闭", n="灯", t="Light", q="except", x=["床头灯"]))
    assert decide(results, by_id(home), text).outcome == Outcome.ACT
    text = "除了沙发灯，灯都关了"
    results = run(home, text, cmd("关闭", n="灯", t="Light", q="except", x=["沙发灯"]))
    assert decide(results, by_id(home), text).outcome == Outcome.ASK


def test_a_bare_type_word_on_a_floor_is_the_floor_s_whole_set(home):
    rooms = [
        Room("客厅", floor_names=("一楼",)),
        Room("厨房", floor_names=("一楼",)),
        Room("卧室", floor_names=("二楼",)),
    ]
    index = build_vector_searcher(home, rooms=rooms)
    (result,) = run(home, "一楼的灯关了", cmd("关闭", s="一楼", n="灯", t="Light"), index=index)
    assert set(members(result)) == {"lamp-1", "lamp-3", "lamp-4"}
    (room,) = run(home, "客厅的灯关了", cmd("关闭", s="客厅", n="灯", t="Light"), index=index)
    assert result.meta["quantifier_from_text"] == "all"
    assert "quantifier_from_text" not in room.meta


def test_stop_said_after_a_cover_moves_stops_it_and_a_switch_goes_off():
    """客厅窗帘关上, then 停: the curtain stops (it is not closed again); 空调停掉 turns it off."""
    stop = CommandSpec("cover.stop_cover", "停止窗帘")
    curtain = Device(id="c", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE, stop])
    ac = Device(id="ac", name="空调", room="卧室", category="AirConditioner", commands=[ON, OFF, COOL])
    state = ConversationState()
    retrieve("客厅窗帘关上", [curtain, ac], None, state)
    (stopped,) = retrieve("停", [curtain, ac], None, state)
    assert (stopped.command.a, stopped.candidates[0].capability_id) == ("停止", "cover.stop_cover")
    (off,) = retrieve("空调停掉", [curtain, ac], None, ConversationState())
    assert off.candidates[0].capability_id == OFF.id


def test_all_said_after_devices_mentioned_one_by_one_acts_on_each_of_them():
    """主卫灯打开, 浴霸也开, 好了都关掉: the light and the heater (a switch), not every light of the home."""
    heater = Device(id="heater", name="浴霸", room="主卫", category="Switch", commands=[ON, OFF])
    home = [light("bath", "主卫灯", "主卫"), light("hall", "走廊灯", "走廊"), heater]
    state = ConversationState()
    retrieve("主卫灯打开", home, None, state)
    retrieve("浴霸也开", home, None, state)
    results = retrieve("好了都关掉", home, None, state)
    decision = decide(results, {d.id: d for d in home}, "好了都关掉")
    assert decision.outcome is Outcome.ACT
    assert sorted(d for action in decision.actions for d in action.device_ids) == ["bath", "heater"]


def test_a_clause_saying_why_neither_targets_nor_sets_anything(home):
    """卧室灯关了吧,人都出门了: 都 of the reason makes no set; the reason is reported, offline."""
    (result,) = retrieve("卧室灯关了吧,人都出门了", home, None, ConversationState())
    assert result.meta["said_why"] == ["人都出门了"]
    assert "quantifier_from_text" not in result.meta
    assert result.candidates[0].entity_id == "lamp-2"
    decision = decide([result], {d.id: d for d in home}, "卧室灯关了吧,人都出门了")
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("lamp-2",), OFF.id)]


def test_what_an_unreadable_utterance_only_resembles_is_not_remembered_as_mentioned(home):
    """伙计唱首歌 read as no command resembles 老伙计: 它 is still the air conditioner turned on before."""
    state = ConversationState()
    retrieve("打开空调", home, None, state)
    (unread,) = retrieve("伙计唱首歌", home, None, state)
    assert unread.candidates[0].entity_id == "lamp-1"  # found by the raw text, a guess
    assert state.last_mentioned() == ["ac-1"]
    (named,) = retrieve("老伙计好样的", home, None, state)
    assert named.command.n == "老伙计"
    assert state.last_mentioned() == ["lamp-1"]  # a name said is a mention


def test_a_device_left_out_by_its_name_before_the_kind_is_left_out_of_the_set():
    """除了神台的灯，其他灯都关掉: 神台 and the kind said after it call 神台灯, which stays on."""
    home = [
        light("lamp-a", "神台灯", "客厅"),
        light("lamp-b", "吊灯", "客厅"),
        light("lamp-c", "床头灯", "卧室"),
    ]
    (result,) = retrieve("除了神台的灯,其他灯都关掉", home, None, ConversationState())
    assert (result.command.a, result.command.q, result.command.x) == ("关闭", "except", ("神台",))
    assert set(members(result)) == {"lamp-b", "lamp-c"}
    assert "exclusion_unmatched" not in result.meta
    (rooms,) = retrieve("窗帘除了卧室的,都打开", home, None, ConversationState())
    assert (rooms.command.n, rooms.command.s) == ("窗帘", "*,!卧室")  # the kind said first is the set's


def test_a_word_left_out_calls_only_names_ending_with_it_whole():
    """灯除了台灯都关掉: 阳台灯 ends with 台灯 but is the balcony's light (its 台 is 阳台's); it goes off."""
    home = [
        light("lamp-a", "台灯", "书房"),
        light("lamp-b", "阳台灯", "阳台"),
        light("lamp-c", "客厅灯", "客厅"),
    ]
    (result,) = retrieve("灯除了台灯都关掉", home, None, ConversationState())
    assert result.command.x == ("台灯",)
    assert set(members(result)) == {"lamp-b", "lamp-c"}


def test_a_person_left_out_of_a_set_leaves_out_the_room_named_after_them():
    """风扇全部关掉, 阿嬷的不要关: the fans of 阿嬷房 stay on; a name no room starts with stays unmatched."""
    fans = [
        Device(id=f"fan-{room}", name="吊扇", room=room, category="Fan", commands=[ON, OFF])
        for room in ("阿嬷房", "客厅", "阿公书房")
    ]
    (result,) = retrieve("风扇全部关掉,阿嬷的不要关", fans, None, ConversationState())
    assert result.command.x == ("阿嬷",)
    assert sorted(members(result)) == ["fan-客厅", "fan-阿公书房"]
    (unknown,) = retrieve("风扇全部关掉,阿姨的不要关", fans, None, ConversationState())
    assert unknown.meta["exclusion_unmatched"] == ["阿姨"]


def test_a_correction_saying_what_was_not_meant_then_what_was_acts_on_the_second():
    """不是卧室的,是书房的 after 卧室台灯打开: the study's lamp; 卧室 says what was wrongly taken."""
    home = [light("lamp-b", "台灯", "卧室"), light("lamp-s", "台灯", "书房"), light("lamp-l", "吊灯", "客厅")]
    state = ConversationState()
    assert _acted("卧室台灯打开", home, state) == [(("lamp-b",), ON.id)]
    assert _acted("不是卧室的,是书房的", home, state) == [(("lamp-s",), ON.id)]


def test_a_follow_up_goes_to_the_rooms_the_conversation_is_in():
    """卧室空调打开, 窗帘都关了吗 (the whole home), 那台灯也开: the bedroom's lamp, not the study's."""
    home = [
        light("lamp-b", "台灯", "卧室"),
        light("lamp-s", "台灯", "书房"),
        Device(id="ac-b", name="空调", room="卧室", category="AirConditioner", commands=[ON, OFF]),
        Device(id="blind-b", name="窗帘", room="卧室", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="blind-s", name="窗帘", room="书房", category="Blind", commands=[OPEN, CLOSE]),
    ]
    state = ConversationState()
    retrieve("卧室空调打开", home, None, state)
    retrieve("窗帘都关了吗", home, None, state)
    (result,) = retrieve("那台灯也开", home, None, state)
    assert (result.command.a, result.command.s) == ("打开", "卧室")
    assert result.candidates[0].entity_id == "lamp-b"


def test_a_remark_in_a_variety_is_taken_out_as_the_parser_heard_it():
    """鱼缸灯关脱,鱼也要困觉的: Wu 困觉 is 睡觉, the scene's name: no word of the remark is a target."""
    home = [
        light("lamp-f", "鱼缸灯", "客厅"),
        Device(id="scene.sleep", name="困觉", room="", category="Scene", commands=[ON]),
    ]
    text = "鱼缸灯关脱,鱼也要困觉的"
    (result,) = retrieve(text, home, None, ConversationState())
    assert result.meta["said_why"] == ["鱼也要睡觉的"]
    decision = decide([result], {d.id: d for d in home}, text)
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("lamp-f",), OFF.id)]


def test_an_action_on_the_whole_home_leaves_the_rooms_of_the_conversation():
    """卧室空调打开, 所有灯都关掉, 空调也关掉: every air conditioner, not the bedroom's alone."""
    home = [
        light("lamp-b", "台灯", "卧室"),
        Device(id="ac-b", name="空调", room="卧室", category="AirConditioner", commands=[ON, OFF]),
        Device(id="ac-l", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF]),
    ]
    state = ConversationState()
    retrieve("卧室空调打开", home, None, state)
    retrieve("所有灯都关掉", home, None, state)
    assert state.last_rooms() is None
    (result,) = retrieve("空调也关掉", home, None, state)
    assert result.command.s == "*"


def test_a_device_is_called_by_each_chinese_word_of_a_name_of_several():
    """石头 Roborock G20S, called 扫地机: 叫石头扫下地 calls it; the task said alone names the vacuum."""
    start = CommandSpec("vacuum.start", "开始扫地机清扫")
    locate = CommandSpec("vacuum.locate", "寻找扫地机")
    vacuum = Device(
        id="vacuum.r",
        name="扫地机",
        room="客厅",
        aliases=("石头 Roborock G20S",),
        category="RobotCleaner",
        commands=[start, locate],
    )
    home = [vacuum, light("lamp-1", "客厅 的灯", "客厅")]
    for text in ("叫石头扫下地", "扫下地", "扫地机继续扫地"):
        results = retrieve(text, home, None, ConversationState())
        decision = decide(results, by_id(home), text)
        assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("vacuum.r",), start.id)], text
    (named,) = retrieve("叫石头扫下地", home, None, ConversationState())
    assert named.command.n == "石头"
    (lamp,) = retrieve("客厅的灯打开", home, None, ConversationState())
    assert lamp.command.s == "客厅"  # 客厅 of a name of several words is no name


def test_a_word_of_an_alias_held_by_a_room_word_is_no_name():
    """爷爷 小爱 音箱 in the living room: 爷爷 still says the room 爷爷房间 (爷爷的灯打开)."""
    speaker = Device(
        id="media_player.s",
        name="音箱",
        room="客厅",
        aliases=("爷爷 小爱 音箱",),
        category="NetworkAudio",
        commands=[ON, OFF],
    )
    home = [speaker, light("lamp-1", "灯", "爷爷房间"), light("lamp-2", "灯", "客厅")]
    index = build_vector_searcher(home, rooms=[Room("爷爷房间"), Room("客厅")])
    (result,) = retrieve("爷爷的灯打开", home, None, ConversationState(), vector_searcher=index)
    assert result.command.s == "爷爷"  # the owner's word for the room, no name of the speaker
    assert ids(result)[0] == "lamp-1"


def test_a_sensor_of_another_kind_found_with_its_device_does_not_shrink_the_set():
    """客厅的风扇打开: the Dyson's PM2.5 reading, called by the Dyson's names, is no fan left out;
    窗户都关上 with window contacts beside the one motorised window still leaves windows out."""
    pm25 = CommandSpec(id="state", description="PM2.5浓度", readable=True)
    opened = CommandSpec(id="state", description="窗户是否开着", readable=True)
    home = [
        Device(id="fan.dyson", name="戴森风扇", room="客厅", category="Fan", commands=[ON, OFF]),
        Device(
            id="sensor.pm25",
            name="客厅PM2.5",
            room="客厅",
            category="Sensor",
            aliases=["戴森风扇"],
            kind="PM2.5浓度",
            commands=[pm25],
        ),
        Device(
            id="cover.sky", name="天窗", room="书房", category="Blind", commands=[OPEN, CLOSE], kind="窗户"
        ),
        Device(
            id="sensor.win",
            name="书房窗户",
            room="书房",
            category="Sensor",
            kind="窗户是否开着",
            commands=[opened],
        ),
    ]
    (fans,) = run(home, "客厅的风扇打开", cmd("打开", s="客厅", n="风扇", t="Fan", q="all"))
    assert "unsupported_targets" not in fans.meta
    (windows,) = run(home, "窗户都关上", cmd("关闭", n="窗户", t="Blind", q="all"))
    assert windows.meta.get("unsupported_targets") == 1


def test_a_count_of_alike_devices_takes_them_all_when_it_is_how_many_there_are():
    """两个排气扇都开起 with two exhaust fans alike: both, not a question which one."""
    fans = [
        Device(id="fan-up", name="排气扇", room="楼上卫生间", category="Fan", commands=[ON, OFF]),
        Device(id="fan-main", name="排气扇", room="主卫", category="Fan", commands=[ON, OFF]),
    ]
    (result,) = run(fans, "两个排气扇都开起", cmd("打开", n="排气扇", q="any", c=2))
    assert result.hint is None
    assert sorted(ids(result)) == ["fan-main", "fan-up"]
    decision = decide([result], by_id(fans), "两个排气扇都开起")
    assert decision.outcome == Outcome.ACT
    assert {d for action in decision.actions for d in action.device_ids} == {"fan-main", "fan-up"}


SWITCH_ONLY_FAN = [
    Device(
        id="fan",
        name="风扇",
        room="客厅",
        category="Fan",
        commands=[ON, OFF, CommandSpec(id="fan.toggle", description="切换风扇的开关")],
    )
]


@pytest.mark.parametrize("text", ["把客厅风扇调到最大", "客厅风扇调到50%", "风扇风速大一点"])
def test_a_value_no_command_of_the_device_takes_is_said_in_the_hint(text):
    """A fan that only switches: 调到最大 is no toggle to run; the result says it cannot be done as said."""
    (result,) = retrieve(text, SWITCH_ONLY_FAN, None, ConversationState())
    assert result.hint == "value_not_taken"


def test_a_command_that_could_not_be_read_says_so_in_the_hint():
    """客厅风扇随便弄一下: no action read; the candidates only resemble the words."""
    (result,) = retrieve("客厅风扇随便弄一下", SWITCH_ONLY_FAN, None, ConversationState())
    assert result.command.a == "UNKNOWN"
    assert result.hint == "command_not_read"
    (plain,) = retrieve("打开客厅风扇", SWITCH_ONLY_FAN, None, ConversationState())
    assert plain.hint is None


def _acted(
    text: str, home: list[Device], state: ConversationState, **live
) -> list[tuple[tuple[str, ...], str]]:
    """Return what the offline agent does for ``text`` in the conversation ``state``."""
    results = retrieve(text, home, None, state)
    decision = decide(results, {d.id: d for d in home}, text, **live)
    return [(a.device_ids, a.command.id) for a in decision.actions]


def test_fully_said_of_the_one_blind_just_moved_opens_it_all_the_way():
    """卷帘拉开一半, then 全拉开: fully open, not every blind; 全关了 after a light is still a question."""
    home = [
        Device(id="blind-k", name="卷帘", room="儿童房", category="Blind", commands=[OPEN, CLOSE, SHADE]),
        Device(id="blind-l", name="窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE, SHADE]),
        light("lamp-k", "台灯", "儿童房"),
        light("lamp-l", "吊灯", "客厅"),
    ]
    state = ConversationState()
    _acted("儿童房卷帘拉开一半", home, state)
    assert _acted("全拉开", home, state) == [(("blind-k",), OPEN.id)]
    state = ConversationState()
    _acted("儿童房台灯打开", home, state)
    assert _acted("全关了", home, state) == []


def test_of_two_called_alike_the_one_able_to_take_the_value_is_meant():
    """热水器调到四十八度: the heat pump takes a temperature; the other 热水器 is a plug that switches."""
    setpoint = CommandSpec(
        "water_heater.set_temperature:temperature",
        "设置水温",
        "number",
        value_range={"minimum": 35, "maximum": 60, "unit": "°C"},
    )
    home = [
        Device(
            id="heater-roof", name="空气能热水器", room="天台", category="WaterHeater", commands=[setpoint]
        ),
        Device(id="heater-plug", name="二楼热水器", room="卫生间", category="SmartPlug", commands=[ON, OFF]),
    ]
    assert _acted("热水器调到四十八度", home, ConversationState()) == [(("heater-roof",), setpoint.id)]


def test_a_mute_said_of_a_kind_is_for_the_one_that_plays():
    """电视静音 with two televisions, one on: that one; with both on, which one is asked."""
    mute = CommandSpec("media_player.volume_mute:is_volume_muted", "静音", "boolean")
    home = [
        Device(id="tv-l", name="电视", room="客厅", category="Television", commands=[ON, OFF, mute]),
        Device(id="tv-b", name="电视", room="老人房", category="Television", commands=[ON, OFF, mute]),
    ]
    assert _acted("电视静音", home, ConversationState(), running=lambda d: d == "tv-b") == [
        (("tv-b",), mute.id)
    ]
    assert _acted("电视静音", home, ConversationState(), running=lambda _: True) == []


def test_a_mode_said_right_after_a_device_is_its_mode_when_no_scene_is_called_so():
    """空调调到26度, then 开睡眠模式: the air conditioner's preset, though scenes end in 模式 too."""
    preset = CommandSpec(
        "climate.set_preset_mode:preset_mode",
        "设置预设模式",
        value_list=[{"value": "sleep", "description": "睡眠"}, {"value": "eco", "description": "节能"}],
    )
    target = CommandSpec(
        "climate.set_temperature:temperature",
        "设置目标温度",
        "number",
        value_range={"minimum": 16, "maximum": 30},
    )
    home = [
        Device(
            id="ac-1",
            name="空调",
            room="老人房",
            category="AirConditioner",
            commands=[ON, OFF, target, preset],
        ),
        Device(id="scene.shop", name="开店模式", room="", category="Scene", commands=[ON]),
        Device(id="scene.sleep", name="睡觉模式", room="", category="Scene", commands=[ON]),
    ]
    state = ConversationState()
    _acted("老人房空调调到26度", home, state)
    assert _acted("开睡眠模式", home, state) == [(("ac-1",), preset.id)]
    assert _acted("开睡觉模式", home, ConversationState()) == [(("scene.sleep",), ON.id)]


def test_what_a_command_reads_or_sets_heard_wrong_is_read_by_its_sound():
    """电视英量调小一点: 英量 (ying liang) is 音量 (yin liang) heard with in/ing confused."""
    volume = CommandSpec("media_player.volume_down", "调低音量")
    home = [Device(id="tv-1", name="电视", room="客厅", category="Television", commands=[ON, OFF, volume])]
    (result,) = retrieve("电视英量调小一点", home, None, ConversationState())
    assert result.command.a == "调小音量"
    assert "unread" not in result.meta  # 英 is no word left unread


def test_floor_heating_is_a_kind_of_heating_no_other_heater_is_called_by():
    """把地暖打开 in a home with an oil radiator and no floor heating asks; with floor heating, acts."""
    radiator = Device(id="heater-1", name="油汀", room="主卧", category="Thermostat", commands=[ON, OFF])
    floor = Device(id="heater-2", name="客厅地暖", room="客厅", category="Thermostat", commands=[ON, OFF])
    assert _acted("把地暖打开", [radiator], ConversationState()) == []
    assert _acted("把地暖打开", [radiator, floor], ConversationState()) == [(("heater-2",), ON.id)]
    assert _acted("把暖气打开", [radiator], ConversationState()) == [(("heater-1",), ON.id)]


def test_a_room_said_by_its_other_name_picks_the_one_of_those_just_named():
    """把门锁打开 finds two locks; 东门 (= 东玄关) answers which: the east one, its room not called so."""
    lock, unlock = CommandSpec("lock.lock", "锁定"), CommandSpec("lock.unlock", "解锁")
    east = Device(id="lock-e", name="门锁", room="东玄关", category="SmartLock", commands=[lock, unlock])
    west = Device(id="lock-w", name="门锁", room="西玄关", category="SmartLock", commands=[lock, unlock])
    index = build_vector_searcher(
        [east, west], rooms=[Room("东玄关", aliases=("东门",)), Room("西玄关", aliases=("西门",))]
    )
    state = ConversationState()
    retrieve("把门锁打开", [east, west], None, state, vector_searcher=index)
    (result,) = retrieve("东门", [east, west], None, state, vector_searcher=index)
    assert [(c.entity_id, c.reasons) for c in result.candidates] == [
        ("lock-e", ["last_mentioned", "room_hit"])
    ]


def test_a_thing_a_category_leaves_apart_heard_wrong_is_read_by_its_sound():
    """范气扇开一下: 范 (fan) for 换 (huan) where f and h merge; 换气扇 is the bathroom fan's alias's kind."""
    exhaust = Device(
        id="fan-x",
        name="排气扇",
        room="卫生间",
        category="Fan",
        commands=[ON, OFF],
        aliases=("卫生间换气扇",),
    )
    fan = Device(id="fan-1", name="落地扇", room="客厅", category="Fan", commands=[ON, OFF])
    assert _acted("范气扇开一下", [exhaust, fan], ConversationState()) == [(("fan-x",), ON.id)]


def test_of_two_called_alike_the_one_whose_own_name_is_said_is_meant():
    """浴霸开开: the heating switch named 浴霸, not the exhaust fan of the same unit aliased 浴霸."""
    heater = Device(id="sw-1", name="浴霸", room="卫生间", category="Switch", commands=[ON, OFF])
    fan = Device(
        id="fan-1", name="换气扇", room="卫生间", category="Fan", commands=[ON, OFF], aliases=("浴霸",)
    )
    assert _acted("浴霸开开", [heater, fan], ConversationState()) == [(("sw-1",), ON.id)]
    assert _acted("换气扇开开", [heater, fan], ConversationState()) == [(("fan-1",), ON.id)]


def test_of_two_called_alike_the_only_one_the_action_changes_is_meant():
    """厕所灯开开, one 厕所灯 on and the other (called so by an alias) off: the one that is off.

    With what runs unknown, or both off, the one called by its own name.
    """
    down = light("lamp-d", "厕所灯", "楼下厕所")
    up = Device(
        id="lamp-u", name="卫生间灯", room="卫生间", category="Light", commands=[ON, OFF], aliases=("厕所灯",)
    )
    home = [down, up]
    assert _acted("厕所灯开开", home, ConversationState(), running=lambda d: d == "lamp-d") == [
        (("lamp-u",), ON.id)
    ]
    assert _acted("厕所灯关了", home, ConversationState(), running=lambda d: d == "lamp-u") == [
        (("lamp-u",), OFF.id)
    ]
    assert _acted("厕所灯开开", home, ConversationState(), running=lambda _: False) == [(("lamp-d",), ON.id)]
    assert _acted("厕所灯开开", home, ConversationState()) == [(("lamp-d",), ON.id)]


def test_a_set_said_by_the_name_its_members_end_with_takes_each_kind_of_them():
    """热水器全部关掉: plugs named 楼下热水器 and 楼上热水器 and a water heater, each driven its own way."""
    heater_off = CommandSpec("water_heater.turn_off", "关闭热水器")
    home = [
        Device(id="sw-down", name="楼下热水器", room="楼下厕所", category="Switch", commands=[ON, OFF]),
        Device(id="sw-up", name="楼上热水器", room="楼上厕所", category="Switch", commands=[ON, OFF]),
        Device(id="wh", name="主人房热水器", room="主人房", category="Others", commands=[heater_off]),
    ]
    acted = _acted("热水器全部关掉", home, ConversationState())
    assert sorted(acted) == [(("sw-down", "sw-up"), OFF.id), (("wh",), heater_off.id)]
    # a plug only holding the name (热水器插座 is a plug) leaves which sets are meant a question
    plug = Device(id="sw-plug", name="热水器插座", room="主人房", category="Switch", commands=[ON, OFF])
    assert _acted("热水器全部关掉", [*home, plug], ConversationState()) == []


def test_a_value_said_with_nothing_mentioned_finds_the_devices_listing_it():
    """switch 去 ViuTV with nothing mentioned before: the televisions with ViuTV among their sources."""
    source = CommandSpec(
        "media_player.select_source:source",
        "切换信号源",
        "string",
        value_list=[{"value": "ViuTV", "description": "ViuTV"}, {"value": "HDMI 1", "description": "HDMI 1"}],
    )
    tvs = [
        Device(id=f"media_player.{r}", name=f"{r}电视", room=r, category="Television", commands=[source])
        for r in ("客厅", "主卧")
    ]
    home = [*tvs, light("light.a", "客厅灯", "客厅")]
    (result,) = run(home, "switch 去 ViuTV", cmd("设置=viutv"))
    assert result.meta["reference"] == "value_listed"
    assert sorted(members(result)) == ["media_player.主卧", "media_player.客厅"]

    running = decide([result], by_id(home), "switch 去 ViuTV", running=lambda d: d == "media_player.客厅")
    assert [(a.device_ids, a.value) for a in running.actions] == [(("media_player.客厅",), "ViuTV")]
    (nothing,) = run(home, "切到 Netflix", cmd("设置=netflix"))
    assert nothing.hint == "no_target"  # listed by no device: the value names none


def test_a_value_the_homes_devices_take_is_kept_whole_from_the_words_of_other_varieties():
    """書枱燈轉暖光啲: 暖光 (a named colour temperature) is not folded apart into 暖 and 光啲."""
    warmth = CommandSpec(
        "light.turn_on:color_temp_kelvin",
        "设置色温",
        "integer",
        {"minimum": 2700, "maximum": 6500, "unit": "K"},
        named_values={"暖光": 2700.0},
    )
    playing = [{"value": "playing", "description": "播放中"}]
    state = CommandSpec("state", "状态", "string", value_list=playing, readable=True)  # read, never set
    lamp = Device(id="l", name="书枱灯", room="书房", category="Light", commands=[ON, OFF, warmth, state])
    index = build_vector_searcher([lamp])
    assert index.home_words.separate("书枱灯转暖光啲") == "书台灯转暖光 啲"
    assert index.offline_parser.calls.value_words == frozenset({"暖光"})
