"""What an agent without an LLM does with a retrieval (core.decision), and the values it gives commands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from custom_components.context_retrieval.core import (
    Candidate,
    Command,
    CommandSpec,
    Device,
    Group,
    Quantifier,
    RetrievalResult,
)
from custom_components.context_retrieval.core.arguments import ArgumentProblem, command_argument
from custom_components.context_retrieval.core.decision import (
    AskReason,
    Outcome,
    decide,
    decide_choice,
    device_label,
)

TURN_ON = CommandSpec(id="light.turn_on", description="打开灯")
BRIGHTNESS = CommandSpec(
    id="light.turn_on:brightness_pct",
    description="设置亮度",
    type="integer",
    value_range={"minimum": 0, "maximum": 100, "unit": "%"},
)
VOLUME = CommandSpec(
    id="media_player.volume_set:volume_level",
    description="设置音量",
    value_range={"minimum": 0, "maximum": 1},
)
MODE = CommandSpec(
    id="climate.set_hvac_mode:hvac_mode",
    description="设置空调模式",
    value_list=[{"value": "cool", "description": "制冷"}, {"value": "heat", "description": "制热"}],
)
COOLING = CommandSpec(
    id="climate.set_hvac_mode:hvac_mode",
    description="设置空调模式",
    value_list=[{"value": "cool", "description": "制冷"}, {"value": "fan_only", "description": "送风"}],
)
FAN_MODES = CommandSpec(
    id="climate.set_fan_mode:fan_mode",
    description="设置风速",
    value_list=[
        {"value": "auto", "description": "自动风"},
        {"value": "high", "description": "高风"},
        {"value": "low", "description": "低风"},
        {"value": "medium", "description": "中风"},
    ],
)
THREE_SPEEDS = CommandSpec(
    id="fan.set_percentage:percentage",
    description="设置风扇速度",
    type="integer",
    value_range={"minimum": 0, "maximum": 100, "step": 100 / 3, "unit": "%"},
)
VACUUM_SPEEDS = CommandSpec(
    id="vacuum.set_fan_speed:fan_speed",
    description="设置吸力",
    value_list=[{"value": v, "description": v} for v in ("quiet", "standard", "strong", "max", "max_plus")],
)
TEMPERATURE = CommandSpec(id="state:current_temperature", description="当前温度", readable=True)
SOURCE = CommandSpec(
    id="media_player.select_source:source",
    description="切换信号源",
    value_list=[{"value": "HDMI 1", "description": "HDMI 1"}, {"value": "HDMI 2", "description": "HDMI 2"}],
)
COLOUR_TEMPERATURE = CommandSpec(
    id="light.turn_on:color_temp_kelvin",
    description="设置色温",
    type="integer",
    value_range={"minimum": 2200, "maximum": 5000, "unit": "K"},
    named_values={"暖光": 2700.0, "冷光": 6500.0},
)
FAN_ON = CommandSpec(id="fan.turn_on", description="打开风扇")
OSCILLATE = CommandSpec(
    id="fan.oscillate:oscillating",
    description="设置摇头摆风",
    value_list=[{"value": True, "description": "开启摇头"}, {"value": False, "description": "关闭摇头"}],
)
SWING = CommandSpec(
    id="climate.set_swing_mode",
    description="设置摆风",
    value_list=[
        {"value": "off", "description": "关闭摆风"},
        {"value": "vertical", "description": "上下摆风"},
    ],
)
SWING_BOTH = CommandSpec(
    id="climate.set_swing_mode",
    description="设置摆风",
    value_list=[
        {"value": "off", "description": "关闭摆风"},
        {"value": "vertical", "description": "上下摆风"},
        {"value": "horizontal", "description": "左右摆风"},
    ],
)
COLOUR = CommandSpec(
    id="light.turn_on:color_name",
    description="设置颜色",
    value_list=[
        {"value": "red", "description": "红色"},
        {"value": "pink", "description": "粉红色"},
        {"value": "purple", "description": "紫色"},
    ],
)
DEVICES = {
    "light.a": Device(
        id="light.a", name="公卫灯", room="公卫", category="Light", commands=[TURN_ON, BRIGHTNESS]
    ),
    "light.b": Device(id="light.b", name="公卫镜前灯", room="公卫", category="Light", commands=[TURN_ON]),
    "light.c": Device(id="light.c", name="主灯", room="客厅", category="Light", commands=[TURN_ON]),
    "climate.x": Device(
        id="climate.x", name="空调", room="客厅", category="AirConditioner", commands=[MODE, TEMPERATURE]
    ),
}


def device(entity_id: str, capability: str, *reasons: str) -> Candidate:
    return Candidate(entity_id, "device", capability, 1.0, 0.5, 1.5, list(reasons or ("name_hit",)))


def result(command: Command, *candidates: Candidate, hint: str | None = None, **extra) -> RetrievalResult:
    return RetrievalResult(command=command, candidates=list(candidates), hint=hint, **extra)


@pytest.mark.parametrize(
    ("action", "spec", "value", "problem"),
    [
        ("设置亮度=50%", BRIGHTNESS, 50, None),
        ("设置亮度=200%", BRIGHTNESS, None, ArgumentProblem.OUT_OF_RANGE),
        ("调亮", BRIGHTNESS, None, ArgumentProblem.MISSING),
        ("设置风速=3档", BRIGHTNESS, None, ArgumentProblem.UNKNOWN_VALUE),
        ("设置音量=30%", VOLUME, 0.3, None),
        ("设置音量=30", VOLUME, 0.3, None),
        ("设置模式=制冷", MODE, "cool", None),
        ("设置模式=送风", MODE, None, ArgumentProblem.UNKNOWN_VALUE),
        ("打开", TURN_ON, None, None),
        ("设置亮度=50%", TURN_ON, None, ArgumentProblem.UNEXPECTED),
        ("设置亮度=最大", BRIGHTNESS, 100, None),  # the ends of the range: 调到最亮
        ("设置亮度=最小", BRIGHTNESS, 1, None),  # 最暗 is the dimmest light still on, not off
        ("设置音量=最小", VOLUME, 0.01, None),
        ("设置=粉红色", COLOUR, "pink", None),  # the longest colour said, not the red in it
        ("设置颜色=红", COLOUR, "red", None),  # 红的: the colour 红 begins, not 粉红色 holding it
        ("设置摆风=开启", OSCILLATE, True, None),
        ("设置=hdmi2", SOURCE, "HDMI 2", None),  # spaces aside
        ("设置=暖光", COLOUR_TEMPERATURE, 2700, None),  # a point of the range said in words
        ("设置=冷光", COLOUR_TEMPERATURE, 5000, None),  # held within the lamp's range
        ("设置=彩虹", COLOUR_TEMPERATURE, None, ArgumentProblem.MISSING),  # a range lists nothing to choose
        ("设置摆风=关闭", OSCILLATE, False, None),
        ("设置摆风=开启", SWING, "vertical", None),  # the one setting that is not off
        ("设置摆风=关闭", SWING, "off", None),
        ("设置摆风=开启", SWING_BOTH, None, ArgumentProblem.UNKNOWN_VALUE),  # up-down or sideways?
        ("设置=dry模式", MODE, None, ArgumentProblem.UNKNOWN_VALUE),
        # a fan of three speeds: Home Assistant's whole percentages, rounded down (67 % is the top speed)
        ("设置风速=2档", THREE_SPEEDS, 66, None),
        ("设置风速=最小", THREE_SPEEDS, 33, None),
        ("设置风速=3档", THREE_SPEEDS, 100, None),
        (
            "设置风速=3档",
            replace(THREE_SPEEDS, value_range={**THREE_SPEEDS.value_range, "step": 33.33}),
            100,
            None,
        ),
        # a vacuum's speeds as Home Assistant lists them, in English: ranked as said (quiet is 静音)
        ("调大吸力", VACUUM_SPEEDS, None, ArgumentProblem.MISSING),
        ("设置吸力=最大", VACUUM_SPEEDS, "max", None),  # max, not max_plus, says 最大 and no more
        ("设置吸力=最小", VACUUM_SPEEDS, "quiet", None),
        # the ends of a list, by the words that rank its values (自动风 is no end)
        ("设置风速=最大", FAN_MODES, "high", None),
        ("设置风速=最小", FAN_MODES, "low", None),
        ("设置风速=低档", FAN_MODES, "low", None),  # 低 is 低风's alone; 档 is no value's
        ("设置模式=制热", COOLING, None, ArgumentProblem.UNKNOWN_VALUE),  # a mode it lacks, not 制冷
        ("设置模式=冷一点", MODE, "cool", None),
        ("设置模式=热冷", MODE, None, ArgumentProblem.UNKNOWN_VALUE),  # two values said
        ("设置模式=最大", MODE, None, ArgumentProblem.UNKNOWN_VALUE),  # 制冷 and 制热 rank nothing
    ],
)
def test_the_value_an_action_gives_a_command(action, spec, value, problem):
    argument = command_argument(action, spec)
    assert argument.problem == problem
    assert argument.value == value


STEP = CommandSpec(
    id="light.turn_on:brightness_step_pct",
    description="调亮或调暗",
    type="integer",
    value_range={"minimum": -100, "maximum": 100, "unit": "%"},
)
TARGET = CommandSpec(
    id="climate.set_temperature:temperature",
    description="设置目标温度",
    type="number",
    value_range={"minimum": 16, "maximum": 30, "step": 1, "unit": "°C"},
)


@pytest.mark.parametrize(
    ("action", "spec", "current", "value", "problem"),
    [
        ("调暗", STEP, None, -20, None),  # a change command gets the signed default step
        ("调亮亮度=30%", STEP, None, 30, None),
        ("调高温度=2C", TARGET, 26, 28, None),  # any other moves from the present value
        ("调低温度=2C", TARGET, 17, 16, None),  # held within the range
        ("调高", TARGET, 26, 27, None),
        ("调高温度=2C", TARGET, None, None, ArgumentProblem.MISSING),  # nothing to move from: ask
        ("调大音量", VOLUME, 0.3, 0.4, None),
        ("调高温度=2%", TARGET, 26, None, ArgumentProblem.UNKNOWN_VALUE),
        # 叶片再关一点: a command that closes all the way is no step
        (
            "调小叶片",
            CommandSpec(id="cover.close_cover_tilt", description="合上叶片"),
            50,
            None,
            ArgumentProblem.MISSING,
        ),
        ("调大音量", CommandSpec(id="media_player.volume_up", description="调大音量"), None, None, None),
    ],
)
def test_an_adjustment_moves_the_value(action, spec, current, value, problem):
    argument = command_argument(action, spec, current)
    assert argument.problem == problem
    assert argument.value == value


FAN_OF_TEN_SPEEDS = CommandSpec(
    id="fan.set_percentage:percentage",
    description="设置风扇速度",
    type="integer",
    value_range={"minimum": 0, "maximum": 100, "step": 10, "unit": "%"},
)


def test_a_numbered_level_is_that_step_of_a_range_in_percent():
    fan = FAN_OF_TEN_SPEEDS
    assert command_argument("设置风速=5档", fan).value == 50  # 五档 of ten steps
    assert command_argument("设置风速=11档", fan).problem is ArgumentProblem.UNKNOWN_VALUE  # no such step
    assert command_argument("设置风速=5档", BRIGHTNESS).problem is ArgumentProblem.UNKNOWN_VALUE  # no steps


def test_a_number_said_without_a_unit_is_a_level_of_a_fan_with_few_speeds():
    fan = FAN_OF_TEN_SPEEDS
    assert command_argument("设置风速=6", fan).value == 60  # the sixth of ten speeds
    assert command_argument("设置风速=30", fan).value == 30  # more than it has: a percentage
    assert command_argument("设置风速=6%", fan).value == 6  # said as a percentage
    assert command_argument("设置亮度=6", BRIGHTNESS).value == 6  # no coarse steps: a percentage


def test_a_number_between_the_steps_is_asked_about():
    assert command_argument("设置温度=25.5C", TARGET).problem is ArgumentProblem.OFF_STEP  # whole degrees
    assert command_argument("设置温度=25C", TARGET).value == 25
    assert command_argument("设置亮度=55%", BRIGHTNESS).value == 55  # no step: any level


def test_a_clear_command_on_one_device_is_acted_on():
    decision = decide(
        [result(Command(a="设置亮度=40%", n="公卫灯"), device("light.a", BRIGHTNESS.id))],
        DEVICES,
        "公卫灯调到40%",
    )
    assert decision.outcome is Outcome.ACT
    assert [(a.device_ids, a.command.id, a.value) for a in decision.actions] == [
        (("light.a",), BRIGHTNESS.id, 40)
    ]


def test_close_matches_are_settled_by_the_full_name_said_else_asked():
    close = [
        device("light.b", TURN_ON.id, "room_hit", "type_hit"),
        device("light.a", TURN_ON.id, "room_hit", "type_hit"),
    ]
    named = decide(
        [result(Command(a="打开", s="公卫", n="灯"), *close, hint="multiple_close_matches")],
        DEVICES,
        "打开公卫灯",
    )
    assert named.outcome is Outcome.ACT
    assert named.actions[0].device_ids == ("light.a",)
    vague = decide(
        [result(Command(a="打开", n="灯"), *close, hint="multiple_close_matches")], DEVICES, "开灯"
    )
    assert vague.outcome is Outcome.ASK
    assert vague.reason is AskReason.WHICH_DEVICE
    assert vague.options == ("公卫镜前灯", "公卫灯")


def test_a_name_said_inside_a_longer_word_calls_the_devices_holding_that_word():
    """排风扇 holds 风扇, the standing fan's alias, but calls the exhaust fans: one is acted on, two asked."""
    on = CommandSpec(id="fan.turn_on", description="打开风扇")
    standing = Device(
        id="fan.s", name="落地扇", room="书房", aliases=("风扇",), category="Fan", commands=[on]
    )
    bath = Device(id="fan.b", name="浴室排风扇", room="浴室", category="Fan", commands=[on])
    loo = Device(id="fan.l", name="厕所排风扇", room="厕所", category="Fan", commands=[on])
    close = [device("fan.b", on.id, "name_partial"), device("fan.s", on.id, "name_partial")]
    command = Command(a="打开", n="排风扇", t="Fan")

    one = decide(
        [result(command, *close, hint="multiple_close_matches")],
        {d.id: d for d in (standing, bath)},
        "排风扇也开",
    )
    two = decide(
        [result(command, *close, device("fan.l", on.id, "name_partial"), hint="multiple_close_matches")],
        {d.id: d for d in (standing, bath, loo)},
        "排风扇开一下",
    )

    assert [a.device_ids for a in one.actions] == [("fan.b",)]
    assert (two.outcome, two.reason) == (Outcome.ASK, AskReason.WHICH_DEVICE)


