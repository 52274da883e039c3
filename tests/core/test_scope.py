"""Scope: exclude hard, include hard with fallback, room words in names (seed 003, seed 004 Scope 预过滤)."""

import numpy as np
import pytest

from custom_components.context_retrieval.core.models import Room
from custom_components.context_retrieval.core.scope import (
    OwnerWords,
    RoomTable,
    RoomWordsError,
    extract_room_from_name,
    with_owner_words,
)

ROOMS = ["卧室", "客厅", "厨房", "主卧室"]


def kept(table: RoomTable, include=(), exclude=()) -> list[int]:
    return [int(i) for i in np.flatnonzero(table.apply(include, exclude).mask)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("客厅老伙计", "客厅"),
        ("主卧室台灯", "主卧室"),  # longest match wins over 卧室
        ("客厅到厨房的灯带", False),  # two rooms: ambiguous
        ("老伙计", None),
        ("卧室卧室灯", "卧室"),  # the same word twice is still one room
        ("marshall", None),  # a Latin word holds no room inside it
        ("hall灯", "hall"),
    ],
)
def test_extract_room_from_name(name, expected):
    assert extract_room_from_name(name, {*ROOMS, "hall"}, 4) == expected


def test_single_character_room_words_are_ignored():
    table = RoomTable.build(["东", "卧室"], ["东边的灯", "灯"])
    assert int(table.name_room_ids[0]) < 0


def test_exclude_room_removes_devices():
    table = RoomTable.build(["卧室", "客厅"], ["卧室灯", "客厅灯"])
    assert kept(table, exclude=["卧室"]) == [1]


def test_include_room_keeps_only_that_room():
    table = RoomTable.build(["卧室", "客厅", "厨房"], ["卧室灯", "客厅灯", "厨房灯"])
    outcome = table.apply(["客厅"], [])
    assert [int(i) for i in np.flatnonzero(outcome.mask)] == [1]
    assert "scope_include_fallback" not in outcome.meta


def test_include_falls_back_to_exclude_only_when_nothing_is_left():
    table = RoomTable.build(["卧室", "客厅", "厨房"], ["灯1", "灯2", "灯3"])
    outcome = table.apply(["书房"], ["卧室"])
    assert [int(i) for i in np.flatnonzero(outcome.mask)] == [1, 2]
    assert outcome.meta["scope_include_fallback"] == 1
    assert outcome.meta["room_unknown_terms"] == ["书房"]


def test_exclude_stays_hard_even_when_it_empties_the_set():
    table = RoomTable.build(["卧室", "卧室"], ["灯1", "灯2"])
    assert kept(table, exclude=["卧室"]) == []


@pytest.mark.parametrize("room", ["", "卧室"])
def test_name_with_room_word_is_kept_when_its_room_is_missing_or_conflicts(room):
    # seed 001: 客厅老伙计 with an empty or other room is not filtered out by 客厅.
    table = RoomTable.build([room, "客厅", "卧室"], ["客厅老伙计", "客厅灯", "卧室灯"])
    outcome = table.apply(["客厅"], [])
    assert [int(i) for i in np.flatnonzero(outcome.mask)] == [0, 1]
    assert outcome.meta["room_name_used"] == 1


def test_conflicting_device_answers_to_its_room_and_to_its_name():
    # device 1's name says 客厅 but its room says 卧室: it is in scope for either room,
    # and excluded by either.
    table = RoomTable.build(["客厅", "卧室", "卧室"], ["客厅灯", "客厅老伙计", "床头灯"])
    assert kept(table, include=["卧室"]) == [1, 2]
    assert kept(table, include=["客厅"]) == [0, 1]
    assert kept(table, exclude=["客厅"]) == [2]
    assert kept(table, exclude=["卧室"]) == [0]


def test_a_name_holding_its_own_rooms_short_form_is_not_in_the_room_of_that_word():
    # 三楼客厅's 客厅灯 says 客厅 as short for its own room: 客厅 (another room) does not take it;
    # 卧室's 客厅灯 contradicts its room and answers to both.
    table = RoomTable.build(["客厅", "三楼客厅", "卧室"], ["客厅大灯", "客厅灯", "客厅灯"])
    assert kept(table, include=["客厅"]) == [0, 2]
    assert kept(table, include=["三楼客厅"]) == [1]
    assert kept(table, exclude=["客厅"]) == [1]


def test_two_rooms_in_a_name_leave_the_device_room_trusted():
    table = RoomTable.build(["客厅", "卧室"], ["客厅灯", "卧室里的客厅灯"])
    assert kept(table, include=["卧室"]) == [1]


def test_unknown_command_room_enables_name_matching_for_all_devices():
    table = RoomTable.build(["卧室", "卧室"], ["花园灯", "卧室灯"])
    outcome = table.apply(["花园"], [])
    assert [int(i) for i in np.flatnonzero(outcome.mask)] == [0]
    assert outcome.meta["room_unknown_terms"] == ["花园"]
    assert outcome.meta["room_name_used"] >= 1


def test_ambiguous_names_do_not_decide_and_are_counted():
    table = RoomTable.build(["", "客厅", "厨房"], ["客厅厨房灯带", "灯", "灯"])
    outcome = table.apply([], ["客厅"])
    # the ambiguous device is not excluded by its name (conservative).
    assert [int(i) for i in np.flatnonzero(outcome.mask)] == [0, 2]
    assert outcome.meta["room_name_ambiguous"] == 1


