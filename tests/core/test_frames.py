"""Conversation frames: a follow-up saying only a room or only a name takes the rest from the last command."""

from __future__ import annotations

from dataclasses import replace

import pytest

from custom_components.context_retrieval.core.frames import (
    with_frame,
    with_implied_target,
    with_mode_or_scene,
)
from custom_components.context_retrieval.core.models import Command, Quantifier
from custom_components.context_retrieval.core.state import ConversationState

from .conftest import cmd
from .conftest import run_commands as run
from .conftest import targets as members

LIGHTS_ON = Command(a="打开", s="客厅", n="灯", t="Light", q=Quantifier.ALL)


def test_a_room_only_follow_up_takes_the_last_kind_and_action(home):
    state = ConversationState()
    run(home, "打开客厅的灯", cmd("打开", s="客厅", n="灯", t="Light", q="all"), state=state)
    (result,) = run(home, "卧室的也开", cmd("打开", s="卧室"), state=state)
    assert result.command.n == "灯"
    assert set(members(result)) == {"lamp-2", "lamp-5"}
    (asked,) = run(home, "那客厅的呢", cmd("UNKNOWN", s="客厅"), state=state)
    assert asked.command.a == "打开"


@pytest.mark.parametrize("follow_up", ["主灯也一样", "主灯都系"])
def test_a_name_only_follow_up_with_also_takes_the_last_action(home, follow_up):
    """主灯都系 is Cantonese for 主灯也一样: it takes the last action, for 主灯 alone (都系 is no 都)."""
    state = ConversationState()
    run(home, "打开老伙计", cmd("打开", n="老伙计"), state=state)
    (result,) = run(home, follow_up, cmd("UNKNOWN", n="主灯", t="Light"), state=state)
    assert result.command.a == "打开"
    assert members(result)[0] == "lamp-3"
    assert "quantifier_from_text" not in result.meta  # 都 of 都系 makes no set


def test_without_a_last_command_or_a_going_on_word_nothing_is_taken():
    assert with_frame(Command(a="UNKNOWN", n="主灯"), None, "主灯也一样") == Command(a="UNKNOWN", n="主灯")
    assert with_frame(Command(a="UNKNOWN", n="主灯"), LIGHTS_ON, "主灯") == Command(a="UNKNOWN", n="主灯")
    unknown = Command(a="UNKNOWN", s="卧室")
    assert with_frame(unknown, Command(a="UNKNOWN", n="灯"), "卧室的呢") == unknown


def test_the_frame_expires_with_the_conversation_state(home):
    now = [0.0]
    state = ConversationState(clock=lambda: now[0])
    run(home, "打开客厅的灯", cmd("打开", s="客厅", n="灯", t="Light", q="all"), state=state)
    now[0] += state.ttl_seconds
    assert state.last_command() is None


def test_offline_a_room_said_alone_after_a_command_takes_its_action_and_kind(home):
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开客厅的灯", home, None, state)
    (result,) = retrieve("卧室的呢", home, None, state)
    assert (result.command.a, result.command.s, result.command.n) == ("打开", "卧室", "灯")
    assert set(members(result)) == {"lamp-2", "lamp-5"}
    (alone,) = retrieve("卧室的呢", home, None, ConversationState())
    assert alone.command.a == "UNKNOWN"
    assert alone.meta["fallback"] == "raw_text"


def test_a_name_carried_to_a_room_where_nothing_is_called_so_becomes_its_kind(home):
    """那卧室的呢 after 关掉客厅主灯: the bedroom has no 主灯, so it is about the bedroom's lights."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("关掉客厅主灯", home, None, state)
    (result,) = retrieve("那卧室的呢", home, None, state)
    assert (result.command.a, result.command.s, result.command.n) == ("关闭", "卧室", "灯")
    carried = with_frame(Command(a="UNKNOWN", s="卧室"), Command(a="关闭", n="主灯", t="Light"), "那卧室的呢")
    assert carried.n == "主灯"  # nothing known about the rooms: the name is kept


def test_a_room_said_alone_corrects_the_last_command_but_not_with_other_words_unread(home):
    """书房的 after 打开台灯 is the study's; 主卧的留着 says more than a room and is not read as one."""
    last = Command(a="打开", n="台灯", t="Light")
    assert with_frame(Command(a="UNKNOWN", s="书房"), last, "书房的") == Command(
        a="打开", s="书房", n="台灯", t="Light"
    )
    unread = Command(a="UNKNOWN", s="主卧")
    assert with_frame(unread, last, "主卧的留着") == unread
    assert with_frame(Command(a="UNKNOWN", s="书房"), last, "哦不是，书房").a == "打开"  # no, the study


