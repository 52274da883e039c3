"""Seed scenarios of quantified commands and groups (seed 001 量词批量语义与 Group 聚合, 输出有效性)."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.models import Device

from .conftest import CLOSE, OFF, ON, OPEN, cmd, light, targets
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


def test_a_kind_word_means_the_devices_of_that_kind_and_the_categorys_word_all():
    """窗户 is the window (a cover of class window), not the curtains; the category word 窗帘 takes all."""
    covers = [
        Device(id="c-1", name="客厅窗帘", room="客厅", category="Blind", kind="窗帘", commands=[OPEN, CLOSE]),
        Device(id="c-2", name="书房卷帘", room="书房", category="Blind", kind="卷帘", commands=[OPEN, CLOSE]),
        Device(
            id="w-1", name="阳光房天窗", room="阳光房", category="Blind", kind="窗户", commands=[OPEN, CLOSE]
        ),
    ]
    (windows,) = run(covers, "把窗户都关上", cmd("关闭", n="窗户", t="Blind", q="all"))
    (curtains,) = run(covers, "把窗帘都关上", cmd("关闭", n="窗帘", t="Blind", q="all"))
    assert targets(windows) == ["w-1"]
    assert set(targets(curtains)) == {"c-1", "c-2"}  # 天窗 is set apart from 窗帘


def test_a_set_named_by_a_kind_takes_only_devices_called_all_of_it():
    """所有排风扇: the bathroom's 排风扇, not a desk fan aliased 风扇."""
    fans = [
        Device(id="f-1", name="卫生间排风扇", room="卫生间", category="Fan", commands=[ON, OFF]),
        Device(id="f-2", name="小电扇", room="书房", category="Fan", aliases=("风扇",), commands=[ON, OFF]),
    ]
    (result,) = run(fans, "所有排风扇都打开", cmd("打开", n="排风扇", t="Fan", q="all"))
    assert targets(result) == ["f-1"]


def test_a_question_naming_a_kind_reads_the_devices_of_that_kind_first():
    """那主卧的呢，也开着吗 after 客厅加湿器打开: the bedroom's humidifier, not its window contact."""
    from custom_components.context_retrieval.core.models import CommandSpec

    power = CommandSpec("state", "开关状态", readable=True, value_list=[{"value": "on", "description": "开"}])
    opened = CommandSpec(
        "state", "窗户是否开着", readable=True, value_list=[{"value": "on", "description": "开着"}]
    )
    home = [
        Device(id="h-1", name="主卧加湿器", room="主卧", category="Humidifier", commands=[ON, OFF, power]),
        Device(id="s-1", name="主卧窗户", room="主卧", category="ContactSensor", commands=[opened]),
    ]
    (result,) = run(home, "主卧加湿器开着吗", cmd("查询状态", s="主卧", n="加湿器", t="Humidifier"))
    assert result.candidates[0].entity_id == "h-1"


def test_the_others_after_a_set_was_read_are_its_devices_but_the_one_kept():
    """留筒灯，其他关掉 after a question about the living room's lights: those lights but the downlight."""
    from custom_components.context_retrieval.core.state import ConversationState

    home = [
        light("l-1", "客厅主灯", "客厅"),
        light("l-2", "客厅筒灯", "客厅"),
        light("l-3", "客厅灯带", "客厅"),
        light("b-1", "卧室灯", "卧室"),
    ]
    state = ConversationState()
    run(home, "客厅的灯开着吗", cmd("查询状态", s="客厅", n="灯", t="Light", q="all"), state=state)
    (result,) = run(home, "留筒灯，其他关掉", cmd("关闭", q="except", x=["筒灯"]), state=state)
    assert sorted(targets(result)) == ["l-1", "l-3"]


def test_a_room_and_a_name_said_together_find_the_device_so_called_whatever_its_category():
    """神台灯 is a switch; read as the room 神台 and 灯 it still passes the gate of lights."""

    home = [
        light("l-1", "神台射灯", "神台"),
        Device(id="s-1", name="神台灯", room="神台", category="Switch", commands=[ON, OFF]),
    ]
    (result,) = run(home, "神台灯关掉", cmd("关闭", s="神台", n="灯", t="Light"))
    assert "s-1" in targets(result)


def test_a_set_leaves_out_whose_one_said_by_another_word_of_its_kind():
    """窗帘全拉上, Ethan 的不用: Ethan's blind (Ethan 卷帘) is one of the curtains left alone."""
    home = [
        Device(id="c-1", name="客厅窗帘", room="客厅", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="c-2", name="Ethan 卷帘", room="儿童房", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="c-3", name="主卧百叶窗", room="主卧", category="Blind", commands=[OPEN, CLOSE]),
    ]
    (result,) = run(
        home, "窗帘全拉上，Ethan 的不用", cmd("关闭", n="窗帘", t="Blind", q="except", x=["Ethan"])
    )
    assert sorted(targets(result)) == ["c-1", "c-3"]
    assert "exclusion_unmatched" not in result.meta