def test_a_name_said_inside_another_devices_name_is_not_said():
    """光管关掉,开柜台灯: 柜台灯 holds 台灯, the desk lamp's name, which is not said: 光管 is meant."""
    off = CommandSpec(id="light.turn_off", description="关闭灯")
    tubes = Device(id="light.tubes", name="店面大灯", room="店面", category="Light", commands=[off])
    desk = Device(id="light.desk", name="台灯", room="妹妹房", category="Light", commands=[off])
    counter = Device(id="light.counter", name="柜台灯", room="店面", category="Light", commands=[off])
    found = result(
        Command(a="关闭", n="光管", t="Light"),
        device("light.tubes", off.id, "alias_hit"),
        device("light.desk", off.id, "name_partial"),
    )
    home = {d.id: d for d in (tubes, desk, counter)}
    assert [a.device_ids for a in decide([found], home, "光管关掉,开柜台灯").actions] == [("light.tubes",)]


def test_words_the_parse_read_nothing_from_are_asked_about_before_acting():
    """窗帘开个洞 read as 打开窗帘: acting would drop 洞, so the agent asks."""
    found = result(Command(a="打开", n="公卫灯"), device("light.a", TURN_ON.id), meta={"unread": ["洞"]})

    decision = decide([found], DEVICES, "公卫灯开个洞")

    assert (decision.outcome, decision.reason, decision.options) == (
        Outcome.ASK,
        AskReason.UNREAD_WORDS,
        ("洞",),
    )


def test_a_pause_said_of_nothing_pauses_the_one_thing_playing():
    """暂停一下 with one player playing pauses it; with two playing, or none, it asks."""
    pause = CommandSpec(id="media_player.media_pause", description="暂停播放")
    players = {
        d: Device(id=d, name=name, room="客厅", category="Television", commands=[pause])
        for d, name in (("media_player.tv", "电视"), ("media_player.box", "盒子"))
    }
    found = result(
        Command(a="暂停"),
        device("media_player.tv", pause.id, "vector_hit"),
        device("media_player.box", pause.id, "vector_hit"),
        hint="no_target",
    )

    one = decide([found], players, "暂停一下", playing=lambda d: d == "media_player.box")
    two = decide([found], players, "暂停一下", playing=lambda _d: True)

    assert [a.device_ids for a in one.actions] == [("media_player.box",)]
    assert (two.outcome, two.reason) == (Outcome.ASK, AskReason.NO_TARGET)
    # 戏不要放了: what plays, which no device is called, is paused on the one playing it
    content = result(Command(a="暂停", n="戏"), device("media_player.tv", pause.id), hint="name_not_found")
    played = decide([content], players, "戏不要放了", playing=lambda d: d == "media_player.box")
    assert [a.device_ids for a in played.actions] == [("media_player.box",)]


def test_the_head_of_a_devices_name_calls_it():
    """排风扇 calls 二楼排风扇 (its floor left unsaid); 插座 alone calls no particular plug."""
    on = CommandSpec(id="fan.turn_on", description="打开风扇")
    fan = Device(id="fan.b", name="二楼排风扇", room="二楼卫生间", category="Fan", commands=[on])
    found = result(
        Command(a="打开", s="楼上厕所", n="排风扇", t="Fan"),
        device("fan.b", on.id, "name_partial", "room_hit"),
    )
    assert decide([found], {fan.id: fan}, "楼上厕所的排风扇开开").outcome is Outcome.ACT


def test_the_device_whose_whole_name_is_said_beats_one_ranked_first_by_a_short_alias():
    """關掉書房燈 says 书房灯 whole; the desk lamp ranked first is only aliased lamp (灯)."""
    off = CommandSpec(id="light.turn_off", description="关闭灯")
    lamp = Device(
        id="light.l", name="书房台灯", room="书房", aliases=("lamp",), category="Light", commands=[off]
    )
    main = Device(id="light.m", name="书房灯", room="书房", category="Light", commands=[off])
    found = result(
        Command(a="关闭", s="书房", n="灯", t="Light"),
        device("light.l", off.id, "alias_hit", "room_hit"),
        device("light.m", off.id, "name_partial", "room_hit"),
    )

    decision = decide([found], {lamp.id: lamp, main.id: main}, "關掉書房燈")

    assert [a.device_ids for a in decision.actions] == [("light.m",)]


def test_the_rooms_kind_is_the_device_named_room_and_kind():
    main = Device(id="light.k", name="厨房灯", room="厨房", category="Light", commands=[TURN_ON])
    stove = Device(id="light.s", name="厨房灶台灯", room="厨房", category="Light", commands=[TURN_ON])
    home = {"light.k": main, "light.s": stove}
    close = [
        device("light.s", TURN_ON.id, "room_hit", "type_hit"),
        device("light.k", TURN_ON.id, "room_hit", "type_hit"),
    ]
    found = result(Command(a="打开", s="厨房", n="灯", t="Light"), *close, hint="multiple_close_matches")
    assert decide([found], home, "灶房的灯开一下").actions[0].device_ids == (
        "light.k",
    )  # 灶房: an alias of 厨房


def test_a_device_found_by_its_type_alone_is_not_the_one_named():
    decision = decide(
        [result(Command(a="打开", n="冰箱灯"), device("light.c", TURN_ON.id, "type_hit"))],
        DEVICES,
        "打开冰箱灯",
    )
    assert decision.outcome is Outcome.ASK
    assert decision.reason is AskReason.NOT_FOUND


@pytest.mark.parametrize(
    ("said", "outcome"), [("阿宝房灯调成红色", Outcome.ASK), ("阿宝房星空灯调成红色", Outcome.ACT)]
)
def test_a_device_named_in_full_that_cannot_do_it_is_not_replaced_by_another(said, outcome):
    """阿宝房灯 is white only: the search finds the room's colour light, which was not said."""
    white = Device(id="light.w", name="阿宝房灯", room="阿宝房", category="Light", commands=[TURN_ON])
    stars = Device(id="light.s", name="星空灯", room="阿宝房", category="Light", commands=[TURN_ON, COLOUR])
    found = result(
        Command(a="设置=红色", s="阿宝房", n="灯", t="Light"),
        device("light.s", COLOUR.id, "room_hit", "type_hit"),
    )
    decision = decide([found], {white.id: white, stars.id: stars}, said)
    assert decision.outcome is outcome
    if outcome is Outcome.ASK:
        assert (decision.reason, decision.subject) == (AskReason.NO_COMMAND, ("light.w",))


@pytest.mark.parametrize(
    ("name", "outcome"), [("妈妈", Outcome.ACT), ("妈妈灯", Outcome.ACT), ("爸爸灯", Outcome.ASK)]
)
def test_a_part_of_a_name_that_is_its_own_calls_the_device(name, outcome):
    """妈妈 and 妈妈的灯 call 主卧妈妈床头灯; 爸爸灯 shares only the type word with it."""
    lamp = Device(id="light.m", name="主卧妈妈床头灯", room="主卧", category="Light", commands=[TURN_ON])
    found = result(Command(a="打开", n=name), device("light.m", TURN_ON.id, "name_partial"))
    assert decide([found], {lamp.id: lamp}, f"打开{name}").outcome is outcome


def test_which_of_several_is_settled_by_the_one_that_runs_when_the_action_changes_it():
    """调到26度 or 关掉 is said of the air conditioner that runs; 打开 leaves open which one is off."""
    home = {
        "climate.a": Device(
            id="climate.a", name="客厅空调", room="客厅", category="AirConditioner", commands=[TARGET]
        ),
        "climate.b": Device(
            id="climate.b", name="主卧空调", room="主卧", category="AirConditioner", commands=[TARGET]
        ),
        "climate.c": Device(
            id="climate.c", name="次卧空调", room="次卧", category="AirConditioner", commands=[TARGET]
        ),
    }
    group = Group("group-1", "空调 (3)", ["climate.a", "climate.b", "climate.c"], TARGET.id)

    def found(action: str) -> RetrievalResult:
        command = Command(a=action, n="空调", t="AirConditioner", q=Quantifier.ALL)
        candidate = Candidate("group-1", "group", TARGET.id, 1, 0, 1, ["type_hit"])
        return result(command, candidate, groups={"group-1": group})

    def running(device_id: str) -> bool | None:
        return device_id == "climate.b"

    settled = decide([found("设置温度=26C")], home, "空调调到26度", running=running)
    assert [(a.device_ids, a.value) for a in settled.actions] == [(("climate.b",), 26)]
    assert (
        decide([found("设置温度=26C")], home, "空调调到26度").reason is AskReason.WHICH_ROOM
    )  # states unknown
    assert (
        decide([found("设置温度=26C")], home, "空调调到26度", running=lambda _: True).outcome is Outcome.ASK
    )
    assert decide([found("打开")], home, "打开空调", running=running).outcome is Outcome.ASK


