"""Values choose commands: an action with an argument prefers commands that take one."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.fusion import ActionValue, vector_query_for
from custom_components.context_retrieval.core.models import CommandSpec, Device, QueryIR

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
