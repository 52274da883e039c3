"""An action said in words nobody indexed never drops the device the user meant."""

from __future__ import annotations

from custom_components.context_retrieval.core.models import CommandSpec, Device
from custom_components.context_retrieval.core.pipeline import build_vector_searcher

from .conftest import LEVEL, OFF, ON, DistinctEmbedder, cmd, light
from .conftest import run_commands as run


def _home():
    return [
        light("l-1", "老伙计", "客厅"),
        light("l-2", "吊灯", "客厅"),
        Device(id="p-1", name="热水壶", room="厨房", category="Unknown", commands=[ON, OFF]),
    ]


def test_a_named_device_stays_with_its_best_command_and_a_lower_score():
    home = _home()
    index = build_vector_searcher(home, embedder=DistinctEmbedder())
    (result,) = run(home, "老伙计灭了吧", cmd("灭了", n="老伙计"), index=index)
    assert [c.entity_id for c in result.candidates] == ["l-1"]
    assert result.candidates[0].capability_id in {c.id for c in home[0].commands}
    assert result.candidates[0].vector_score == 0.0
    assert result.meta["kept_for_unfamiliar_action"] == 1
    assert result.hint is None


def test_a_target_set_none_of_which_matches_the_words_stays_whole():
    home = _home()
    index = build_vector_searcher(home, embedder=DistinctEmbedder())
    (result,) = run(home, "客厅的灯都整暗", cmd("整暗", s="客厅", n="灯", t="Light", q="all"), index=index)
    assert {d for g in result.groups.values() for d in g.device_ids} == {"l-1", "l-2"}
    assert result.meta["kept_for_unfamiliar_action"] == 2


def test_a_device_others_outdo_on_the_action_is_still_left_out():
    home = [light("l-1", "主灯", "客厅"), light("l-2", "吊灯", "客厅", dimmable=False)]
    (result,) = run(home, "客厅的灯都调到50%", cmd("设置亮度=50%", s="客厅", n="灯", t="Light", q="all"))
    (group,) = result.groups.values()
    assert group.device_ids == ["l-1"]
    assert group.capability_id == LEVEL.id
    assert "kept_for_unfamiliar_action" not in result.meta


def test_an_unnamed_device_outside_any_target_set_is_not_kept():
    home = _home()
    index = build_vector_searcher(home, embedder=DistinctEmbedder())
    (result,) = run(home, "厨房里弄一下", cmd("弄一下", s="厨房"), index=index)
    assert result.candidates == []
    assert result.hint == "no_candidates"


RELAY_ON = CommandSpec("main-switch-on", "通电")
RELAY_OFF = CommandSpec("main-switch-off", "断电")
GEAR = CommandSpec("main-fanSpeed-setFanSpeed", "档位", "integer", {"minimum": 0, "maximum": 3})
FAN_SPEED = CommandSpec("main-fanSpeed-setFanSpeed", "风速", "integer", {"minimum": 0, "maximum": 3})


def _kin_home():
    return [
        light("l-1", "吸顶灯", "客厅"),
        Device(id="r-1", name="阳台灯", room="阳台", category="Switch", commands=[RELAY_ON, RELAY_OFF]),
        Device(id="f-1", name="落地扇", room="客厅", category="Fan", commands=[ON, OFF, FAN_SPEED]),
        Device(id="f-2", name="吊扇", room="客厅", category="Fan", commands=[ON, OFF, GEAR]),
    ]


def test_a_command_worded_otherwise_by_its_profile_is_found_through_its_kin():
    # 断电 shares no character with 关闭; other profiles call the same switch-off 电源关闭.
    home = _kin_home()
    (result,) = run(home, "阳台灯关了", cmd("关闭", n="阳台灯"))
    assert (result.candidates[0].entity_id, result.candidates[0].capability_id) == ("r-1", RELAY_OFF.id)
    assert result.candidates[0].vector_score > 0
    (result,) = run(home, "吊扇风大点", cmd("调高风速", n="吊扇", t="Fan"))
    assert (result.candidates[0].entity_id, result.candidates[0].capability_id) == ("f-2", GEAR.id)


def test_without_kin_in_the_home_the_profile_words_alone_decide():
    home = [Device(id="r-1", name="阳台灯", room="阳台", category="Switch", commands=[RELAY_ON, RELAY_OFF])]
    (result,) = run(home, "阳台灯关了", cmd("关闭", n="阳台灯"))
    assert result.candidates[0].vector_score == 0.0
    assert result.meta["kept_for_unfamiliar_action"] == 1