def test_a_value_the_running_one_already_has_is_not_said_of_it():
    """空调调到制热 with the bedroom's heating and the living room's off: not the one already heating."""
    mode = CommandSpec(
        "climate.set_hvac_mode:hvac_mode",
        "设置空调模式",
        "string",
        value_list=[{"value": "heat", "description": "制热"}, {"value": "cool", "description": "制冷"}],
    )
    home = {
        f"climate.{room}": Device(
            id=f"climate.{room}", name=f"{room}空调", room=room, category="AirConditioner", commands=[mode]
        )
        for room in ("客厅", "主卧")
    }
    group = Group("group-1", "空调 (2)", list(home), mode.id)
    candidate = Candidate("group-1", "group", mode.id, 1, 0, 1, ["type_hit"])

    def found(action: str) -> RetrievalResult:
        command = Command(a=action, n="空调", t="AirConditioner", q=Quantifier.ALL)
        return result(command, candidate, groups={"group-1": group})

    def bedroom_runs(device_id: str) -> bool | None:
        return device_id == "climate.主卧"

    def heating(device_id: str, _command: CommandSpec) -> str | None:
        return "heat" if device_id == "climate.主卧" else "off"

    cooling = decide([found("设置模式=制冷")], home, "空调调到制冷", heating, bedroom_runs)
    assert [a.device_ids for a in cooling.actions] == [("climate.主卧",)]
    already = decide([found("设置模式=制热")], home, "空调调到制热", heating, bedroom_runs)
    assert already.outcome is Outcome.ASK


def _two_fans_alike(
    command: Command, spec: CommandSpec, *called: tuple[str, str]
) -> tuple[dict[str, Device], RetrievalResult]:
    """Return two fans (fan.a, fan.b) called and placed as given, found alike for ``command``."""
    home = {
        f"fan.{key}": Device(id=f"fan.{key}", name=name, room=room, category="Fan", commands=[spec])
        for key, (name, room) in zip("ab", called, strict=True)
    }
    found = result(
        command, *(device(fan, spec.id, "name_partial") for fan in home), hint="multiple_close_matches"
    )
    return home, found


def _runs_alone(running_id: str) -> Callable[[str], bool]:
    """Return the running states of a home where only ``running_id`` runs."""
    return lambda device_id: device_id == running_id


def test_turning_on_one_of_two_alike_is_said_of_the_one_that_is_off():
    """吊扇开一下 with two ceiling fans, the living room's running: the bedroom's; both off, it asks."""
    home, found = _two_fans_alike(
        Command(a="打开", n="吊扇", t="Fan"), FAN_ON, ("客厅吊扇", "客厅"), ("主卧吊扇", "主卧")
    )
    settled = decide([found], home, "吊扇开一下", running=_runs_alone("fan.a"))
    assert [a.device_ids for a in settled.actions] == [("fan.b",)]
    assert decide([found], home, "吊扇开一下", running=lambda _: False).reason is AskReason.WHICH_DEVICE
    assert decide([found], home, "吊扇开一下").reason is AskReason.WHICH_DEVICE  # states unknown


def test_a_bare_switch_after_a_question_of_several_switches_those_answered():
    """关掉 after 浩浩房间的灯关了冇 (both read): both; 调到25 after such a question asks which."""
    fan_off = CommandSpec(id="fan.turn_off", description="关闭风扇")
    home = {
        f"fan.{n}": Device(
            id=f"fan.{n}", name=f"{room}吊扇", room=room, category="Fan", commands=[FAN_ON, fan_off]
        )
        for n, room in (("a", "客厅"), ("b", "主卧"))
    }
    group = Group("group-1", "吊扇 (2)", list(home), fan_off.id)

    def bare(**meta: object) -> RetrievalResult:
        candidate = Candidate("group-1", "group", fan_off.id, 0, 0, 0.1, ["last_mentioned"])
        return result(Command(a="关闭"), candidate, groups={"group-1": group}, meta=dict(meta))

    answered = decide([bare(reference_answered=True)], home, "关掉")
    assert [sorted(a.device_ids) for a in answered.actions] == [["fan.a", "fan.b"]]
    assert decide([bare()], home, "关掉").reason is AskReason.WHICH_DEVICE


def test_a_kind_said_after_a_room_keeps_to_the_room_before_a_device_called_by_the_kind():
    """lounge 的 big light 关脱, lamp 调到 sixty: the lounge's lamp, not the office's called 台灯."""
    home = {
        "light.lounge": Device(
            id="light.lounge", name="Lounge lamp", room="Lounge", category="Light", commands=[BRIGHTNESS]
        ),
        "light.desk": Device(
            id="light.desk",
            name="Desk lamp",
            room="Office",
            category="Light",
            commands=[BRIGHTNESS],
            aliases=["台灯"],
        ),
    }
    found = result(
        Command(a="设置亮度=60%", n="台灯", t="Light"),
        device("light.lounge", BRIGHTNESS.id, "name_partial", "type_hit", "room_carried"),
        device("light.desk", BRIGHTNESS.id, "name_hit", "type_hit"),
    )
    found.candidates[1].total_score = 0.9
    decision = decide([found], home, "台灯调到60")
    assert [a.device_ids for a in decision.actions] == [("light.lounge",)]


def test_a_change_by_a_step_of_one_of_two_alike_is_said_of_the_one_running():
    """油烟机再开大些 with two range hoods, the shop's running: the shop's, not asked which."""
    faster = CommandSpec(id="fan.increase_speed", description="调高风速")
    home, found = _two_fans_alike(
        Command(a="调大风速", n="油烟机"), faster, ("厨房油烟机", "厨房"), ("后厨油烟机", "后厨")
    )
    settled = decide([found], home, "油烟机再开大些", running=_runs_alone("fan.b"))
    assert [a.device_ids for a in settled.actions] == [("fan.b",)]
    assert decide([found], home, "油烟机再开大些", running=lambda _: True).reason is AskReason.WHICH_DEVICE


def test_a_set_of_the_whole_home_the_user_did_not_ask_for_is_the_one_member_it_changes():
    """把门锁上 with three locks, only the back door's unlocked: that one; all unlocked, it asks."""
    lock = CommandSpec(id="lock.lock", description="锁定门锁")
    home = {
        f"lock.{room}": Device(
            id=f"lock.{room}", name=f"{room}门锁", room=room, category="SmartLock", commands=[lock]
        )
        for room in ("门厅", "后门", "车库")
    }
    group = Group("group-1", "门锁 (3)", list(home), lock.id)
    found = result(
        Command(a="锁定", n="门锁", t="SmartLock", q=Quantifier.ALL),
        Candidate("group-1", "group", lock.id, 1, 0, 1, ["type_hit"]),
        groups={"group-1": group},
    )

    def locked(device_id: str, command_id: str) -> bool | None:
        return device_id != "lock.后门" if command_id == lock.id else None

    settled = decide([found], home, "把门锁上", done=locked)
    assert [a.device_ids for a in settled.actions] == [("lock.后门",)]
    assert decide([found], home, "把门锁上", done=lambda *_: False).outcome is Outcome.ASK
    assert decide([found], home, "把门锁上").outcome is Outcome.ASK  # states unknown


def test_a_change_said_relative_is_not_said_of_a_device_at_its_end():
    """调暗 is not said of a light that is off, 调亮 not of one at full brightness, when one alike can move.

    书房太暗了 with the study's light at 100 % and its desk lamp off: the desk lamp; 小林房间的灯调暗点
    with that light off and two others on: which of those two.
    """
    home = {
        "light.main": Device(
            id="light.main", name="书房灯", room="书房", category="Light", commands=[BRIGHTNESS, STEP]
        ),
        "light.desk": Device(
            id="light.desk", name="书房台灯", room="书房", category="Light", commands=[BRIGHTNESS, STEP]
        ),
        "light.shelf": Device(
            id="light.shelf", name="书架灯", room="书房", category="Light", commands=[BRIGHTNESS, STEP]
        ),
    }
    brightness = {"light.main": 100.0, "light.desk": None, "light.shelf": 40.0}

    def current(device_id: str, command: CommandSpec) -> float | None:
        return brightness[device_id] if command.id == BRIGHTNESS.id else None

    def running(device_id: str) -> bool | None:
        return brightness[device_id] is not None

    def found(action: str, *ids: str) -> RetrievalResult:
        candidates = [device(i, STEP.id, "room_hit") for i in ids]
        return result(Command(a=action, s="书房"), *candidates, hint="multiple_close_matches")

    brighter = decide([found("调亮", "light.main", "light.desk")], home, "书房太暗了", current, running)
    assert [a.device_ids for a in brighter.actions] == [("light.desk",)]
    dimmer = decide([found("调暗", "light.main", "light.desk")], home, "书房调暗一点", current, running)
    assert [a.device_ids for a in dimmer.actions] == [("light.main",)]
    # 书房的灯调暗点 names the room's own 书房灯, which is off while the shelf light is on: the shelf light
    brightness["light.main"] = None
    own = result(
        Command(a="调暗", s="书房", n="灯", t="Light"),
        device("light.main", STEP.id, "room_hit", "type_hit"),
        device("light.shelf", STEP.id, "room_hit", "type_hit"),
        hint="multiple_close_matches",
    )
    assert [a.device_ids for a in decide([own], home, "书房的灯调暗点", current, running).actions] == [
        ("light.shelf",)
    ]
    brightness["light.main"] = 100.0
    named_off = result(
        Command(a="调暗", s="书房", n="台灯"),
        device("light.desk", STEP.id, "name_hit", "room_hit"),
        device("light.main", STEP.id, "room_hit"),
        device("light.shelf", STEP.id, "room_hit"),
    )
    assert decide([named_off], home, "书房台灯调暗点", current, running).reason is AskReason.WHICH_DEVICE
    assert [a.device_ids for a in decide([named_off], home, "书房台灯调暗点").actions] == [("light.desk",)]


def test_an_adjustment_of_a_set_moves_only_the_devices_that_run():
    """客厅的灯调暗: a light that is off has no brightness to dim (dimming it would turn it on)."""
    home = {
        "light.a": Device(id="light.a", name="主灯", room="客厅", category="Light", commands=[STEP]),
        "light.b": Device(id="light.b", name="筒灯", room="客厅", category="Light", commands=[STEP]),
    }
    group = Group("group-1", "客厅的灯 (2)", ["light.a", "light.b"], STEP.id)
    command = Command(a="调暗", s="客厅", n="灯", t="Light", q=Quantifier.ALL)
    found = result(
        command, Candidate("group-1", "group", STEP.id, 1, 0, 1, ["room_hit"]), groups={"group-1": group}
    )

    def running(device_id: str) -> bool | None:
        return device_id == "light.a"

    dimmed = decide([found], home, "客厅的灯调暗一点", running=running)
    assert [a.device_ids for a in dimmed.actions] == [("light.a",)]
    assert [a.device_ids for a in decide([found], home, "客厅的灯调暗一点").actions] == [
        ("light.a", "light.b")
    ]


def test_a_whole_home_set_the_user_did_not_ask_for_asks_for_the_room():
    group = Group("group-1", "灯 (3)", ["light.a", "light.b", "light.c"], TURN_ON.id)
    found = result(
        Command(a="打开", n="灯", t="Light", q=Quantifier.ALL),
        Candidate("group-1", "group", TURN_ON.id, 1, 0, 1, ["type_hit"]),
        groups={"group-1": group},
    )
    asked = decide([found], DEVICES, "打开灯")
    assert asked.reason is AskReason.WHICH_ROOM
    assert asked.options == ("公卫", "客厅")  # the room with most of the set first
    assert decide([found], DEVICES, "打开所有的灯").outcome is Outcome.ACT
    assert decide([found], DEVICES, "開晒啲燈").outcome is Outcome.ACT  # Cantonese 开晒: 全部打开


def test_a_value_said_that_no_action_carries_is_asked_about():
    mode = result(Command(a="设置模式=制热", n="空调"), device("climate.x", MODE.id))
    decision = decide([mode], DEVICES, "空调制热二十八度")
    assert decision.outcome is Outcome.ASK
    assert decision.reason is AskReason.UNEXPECTED_VALUE
    assert decide([mode], DEVICES, "空调开制热").outcome is Outcome.ACT


def test_a_question_reads_state_and_an_unparsed_utterance_is_handed_on():
    question = decide(
        [result(Command(a="查询温度", n="空调"), device("climate.x", TEMPERATURE.id))], DEVICES, "客厅多少度"
    )
    assert question.outcome is Outcome.ANSWER
    assert [(r.device_id, r.fact.id) for r in question.readings] == [("climate.x", TEMPERATURE.id)]
    assert decide(
        [result(Command(a="UNKNOWN"), device("light.a", TURN_ON.id))], DEVICES, "讲个笑话"
    ).outcome is (Outcome.HAND_OFF)
    assert decide([], DEVICES, "").outcome is Outcome.HAND_OFF


