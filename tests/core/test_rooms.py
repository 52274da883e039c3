"""Room aliases and floors scope commands (Home Assistant areas, their aliases and floors)."""

from __future__ import annotations

import numpy as np

from custom_components.context_retrieval.core import (
    CommandSpec,
    ConversationState,
    Device,
    Room,
    build_vector_searcher,
    retrieve,
)
from custom_components.context_retrieval.core.parsing import OfflineParser
from custom_components.context_retrieval.core.scope import RoomTable, rooms_of_a_kind

from .conftest import targets

ON = CommandSpec("turn_on", "打开")
OFF = CommandSpec("turn_off", "关闭")
ROOMS = (
    Room("客厅", aliases=("起居室",), floor_names=("一楼", "1F")),
    Room("厨房", floor_names=("一楼", "1F")),
    Room("卧室", aliases=("睡房",), floor_names=("二楼",)),
    Room("书房", floor_names=("二楼",)),
)
HOME = [
    Device("light.living", "吸顶灯", "客厅", "Light", [ON, OFF]),
    Device("climate.living", "空调", "客厅", "AirConditioner", [ON, OFF]),
    Device("light.kitchen", "厨房灯", "厨房", "Light", [ON, OFF]),
    Device("light.bedroom", "床头灯", "卧室", "Light", [ON, OFF]),
    Device("climate.bedroom", "空调", "卧室", "AirConditioner", [ON, OFF]),
    Device("light.study", "台灯", "书房", "Light", [ON, OFF]),
]


def kept(table: RoomTable, include=(), exclude=()) -> list[int]:
    return [int(i) for i in np.flatnonzero(table.apply(include, exclude).mask)]


def test_an_alias_scopes_like_the_room_name():
    table = RoomTable.build([d.room for d in HOME], [d.name for d in HOME], ROOMS)
    assert kept(table, include=["起居室"]) == kept(table, include=["客厅"]) == [0, 1]
    assert kept(table, exclude=["睡房"]) == [0, 1, 2, 5]


def test_a_floor_scopes_every_room_on_it():
    table = RoomTable.build([d.room for d in HOME], [d.name for d in HOME], ROOMS)
    assert kept(table, include=["一楼"]) == [0, 1, 2]
    assert kept(table, include=["1f"]) == [0, 1, 2]
    assert kept(table, exclude=["二楼"]) == [0, 1, 2]


def test_a_name_holding_an_alias_agrees_with_its_room():
    table = RoomTable.build(["客厅"], ["起居室落地灯"], ROOMS)
    assert not table.conflict[0]


def run(text: str) -> list:
    index = build_vector_searcher(HOME, rooms=ROOMS)
    return retrieve(text, HOME, None, ConversationState(), vector_searcher=index)


def test_offline_parser_reads_an_alias_as_the_room():
    [result] = run("起居室的空调开一下")
    assert result.command.s == "起居室"
    assert targets(result)[0] == "climate.living"


def test_offline_parser_reads_a_floor_and_targets_its_rooms():
    [result] = run("一楼的灯都关掉")
    assert sorted(targets(result)) == ["light.kitchen", "light.living"]


def test_rooms_are_optional_and_without_them_an_alias_is_unknown():
    """睡房, an alias the home gives 卧室, is unknown without the rooms; 起居室 says 客厅 in any home."""
    index = build_vector_searcher(HOME)
    [result] = retrieve("睡房的灯开一下", HOME, None, ConversationState(), vector_searcher=index)
    assert "睡房" not in index.room_names
    assert result.command.s != "睡房"
    assert "起居室" in index.room_names  # the same kind of room as 客厅 (room_words same_rooms)


def test_the_prompt_lists_aliases_and_floors():
    index = build_vector_searcher(HOME, rooms=ROOMS)
    for word in ("起居室", "一楼", "二楼", "睡房"):
        assert word in index.system_prompt


FLOORED = [
    *HOME,
    Device("climate.floor", "一楼暖气", "客厅", "Thermostat", [ON, OFF]),
    Device("climate.kitchen", "厨房暖气", "厨房", "Thermostat", [ON, OFF]),
]


