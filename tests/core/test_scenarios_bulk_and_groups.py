"""Seed scenarios of quantified commands and groups (seed 001 量词批量语义与 Group 聚合, 输出有效性)."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.models import Device

from .conftest import CLOSE, OFF, ON, OPEN, cmd, light
from .conftest import run_commands as run


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("打开所有灯", cmd("打开", n="灯", t="Light", q="all")),
        ("除了客厅都关掉", cmd("关闭", s="*,!客厅", q="except")),
        ("把所有灯调到50%", cmd("设置亮度=50%", n="灯", t="Light", q="all")),
    ],
)
def test_group_candidates_carry_valid_group_metadata(home, text, command):
    devices = {device.id: device for device in home}
    (result,) = run(home, text, command)
    assert result.candidates
    for candidate in result.candidates:
        assert candidate.entity_kind == "group"
        group = result.groups[candidate.entity_id]
        assert group.device_ids
        assert group.capability_id == candidate.capability_id
        for device_id in group.device_ids:
            device = devices[device_id]
            assert device.name
            assert candidate.capability_id in {c.id for c in device.commands}


def test_except_with_an_excluded_room_covers_every_other_device_of_the_type():
    home = [
        light("l-1", "主灯", "LivingRoom"),
        light("l-2", "吊灯", "LivingRoom"),
        light("b-1", "床头灯", "Bedroom"),
        light("b-2", "台灯", "Bedroom", dimmable=False),
        light("k-1", "吸顶灯", "Kitchen"),
    ]
    (result,) = run(
        home, "除了客厅都关掉", cmd("关闭", s="*,!LivingRoom", n="灯", t="Light", q="except"), top_k=1
    )
    members = {d for c in result.candidates for d in result.groups[c.entity_id].device_ids}
    assert members == {"b-1", "b-2", "k-1"}
    assert len(result.candidates) == 1  # 台灯 cannot dim, but switches off like the others
    assert result.hint is None


def _members(result):
    return {device_id for group in result.groups.values() for device_id in group.device_ids}


def test_a_set_named_by_its_kind_takes_devices_whose_name_ends_with_it():
    home = [
        light("l-1", "吸顶灯", "客厅"),
        light("l-2", "老伙计", "客厅"),
        Device(id="r-1", name="阳台灯", room="阳台", category="Switch", commands=[ON, OFF]),
        Device(id="r-2", name="灯带开关", room="阳台", category="Switch", commands=[ON, OFF]),
        Device(id="s-1", name="全屋关灯", room="客厅", category="Scene", commands=[ON]),  # named by its deed
    ]
    (result,) = run(home, "全屋的灯都关了", cmd("关闭", n="灯", t="Light", q="all"))
    assert _members(result) == {"l-1", "l-2", "r-1"}
    (result,) = run(home, "阳台灯关了", cmd("关闭", s="阳台", n="灯", t="Light", q="one"))
    assert [c.entity_id for c in result.candidates][:1] == ["r-1"]


def test_a_count_that_matches_the_devices_called_by_a_kind_word_selects_them():
    home = [
        Device(id=f"b-{n}", name=name, room=room, category="Blind", commands=[OPEN, CLOSE])
        for n, (name, room) in enumerate(
            [("纱帘", "客厅"), ("纱帘", "主卧"), ("窗帘", "主卧"), ("卷帘", "书房")]
        )
    ]
    (result,) = run(home, "两个纱帘都拉开", cmd("打开", n="纱帘", t="Blind", q="all", c=2))
    assert _members(result) == {"b-0", "b-1"}
    (result,) = run(home, "三个纱帘都拉开", cmd("打开", n="纱帘", t="Blind", q="all", c=3))
    assert _members(result) == {"b-0", "b-1", "b-2", "b-3"}