def test_a_question_reads_the_close_candidates_that_read_the_same_fact():
    brightness = CommandSpec(id="state:brightness", description="亮度", readable=True)
    sensor = Device(id="sensor.t", name="温度", room="客厅", category="Sensor", commands=[TEMPERATURE])
    lamp = Device(id="light.l", name="主灯", room="客厅", category="Light", commands=[brightness])
    home = {**DEVICES, "sensor.t": sensor, "light.l": lamp}
    close = [
        Candidate("sensor.t", "device", TEMPERATURE.id, 0.4, 0, 0.40, ["room_hit"]),
        Candidate("climate.x", "device", TEMPERATURE.id, 0.4, 0, 0.38, ["room_hit"]),
        Candidate("light.l", "device", brightness.id, 0.3, 0, 0.33, ["room_hit"]),
    ]
    question = result(Command(a="查询温度", s="客厅"), *close, hint="multiple_close_matches")
    decision = decide([question], home, "客厅温度多少")
    assert [r.device_id for r in decision.readings] == ["sensor.t", "climate.x"]


def test_a_scene_said_by_its_name_alone_is_run():
    run = CommandSpec(id="script.turn_on", description="开启脚本")
    stop = CommandSpec(id="script.turn_off", description="停止脚本")
    script = Device(id="script.morning", name="早安", room="", category="Scene", commands=[run, stop])
    home = {**DEVICES, "script.morning": script}
    found = [Candidate("script.morning", "device", run.id, 1, 0, 1, ["name_partial"])]
    unread = result(Command(a="UNKNOWN"), *found, meta={"raw_text_reading": []})
    decision = decide([unread], home, "执行早安")
    assert decision.outcome is Outcome.ACT
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("script.morning",), run.id)]
    assert decide([unread], home, "明天早安的时候提醒我").outcome is Outcome.HAND_OFF  # more than the name
    upstairs = result(Command(a="UNKNOWN", s="二楼"), *found, meta={"raw_text_reading": []})
    assert decide([upstairs], home, "二楼早安").outcome is Outcome.HAND_OFF  # a floor the script is not on


def test_a_scene_is_run_by_its_name_without_the_word_of_its_kind():
    run = CommandSpec(id="scene.turn_on", description="开启场景")
    scene = Device(id="scene.sleep", name="晚安模式", room="", category="Scene", commands=[run])
    found = [Candidate("scene.sleep", "device", run.id, 1, 0, 1, ["name_partial"])]
    unread = result(Command(a="UNKNOWN"), *found, meta={"raw_text_reading": []})
    assert decide([unread], {scene.id: scene}, "晚安").outcome is Outcome.ACT
    assert decide([unread], {scene.id: scene}, "模式").outcome is Outcome.HAND_OFF


def _set_of(*device_ids: str, command=TURN_ON, **extra) -> tuple[Candidate, dict]:
    group = Group("group-1", "灯", list(device_ids), command.id)
    return Candidate("group-1", "group", command.id, 1, 0, 1, ["room_hit", "type_hit", "quantifier_all"]), {
        "groups": {"group-1": group},
        **extra,
    }


def test_a_set_that_is_not_the_one_said_is_asked_about():
    candidate, extra = _set_of("light.a", "light.b")
    except_by_name = result(
        Command(a="关闭", s="公卫", n="灯", t="Light", q=Quantifier.EXCEPT), candidate, **extra
    )
    assert decide([except_by_name], DEVICES, "公卫的灯除了镜前灯都关掉").outcome is Outcome.ASK
    found_by_nothing = result(
        Command(a="关闭", n="家", q=Quantifier.ALL),
        Candidate("group-1", "group", TURN_ON.id, 1, 0, 1, ["quantifier_all"]),
        groups=extra["groups"],
    )
    assert decide([found_by_nothing], DEVICES, "家里的插头全部关掉").outcome is Outcome.ASK
    shrunk = result(Command(a="打开", s="公卫", n="灯", t="Light", q=Quantifier.ALL), candidate, **extra)
    shrunk.meta["unsupported_targets"] = 2
    assert decide([shrunk], DEVICES, "打开公卫的灯").outcome is Outcome.ASK
    assert decide([shrunk], DEVICES, "打开公卫所有的灯").outcome is Outcome.ACT


def test_an_adjustment_is_not_carried_out_by_a_command_going_the_other_way():
    faster = CommandSpec(id="fan.increase_speed", description="调高风速")
    fan = Device(id="fan.f", name="风扇", room="客厅", category="Fan", commands=[faster])
    slower = result(Command(a="调小", n="风扇"), device("fan.f", faster.id))
    assert decide([slower], {"fan.f": fan}, "风扇小一点").reason is AskReason.NO_COMMAND
    assert decide(
        [result(Command(a="调大", n="风扇"), device("fan.f", faster.id))], {"fan.f": fan}, "风扇大一点"
    ).outcome is (Outcome.ACT)


def test_a_measured_setting_said_is_no_other_command_going_its_way():
    """调高温度 said of a blind: its slats going up are no temperature; 小声一点 may slow a fan."""
    tilt_down = CommandSpec(id="cover.close_cover_tilt", description="调低叶片")
    tilt_up = CommandSpec(id="cover.open_cover_tilt", description="调高叶片")
    blind = Device(id="cover.b", name="百叶窗", room="客厅", category="Blind", commands=[tilt_down, tilt_up])
    warmer = result(
        Command(a="调高温度", n="@last"),
        device("cover.b", tilt_down.id),
        meta={"kept_for_unfamiliar_action": 1},
    )
    assert tilt_up.id not in [
        a.command.id for a in decide([warmer], {"cover.b": blind}, "它温度高一点").actions
    ]
    faster = CommandSpec(id="fan.increase_speed", description="调高风速")
    slower = CommandSpec(id="fan.decrease_speed", description="调低风速")
    fan = Device(id="fan.p", name="净化器", room="客厅", category="Fan", commands=[faster, slower])
    quieter = result(
        Command(a="调小音量", n="@last"), device("fan.p", faster.id), meta={"kept_for_unfamiliar_action": 1}
    )
    assert [a.command.id for a in decide([quieter], {"fan.p": fan}, "它小声一点").actions] == [slower.id]


def test_an_adjustment_takes_the_devices_command_going_its_way():
    faster = CommandSpec(id="fan.increase_speed", description="调高风速")
    slower = CommandSpec(id="fan.decrease_speed", description="调低风速")
    fan = Device(id="fan.f", name="风扇", room="客厅", category="Fan", commands=[faster, slower])
    kept = result(
        Command(a="调小", n="风扇"), device("fan.f", faster.id), meta={"kept_for_unfamiliar_action": 1}
    )
    decision = decide([kept], {"fan.f": fan}, "风扇风小一点")
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("fan.f",), slower.id)]


def test_words_nothing_was_read_from_are_asked_about():
    on = result(Command(a="打开", n="公卫灯"), device("light.a", TURN_ON.id))
    decision = decide([on], DEVICES, "公卫灯开 sparkle glitter")
    assert decision.reason is AskReason.UNREAD_WORDS
    assert decision.options == ("sparkle", "glitter")
    named = {
        **DEVICES,
        "light.h": Device(id="light.h", name="Hue Go", room="客厅", category="Light", commands=[TURN_ON]),
    }
    hue = result(Command(a="打开", n="Hue Go"), device("light.h", TURN_ON.id))
    assert decide([hue], named, "打开 Hue Go").outcome is Outcome.ACT  # a name's words are read
    aliased = result(Command(a="打开", s="restroom", n="灯"), device("light.a", TURN_ON.id, "room_hit"))
    assert decide([aliased], DEVICES, "打开 restroom 的灯").outcome is Outcome.ACT  # a room said: its alias


def test_a_count_said_is_the_number_of_devices_acted_on():
    two = [device("light.a", TURN_ON.id), device("light.b", TURN_ON.id), device("light.c", TURN_ON.id)]
    anyone = result(Command(a="打开", n="灯", t="Light", q=Quantifier.ANY, c=2), *two)
    assert [a.device_ids for a in decide([anyone], DEVICES, "随便开两盏灯").actions] == [
        ("light.a", "light.b")
    ]
    candidate, extra = _set_of("light.a")
    counted = result(
        Command(a="打开", s="公卫", n="灯", t="Light", q=Quantifier.ALL, c=2), candidate, **extra
    )
    assert decide([counted], DEVICES, "两个公卫的灯都打开").outcome is Outcome.ASK  # one found, two said


def test_a_clause_that_only_names_the_next_commands_target_is_no_command():
    lamp = Device(id="light.m", name="主灯", room="客厅", category="Light", commands=[TURN_ON, STEP])
    home = {"light.m": lamp}
    target_only = result(Command(a="UNKNOWN", s="客厅", n="主灯"), device("light.m", TURN_ON.id, "room_hit"))
    dimmer = result(Command(a="调暗", s="客厅", n="主灯"), device("light.m", STEP.id, "room_hit"))
    decision = decide([target_only, dimmer], home, "客厅主灯再暗一点")
    assert [(a.command.id, a.value) for a in decision.actions] == [(STEP.id, -20)]
    alias = result(Command(a="UNKNOWN", s="*", n="主灯"), device("light.m", TURN_ON.id, "name_hit"))
    decision = decide([alias, dimmer], home, "主灯，客厅主灯再暗一点")  # named twice, once with its room
    assert [(a.command.id, a.value) for a in decision.actions] == [(STEP.id, -20)]
    described = result(
        Command(a="UNKNOWN", s="客厅", n="圆圆的灯"), device("light.m", TURN_ON.id, "room_hit")
    )
    it = result(Command(a="打开", n="@last"), device("light.m", TURN_ON.id, "last_mentioned"))
    decision = decide([described, it], home, "客厅那个圆圆的灯，把它打开")  # 它 is what was described
    assert [a.device_ids for a in decision.actions] == [("light.m",)]
    other = result(Command(a="UNKNOWN", s="*", n="音乐"), device("light.m", TURN_ON.id))
    assert (
        decide([other, dimmer], home, "客厅主灯调暗然后放音乐").outcome is Outcome.HAND_OFF
    )  # a command unread


def test_an_answer_picks_the_choice_it_shares_the_longest_run_of_characters_with():
    close = [device("light.a", TURN_ON.id, "room_hit"), device("light.b", TURN_ON.id, "room_hit")]
    asked = decide(
        [result(Command(a="打开", n="灯"), *close, hint="multiple_close_matches")], DEVICES, "开灯"
    )
    assert decide_choice(asked.choices, DEVICES, "镜前那个").actions[0].device_ids == ("light.b",)
    assert decide_choice(asked.choices, DEVICES, "公卫的") is None  # both are in 公卫
    assert decide_choice(asked.choices, DEVICES, "前") is None  # one character picks nothing
    # a request naming something no choice is called by is no answer (镜前 said of the 台灯 asked about)
    assert decide_choice(asked.choices, DEVICES, "镜前那个", names=["台灯"]) is None
    assert decide_choice(asked.choices, DEVICES, "镜前那个", names=["镜前灯"]) is not None


def test_letters_shared_in_pairs_answer_no_which_question():
    """make it a bit warmer shares bi with bay window blinds: no answer; the lounge ones names Lounge."""
    open_cover = CommandSpec(id="cover.open_cover", description="打开卷帘")
    home = {
        f"cover.{n}": Device(id=f"cover.{n}", name=name, room=room, category="Blind", commands=[open_cover])
        for n, name, room in (("l", "Lounge blinds", "Lounge"), ("k", "Kitchen blinds", "Kitchen"))
    }
    close = [device("cover.l", open_cover.id, "type_hit"), device("cover.k", open_cover.id, "type_hit")]
    asked = decide([result(Command(a="打开", n="卷帘"), *close, hint="multiple_close_matches")], home, "open")
    assert decide_choice(asked.choices, home, "the lounge ones").actions[0].device_ids == ("cover.l",)
    assert decide_choice(asked.choices, home, "bi ds") is None


