"""Seed scenarios of quantified commands and groups (seed 001 量词批量语义与 Group 聚合, 输出有效性)."""

from __future__ import annotations

import pytest

from .conftest import cmd, light
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