@pytest.mark.parametrize("said", ["再一点", "再来一点", "a bit more", "多啲"])
def test_more_said_alone_after_a_step_takes_the_same_step_on_what_it_moved(said):
    """电视声音调小, then 再一点 (a bit more): the volume down again; 一点 alone asks for nothing."""
    last = Command(a="调小音量", n="电视", t="Television")
    assert with_frame(Command(a="UNKNOWN"), last, said) == Command(a="调小音量", n="@last", t="Television")
    assert with_frame(Command(a="UNKNOWN"), last, "一点") == Command(a="UNKNOWN")
    assert with_frame(Command(a="UNKNOWN"), Command(a="打开", n="电视"), said) == Command(a="UNKNOWN")


@pytest.mark.parametrize("said", ["哦不是，书房", "不对，是书房的", "哦不是,我讲的是书房"])
def test_a_correction_saying_no_then_the_room_takes_the_last_command(home, said):
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开卧室的台灯", home, None, state)
    (result,) = retrieve(said, home, None, state)
    assert (result.command.a, result.command.s) == ("打开", "书房")


def test_a_lock_implied_by_the_verb_is_the_lock_just_mentioned():
    """锁上 after 车库进户门呢: that lock; 锁门 with nothing mentioned, or 门锁 said, stays as parsed."""
    lock = Command(a="锁定", n="门锁", t="SmartLock")
    assert with_implied_target(lock, "锁上", "门锁", ["SmartLock"]).n == "@last"
    assert with_implied_target(lock, "锁上", "门锁", []) == lock
    assert with_implied_target(lock, "锁上", "门锁", ["SmartLock", "Light"]) == lock
    assert with_implied_target(lock, "把门锁锁上", "门锁", ["SmartLock"]) == lock


def test_a_kind_said_without_a_room_is_the_last_rooms_when_it_has_one(home):
    """卧室好冷 then 把空调打开: the bedroom's air conditioner (named 美的); 所有空调 stays every one."""
    from custom_components.context_retrieval.core.models import Device
    from custom_components.context_retrieval.core.pipeline import retrieve

    ac = next(d for d in home if d.id == "ac-1")
    bedroom_ac = Device(id="ac-2", name="美的", room="卧室", category="AirConditioner", commands=ac.commands)
    devices = [*home, bedroom_ac]
    state = ConversationState()
    retrieve("卧室的空调开着吗", devices, None, state)
    (result,) = retrieve("把空调打开", devices, None, state)
    assert result.command.s == "卧室"
    assert members(result) == ["ac-2"]
    (every,) = retrieve("所有空调都打开", devices, None, state)
    assert every.command.s == "*"
    bedroom_only = with_frame(
        Command(a="打开", n="窗帘", t="Blind"),
        Command(a="打开", s="卧室", n="灯"),
        "窗帘打开",
        lambda _room, _name: False,
    )
    assert bedroom_only.s == "*"  # no curtain in the bedroom: the name is not scoped to it


def test_a_device_of_the_last_commands_kind_said_alone_says_which_was_meant():
    """纱帘 after 窗帘打开 (asked which): open the sheer; 电视 after 关灯 is no light, so nothing is taken."""
    curtains = Command(a="打开", n="窗帘", t="Blind", q=Quantifier.ALL)
    sheer = Command(a="UNKNOWN", n="纱帘", t="Blind")
    assert with_frame(sheer, curtains, "纱帘").a == "打开"
    assert with_frame(sheer, curtains, "那个纱帘吧").a == "打开"
    assert with_frame(sheer, curtains, "纱帘坏了").a == "UNKNOWN"  # more was said than which
    tv = Command(a="UNKNOWN", n="电视", t="Television")
    assert with_frame(tv, LIGHTS_ON, "电视").a == "UNKNOWN"


def test_a_room_and_a_classifier_say_which_was_meant():
    """爷爷奶奶房间那只 after 电视声音太响了: the TV of that room, turned down."""
    louder = Command(a="调小音量", n="电视", t="Television")
    room = Command(a="UNKNOWN", s="爷爷奶奶房间")
    assert with_frame(room, louder, "爷爷奶奶房间那只") == replace(louder, s="爷爷奶奶房间")