def test_an_answer_naming_another_room_picks_nothing():
    """工人房的 shares 人房 with 主人房, but names a room none of the choices is in."""
    home = {
        "climate.m": Device(
            id="climate.m", name="冷气", room="主人房", category="AirConditioner", commands=[TURN_ON]
        ),
        "climate.k": Device(
            id="climate.k", name="冷气", room="细路房", category="AirConditioner", commands=[TURN_ON]
        ),
        "light.h": Device(id="light.h", name="灯", room="工人房", category="Light", commands=[TURN_ON]),
    }
    close = [device("climate.m", TURN_ON.id, "type_hit"), device("climate.k", TURN_ON.id, "type_hit")]
    asked = decide(
        [result(Command(a="打开", n="空调"), *close, hint="multiple_close_matches")], home, "开冷气"
    )
    assert decide_choice(asked.choices, home, "主人房的").actions[0].device_ids == ("climate.m",)
    assert decide_choice(asked.choices, home, "工人房的") is None


def test_two_names_finding_one_device_are_asked_about():
    first = result(Command(a="打开", n="公卫灯"), device("light.a", TURN_ON.id))
    second = result(Command(a="打开", n="灶台灯"), device("light.a", TURN_ON.id, "name_hit"))
    decision = decide([first, second], DEVICES, "打开公卫灯和灶台灯")
    assert decision.reason is AskReason.NOT_FOUND


def test_a_word_of_its_own_is_not_taken_as_another_misheard():
    heard = result(Command(a="打开", n="大灯"), device("light.c", TURN_ON.id, "alias_hit", "pinyin_hit"))
    heard.meta["heard_as"] = {"台灯": "大灯"}  # 台灯 is a kind of light of its own
    assert decide([heard], DEVICES, "把台灯打开").reason is AskReason.NOT_FOUND
    misheard = result(Command(a="打开", n="主灯"), device("light.c", TURN_ON.id, "name_hit", "pinyin_hit"))
    misheard.meta["heard_as"] = {"主等": "主灯"}  # 主等 is no word: a mishearing
    assert decide([misheard], DEVICES, "打开主等").outcome is Outcome.ACT


def test_a_person_names_a_device_with_its_room_unless_the_name_says_it():
    assert device_label(DEVICES["light.c"]) == "客厅主灯"
    assert device_label(DEVICES["light.a"]) == "公卫灯"
    assert device_label(Device(id="x", name="Lamp", room="Study", category="Light")) == "Study Lamp"


def test_a_latin_word_read_as_the_value_is_not_left_unread():
    modes = CommandSpec(
        id="climate.set_hvac_mode:hvac_mode",
        description="设置空调模式",
        value_list=[{"value": "cool", "description": "制冷"}, {"value": "dry", "description": "除湿"}],
    )
    ac = Device(id="climate.y", name="空调", room="客厅", category="AirConditioner", commands=[modes])
    command = Command(a="设置=dry模式", s="客厅", n="空调", t="AirConditioner", q=Quantifier.ONE)
    found = result(command, device("climate.y", modes.id, "room_hit", "type_hit"))
    decision = decide([found], {ac.id: ac}, "客厅空调切到dry模式")
    assert decision.outcome == Outcome.ACT
    assert decision.actions[0].value == "dry"


def test_all_of_what_was_mentioned_when_one_device_was_is_asked_about():
    command = Command(a="打开", n="*", q=Quantifier.ALL)
    decision = decide([result(command, device("light.a", TURN_ON.id, "last_mentioned"))], DEVICES, "都打开")
    assert decision.outcome == Outcome.ASK
    assert decision.reason is AskReason.WHICH_DEVICE
    them = Command(a="关闭", n="@last", q=Quantifier.ALL)  # 把它们都关了 after one device
    decision = decide([result(them, device("light.a", TURN_ON.id, "last_mentioned"))], DEVICES, "关掉它们")
    assert decision.outcome == Outcome.ASK


def test_one_of_two_mentioned_last_is_asked_about():
    candidate, extra = _set_of("light.a", "light.b")
    candidate.reasons[:] = ["last_mentioned"]
    decision = decide([result(Command(a="调亮", n="*"), candidate, **extra)], DEVICES, "再亮一点")
    assert decision.outcome == Outcome.ASK
    everything = result(Command(a="打开", n="*", q=Quantifier.ALL), candidate, **extra)
    assert decide([everything], DEVICES, "都打开").outcome == Outcome.ACT


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("卧室电视", Outcome.ASK),  # a room the home does not have: not the living room's TV
        ("电视", Outcome.ACT),
        ("电视插座", Outcome.ACT),  # a kind word more
        ("电视音量", Outcome.ACT),  # an attribute more
    ],
)
def test_a_name_saying_more_than_the_device_is_called_is_asked_about(name, outcome):
    on = CommandSpec(id="media_player.turn_on", description="打开电视")
    tv = Device(id="media_player.tv", name="电视", room="客厅", category="Television", commands=[on])
    found = device("media_player.tv", on.id, "name_partial", "type_hit")
    command = Command(a="打开", n=name, t="Television")
    assert decide([result(command, found)], {tv.id: tv}, f"打开{name}").outcome is outcome


def test_a_setting_from_a_list_does_not_swallow_turning_off():
    climate = DEVICES["climate.x"]
    off = CommandSpec(id="climate.turn_off", description="关闭空调")
    ac = Device(
        id=climate.id, name=climate.name, room=climate.room, category=climate.category, commands=[MODE, off]
    )
    mode = result(Command(a="设置模式=制冷", s="客厅", n="空调"), device("climate.x", MODE.id, "room_hit"))
    switch_off = result(Command(a="关闭", s="客厅", n="空调"), device("climate.x", off.id, "room_hit"))
    decision = decide([mode, switch_off], {ac.id: ac}, "客厅空调制冷关掉")
    assert [a.command.id for a in decision.actions] == [MODE.id, off.id]


def test_an_adjustment_on_a_command_going_its_way_is_carried_out_though_worded_otherwise():
    up = CommandSpec(id="fan.increase_speed", description="调高风速")
    fan = Device(id="fan.p", name="清净机", room="客厅", category="Fan", commands=[up])
    found = result(
        Command(a="调大", n="清净机"),
        device("fan.p", up.id, "alias_hit"),
        meta={"kept_for_unfamiliar_action": 1},
    )
    decision = decide([found], {fan.id: fan}, "清净机风大一点")
    assert decision.outcome is Outcome.ACT
    assert decision.actions[0].command.id == up.id
    down = result(
        Command(a="调小", n="清净机"),
        device("fan.p", up.id, "alias_hit"),
        meta={"kept_for_unfamiliar_action": 1},
    )
    assert decide([down], {fan.id: fan}, "清净机风小一点").outcome is Outcome.ASK


def test_a_scene_said_with_a_word_inside_its_name_is_run_and_the_longest_said_wins():
    run = CommandSpec(id="script.turn_on", description="开启脚本")
    bedtime = Device(id="script.bed", name="豆豆睡觉", room="", category="Scene", commands=[run])
    sleep = Device(id="scene.sleep", name="睡觉模式", room="", category="Scene", commands=[run])
    home = {bedtime.id: bedtime, sleep.id: sleep}
    unread = result(Command(a="UNKNOWN"), meta={"raw_text_reading": []})
    decision = decide([unread], home, "豆豆要睡觉了")
    assert [a.device_ids for a in decision.actions] == [("script.bed",)]
    assert decide([unread], home, "豆豆今天不要那么早去睡觉了").outcome is Outcome.HAND_OFF


def test_the_device_called_by_its_room_and_the_kind_said_is_the_one_meant():
    """主卧的灯: the light aliased 主卧灯; 二楼走廊灯: the one named 走廊灯 there."""
    home = {
        "light.top": Device(
            id="light.top",
            name="吸顶灯",
            room="主卧",
            category="Light",
            commands=[TURN_ON],
            aliases=["主卧灯"],
        ),
        "light.closet": Device(
            id="light.closet", name="衣柜灯", room="主卧", category="Light", commands=[TURN_ON]
        ),
        "light.hall": Device(
            id="light.hall", name="走廊灯", room="二楼走廊", category="Light", commands=[TURN_ON]
        ),
        "light.night": Device(
            id="light.night", name="感应夜灯", room="二楼走廊", category="Light", commands=[TURN_ON]
        ),
    }
    for room, meant, other in (
        ("主卧", "light.top", "light.closet"),
        ("二楼走廊", "light.hall", "light.night"),
    ):
        close = [device(meant, TURN_ON.id, "room_hit"), device(other, TURN_ON.id, "room_hit")]
        found = result(Command(a="打开", s=room, n="灯", t="Light"), *close, hint="multiple_close_matches")
        assert [a.device_ids for a in decide([found], home, f"{room}的灯打开").actions] == [(meant,)]


def test_the_text_is_read_as_heard_when_a_word_was_misheard():
    """倒台灯 heard as 岛台灯: the utterance calls the island light by its alias."""
    home = {
        "light.w": Device(id="light.w", name="西厨灯", room="西厨", category="Light", commands=[TURN_ON]),
        "light.i": Device(
            id="light.i",
            name="岛台吊灯",
            room="西厨",
            category="Light",
            commands=[TURN_ON],
            aliases=["岛台灯"],
        ),
    }
    close = [device("light.w", TURN_ON.id, "room_hit"), device("light.i", TURN_ON.id, "room_hit")]
    command = Command(a="打开", s="西厨,岛台", n="灯", t="Light")
    heard = result(command, *close, hint="multiple_close_matches", meta={"heard_as": {"倒台灯": "岛台灯"}})
    assert [a.device_ids for a in decide([heard], home, "西厨的倒台灯打开").actions] == [("light.i",)]


def test_a_device_said_and_then_called_it_is_acted_on_once_and_not_read():
    """储物间的灯冇关，帮我关了它: the state said is the reason; 它 is the light; one call."""
    turn_off = CommandSpec(id="light.turn_off", description="关闭灯")
    state = CommandSpec(id="state", description="开关状态", readable=True)
    lamp = Device(
        id="light.s", name="储物间灯", room="储物间", category="Light", commands=[TURN_ON, turn_off, state]
    )
    said = result(Command(a="查询状态", s="储物间", n="灯"), device("light.s", state.id, "room_hit"))
    off = result(Command(a="关闭", s="储物间", n="灯"), device("light.s", turn_off.id, "room_hit"))
    it = result(Command(a="关闭", n="@last"), device("light.s", turn_off.id, "last_mentioned"))
    decision = decide([said, off, it], {lamp.id: lamp}, "储物间的灯冇关，帮我关了它")
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [(("light.s",), turn_off.id)]
    assert decision.readings == ()
    on = result(Command(a="打开", s="储物间", n="灯"), device("light.s", TURN_ON.id, "room_hit"))
    assert decide([on, it], {lamp.id: lamp}, "储物间灯开了，关掉它").outcome is Outcome.ASK  # which?


def test_a_room_and_the_end_of_a_name_call_the_device_there():
    """餐厅的吊灯: the room's 饭桌吊灯; 吊灯 said without the room calls nothing it does not end."""
    home = {
        "light.d": Device(id="light.d", name="饭桌吊灯", room="餐厅", category="Light", commands=[TURN_ON]),
    }
    found = result(
        Command(a="打开", s="餐厅", n="吊灯", t="Light"),
        device("light.d", TURN_ON.id, "room_hit", "type_hit"),
    )
    assert [a.device_ids for a in decide([found], home, "餐厅的吊灯打开").actions] == [("light.d",)]
    unnamed = result(Command(a="打开", n="吊灯", t="Light"), device("light.d", TURN_ON.id, "type_hit"))
    assert decide([unnamed], home, "吊灯打开").reason is AskReason.NOT_FOUND