def test_a_floor_and_a_kind_that_are_one_device_s_name_mean_that_device():
    """一楼暖气 is a thermostat's name: 一楼暖气关了 is that one, 一楼的灯关了 still every light there."""
    index = build_vector_searcher(FLOORED, rooms=ROOMS)
    [named] = retrieve("一楼暖气关了", FLOORED, None, ConversationState(), vector_searcher=index)
    assert named.command.q == "one"
    assert targets(named)[0] == "climate.floor"
    [lights] = retrieve("一楼的灯关了", FLOORED, None, ConversationState(), vector_searcher=index)
    assert sorted(targets(lights)) == ["light.kitchen", "light.living"]


def test_a_room_said_with_its_floor_is_that_room_not_the_floor():
    """一楼的客厅: the living room, on the first floor; a room not on the floor said leaves the floor's."""
    table = RoomTable.build([d.room for d in HOME], [d.name for d in HOME], ROOMS)
    assert kept(table, include=("一楼", "客厅")) == [0, 1]
    assert kept(table, include=("一楼",)) == [0, 1, 2]
    assert kept(table, include=("二楼", "客厅")) == [0, 1, 3, 4, 5]  # not there: both, as said


def test_a_word_inside_a_name_is_not_read_across_a_room_word():
    """阳台灯 holds no 台灯: its 台 is the room 阳台's."""
    table = RoomTable.build(["阳台", "书房"], ["阳台灯", "书房台灯"], [Room("阳台"), Room("书房")])
    assert not table.holds_whole("阳台灯", "台灯")
    assert table.holds_whole("书房台灯", "台灯")
    assert table.holds_whole("阳台灯", "灯")
    assert table.holds_whole("阳台台灯", "台灯")
    home = [
        Device("light.balcony", "阳台灯", "阳台", "Light", [ON, OFF]),
        Device("light.desk", "书房台灯", "书房", "Light", [ON, OFF]),
        Device("light.study", "书房灯", "书房", "Light", [ON, OFF]),
    ]
    index = build_vector_searcher(home, rooms=[Room("阳台"), Room("书房")])
    [result] = retrieve("台灯全部关掉", home, None, ConversationState(), vector_searcher=index)
    assert targets(result) == ["light.desk"]


def test_a_count_of_rooms_is_no_count_of_devices():
    """三个房间的灯都关了 is about the lights of three rooms, not three lights; 两盏灯打开 is two lights."""
    [rooms] = run("三个房间的灯都关了")
    assert (rooms.command.q, rooms.command.c) == ("all", 3)
    [lights] = run("随便开两盏灯")
    assert (lights.command.q, lights.command.c) == ("any", 2)
    # 卧室 no room of this home: two bedrooms' ceiling lights, a count of devices said by their words
    parser = OfflineParser.build(["主卧", "次卧"], ["主卧吸顶灯", "次卧吸顶灯"])
    (ceiling,) = parser.parse("两个卧室的吸顶灯都打开")
    assert (ceiling.q, ceiling.c) == ("any", 2)


def test_a_place_and_a_name_said_apart_that_are_a_device_s_alias_name_it():
    """楼上暖气 read as the floor 楼上 and 暖气: the thermostat aliased so, not a heater in a room there."""
    rooms = (Room("走廊", floor_names=("二楼", "楼上")), Room("儿童房", floor_names=("二楼", "楼上")))
    home = [
        Device("climate.upstairs", "二楼温控", "走廊", "Thermostat", [ON, OFF], aliases=["楼上暖气"]),
        Device("switch.heater", "小太阳", "儿童房", "Thermostat", [ON, OFF], aliases=["暖气片"]),
    ]
    index = build_vector_searcher(home, rooms=rooms)
    [result] = retrieve("楼上暖气关了", home, None, ConversationState(), vector_searcher=index)
    assert result.candidates[0].entity_id == "climate.upstairs"
    assert "alias_hit" in result.candidates[0].reasons