def test_words_a_carried_command_reads_nothing_from_are_reported_unread(home):
    """卧室走廊的呢 after 打开客厅的灯: the home has no 走廊; the bedroom's lights are not what was asked."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开客厅的灯", home, None, state)
    (result,) = retrieve("卧室走廊的呢", home, None, state)
    assert (result.command.a, result.command.s) == ("打开", "卧室")
    assert result.meta["unread"] == ["走廊"]
    state = ConversationState()
    retrieve("打开客厅的灯", home, None, state)
    (plain,) = retrieve("卧室的呢", home, None, state)
    assert "unread" not in plain.meta


def test_a_demonstrative_with_a_room_takes_the_last_commands_kind_there(home):
    """卧室那盏也开 after 打开客厅的主灯: the bedroom's light, not the living room's just mentioned."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开客厅的主灯", home, None, state)
    (result,) = retrieve("卧室那盏也开", home, None, state)
    assert (result.command.a, result.command.s, result.command.n) == ("打开", "卧室", "灯")
    assert set(members(result)) <= {"lamp-2", "lamp-5"}


def test_what_a_follow_up_keeps_out_of_the_set_just_switched_is_switched_back():
    """床头灯留着 after 卧室的灯都关了: the bedside lamp goes back on; 卧室的留着: the bedroom's lights."""
    all_off = Command(a="关闭", s="卧室", n="灯", t="Light", q=Quantifier.ALL)
    kept = with_frame(Command(a="UNKNOWN", q=Quantifier.EXCEPT, x=("床头灯",)), all_off, "床头灯留着")
    assert (kept.a, kept.s, kept.n, kept.q, kept.x) == ("打开", "卧室", "床头灯", Quantifier.ONE, ())
    home_off = Command(a="关闭", n="灯", t="Light", q=Quantifier.ALL)
    room = with_frame(Command(a="UNKNOWN", s="*,!卧室", q=Quantifier.EXCEPT), home_off, "卧室的留着")
    assert (room.a, room.s, room.n, room.q) == ("打开", "卧室", "灯", Quantifier.ALL)
    one_off = Command(a="关闭", s="卧室", n="床头灯", t="Light", q=Quantifier.ONE)
    unkept = Command(a="UNKNOWN", q=Quantifier.EXCEPT, x=("台灯",))
    assert with_frame(unkept, one_off, "台灯留着") == unkept  # no set was switched: nothing to keep


def test_a_room_left_out_after_a_question_of_a_floor_is_left_out_of_that_floor():
    """一楼哪些灯开着, then 除了客厅，全部关掉: the first floor's lights but the living room's."""
    asked = Command(a="查询状态", s="一楼", n="灯", t="Light", q=Quantifier.ALL)
    said = Command(a="关闭", s="*,!客厅", q=Quantifier.ALL)

    def on_first_floor(room: str, scope: str) -> bool:
        return room == scope or (room, scope) == ("客厅", "一楼")

    assert with_frame(said, asked, "除了客厅,全部关掉", inside=on_first_floor).s == "一楼,!客厅"
    upstairs = replace(asked, s="二楼")
    assert with_frame(said, upstairs, "除了客厅,全部关掉", inside=on_first_floor).s == "*,!客厅"


def test_a_room_s_devices_of_the_set_s_kind_kept_are_switched_back_when_the_set_held_the_room():
    """楼梯灯留着 after 一楼的灯都关了: the stairs' lights go back on, the stairs being on 一楼."""
    floor_off = Command(a="关闭", s="一楼", n="灯", t="Light", q=Quantifier.ALL)
    said = Command(a="UNKNOWN", s="楼梯", q=Quantifier.EXCEPT, x=("灯",))

    def on_first_floor(room: str, scope: str) -> bool:
        return room == scope or (room, scope) == ("楼梯", "一楼")

    kept = with_frame(said, floor_off, "楼梯灯留着", inside=on_first_floor)
    assert (kept.a, kept.s, kept.n, kept.q, kept.x) == ("打开", "楼梯", "灯", Quantifier.ALL, ())
    upstairs_off = replace(floor_off, s="二楼")
    assert with_frame(said, upstairs_off, "楼梯灯留着", inside=on_first_floor).a == "UNKNOWN"


def test_a_kind_said_with_also_is_of_the_last_command_s_room():
    """灯也调暗点 after 家庭厅的电视换到 YouTube: a light of 家庭厅 (which one is the agent's to settle)."""
    tv = Command(a="设置=youtube", s="家庭厅", n="电视", t="Television")
    lights = Command(a="调暗", n="灯", t="Light", q=Quantifier.ALL)

    def two_lights(_room: str, _name: str) -> int:
        return 2

    carried = with_frame(lights, tv, "灯也调暗点", two_lights)
    assert (carried.s, carried.q) == ("家庭厅", Quantifier.ONE)
    assert with_frame(lights, tv, "所有灯也调暗点", two_lights) == lights  # the whole home, as said
    assert with_frame(lights, tv, "灯调暗点", two_lights) == lights  # no 也: not a follow-up of it