def test_a_word_of_a_models_name_and_the_kind_call_that_device():
    """米家空调: the air conditioner whose device is a Xiaomi 米家 model; 卧室灯 is no word of 卧室大灯."""
    cool = CommandSpec(id="climate.turn_on", description="打开空调")
    home = {
        "climate.k": Device(
            id="climate.k",
            name="桐桐房空调",
            room="桐桐房间",
            category="AirConditioner",
            commands=[cool],
            aliases=["Xiaomi 米家 新一级 KFR-35GW"],
        ),
        "climate.m": Device(
            id="climate.m", name="美的空调", room="主卧", category="AirConditioner", commands=[cool]
        ),
    }
    close = [device("climate.m", cool.id, "name_partial"), device("climate.k", cool.id, "name_partial")]
    found = result(Command(a="打开", n="米家空调", t="AirConditioner"), *close, hint="multiple_close_matches")
    assert [a.device_ids for a in decide([found], home, "米家空调打开").actions] == [("climate.k",)]
    lights = {
        "light.m": Device(
            id="light.m",
            name="主卧灯",
            room="主卧",
            category="Light",
            commands=[TURN_ON],
            aliases=["卧室大灯"],
        ),
        "light.s": Device(id="light.s", name="次卧灯", room="次卧", category="Light", commands=[TURN_ON]),
    }
    close = [device("light.m", TURN_ON.id, "name_partial"), device("light.s", TURN_ON.id, "name_partial")]
    vague = result(Command(a="关闭", n="卧室灯", t="Light"), *close, hint="multiple_close_matches")
    assert decide([vague], lights, "把卧室灯关掉").outcome is Outcome.ASK


def test_a_device_kept_for_an_unfamiliar_action_is_a_guess_only_when_chosen():
    """风扇 names the exhaust fan too, kept though it has no speed: the fan chosen is no guess."""
    speed = CommandSpec(
        id="fan.set_percentage:percentage",
        description="设置风扇速度",
        value_range={"minimum": 0, "maximum": 100, "step": 25, "unit": "%"},
    )
    home = {
        "fan.f": Device(
            id="fan.f", name="电风扇", room="客厅", category="Fan", commands=[speed], aliases=["风扇"]
        )
    }
    chosen = device("fan.f", speed.id, "alias_hit")
    other = result(
        Command(a="设置风速=2档", n="风扇", t="Fan"),
        chosen,
        meta={"kept_for_unfamiliar_action": 1, "kept_unfamiliar": ["fan.x"]},
    )
    decision = decide([other], home, "风扇开二档")
    assert [(a.device_ids, a.value) for a in decision.actions] == [(("fan.f",), 50)]
    itself = result(
        Command(a="设置风速=2档", n="风扇", t="Fan"),
        chosen,
        meta={"kept_for_unfamiliar_action": 1, "kept_unfamiliar": ["fan.f"]},
    )
    assert decide([itself], home, "风扇开二档").reason is AskReason.NOT_FOUND


def test_it_said_of_devices_just_listed_is_the_one_an_action_on_what_runs_changes():
    """把它关掉 after 哪几台空调开着: the one that runs; 把它打开 leaves open which of those that are off."""
    off = CommandSpec(id="climate.turn_off", description="关闭空调")
    on = CommandSpec(id="climate.turn_on", description="打开空调")
    home = {
        f"climate.{n}": Device(
            id=f"climate.{n}", name=f"{n}空调", room=n, category="AirConditioner", commands=[on, off]
        )
        for n in "abc"
    }
    group = Group("group-1", "空调 (3)", list(home), off.id)

    def found(action: str, capability: str) -> RetrievalResult:
        command = Command(a=action, n="@last", q=Quantifier.ONE)
        candidate = Candidate("group-1", "group", capability, 1, 0, 1, ["last_mentioned"])
        return result(command, candidate, groups={"group-1": group})

    def running(device_id: str) -> bool | None:
        return device_id == "climate.b"

    off_one = decide([found("关闭", off.id)], home, "把它关掉", running=running)
    assert [a.device_ids for a in off_one.actions] == [("climate.b",)]
    assert decide([found("打开", on.id)], home, "把它打开", running=running).outcome is Outcome.ASK


def test_switching_what_is_already_so_asks_when_another_found_would_change():
    """浴室的灯打开 finding 浴室灯, on, with the mirror light there off: which one is meant?"""
    home = {
        "light.b": Device(id="light.b", name="浴室灯", room="浴室", category="Light", commands=[TURN_ON]),
        "light.m": Device(id="light.m", name="浴室镜灯", room="浴室", category="Light", commands=[TURN_ON]),
    }
    found = result(
        Command(a="打开", s="浴室", n="灯", t="Light"),
        device("light.b", TURN_ON.id, "room_hit", "type_hit"),
        device("light.m", TURN_ON.id, "room_hit", "type_hit"),
    )

    def running(device_id: str) -> bool | None:
        return device_id == "light.b"

    assert decide([found], home, "浴室的灯打开", running=running).reason is AskReason.WHICH_DEVICE
    assert [a.device_ids for a in decide([found], home, "浴室灯打开", running=running).actions] == [
        ("light.b",)
    ]  # called by its whole name: done as said
    assert [a.device_ids for a in decide([found], home, "浴室的灯打开").actions] == [("light.b",)]


def test_an_alias_that_is_only_a_kind_word_is_no_name_of_its_own():
    """开电视 finding the TV aliased 电视, already on, with the bedroom TV off: which one is meant?"""
    on = CommandSpec(id="media_player.turn_on", description="打开电视")
    home = {
        "media_player.l": Device(
            id="media_player.l",
            name="客厅电视",
            room="客厅",
            category="Television",
            aliases=["电视"],
            commands=[on],
        ),
        "media_player.b": Device(
            id="media_player.b", name="房间电视", room="主人房", category="Television", commands=[on]
        ),
    }
    found = result(
        Command(a="打开", n="电视", t="Television"),
        device("media_player.l", on.id, "alias_hit", "type_hit"),
        device("media_player.b", on.id, "name_partial", "type_hit"),
    )

    def running(device_id: str) -> bool | None:
        return device_id == "media_player.l"

    assert decide([found], home, "开电视", running=running).reason is AskReason.WHICH_DEVICE
    assert [a.device_ids for a in decide([found], home, "开客厅电视", running=running).actions] == [
        ("media_player.l",)
    ]  # its own name said: done as said


def test_an_alias_naming_a_kind_of_thing_set_apart_is_no_name_of_its_own():
    """排气扇打开 finding the workshop's fan aliased 抽风机 (folded to 排气扇), on, the bathroom's off."""
    home = {
        "fan.w": Device(
            id="fan.w", name="车间排风扇", room="车间", category="Fan", aliases=["排气扇"], commands=[FAN_ON]
        ),
        "fan.b": Device(id="fan.b", name="二楼排气扇", room="二楼卫生间", category="Fan", commands=[FAN_ON]),
    }
    found = result(
        Command(a="打开", n="排气扇"),
        device("fan.w", FAN_ON.id, "alias_hit"),
        device("fan.b", FAN_ON.id, "name_partial"),
    )

    def running(device_id: str) -> bool | None:
        return device_id == "fan.w"

    assert decide([found], home, "排气扇打开", running=running).reason is AskReason.WHICH_DEVICE
    assert [a.device_ids for a in decide([found], home, "车间排风扇打开", running=running).actions] == [
        ("fan.w",)
    ]


def test_the_end_of_a_list_said_is_carried_out_not_taken_for_a_value_left_unused():
    """风速调到最大: 最大 is the value the action carries (高风), not a number it would drop."""
    home = {
        "climate.s": Device(
            id="climate.s", name="书房空调", room="书房", category="AirConditioner", commands=[FAN_MODES]
        )
    }
    found = result(Command(a="设置风速=最大", n="@last"), device("climate.s", FAN_MODES.id, "last_mentioned"))
    decision = decide([found], home, "风速调到最大")
    assert [(a.device_ids, a.value) for a in decision.actions] == [(("climate.s",), "high")]


@pytest.mark.parametrize(
    ("action", "current", "value", "problem"),
    [
        ("调小风速", "medium", "low", None),  # 风小一点 at 中风: 低风
        ("调大风速", "medium", "high", None),
        ("调大风速", "high", "high", None),  # at the top it stays
        ("调小风速", "auto", "low", None),  # 自动风 stands in the middle of the ranks
        ("调大风速", "auto", "high", None),
        ("调小风速", "high", "medium", None),
        ("调小风速", None, None, ArgumentProblem.MISSING),
    ],
)
def test_an_adjustment_of_a_listed_value_moves_to_the_next_one_ranked(action, current, value, problem):
    argument = command_argument(action, FAN_MODES, current)
    assert (argument.value, argument.problem) == (value, problem)


def test_a_present_value_no_word_ranks_is_asked_about():
    """吸力大一点 at custom of quiet, custom, strong, max: custom is ranked by no word, and no 自动."""
    suction = CommandSpec(
        id="vacuum.set_fan_speed:fan_speed",
        description="设置吸力",
        value_list=[{"value": v} for v in ("quiet", "custom", "strong", "max")],
    )
    assert command_argument("调大吸力", suction, "custom").problem is ArgumentProblem.MISSING


def test_a_listed_value_is_read_in_the_homes_spelling_folded_like_speech():
    """星空燈開極光模式: the effect listed as 極光 (Traditional) is 极光 said; Night is night mode."""
    effects = CommandSpec(
        id="light.turn_on:effect",
        description="设置灯效",
        value_list=[{"value": "星空", "description": "星空"}, {"value": "極光", "description": "極光"}],
    )
    modes = CommandSpec(
        id="fan.set_preset_mode",
        description="设置风扇模式",
        value_list=[{"value": "Auto"}, {"value": "Night"}],
    )
    assert command_argument("设置=极光模式", effects).value == "極光"
    assert command_argument("设置=夜间模式", modes).value == "Night"


@pytest.mark.parametrize(
    ("action", "current", "value"),
    [
        ("调低色温", 5000, 4500),  # a tenth of 2200 to 5000 K is 280: counted as 500 K, a change seen
        ("调低色温", 2300, 2200),  # held within the range
        ("调高色温", 4000, 4500),
        ("调高温度", 26, 27),  # a narrow range moves by a unit
    ],
)
def test_an_adjustment_without_a_number_moves_by_a_round_step_of_its_range(action, current, value):
    spec = COLOUR_TEMPERATURE if "色温" in action else TARGET
    assert command_argument(action, spec, current).value == value


def test_warmth_said_of_a_light_is_a_lower_colour_temperature():
    """台灯暖一点: warmer light (a lower colour temperature), not a temperature the lamp lacks."""
    home = {
        "light.desk": Device(
            id="light.desk",
            name="台灯",
            room="书房",
            category="Light",
            commands=[TURN_ON, COLOUR_TEMPERATURE],
        ),
        "climate.ac": Device(
            id="climate.ac", name="空调", room="书房", category="AirConditioner", commands=[TARGET]
        ),
    }
    temperatures = {"light.desk": 4000.0, "climate.ac": 25.0}

    def current(device_id: str, command: CommandSpec) -> float | str | None:
        return temperatures[device_id]

    def warmer(device_id: str, capability: str) -> RetrievalResult:
        return result(Command(a="调高温度", n="台灯"), device(device_id, capability, "name_hit"))

    lamp = decide([warmer("light.desk", TURN_ON.id)], home, "台灯暖一点", current)
    assert [(a.device_ids, a.command.id, a.value) for a in lamp.actions] == [
        (("light.desk",), COLOUR_TEMPERATURE.id, 3500)
    ]
    ac = decide([warmer("climate.ac", TARGET.id)], home, "空调暖一点", current)
    assert [(a.command.id, a.value) for a in ac.actions] == [(TARGET.id, 26)]  # its own temperature


def test_a_name_that_is_part_of_several_devices_names_asks_which():
    """小米 开一下 with a lamp aliased 小米台灯 and a 小米风扇: which one is meant?"""
    fan_on = CommandSpec(id="fan.turn_on", description="打开风扇")
    home = {
        "light.l": Device(
            id="light.l",
            name="Study Lamp",
            room="书房",
            category="Light",
            aliases=["小米台灯"],
            commands=[TURN_ON],
        ),
        "fan.f": Device(id="fan.f", name="小米风扇", room="卧室", category="Fan", commands=[fan_on]),
    }
    found = result(
        Command(a="打开", n="小米"),
        device("light.l", TURN_ON.id, "name_partial"),
        device("fan.f", fan_on.id, "name_partial"),
    )
    assert decide([found], home, "小米开一下").reason is AskReason.WHICH_DEVICE
    fan = result(Command(a="打开", n="小米风扇"), device("fan.f", fan_on.id, "name_hit"))
    assert [a.device_ids for a in decide([fan], home, "小米风扇开一下").actions] == [("fan.f",)]