@pytest.mark.parametrize("room", ["客厅 ", "客 厅", "客厅\u3000"])
def test_rooms_are_normalised_the_same_way_on_both_sides(room):
    table = RoomTable.build([room, "卧室"], ["灯", "灯"])
    assert kept(table, include=["客厅"]) == [0]


def test_bracket_and_width_variants_match():
    table = RoomTable.build(["（儿童房）", "卧室"], ["灯", "灯"])
    assert kept(table, include=["(儿童房)"]) == [0]


def test_no_scope_keeps_everything():
    table = RoomTable.build(["卧室", "客厅"], ["a", "b"])
    assert kept(table) == [0, 1]
    assert kept(table, include=["*"]) == [0, 1]


def test_a_room_named_after_its_owner_is_said_by_the_owner():
    rooms = [
        Room("悦悦房间", aliases=("女儿的房间",)),
        Room("老人房", aliases=("爷爷奶奶房间", "楼下房间"), floor_names=("楼下",)),
        Room("书房", aliases=("麻将房",)),
        Room("次卧", aliases=("客人房间",)),
        Room("客房", aliases=("客人屋",)),
    ]
    said = {room.name: room.aliases for room in with_owner_words(rooms, device_names=["乐乐"])}
    assert {"悦悦", "悦悦房", "悦悦屋", "女儿", "女儿房"} <= set(said["悦悦房间"])  # 女儿的房间: 女儿
    assert {"爷爷奶奶", "爷爷奶奶房"} <= set(said["老人房"])
    assert "楼下" not in said["老人房"]  # a floor's word stays the floor's
    # 房 alone ends words of their own (厨房, 麻将房); 书屋 says the same kind of room as 书房
    assert said["书房"] == ("麻将房", "书房间", "麻将房间", "书屋", "study", "studyroom")
    assert "客人" not in (*said["次卧"], *said["客房"])  # two rooms: whose?
    assert with_owner_words([Room("乐乐房间")], device_names=["乐乐"])[0].aliases == ()  # a device's name


def test_a_room_is_also_said_by_the_words_of_the_same_kind_of_room():
    """主卧 is also 主人房 (as Hong Kong says it); a word another room or a device has stays theirs."""
    rooms = [Room("主卧"), Room("大厅"), Room("客厅"), Room("卫生间")]
    said = {room.name: room.aliases for room in with_owner_words(rooms, device_names=["厕所"])}
    assert {"主人房", "主卧室"} <= set(said["主卧"])
    assert said["大厅"] == said["客厅"] == ()  # two rooms of a kind: neither is the other, nor 起居室
    assert "洗手间" in said["卫生间"]
    assert "厕所" not in said["卫生间"]  # a device's name
    assert {"masterbedroom", "bathroom"} <= {*said["主卧"], *said["卫生间"]}  # English, as mixed speech
    two = {room.name: room.aliases for room in with_owner_words([Room("客厅"), Room("楼上客厅")])}
    assert "livingroom" in two["客厅"]  # called 客厅, as said in Chinese; 楼上客厅 is only a living room too
    assert two["楼上客厅"] == ()
    loos = {room.name: room.aliases for room in with_owner_words([Room("Bathroom"), Room("楼下厕所")])}
    assert "洗手间" in loos["Bathroom"]
    assert "厕所" not in loos["Bathroom"]  # 楼下厕所 ends with it: which is meant stays a question


def test_a_room_said_in_english_as_someones_is_said_by_their_name():
    """Chloe's room is said Chloe (Chloe's lamp); a baby room or a guest room is no one's."""
    said = {room.name: room.aliases for room in with_owner_words([Room("Chloe's room"), Room("Baby room")])}
    assert "chloe" in said["Chloe's room"]
    assert "baby" not in said["Baby room"]


def test_a_rooms_end_is_also_said_as_the_room_words_file_has_it():
    """爷爷奶奶房间 for the room 爷爷奶奶房, 厨房间 for 厨房; a room already called so keeps its own."""
    rooms = [Room("爷爷奶奶房"), Room("厨房"), Room("客房"), Room("客房间")]
    said = {room.name: room.aliases for room in with_owner_words(rooms)}
    assert "爷爷奶奶房间" in said["爷爷奶奶房"]
    assert "厨房间" in said["厨房"]
    assert "客房间" not in said["客房"]


def test_a_room_word_with_de_inside_is_also_said_without_it():
    """里头的厕所 is said 里头厕所; a word another room has is left to it."""
    rooms = [Room("主卫", aliases=("里头的厕所",)), Room("客卫", aliases=("外头厕所", "外头的厕所"))]
    said = {room.name: room.aliases for room in with_owner_words(rooms)}
    assert "里头厕所" in said["主卫"]
    assert said["客卫"].count("外头厕所") == 1


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"owned": ["房间"]},
        {"owned": [], "said_with": ["房"]},
        ["房间"],
        {"owned": ["房间"], "said_with": ["房"], "ends_said": {"房": "房间"}},
        {"owned": ["房间"], "said_with": ["房"], "sides": "边"},
        {"owned": ["房间"], "said_with": ["房"], "sides": [1]},
    ],
)
def test_a_malformed_room_words_file_is_refused(raw):
    with pytest.raises(RoomWordsError):
        OwnerWords.from_data(raw)