@pytest.mark.parametrize("correction", ["我说的是床头灯", "我说床头灯", "我是说床头灯", "我說的是床頭燈"])
def test_a_correction_saying_what_was_meant_takes_the_last_action(home, correction):
    """打开卧室灯, then 我说的是床头灯: the bedside lamp was meant; 我说 adds nothing."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开卧室灯", home, None, state)
    (result,) = retrieve(correction, home, None, state)
    assert (result.command.a, result.candidates[0].entity_id) == ("打开", "lamp-5")


def test_only_what_the_set_held_is_switched_back():
    """Kept but never in the set: 电视留着 after 所有灯都关了; 主卧的留着 after 客厅的灯全部关掉."""
    lights_off = Command(a="关闭", n="灯", t="Light", q=Quantifier.ALL)
    tv = Command(a="UNKNOWN", q=Quantifier.EXCEPT, x=("电视",))
    assert with_frame(tv, lights_off, "电视留着") == tv
    master = Command(a="UNKNOWN", s="*,!主卧", q=Quantifier.EXCEPT)
    living_off = replace(lights_off, s="客厅")
    assert with_frame(master, living_off, "主卧的留着").a == "UNKNOWN"
    all_but_master = Command(a="关闭", s="*,!主卧", n="空调", t="AirConditioner", q=Quantifier.EXCEPT)
    assert with_frame(master, all_but_master, "主卧的留着").a == "UNKNOWN"


def test_an_interjection_before_a_follow_up_is_no_word_unread(home):
    """好的，卧室的呢 after 打开客厅的灯: 好的 names nothing the carried command goes to."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("打开客厅的灯", home, None, state)
    (result,) = retrieve("好的，卧室的呢", home, None, state)
    assert (result.command.a, result.command.s) == ("打开", "卧室")
    assert "unread" not in result.meta


def test_a_room_said_by_whose_it_is_is_the_last_commands_room(home):
    """客厅几度, then 把他空调开了: the air conditioner of the room just talked about; alone, no room."""
    from custom_components.context_retrieval.core.pipeline import retrieve

    state = ConversationState()
    retrieve("客厅温度多少", home, None, state)
    (result,) = retrieve("把他空调开了", home, None, state)
    assert (result.command.s, members(result)) == ("客厅", ["ac-1"])
    (alone,) = retrieve("把他空调开了", home, None, ConversationState())
    assert alone.command.s == "*"
    assert with_frame(Command(a="打开", s="@room", n="灯"), Command(a="打开", s="卧室"), "他灯开").s == "卧室"
    # 她屋里的灯开开 with no room talked about: one light to ask about, never every light of the home
    every = Command(a="打开", s="@room", n="灯", t="Light", q="all")
    assert with_frame(every, None, "她屋里的灯开开") == Command(a="打开", s="*", n="灯", t="Light", q="one")


@pytest.mark.parametrize(
    ("last_kind", "said", "moved"),
    [("AirConditioner", "调低", "调低温度"), ("Blind", "调大", "调大位置"), ("Light", "调低", "调低")],
)
def test_a_direction_said_alone_moves_what_the_last_kind_moves(last_kind, said, moved):
    """再调低点 after 里屋空调整成制冷: the air conditioner's temperature, as 空调调低点 says it."""
    last = Command(a="设置模式=制冷", s="里屋", n="空调", t=last_kind)
    assert with_frame(Command(a=said), last, f"再{said}点").a == moved
    named = Command(a=said, n="台灯", t="Light")
    assert with_frame(named, last, f"台灯{said}点").a == said


def test_a_kind_said_with_also_after_a_device_is_that_devices_part():
    """灯也开一下 after 晾衣架降下来: the one device called 晾衣架灯; with none or two, as said."""
    last = Command(a="关闭", n="晾衣架")
    parts = {"晾衣架灯": 1, "晾衣架风扇": 2}

    def called(room: str, name: str) -> int:
        return parts.get(name, 0) if room == "*" else 0

    assert with_frame(
        Command(a="打开", n="灯", t="Light", q=Quantifier.ALL), last, "灯也开一下", called
    ) == Command(a="打开", n="晾衣架灯", t="Light", q=Quantifier.ONE)
    fan = Command(a="打开", n="风扇", t="Fan", q=Quantifier.ALL)
    assert with_frame(fan, last, "风扇也开", called) == fan  # two such parts: which one stays a question
    assert with_frame(Command(a="打开", n="灯", t="Light"), last, "灯开一下", called).n == "灯"  # no 也