def test_an_alias_that_is_a_kind_of_lamp_is_no_name_of_its_own_either():
    """打开台灯 finding the lamp aliased 台灯, on, while the attic's 阁楼台灯 is off: which one?"""
    home = {
        "light.d": Device(
            id="light.d",
            name="囡囡台灯",
            room="亭子间",
            category="Light",
            aliases=["台灯"],
            commands=[TURN_ON],
        ),
        "light.a": Device(id="light.a", name="阁楼台灯", room="阁楼", category="Light", commands=[TURN_ON]),
    }
    found = result(
        Command(a="打开", n="台灯", t="Light"),
        device("light.d", TURN_ON.id, "alias_hit", "type_hit"),
        device("light.a", TURN_ON.id, "name_partial", "type_hit"),
    )

    def running(device_id: str) -> bool | None:
        return device_id == "light.d"

    assert decide([found], home, "打开台灯", running=running).reason is AskReason.WHICH_DEVICE


def test_an_answer_to_a_question_carries_out_the_rest_of_the_turn():
    """开冷气 26度, asked which: 主人房的 sets that one to 26 (which turns it on): all that was said."""
    set_temperature = CommandSpec(
        id="climate.set_temperature:temperature",
        description="设置目标温度",
        value_range={"minimum": 16, "maximum": 30, "unit": "°C"},
    )
    home = {
        d: Device(
            id=d, name="冷气", room=room, category="AirConditioner", commands=[TURN_ON, set_temperature]
        )
        for d, room in (("climate.m", "主人房"), ("climate.k", "细路房"))
    }
    close = [device(d, TURN_ON.id, "type_hit") for d in home]
    valued = [device(d, set_temperature.id, "type_hit") for d in home]
    asked = decide(
        [
            result(Command(a="打开", n="空调"), *close, hint="multiple_close_matches"),
            result(Command(a="设置温度=26C", n="空调"), *valued, hint="multiple_close_matches"),
        ],
        home,
        "冷气开26度",
    )
    answered = decide_choice(asked.choices, home, "主人房的")
    assert [(a.device_ids, a.command.id, a.value) for a in answered.actions] == [
        (("climate.m",), set_temperature.id, 26)
    ]
    # a later command no choice's device has: the question takes no answer doing part of the turn
    lamp = result(Command(a="设置亮度=50%", n="灯"), device("light.a", BRIGHTNESS.id))
    partial = decide(
        [result(Command(a="打开", n="空调"), *close, hint="multiple_close_matches"), lamp], home, ""
    )
    assert partial.outcome is Outcome.ASK
    assert partial.choices == ()


def test_a_setting_switched_on_does_not_turn_the_device_on():
    """风扇开咗佢,摇埋头: 摇头 does not turn a fan on, so both are done; a brightness does turn a light on."""
    fan = Device(id="fan.f", name="风扇", room="客厅", category="Fan", commands=[FAN_ON, OSCILLATE])
    on = result(Command(a="打开", n="风扇"), device("fan.f", FAN_ON.id))
    swing = result(Command(a="设置摆风=开启", n="风扇"), device("fan.f", OSCILLATE.id))
    both = decide([on, swing], {"fan.f": fan}, "风扇开了它,也摇头")
    assert [(a.command.id, a.value) for a in both.actions] == [(FAN_ON.id, None), (OSCILLATE.id, True)]
    lit = decide(
        [
            result(Command(a="打开", n="公卫灯"), device("light.a", TURN_ON.id)),
            result(Command(a="设置亮度=50%", n="公卫灯"), device("light.a", BRIGHTNESS.id)),
        ],
        DEVICES,
        "公卫灯打开调到50%",
    )
    assert [(a.command.id, a.value) for a in lit.actions] == [(BRIGHTNESS.id, 50)]


def test_a_kind_said_with_its_room_is_not_asked_about_for_a_device_of_another_kind():
    """客厅开落地灯, the floor lamp on and the ceiling light off: the ceiling light is no 落地灯."""
    home = {
        "light.f": Device(id="light.f", name="落地灯", room="客厅", category="Light", commands=[TURN_ON]),
        "light.m": Device(id="light.m", name="大灯", room="客厅", category="Light", commands=[TURN_ON]),
        "light.t": Device(id="light.t", name="台灯", room="客厅", category="Light", commands=[TURN_ON]),
    }
    found = [
        device("light.f", TURN_ON.id, "name_hit", "room_hit"),
        device("light.m", TURN_ON.id, "room_hit"),
        device("light.t", TURN_ON.id, "room_hit"),
    ]
    off_but_floor = {"light.f": True, "light.m": False, "light.t": False}.get
    floor = decide(
        [result(Command(a="打开", s="客厅", n="落地灯"), *found)], home, "客厅开落地灯", running=off_but_floor
    )
    assert [a.device_ids for a in floor.actions] == [("light.f",)]
    # another 落地灯 off in the room: the user likely means that one
    home["light.t"] = Device(
        id="light.t", name="沙发落地灯", room="客厅", category="Light", commands=[TURN_ON]
    )
    asked = decide(
        [result(Command(a="打开", s="客厅", n="落地灯"), *found)], home, "客厅开落地灯", running=off_but_floor
    )
    assert asked.outcome is Outcome.ASK


@pytest.mark.parametrize(
    ("action", "options", "value"),
    [
        ("设置=睡眠风", ["Straight Wind", "Natural Wind", "Sleep"], "Sleep"),
        ("设置=直吹风", ["Straight Wind", "Natural Wind", "Sleep"], "Straight Wind"),
        ("设置=干衣模式", ["auto", "continuous", "laundry"], "laundry"),
        ("设置=干衣模式", ["auto", "continuous", "dry_clothes"], "dry_clothes"),
        ("设置=连续除湿", ["auto", "continuous", "dry_clothes"], "continuous"),
        ("设置=哔哩哔哩", ["HDMI 1", "哔哩哔哩"], "哔哩哔哩"),
        ("设置灯效=彩虹", ["rainbow", "breathing"], "rainbow"),
    ],
)
def test_a_listed_value_in_english_is_found_by_the_mandarin_said(action, options, value):
    """A list the home gives in English (Sleep, laundry) is read as it would be said in Mandarin."""
    listed = CommandSpec(
        id="fan.set_preset_mode:preset_mode",
        description="设置模式",
        value_list=[{"value": o} for o in options],
    )
    assert command_argument(action, listed, None).value == value


def test_the_number_in_a_rooms_name_is_no_value():
    """二十八楼啲灯全部熄晒: the floor 二十八楼 holds 二十八, which no action must carry."""
    off = CommandSpec(id="light.turn_off", description="关闭灯")
    home = {"light.f": Device(id="light.f", name="灯", room="二十八楼", category="Light", commands=[off])}
    found = result(Command(a="关闭", s="二十八楼", n="灯"), device("light.f", off.id, "room_hit"))
    assert decide([found], home, "二十八楼的灯关掉").outcome is Outcome.ACT
    elsewhere = result(Command(a="关闭", n="灯"), device("light.f", off.id))
    assert decide([elsewhere], home, "灯二十八关掉").reason is AskReason.UNEXPECTED_VALUE


def test_an_alias_saying_only_a_kind_heard_across_two_words_is_no_name_said():
    """铁门锁上 holds 门锁 (铁门 + 锁上), the front door lock's alias: the iron gate has no lock, so ask."""
    lock_it = CommandSpec(id="lock.lock", description="锁定门锁")
    home = {
        "lock.f": Device(
            id="lock.f",
            name="Front Door Lock",
            room="门口",
            aliases=("门锁",),
            category="SmartLock",
            commands=[lock_it],
        ),
        "fan.c": Device(id="fan.c", name="吊扇", room="饭厅", category="Fan", commands=[FAN_ON]),
    }
    gate = result(Command(a="锁定", n="铁门", t="SmartLock"), device("lock.f", lock_it.id, "type_hit"))
    assert decide([gate], home, "铁门锁上").reason is AskReason.NOT_FOUND
    lock = result(Command(a="锁定", n="门锁", t="SmartLock"), device("lock.f", lock_it.id, "alias_hit"))
    assert decide([lock], home, "门锁锁上").outcome is Outcome.ACT
    fan = result(Command(a="打开", s="饭厅", n="吊扇", t="Fan"), device("fan.c", FAN_ON.id, "name_hit"))
    assert decide([fan], home, "饭厅那间的吊扇也开").outcome is Outcome.ACT  # its own name is the kind


def test_a_question_asked_in_a_turn_leaves_its_question_without_an_answer_doing_part_of_it():
    """开空调，温度多少, asked which: an answer would drop the question, so none is taken."""
    home = {
        d: Device(id=d, name="冷气", room=room, category="AirConditioner", commands=[TURN_ON, TEMPERATURE])
        for d, room in (("climate.m", "主人房"), ("climate.k", "细路房"))
    }
    close = [device(d, TURN_ON.id, "type_hit") for d in home]
    read = [device(d, TEMPERATURE.id, "type_hit") for d in home]
    asked = decide(
        [
            result(Command(a="打开", n="空调"), *close, hint="multiple_close_matches"),
            result(Command(a="查询温度", n="空调"), *read, hint="multiple_close_matches"),
        ],
        home,
        "开空调，温度多少",
    )
    assert asked.outcome is Outcome.ASK
    assert asked.choices == ()


def test_a_value_said_in_a_clause_of_its_own_is_the_commands_value():
    """换个颜色，紫色: the colour after the command is its value, for the command taking it by name."""
    strip = Device(
        id="light.s",
        name="灯带",
        room="客厅",
        category="Light",
        commands=[TURN_ON, COLOUR_TEMPERATURE, COLOUR],
    )
    found = result(
        Command(a="设置=颜色", n="灯带", t="Light"),
        device("light.s", COLOUR_TEMPERATURE.id, "name_hit"),
        meta={"said_why": ["紫色"]},
    )
    decision = decide([found], {strip.id: strip}, "灯带换个颜色，紫色")
    assert [(a.command.id, a.value) for a in decision.actions] == [(COLOUR.id, "purple")]
    unsaid = result(
        Command(a="设置=颜色", n="灯带", t="Light"), device("light.s", COLOUR_TEMPERATURE.id, "name_hit")
    )
    assert decide([unsaid], {strip.id: strip}, "灯带换个颜色").reason is AskReason.MISSING_VALUE


VACUUM_START = CommandSpec(id="vacuum.start", description="开始扫地机清扫")
FAN_SPEED = CommandSpec(
    id="vacuum.set_fan_speed:fan_speed",
    description="设置吸力",
    value_list=[{"value": "quiet", "description": "安静"}, {"value": "turbo", "description": "强劲"}],
)


def test_a_setting_said_after_switching_on_is_what_it_runs_at():
    """餐厅吊灯打开，要暖光: one turn_on at 2700 K; 扫地机开始，用 turbo: start, and the fan speed."""
    home = {
        "light.pendant": Device(
            id="light.pendant",
            name="吊灯",
            room="餐厅",
            category="Light",
            commands=[TURN_ON, COLOUR_TEMPERATURE],
        ),
        "vacuum.robot": Device(
            id="vacuum.robot",
            name="扫地机",
            room="客厅",
            category="RobotCleaner",
            commands=[VACUUM_START, FAN_SPEED],
        ),
    }
    lamp = decide(
        [
            result(
                Command(a="打开", n="吊灯"), device("light.pendant", TURN_ON.id), meta={"said_why": ["暖光"]}
            )
        ],
        home,
        "餐厅吊灯打开，要暖光",
    )
    assert [(a.command.id, a.value) for a in lamp.actions] == [(COLOUR_TEMPERATURE.id, 2700)]
    robot = decide(
        [
            result(
                Command(a="打开", n="扫地机"),
                device("vacuum.robot", VACUUM_START.id),
                meta={"said_why": ["turbo"]},
            )
        ],
        home,
        "扫地机开始，用turbo",
    )
    assert [(a.command.id, a.value) for a in robot.actions] == [
        (VACUUM_START.id, None),
        (FAN_SPEED.id, "turbo"),
    ]
    why = decide(
        [
            result(
                Command(a="打开", n="吊灯"),
                device("light.pendant", TURN_ON.id),
                meta={"said_why": ["人都回来了"]},
            )
        ],
        home,
        "餐厅吊灯打开，人都回来了",
    )
    assert [(a.command.id, a.value) for a in why.actions] == [(TURN_ON.id, None)]  # a reason sets nothing


