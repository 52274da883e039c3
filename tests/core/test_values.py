"""Values choose commands: an action with an argument prefers commands that take one."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.fusion import ActionValue, vector_query_for
from custom_components.context_retrieval.core.models import CommandSpec, Device, QueryIR
from custom_components.context_retrieval.core.value_order import (
    ValueOrderError,
    parse_outside_order,
    parse_value_order,
)

from .conftest import OFF, ON, cmd
from .conftest import run_commands as run

SETPOINT = CommandSpec(
    "main-thermostatCoolingSetpoint-setCoolingSetpoint",
    "设置制冷温度",
    "number",
    {"minimum": 16, "maximum": 30, "unit": ["℃"]},
)
FAN_PERCENT = CommandSpec(
    "main-fanSpeedPercent-setPercent", "设置风速", "integer", {"minimum": 0, "maximum": 100}
)
VOLUME_UP = CommandSpec("main-audioVolume-volumeUp", "调高音量")
VOLUME_SET = CommandSpec("main-audioVolume-setVolume", "音量", "integer", {"minimum": 0, "maximum": 100})
KEEP_WARM = CommandSpec(
    "main-custom.keepWarm-setKeepWarm",
    "保温",
    "string",
    value_list=[{"value": "on", "description": "开"}, {"value": "off", "description": "关"}],
)
TARGET = CommandSpec(
    "main-custom.kettle-setTargetTemperature",
    "目标水温",
    "integer",
    {"minimum": 40, "maximum": 100, "unit": ["C"]},
)


@pytest.mark.parametrize(
    ("action", "number", "unit"),
    [
        ("设置温度=26", 26.0, None),
        ("设置温度=24C", 24.0, "c"),
        ("调到50%", 50.0, "%"),
        ("设置温度=26度", 26.0, "度"),
    ],
)
def test_the_value_of_an_action_is_read(action, number, unit):
    value = ActionValue.parse(action)
    assert (value.number, value.unit) == (number, unit)


def test_a_unit_letter_does_not_make_an_action_english():
    query = vector_query_for(QueryIR(raw="空调调到24C", action="调到24C", name_hint="空调", type_hint=None))
    assert query.fallback_reason is None
    assert query.value.number == 24.0


def test_a_temperature_goes_to_the_range_that_holds_it():
    ac = Device(
        id="ac",
        name="空调",
        room="客厅",
        category="AirConditioner",
        commands=[ON, OFF, FAN_PERCENT, SETPOINT],
    )
    (result,) = run([ac], "空调调到26度", cmd("设置温度=26度", n="空调", t="AirConditioner"))
    assert result.candidates[0].capability_id == SETPOINT.id


def test_a_value_prefers_setting_over_stepping():
    tv = Device(
        id="tv", name="电视", room="客厅", category="Television", commands=[ON, OFF, VOLUME_UP, VOLUME_SET]
    )
    (result,) = run([tv], "电视音量调到二十", cmd("设置音量=20", n="电视", t="Television"))
    assert result.candidates[0].capability_id == VOLUME_SET.id


def test_a_value_goes_to_a_command_that_holds_it_however_alike_the_others_words():
    close_slats = CommandSpec("cover.close_cover_tilt", "合上叶片")
    set_slats = CommandSpec(
        "cover.set_cover_tilt_position:tilt_position",
        "设置叶片角度",
        "integer",
        {"minimum": 0, "maximum": 100, "unit": "%"},
    )
    blind = Device(
        id="b", name="百叶帘", room="书房", category="Blind", commands=[ON, OFF, close_slats, set_slats]
    )
    (result,) = run([blind], "百叶帘叶片调到一半", cmd("设置叶片=50%", n="百叶帘", t="Blind"))
    assert result.candidates[0].capability_id == set_slats.id


def test_an_end_of_a_range_may_go_to_a_list():
    """风速调到最大: the fan speeds are a list, the temperature a range; the words choose."""
    fan_modes = CommandSpec(
        "climate.set_fan_mode:fan_mode",
        "设置风速",
        "string",
        value_list=[{"value": "low", "description": "低风"}, {"value": "high", "description": "高风"}],
    )
    ac = Device(
        id="ac", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, SETPOINT, fan_modes]
    )
    (result,) = run([ac], "空调风速调到最大", cmd("设置风速=最大", n="空调", t="AirConditioner"))
    assert result.candidates[0].capability_id == fan_modes.id


def test_an_end_of_a_range_for_a_setting_a_device_lacks_sets_nothing_else():
    """油汀风速调到最大: a heater has no fan speed; every range has ends, so its set point is no answer."""
    heater = Device(id="h", name="油汀", room="老人房", category="Heater", commands=[ON, OFF, SETPOINT])
    (result,) = run([heater], "油汀风速调到最大", cmd("设置风速=最大", n="油汀"))
    assert result.meta["kept_unfamiliar"] == ["h"]  # kept as named, no command of it able
    (result,) = run([heater], "油汀调到最大", cmd("设置=最大", n="油汀"))
    assert result.candidates[0].capability_id == SETPOINT.id  # no setting named: its own range
    assert "kept_unfamiliar" not in result.meta


def test_a_value_in_another_unit_makes_no_device_capable():
    """楼上调到十九度五: 19.5 °C is no brightness in %; the lights upstairs are not candidates for it."""
    brightness = CommandSpec(
        "light.turn_on:brightness_pct", "设置亮度", "integer", {"minimum": 0, "maximum": 100, "unit": "%"}
    )
    heater = Device(id="h", name="暖气", room="走廊", category="Thermostat", commands=[ON, OFF, SETPOINT])
    lights = [
        Device(id=f"l{n}", name=f"灯{n}", room="走廊", category="Light", commands=[ON, OFF, brightness])
        for n in range(3)
    ]
    (result,) = run([heater, *lights], "走廊调到十九度五", cmd("设置温度=19.5C", s="走廊"))
    assert [c.entity_id for c in result.candidates] == ["h"]
    assert result.hint is None


def test_a_device_outside_the_categories_finds_its_set_point_by_the_value():
    kettle = Device(
        id="k", name="养生壶", room="厨房", category="Kettle", commands=[ON, OFF, TARGET, KEEP_WARM]
    )
    (result,) = run([kettle], "养生壶烧到80度", cmd("设置温度=80", n="养生壶"))
    assert result.candidates[0].capability_id == TARGET.id


def test_a_question_whose_clause_would_be_empty_reads_the_whole_utterance():
    query = vector_query_for(
        QueryIR(raw="门锁再看一下锁好没", action="查询状态", name_hint="门锁", type_hint="SmartLock")
    )
    assert query.text.strip()
    assert query.is_question


def test_a_change_by_a_number_fits_a_range_by_its_unit_not_by_the_number():
    """调高五度 on a water heater set between 30 and 75 °C: five degrees more, a setting of 5 °C is none."""
    water = CommandSpec(
        id="water_heater.set_temperature:temperature",
        description="设置水温",
        value_range={"minimum": 30, "maximum": 75, "unit": "°C"},
    )
    assert ActionValue.parse("调高温度=5C").fits(water)
    assert not ActionValue.parse("设置温度=5C").fits(water)
    assert not ActionValue.parse("调高亮度=5%").fits(water)


@pytest.mark.parametrize(
    "raw", [{}, {"ascending": []}, {"ascending": "低 中 高"}, ["低", "高"], {"ascending": [1]}]
)
def test_a_malformed_value_order_file_is_refused(raw):
    with pytest.raises(ValueOrderError):
        parse_value_order(raw)


@pytest.mark.parametrize(
    "raw", [{"ascending": ["低"], "outside": "自动"}, {"ascending": ["低"], "outside": [""]}]
)
def test_a_malformed_outside_order_is_refused(raw):
    with pytest.raises(ValueOrderError):
        parse_outside_order(raw)


def test_a_direction_said_of_a_device_of_unsaid_kind_moves_what_the_device_found_moves():
    """油汀关小点: the name says no kind; the oil heater found is a thermostat, turned down by temperature."""
    mode = CommandSpec(
        "main-thermostatMode-setThermostatMode",
        "设置模式",
        "string",
        value_list=[{"value": "heat", "description": "制热"}, {"value": "off", "description": "关"}],
    )
    commands = [ON, OFF, mode, SETPOINT]
    heater = Device(id="h", name="油汀", room="客厅", category="Thermostat", commands=commands)
    (result,) = run([heater], "油汀关小点", cmd("调小", n="油汀"))
    assert result.command.a == "调小温度"
    assert result.candidates[0].capability_id == SETPOINT.id


def test_a_direction_said_of_devices_of_several_kinds_moves_none_of_them():
    """护理床放低点 finding a light and a backrest by the name: which is meant stays a question."""
    level = CommandSpec(
        "main-switchLevel-setLevel", "设置亮度", "integer", {"minimum": 0, "maximum": 100, "unit": ["%"]}
    )
    shade = CommandSpec(
        "main-windowShadeLevel-setShadeLevel", "设置位置", "integer", {"minimum": 0, "maximum": 100}
    )
    lamp = Device(id="l", name="护理床灯", room="南屋", category="Light", commands=[ON, OFF, level])
    back = Device(id="b", name="护理床靠背", room="南屋", category="Blind", commands=[shade])
    (result,) = run([lamp, back], "护理床放低点", cmd("调小", n="护理床"))
    assert result.command.a == "调小"