def test_a_follow_up_naming_a_floor_of_a_set_said_of_the_home_is_the_device_called_so():
    """暖气关了 (every heater), then 一楼的: the one called 一楼暖气, not the floor's every heater."""
    index = build_vector_searcher(FLOORED, rooms=ROOMS)
    state = ConversationState()
    retrieve("暖气都关了", FLOORED, None, state, vector_searcher=index)
    [floor] = retrieve("一楼的", FLOORED, None, state, vector_searcher=index)
    top = floor.candidates[0]
    assert (floor.meta["quantifier_from_text"], top.entity_kind, top.entity_id) == (
        "one",
        "device",
        "climate.floor",
    )
    [every] = retrieve("一楼的暖气都关了", FLOORED, None, ConversationState(), vector_searcher=index)
    assert sorted(targets(every)) == ["climate.floor", "climate.kitchen"]


def test_a_room_is_inside_its_floor_and_itself():
    index = build_vector_searcher(HOME, rooms=ROOMS)
    assert index.room_inside("书房", "二楼")
    assert index.room_inside("睡房", "二楼")  # an alias of 卧室
    assert index.room_inside("客厅", "客厅")
    assert not index.room_inside("客厅", "二楼")
    assert not index.room_inside("阁楼", "二楼")  # no such room


def test_a_word_for_a_kind_set_apart_means_none_of_the_others():
    """窗户关上 in a home whose covers are curtains: no curtain is meant; with a window cover, that one."""
    close = CommandSpec("cover.close_cover", "关闭窗帘")
    curtain = Device("cover.curtain", "客厅窗帘", "客厅", "Blind", [close], kind="窗帘")
    window = Device("cover.window", "天窗", "客厅", "Blind", [close], kind="窗户")
    index = build_vector_searcher([curtain], rooms=[Room("客厅")])
    [none] = retrieve("客厅窗户关上", [curtain], None, ConversationState(), vector_searcher=index)
    assert none.hint == "name_not_found"
    both = [curtain, window]
    index = build_vector_searcher(both, rooms=[Room("客厅")])
    [found] = retrieve("客厅窗户关上", both, None, ConversationState(), vector_searcher=index)
    assert targets(found)[0] == "cover.window"


BATHROOMS = (
    Room("一楼卫生间", floor_names=("一楼",)),
    Room("二楼卫生间", floor_names=("二楼",)),
    Room("主卧", floor_names=("二楼",)),
    Room("主卫", aliases=("主卧卫生间",), floor_names=("二楼",)),
)
BATHROOM_LIGHTS = [
    Device("light.bath1", "一楼卫生间灯", "一楼卫生间", "Light", [ON, OFF]),
    Device("light.bath2", "二楼卫生间灯", "二楼卫生间", "Light", [ON, OFF]),
    Device("light.master_bath", "主卫灯", "主卫", "Light", [ON, OFF]),
    Device("light.master", "主卧灯", "主卧", "Light", [ON, OFF]),
]


def test_rooms_named_a_kind_after_a_floor_or_another_room_are_rooms_of_that_kind():
    assert rooms_of_a_kind(BATHROOMS) == {"卫生间": ("一楼卫生间", "二楼卫生间", "主卫")}


def test_every_room_of_a_kind_said_with_an_all_word_is_the_scope():
    """所有卫生间的灯: the lights of 一楼卫生间, 二楼卫生间 and 主卫 (主卧卫生间); 卫生间的灯: no room."""
    index = build_vector_searcher(BATHROOM_LIGHTS, rooms=BATHROOMS)
    state = ConversationState()
    [every] = retrieve("所有卫生间的灯打开", BATHROOM_LIGHTS, None, state, vector_searcher=index)
    assert sorted(targets(every)) == ["light.bath1", "light.bath2", "light.master_bath"]
    [one] = retrieve("卫生间的灯打开", BATHROOM_LIGHTS, None, ConversationState(), vector_searcher=index)
    assert (one.command.s, one.command.q) == ("*", "one")


def test_a_kind_of_room_said_with_floors_is_the_rooms_of_that_kind_on_them():
    """一楼卫生间 said as 一楼 and 卫生间: the bathroom on the first floor, not every room of either."""
    table = build_vector_searcher(BATHROOM_LIGHTS, rooms=BATHROOMS).rooms
    kept = [int(i) for i in np.flatnonzero(table.apply(["一楼", "卫生间"], []).mask)]
    assert [BATHROOM_LIGHTS[i].id for i in kept] == ["light.bath1"]