def test_how_it_feels_after_switching_on_is_no_listed_setting():
    """把志高开开，贼热: 热 is 制热's character, but 很热 says how it feels; 开开，制热 names the mode."""
    on = CommandSpec(id="climate.turn_on", description="打开空调")
    home = {
        "climate.chigo": Device(
            id="climate.chigo", name="志高", room="客厅", category="AirConditioner", commands=[on, MODE]
        )
    }

    def switched_on(remark: str) -> list[tuple[str, object]]:
        switching = result(
            Command(a="打开", n="志高"), device("climate.chigo", on.id), meta={"said_why": [remark]}
        )
        return [(a.command.id, a.value) for a in decide([switching], home, f"把志高开开，{remark}").actions]

    assert switched_on("很热") == [(on.id, None)]
    assert switched_on("开制热") == [(MODE.id, "heat")]


def test_a_value_the_command_found_cannot_take_goes_to_the_command_or_device_that_can():
    """颜色换成红的 on a light found by its colour in numbers: its colour by name; 床头灯换成 pink with
    two bedside lights called so, one without colours: the other."""
    numbers = CommandSpec(
        id="light.turn_on:rgb_color",
        description="设置颜色",
        type="array",
        value_range={"minimum": 0, "maximum": 255},
    )
    strip = Device(id="light.strip", name="灯带", room="客厅", category="Light", commands=[numbers, COLOUR])
    red = decide(
        [result(Command(a="设置颜色=红"), device("light.strip", numbers.id, "last_mentioned"))],
        {"light.strip": strip},
        "颜色换成红的",
    )
    assert [(a.command.id, a.value) for a in red.actions] == [(COLOUR.id, "red")]
    plain = Device(id="light.p", name="床头灯", room="阿婆房", category="Light", commands=[BRIGHTNESS])
    rgb = Device(id="light.r", name="床头灯", room="妹妹房", category="Light", commands=[BRIGHTNESS, COLOUR])
    found = result(
        Command(a="设置=pink", n="床头灯", t="Light"),
        device("light.p", BRIGHTNESS.id, "name_hit"),
        device("light.r", COLOUR.id, "name_hit"),
    )
    pink = decide([found], {"light.p": plain, "light.r": rgb}, "床头灯换成pink")
    assert [(a.device_ids, a.value) for a in pink.actions] == [(("light.r",), "pink")]


def test_a_change_with_no_value_to_move_from_goes_by_the_devices_step():
    """亮度调低点 on a light whose brightness is unknown: its brightness step, not a brightness to ask."""
    strip = Device(id="light.strip", name="灯带", room="客厅", category="Light", commands=[BRIGHTNESS, STEP])
    found = result(Command(a="调低亮度"), device("light.strip", BRIGHTNESS.id, "last_mentioned"))
    decision = decide([found], {"light.strip": strip}, "亮度调低点")
    [(command_id, value)] = [(a.command.id, a.value) for a in decision.actions]
    assert command_id == STEP.id
    assert value < 0


def test_a_change_said_goes_by_the_devices_change_command_of_the_same_unit():
    """亮度调低点 at 70 %: a brightness step of -20, not 50 moved from a value that may be stale; 色温调暖一点
    stays on the colour temperature (no step of brightness)."""
    lamp = Device(
        id="light.l",
        name="吊灯",
        room="客厅",
        category="Light",
        commands=[BRIGHTNESS, STEP, COLOUR_TEMPERATURE],
    )

    def current(_device_id: str, command: CommandSpec) -> float | None:
        return 70 if command.id == BRIGHTNESS.id else 4000

    dimmer = result(Command(a="调低亮度"), device("light.l", BRIGHTNESS.id, "last_mentioned"))
    warmer = result(Command(a="调低色温"), device("light.l", COLOUR_TEMPERATURE.id, "last_mentioned"))
    [dimmed] = decide([dimmer], {"light.l": lamp}, "亮度调低点", current=current).actions
    [warmed] = decide([warmer], {"light.l": lamp}, "色温调低点", current=current).actions
    assert (dimmed.command.id, dimmed.value) == (STEP.id, -20)
    assert warmed.command.id == COLOUR_TEMPERATURE.id
    assert warmed.value < 4000


@pytest.mark.parametrize(("low", "high", "value"), [(30, 80, 65), (0, 100, 75), (1, 100, 75), (40, 70, 60)])
def test_a_percentage_of_a_narrow_range_moves_by_as_large_a_share_of_it(low, high, value):
    """湿度再加点 of a humidifier's 30-80 %: 55 to 65 (a fifth of its span, counted round), not 75."""
    humidity = CommandSpec(
        id="humidifier.set_humidity:humidity",
        description="设置目标湿度",
        type="integer",
        value_range={"minimum": low, "maximum": high, "unit": "%"},
    )
    assert command_argument("调高湿度", humidity, 55).value == value


def test_a_set_shrunk_to_the_one_listing_the_value_said_is_that_device():
    """电视换到爱奇艺: of two televisions, only one lists 爱奇艺; 电视打开 shrunk to one is still asked."""
    apps = CommandSpec(
        id="media_player.select_source:source",
        description="切换信号源",
        value_list=[
            {"value": "爱奇艺", "description": "爱奇艺"},
            {"value": "HDMI 1", "description": "HDMI 1"},
        ],
    )
    home = {
        "tv.a": Device(id="tv.a", name="客厅电视", room="客厅", category="Television", commands=[apps]),
        "tv.b": Device(id="tv.b", name="主卧电视", room="主卧", category="Television", commands=[SOURCE]),
    }
    group = Group("group-1", "电视 (1)", ["tv.a"], apps.id)

    def found(action: str) -> RetrievalResult:
        command = Command(a=action, n="电视", t="Television", q=Quantifier.ALL)
        candidate = Candidate("group-1", "group", apps.id, 1, 0, 1, ["type_hit"])
        return result(command, candidate, groups={"group-1": group}, meta={"unsupported_targets": 1})

    taken = decide([found("设置=爱奇艺")], home, "电视换到爱奇艺")
    assert [(a.device_ids, a.value) for a in taken.actions] == [(("tv.a",), "爱奇艺")]
    assert decide([found("打开")], home, "电视打开").outcome is Outcome.ASK  # shrunk by no value said


def test_a_bare_number_said_of_a_device_is_the_one_range_holding_it():
    """炕调到四十: an electric bed-warmer's target temperature (30-50), not its mode found first."""
    mode = CommandSpec(
        id="climate.set_hvac_mode:hvac_mode",
        description="设置空调模式",
        value_list=[{"value": "off", "description": "关闭"}, {"value": "heat", "description": "制热"}],
    )
    target = CommandSpec(
        id="climate.set_temperature:temperature",
        description="设置目标温度",
        value_range={"minimum": 30, "maximum": 50, "step": 1, "unit": "°C"},
    )
    reading = CommandSpec(
        id="state:temperature",
        description="目标温度",
        readable=True,
        value_range={"minimum": 30, "maximum": 50},
    )
    kang = Device(
        id="climate.k", name="电热炕", room="老人屋", category="Unknown", commands=[mode, target, reading]
    )
    found = result(Command(a="设置=40", n="炕"), device("climate.k", mode.id, "alias_hit"))
    [action] = decide([found], {"climate.k": kang}, "炕调到四十").actions
    assert (action.command.id, action.value) == (target.id, 40)


def test_warmth_said_of_a_rooms_lights_moves_one_with_a_colour_temperature_never_a_brightness():
    """儿童房的灯光调暖一点 ranking a desk lamp without colour temperature first: the room's light that has
    one is warmed; none is dimmed instead."""
    home = {
        "light.desk": Device(id="light.desk", name="台灯", room="儿童房", category="Light", commands=[STEP]),
        "light.main": Device(
            id="light.main",
            name="儿童房灯",
            room="儿童房",
            category="Light",
            commands=[STEP, COLOUR_TEMPERATURE],
        ),
    }
    found = result(
        Command(a="调高温度", s="儿童房", n="灯光", t="Light"),
        device("light.desk", STEP.id, "room_hit", "type_hit"),
        device("light.main", STEP.id, "room_hit", "type_hit"),
        hint="multiple_close_matches",
    )
    decision = decide([found], home, "儿童房的灯光调暖一点", lambda _d, _c: 4000.0)
    assert [(a.device_ids, a.command.id) for a in decision.actions] == [
        (("light.main",), COLOUR_TEMPERATURE.id)
    ]


def test_a_step_of_a_list_in_english_goes_by_the_words_that_rank_it():
    """吸力大一点 at standard: strong (quiet, standard, strong, max as a vacuum lists them)."""
    assert command_argument("调大吸力", VACUUM_SPEEDS, "standard").value == "strong"
    assert command_argument("调小吸力", VACUUM_SPEEDS, "standard").value == "quiet"


def test_a_count_said_of_a_name_several_devices_hold_takes_that_many():
    """两个排风扇都打开 with two exhaust fans called so: both; 排风扇打开 asks which."""
    home = {
        "fan.a": Device(id="fan.a", name="主卫排风扇", room="主卫", category="Fan", commands=[FAN_ON]),
        "fan.b": Device(
            id="fan.b", name="楼下卫生间排风扇", room="楼下卫生间", category="Fan", commands=[FAN_ON]
        ),
    }
    candidates = (device("fan.a", FAN_ON.id, "name_partial"), device("fan.b", FAN_ON.id, "name_partial"))
    two = result(Command(a="打开", n="排风扇", t="Fan", q=Quantifier.ANY, c=2), *candidates)
    one = result(Command(a="打开", n="排风扇", t="Fan"), *candidates)
    assert [set(a.device_ids) for a in decide([two], home, "两个排风扇都打开").actions] == [
        {"fan.a", "fan.b"}
    ]
    assert decide([one], home, "排风扇打开").outcome is Outcome.ASK


def test_raising_a_device_with_one_level_of_its_own_moves_that_level():
    """婴儿房加湿器较高啲 (调高) found on its turn-on: its target humidity goes up; a cover raised opens."""
    humidity = CommandSpec(
        id="humidifier.set_humidity:humidity",
        description="设置目标湿度",
        type="integer",
        value_range={"minimum": 30, "maximum": 80, "unit": "%"},
    )
    on = CommandSpec(id="humidifier.turn_on", description="打开加湿器")
    humidifier = Device(
        id="humidifier.n", name="加湿器", room="婴儿房", category="Humidifier", commands=[on, humidity]
    )
    found = result(Command(a="调高", n="加湿器", t="Humidifier"), device("humidifier.n", on.id, "room_hit"))
    [action] = decide([found], {"humidifier.n": humidifier}, "婴儿房加湿器较高啲", lambda _d, _c: 50).actions
    assert (action.command.id, action.value) == (humidity.id, 60)


def test_a_step_down_said_of_a_fan_at_its_first_speed_is_asked_about_not_switching_it_off():
    """台扇风再小一点 at the first of three speeds: lower is off, not asked for; at the second, it steps."""
    down = CommandSpec(id="fan.decrease_speed", description="调低风速")
    fan = Device(id="fan.t", name="台扇", room="后楼", category="Fan", commands=[down, THREE_SPEEDS])
    found = result(Command(a="调小风速", n="台扇", t="Fan"), device("fan.t", down.id, "name_hit"))

    def at(percentage: float):
        return lambda _device_id, _command: percentage

    lowest = decide([found], {"fan.t": fan}, "台扇风再小一点", at(33), running=lambda _d: True)
    second = decide([found], {"fan.t": fan}, "台扇风再小一点", at(66), running=lambda _d: True)
    assert (lowest.outcome, lowest.reason, lowest.subject) == (Outcome.ASK, AskReason.AT_END, ("fan.t",))
    assert [a.command.id for a in second.actions] == [down.id]
