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
from custom_components.context_retrieval.core.scope import RoomTable

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
    index = build_vector_searcher(HOME)
    [result] = retrieve("起居室的空调开一下", HOME, None, ConversationState(), vector_searcher=index)
    assert "起居室" not in index.room_names
    assert result.command.s != "起居室"


def test_the_prompt_lists_aliases_and_floors():
    index = build_vector_searcher(HOME, rooms=ROOMS)
    for word in ("起居室", "一楼", "二楼", "睡房"):
        assert word in index.system_prompt
