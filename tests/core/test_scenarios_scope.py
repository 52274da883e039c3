"""Seed scenarios of the room scope (seed 001 scope_exclude/scope_include, seed 003 §1-7, ADR-002/003)."""

from __future__ import annotations

import numpy as np
import pytest

from custom_components.context_retrieval.core import Device
from custom_components.context_retrieval.core.fusion import ROOM_BONUS
from custom_components.context_retrieval.core.scope import NO_ROOM, RoomTable
from custom_components.context_retrieval.core.search import SAID_NAME_WEIGHT

from .conftest import ON, cmd, targets
from .conftest import run_commands as run

LIVING_ROOM_DEVICES = {"lamp-1", "lamp-3", "blind-1", "ac-1", "thermo-1", "fan-1"}


def kept(outcome):
    return [int(i) for i in np.flatnonzero(outcome.mask)]


def test_excluded_room_is_gone_even_for_an_exact_name(home):
    (result,) = run(home, "打开客厅以外的老伙计", cmd("打开", s="*,!客厅", n="老伙计"))
    assert result.candidates
    assert not LIVING_ROOM_DEVICES & set(targets(result))


def test_excluded_room_is_gone_from_bulk_targets(home):
    (result,) = run(home, "除了客厅都打开", cmd("打开", s="*,!客厅", q="except"))
    assert set(targets(result)) == {"lamp-2", "lamp-4", "lamp-5", "plug-1"}


def test_room_match_adds_the_room_bonus(home):
    (scoped,) = run(home, "打开客厅的主灯", cmd("打开", s="客厅", n="主灯"))
    (unscoped,) = run(home, "打开主灯", cmd("打开", n="主灯"))
    assert scoped.candidates[0].entity_id == unscoped.candidates[0].entity_id == "lamp-3"
    assert "room_hit" in scoped.candidates[0].reasons
    assert "room_hit" not in unscoped.candidates[0].reasons
    bonus = scoped.candidates[0].keyword_score - unscoped.candidates[0].keyword_score
    # Up to the tie-break for how much of each utterance the name covers.
    assert bonus == pytest.approx(ROOM_BONUS, abs=SAID_NAME_WEIGHT)


@pytest.mark.parametrize("room", ["", "卧室"])
def test_device_named_with_a_room_is_kept_by_its_name(home, room):
    # seed 001 客厅老伙计 + seed 003: an empty or conflicting room lets the name decide.
    old = Device(id="old-1", name="客厅老伙计", room=room, category="Fan", commands=[ON])
    (result,) = run([*home, old], "打开客厅老伙计", cmd("打开", s="客厅", n="老伙计"))
    found = {candidate.entity_id: candidate for candidate in result.candidates}
    assert "old-1" in found
    assert "name_partial" in found["old-1"].reasons
    assert set(found) - {"old-1"} <= LIVING_ROOM_DEVICES  # include is still a hard filter
    assert result.meta["room_name_used"] >= 1
    assert "scope_include_fallback" not in result.meta


def test_a_whole_name_said_is_not_scoped_to_the_room_word_inside_it(home):
    # 浴室暖风机 is the name of a heater in 主卧浴室: 浴室 inside it is no room to search.
    bath = Device(id="bath-light", name="浴室灯", room="浴室", category="Light", commands=[ON])
    heater = Device(id="heater", name="浴室暖风机", room="主卧浴室", category="Switch", commands=[ON])
    (named,) = run([*home, bath, heater], "打开浴室暖风机", cmd("打开", n="浴室暖风机"))
    assert named.candidates[0].entity_id == "heater"
    assert "room_from_name_hint" not in named.meta
    (room,) = run([*home, bath, heater], "打开浴室大灯", cmd("打开", n="浴室大灯"))
    assert room.meta["room_from_name_hint"] == "浴室"
    assert [c.entity_id for c in room.candidates] == ["bath-light"]
    # the whole name of a device inside that room still scopes (the agent reads that room alone)
    (inside,) = run([*home, bath, heater], "打开浴室灯", cmd("打开", n="浴室灯"))
    assert inside.meta["room_from_name_hint"] == "浴室"


def test_a_name_two_rooms_devices_have_is_both_of_them(home):
    # 客厅空调 in 客厅 and 三楼客厅's own 客厅空调: the name says both, not the room 客厅.
    upstairs = Device(id="ac-3", name="客厅空调", room="三楼客厅", category="AirConditioner", commands=[ON])
    (result,) = run([*home, upstairs], "打开客厅空调", cmd("打开", n="客厅空调"))
    assert {c.entity_id for c in result.candidates[:2]} == {"ac-1", "ac-3"}


def test_the_speakers_own_room_narrows_no_name_and_leaves_a_kind_unplaced(home):
    # 我房间 is the speaker's room, which the home cannot place: 我房间的小夜灯 names the one
    # night light wherever it is; 我房间的灯 (a kind) keeps the room it cannot find, so it asks.
    night = Device(id="night", name="小夜灯", room="次卧", category="Light", commands=[ON])
    (named,) = run([*home, night], "打开我房间的小夜灯", cmd("打开", s="我房间", n="小夜灯", t="Light"))
    assert named.candidates[0].entity_id == "night"
    assert "scope_include_fallback" not in named.meta
    (kind,) = run([*home, night], "打开我房间的灯", cmd("打开", s="我房间", n="灯", t="Light"))
    assert kind.meta["scope_include_fallback"] == 1


def test_include_with_a_wildcard_is_not_a_filter(home):
    # seed 003 §6.2: include filters only when it is non-empty and has no '*'.
    (result,) = run(home, "打开灯", cmd("打开", s="*,客厅", n="灯", t="Light", q="all"))
    assert set(targets(result)) == {d.id for d in home if d.category == "Light"} | {"plug-1"}


def test_include_fallback_keeps_the_exclusion(home):
    (result,) = run(home, "打开阁楼的灯", cmd("打开", s="阁楼,!客厅", n="灯", t="Light", q="all"))
    assert result.meta["scope_include_fallback"] == 1
    assert result.meta["room_unknown_terms"] == ["阁楼"]
    assert set(targets(result)) == {"lamp-2", "lamp-4", "lamp-5", "plug-1"}


def test_room_vocabulary_is_device_rooms_plus_command_rooms():
    table = RoomTable.build(["卧室", "客厅"], ["阁楼灯", "客厅灯"])
    assert int(table.name_room_ids[0]) == NO_ROOM  # 阁楼 is no device's room
    outcome = table.apply(["阁楼"], [])
    assert kept(outcome) == [0]  # the command's own room word joins the vocabulary
    assert outcome.meta["room_unknown_terms"] == ["阁楼"]
    assert outcome.meta["room_name_used"] == 2  # both names carry a room word once it is enabled


def test_rooms_are_not_mapped_by_synonyms():
    table = RoomTable.build(["卧室", "客厅"], ["灯", "灯"])
    outcome = table.apply(["卧房"], [])
    assert outcome.meta["scope_include_fallback"] == 1
    assert outcome.meta["room_unknown_terms"] == ["卧房"]
    assert kept(outcome) == [0, 1]


def test_observability_counters_reach_the_result(home):
    strip = Device(id="strip-1", name="客厅厨房灯带", room="", category="Light", commands=[ON])
    (result,) = run([*home, strip], "打开客厅的灯", cmd("打开", s="客厅", n="灯", t="Light", q="all"))
    assert result.meta["room_name_ambiguous"] == 1
    assert result.meta["room_name_used"] == 1  # 客厅风扇
    assert result.meta["room_unknown_terms"] == []
    assert "strip-1" not in targets(result)  # an ambiguous name does not decide