def test_a_mode_set_with_nothing_mentioned_is_the_scene_called_so():
    """开成睡眠模式 after a device sets its mode; 轉去瞓覺模式 alone runs the scene of that name."""
    setting = Command(a="设置=睡眠模式")
    assert with_mode_or_scene(setting, ["AirConditioner"]) == setting
    assert with_mode_or_scene(setting, []) == Command(a="打开", n="睡眠模式", t="Scene")
    colour = Command(a="设置=紫色")
    assert with_mode_or_scene(colour, []) == colour  # no scene's word: still a value to set


def test_a_place_said_before_that_one_picks_it_of_the_devices_just_named(home):
    """空调都开着没, then 阁楼那个关了: the one whose room holds 阁楼, a word the home has no room for."""
    from custom_components.context_retrieval.core.models import Device
    from custom_components.context_retrieval.core.pipeline import retrieve

    commands = home[0].commands
    attic = Device(id="ac-9", name="空调", room="三楼阁楼", category="AirConditioner", commands=commands)
    devices = [*home, attic]
    state = ConversationState()
    retrieve("空调都开着没", devices, None, state)
    (result,) = retrieve("阁楼那个关了吧", devices, None, state)
    assert (result.command.s, result.command.n) == ("阁楼", "@last")
    assert [c.entity_id for c in result.candidates] == ["ac-9"]
    assert "room_hit" in result.candidates[0].reasons


def test_the_side_said_of_the_one_pointed_at_answers_which_of_those_just_named(home):
    """阳台灯关掉 finding two, then 北边那个: the one whose room holds 北, with the action said before."""
    from custom_components.context_retrieval.core.models import Device
    from custom_components.context_retrieval.core.pipeline import retrieve

    commands = home[1].commands
    north = Device(id="lamp-n", name="阳台灯", room="北阳台", category="Light", commands=commands)
    south = Device(id="lamp-s", name="阳台灯", room="南阳台", category="Light", commands=commands)
    for side, meant in (("北边", "lamp-n"), ("南面", "lamp-s")):
        state = ConversationState()
        retrieve("阳台灯关掉", [north, south], None, state)
        (result,) = retrieve(f"{side}那个", [north, south], None, state)
        assert (result.command.a, [c.entity_id for c in result.candidates]) == ("关闭", [meant])


def test_a_device_said_with_also_that_the_last_room_lacks_is_looked_for_there():
    """排气扇也开开 after 公卫浴霸开开, 公卫 having none: asked about there, not the one elsewhere."""
    last = Command(a="打开", s="公卫", n="浴霸")
    fans = {("主卫", "排气扇"): 1}

    def called(room: str, name: str) -> int:
        return fans.get((room, name), 0)

    fan = Command(a="打开", n="排气扇")
    assert with_frame(fan, last, "排气扇也开开", called) == replace(fan, s="公卫")
    assert with_frame(fan, replace(last, s="主卫"), "排气扇也开开", called).s == "主卫"  # there: the usual
    assert with_frame(fan, last, "排气扇开开", called) == fan  # no 也: wherever it is
    scene = Command(a="打开", n="睡眠模式", t="Scene")
    assert with_frame(scene, last, "睡眠模式也开一下", called) == scene  # a mode is in no room
    own = Command(a="打开", n="小米台灯")
    assert with_frame(own, last, "小米台灯也开一下", called) == own  # its own name: wherever it is


def test_a_bare_switch_after_a_part_was_switched_switches_that_part():
    """算了,关上 after 百叶帘叶片打开: the slats; after the blind itself, the blind."""
    last = Command(a="打开叶片", s="书房", n="百叶帘", t="Blind")
    assert with_frame(Command(a="关闭"), last, "算了,关上").a == "关闭叶片"
    assert with_frame(Command(a="关闭"), replace(last, a="打开"), "算了,关上").a == "关闭"
    assert with_frame(Command(a="关闭", n="灯", t="Light"), last, "关灯").a == "关闭"  # a device said
    every = Command(a="关闭", q=Quantifier.ALL)
    assert with_frame(every, last, "都关了").a == "关闭"  # every device, as said
