"""The shipped Home Assistant command spec and ``commands_for_entity`` (no hass needed)."""

from __future__ import annotations

import importlib
import re
from importlib import resources
from typing import Any

import pytest
import yaml
from homeassistant.components.alarm_control_panel import AlarmControlPanelEntityFeature
from homeassistant.components.binary_sensor import BinarySensorDeviceClass
from homeassistant.components.button import ButtonDeviceClass
from homeassistant.components.climate import ClimateEntityFeature
from homeassistant.components.cover import CoverDeviceClass, CoverEntityFeature
from homeassistant.components.fan import FanEntityFeature
from homeassistant.components.humidifier import HumidifierDeviceClass, HumidifierEntityFeature
from homeassistant.components.lawn_mower import LawnMowerEntityFeature
from homeassistant.components.light import ColorMode, LightEntityFeature
from homeassistant.components.lock import LockEntityFeature
from homeassistant.components.media_player import MediaPlayerDeviceClass, MediaPlayerEntityFeature
from homeassistant.components.remote import RemoteEntityFeature
from homeassistant.components.sensor import SensorDeviceClass
from homeassistant.components.siren import SirenEntityFeature
from homeassistant.components.switch import SwitchDeviceClass
from homeassistant.components.vacuum import VacuumEntityFeature
from homeassistant.components.valve import ValveDeviceClass, ValveEntityFeature
from homeassistant.components.water_heater import WaterHeaterEntityFeature
from homeassistant.core import State

from custom_components.context_retrieval import entity_commands
from custom_components.context_retrieval.core import (
    ConversationState,
    Device,
    build_vector_searcher,
    retrieve,
)
from custom_components.context_retrieval.core.arguments import command_argument
from custom_components.context_retrieval.entity_commands import (
    DOMAIN_SPECS,
    CommandSpecError,
    EntityFacts,
    commands_for_entity,
    load_command_spec,
)

SPEC_TEXT = resources.files("custom_components.context_retrieval").joinpath("data", "ha_commands.yaml")
RAW_SPEC = yaml.safe_load(SPEC_TEXT.read_text(encoding="utf-8"))
REQUIRED_DOMAINS = {
    "light", "switch", "fan", "cover", "climate", "media_player", "lock", "vacuum", "valve",
    "humidifier", "water_heater", "scene", "script", "button", "input_boolean", "number",
    "input_number", "select", "input_select", "sensor", "binary_sensor",
}  # fmt: skip
DEVICE_CLASSES = {
    "binary_sensor": BinarySensorDeviceClass,
    "button": ButtonDeviceClass,
    "cover": CoverDeviceClass,
    "humidifier": HumidifierDeviceClass,
    "media_player": MediaPlayerDeviceClass,
    "sensor": SensorDeviceClass,
    "switch": SwitchDeviceClass,
    "valve": ValveDeviceClass,
}
COMMAND_DOMAINS = sorted(
    domain for domain, spec in DOMAIN_SPECS.items() if any(not r.readable for r in spec.rules)
)
"""Domains with commands (sensors have no services)."""
ALL_FEATURES = (1 << 32) - 1
CT_LIGHT = {
    "supported_color_modes": ["color_temp"],
    "min_color_temp_kelvin": 2700,
    "max_color_temp_kelvin": 6500,
}
AC = {
    "hvac_modes": ["off", "cool", "heat", "dry", "fan_only", "auto"],
    "min_temp": 16,
    "max_temp": 30,
    "target_temp_step": 0.5,
    "current_temperature": 26.5,
    "temperature": 24,
    "fan_modes": ["auto", "low", "high"],
    "fan_mode": "auto",
    "hvac_action": "cooling",
}
AC_FEATURES = (
    ClimateEntityFeature.TARGET_TEMPERATURE
    | ClimateEntityFeature.FAN_MODE
    | ClimateEntityFeature.TURN_ON
    | ClimateEntityFeature.TURN_OFF
)


def facts(
    entity_id: str,
    attributes: dict[str, Any] | None = None,
    features: int = 0,
    device_class: str | None = None,
) -> EntityFacts:
    return EntityFacts(entity_id, "on", attributes or {}, device_class, int(features))


def ids(entity: EntityFacts) -> list[str]:
    return [command.id for command in commands_for_entity(entity)]


def by_id(entity: EntityFacts) -> dict[str, Any]:
    return {command.id: command for command in commands_for_entity(entity)}


# --- which commands an entity gets ------------------------------------------------------

CASES = [
    pytest.param(
        facts("light.a", {"supported_color_modes": ["onoff"]}),
        ["light.turn_on", "light.turn_off", "light.toggle", "state"],
        id="light on/off only",
    ),
    pytest.param(
        facts("light.a", {"supported_color_modes": ["brightness"], "brightness": 128}),
        ["light.turn_on", "light.turn_off", "light.toggle", "light.turn_on:brightness_pct",
         "light.turn_on:brightness_step_pct", "state", "state:brightness"],
        id="dimmable light: brightness comes from the colour mode, not a feature bit",
    ),
    pytest.param(
        facts("light.a", {**CT_LIGHT, "supported_color_modes": ["color_temp", "hs"],
                          "effect_list": ["rainbow"], "color_temp_kelvin": None, "effect": "rainbow"},
              LightEntityFeature.EFFECT),
        ["light.turn_on", "light.turn_off", "light.toggle", "light.turn_on:brightness_pct",
         "light.turn_on:brightness_step_pct", "light.turn_on:color_temp_kelvin", "light.turn_on:rgb_color",
         "light.turn_on:color_name", "light.turn_on:effect", "state", "state:color_temp_kelvin",
         "state:effect"],
        id="colour light with effects: a colour temperature of None (in an effect) is still readable",
    ),
    pytest.param(
        facts("light.a", {"supported_color_modes": ["onoff"]}, LightEntityFeature.EFFECT),
        ["light.turn_on", "light.turn_off", "light.toggle", "state"],
        id="EFFECT without an effect list has nothing to choose",
    ),
    pytest.param(
        facts("switch.a"), ["switch.turn_on", "switch.turn_off", "switch.toggle", "state"], id="switch"
    ),
    pytest.param(
        facts("input_boolean.a"),
        ["input_boolean.turn_on", "input_boolean.turn_off", "input_boolean.toggle", "state"],
        id="input_boolean",
    ),
    pytest.param(facts("fan.a"), ["state"], id="fan without features"),
    pytest.param(
        facts("fan.a", {"percentage": 50, "preset_modes": ["sleep"], "oscillating": True},
              FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF | FanEntityFeature.SET_SPEED
              | FanEntityFeature.OSCILLATE | FanEntityFeature.PRESET_MODE),
        ["fan.turn_on", "fan.turn_off", "fan.toggle", "fan.set_percentage:percentage", "fan.increase_speed",
         "fan.decrease_speed", "fan.oscillate:oscillating", "fan.set_preset_mode:preset_mode", "state",
         "state:percentage", "state:oscillating"],
        id="fan with speed, oscillation and presets",
    ),
    pytest.param(
        facts("fan.a", {}, FanEntityFeature.TURN_OFF),
        ["fan.turn_off", "fan.toggle", "state"],
        id="fan toggle needs TURN_ON or TURN_OFF",
    ),
    pytest.param(
        facts("cover.a", {}, CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE),
        ["cover.open_cover", "cover.close_cover", "state"],
        id="cover that only opens and closes",
    ),
    pytest.param(
        facts("cover.a", {"current_position": 30, "current_tilt_position": 50}, ALL_FEATURES),
        ["cover.open_cover", "cover.close_cover", "cover.stop_cover", "cover.set_cover_position:position",
         "cover.open_cover_tilt", "cover.close_cover_tilt", "cover.set_cover_tilt_position:tilt_position",
         "state", "state:current_position", "state:current_tilt_position"],
        id="cover with position and tilt",
    ),
    pytest.param(
        facts("climate.a", AC, AC_FEATURES),
        ["climate.turn_on", "climate.turn_off", "climate.set_hvac_mode:hvac_mode",
         "climate.set_temperature:temperature", "climate.set_fan_mode:fan_mode", "state",
         "state:current_temperature", "state:temperature", "state:hvac_action", "state:fan_mode"],
        id="air conditioner",
    ),
    pytest.param(
        facts("climate.a", {"hvac_modes": ["off", "heat_cool"]},
              ClimateEntityFeature.TARGET_TEMPERATURE_RANGE),
        ["climate.set_hvac_mode:hvac_mode", "climate.set_temperature:target_temp_low",
         "climate.set_temperature:target_temp_high", "state"],
        id="thermostat without TURN_ON/OFF, with a target range and no readings",
    ),
    pytest.param(facts("media_player.a"), ["state"], id="media player with nothing supported"),
    pytest.param(
        facts("media_player.a",
              {"volume_level": 0.3, "is_volume_muted": False, "media_title": "晴天", "source": "AUX",
               "source_list": ["AUX", "Bluetooth"]},
              MediaPlayerEntityFeature.VOLUME_SET | MediaPlayerEntityFeature.VOLUME_MUTE
              | MediaPlayerEntityFeature.PLAY | MediaPlayerEntityFeature.PAUSE
              | MediaPlayerEntityFeature.SELECT_SOURCE | MediaPlayerEntityFeature.NEXT_TRACK,
              "speaker"),
        ["media_player.volume_up", "media_player.volume_down", "media_player.volume_set:volume_level",
         "media_player.volume_mute:is_volume_muted", "media_player.media_play", "media_player.media_pause",
         "media_player.media_next_track", "media_player.select_source:source", "state",
         "state:volume_level", "state:is_volume_muted", "state:media_title", "state:source"],
        id="speaker",
    ),
    pytest.param(
        facts("media_player.a", {}, MediaPlayerEntityFeature.VOLUME_STEP),
        ["media_player.volume_up", "media_player.volume_down", "state"],
        id="volume steps alone give volume up/down",
    ),
    pytest.param(facts("lock.a"), ["lock.lock", "lock.unlock", "state"], id="lock"),
    pytest.param(
        facts("lock.a", {}, LockEntityFeature.OPEN),
        ["lock.lock", "lock.unlock", "lock.open", "state"],
        id="lock that opens",
    ),
    pytest.param(
        facts("vacuum.a", {"fan_speed_list": ["quiet", "turbo"], "fan_speed": "quiet"},
              VacuumEntityFeature.START | VacuumEntityFeature.PAUSE | VacuumEntityFeature.RETURN_HOME
              | VacuumEntityFeature.FAN_SPEED | VacuumEntityFeature.STATE),
        ["vacuum.start", "vacuum.pause", "vacuum.return_to_base", "vacuum.set_fan_speed:fan_speed",
         "state", "state:fan_speed"],
        id="vacuum",
    ),
    pytest.param(
        facts("vacuum.a", {"battery_level": 80, "status": "Cleaning"}, VacuumEntityFeature.STOP),
        ["vacuum.stop", "state", "state:battery_level", "state:status"],
        id="legacy vacuum attributes are read when present",
    ),
    pytest.param(
        facts("valve.a", {"current_position": 100},
              ValveEntityFeature.OPEN | ValveEntityFeature.CLOSE | ValveEntityFeature.SET_POSITION),
        ["valve.open_valve", "valve.close_valve", "valve.set_valve_position:position", "state",
         "state:current_position"],
        id="valve",
    ),
    pytest.param(
        facts("humidifier.a", {"min_humidity": 30, "max_humidity": 80, "humidity": 50,
                               "current_humidity": 41}),
        ["humidifier.turn_on", "humidifier.turn_off", "humidifier.set_humidity:humidity", "state",
         "state:current_humidity", "state:humidity"],
        id="humidifier without modes",
    ),
    pytest.param(
        facts("humidifier.a", {"available_modes": ["normal", "sleep"], "mode": "sleep"},
              HumidifierEntityFeature.MODES),
        ["humidifier.turn_on", "humidifier.turn_off", "humidifier.set_humidity:humidity",
         "humidifier.set_mode:mode", "state", "state:mode"],
        id="humidifier with modes",
    ),
    pytest.param(
        facts("water_heater.a",
              {"min_temp": 35, "max_temp": 75, "operation_list": ["eco"], "current_temperature": 50},
              WaterHeaterEntityFeature.TARGET_TEMPERATURE | WaterHeaterEntityFeature.OPERATION_MODE
              | WaterHeaterEntityFeature.ON_OFF),
        ["water_heater.turn_on", "water_heater.turn_off", "water_heater.set_temperature:temperature",
         "water_heater.set_operation_mode:operation_mode", "state", "state:current_temperature"],
        id="water heater",
    ),
    pytest.param(facts("scene.a"), ["scene.turn_on"], id="scene: a timestamp state is no fact"),
    pytest.param(facts("script.a"), ["script.turn_on", "script.turn_off", "state"], id="script"),
    pytest.param(facts("button.a"), ["button.press"], id="button"),
    pytest.param(facts("input_button.a"), ["input_button.press"], id="input_button"),
    pytest.param(
        facts("number.a", {"min": 0, "max": 10, "step": 1}), ["number.set_value:value", "state"], id="number"
    ),
    pytest.param(
        facts("input_number.a", {"min": 0, "max": 10, "step": 1}),
        ["input_number.set_value:value", "input_number.increment", "input_number.decrement", "state"],
        id="input_number",
    ),
    pytest.param(
        facts("select.a", {"options": ["a", "b"]}),
        ["select.select_option:option", "select.select_next", "select.select_previous", "state"],
        id="select",
    ),
    pytest.param(
        facts("input_select.a", {"options": ["a", "b"]}),
        ["input_select.select_option:option", "input_select.select_next", "input_select.select_previous",
         "state"],
        id="input_select",
    ),
    pytest.param(
        facts("select.a"),
        ["select.select_next", "select.select_previous", "state"],
        id="select without options cannot choose one",
    ),
    pytest.param(facts("sensor.a", {"unit_of_measurement": "°C"}, 0, "temperature"), ["state"], id="sensor"),
    pytest.param(facts("binary_sensor.a", {}, 0, "door"), ["state"], id="binary_sensor"),
    pytest.param(
        facts("siren.a", {"available_tones": ["fire", "alarm"]},
              SirenEntityFeature.TURN_ON | SirenEntityFeature.TURN_OFF | SirenEntityFeature.TONES),
        ["siren.turn_on", "siren.turn_off", "siren.turn_on:tone", "state"],
        id="siren with tones",
    ),
    pytest.param(
        facts("siren.a", {"available_tones": {"1": "fire"}}, SirenEntityFeature.TONES),
        ["siren.turn_on:tone", "state"],
        id="siren with tones given as a mapping",
    ),
    pytest.param(
        facts("lawn_mower.a", {}, LawnMowerEntityFeature.START_MOWING | LawnMowerEntityFeature.DOCK),
        ["lawn_mower.start_mowing", "lawn_mower.dock", "state"],
        id="lawn mower",
    ),
    pytest.param(
        facts("remote.a", {"activity_list": ["看电视"], "current_activity": "看电视"},
              RemoteEntityFeature.ACTIVITY),
        ["remote.turn_on", "remote.turn_off", "remote.turn_on:activity", "state", "state:current_activity"],
        id="remote with activities",
    ),
    pytest.param(
        facts("alarm_control_panel.a", {},
              AlarmControlPanelEntityFeature.ARM_HOME | AlarmControlPanelEntityFeature.ARM_AWAY),
        ["alarm_control_panel.alarm_disarm", "alarm_control_panel.alarm_arm_home",
         "alarm_control_panel.alarm_arm_away", "state"],
        id="alarm panel",
    ),
    pytest.param(facts("camera.a", {}, ALL_FEATURES), [], id="a domain the spec does not know"),
]  # fmt: skip


@pytest.mark.parametrize(("entity", "expected"), CASES)
def test_commands_of_an_entity(entity, expected):
    assert ids(entity) == expected


def test_readable_facts_are_marked_and_follow_the_commands():
    commands = commands_for_entity(facts("climate.a", AC, AC_FEATURES))
    readable = [command.readable for command in commands]
    assert readable == sorted(readable)
    assert all(command.readable == command.id.startswith("state") for command in commands)


def test_a_readable_attribute_needs_the_attribute_not_a_value():
    without = {key: value for key, value in AC.items() if key != "current_temperature"}
    assert "state:current_temperature" not in ids(facts("climate.a", without))
    # A light that is off keeps brightness: None; it can still be asked how bright it is.
    off = facts("light.a", {"supported_color_modes": ["brightness"], "brightness": None})
    assert "state:brightness" in ids(off)


# --- what the commands say ---------------------------------------------------------------


def test_climate_ranges_and_modes_come_from_the_entity():
    commands = by_id(
        facts("climate.a", {**AC, "hvac_modes": ["off", "cool", "heat_cool", "vendor_mode"]}, AC_FEATURES)
    )
    temperature = commands["climate.set_temperature:temperature"]
    assert temperature.description == "设置目标温度"
    assert temperature.value_range == {"minimum": 16, "maximum": 30, "step": 0.5, "unit": "°C"}
    assert commands["climate.set_hvac_mode:hvac_mode"].value_list == [
        {"value": "off", "description": "关闭"},
        {"value": "cool", "description": "制冷"},
        {"value": "heat_cool", "description": "冷暖"},
        {"value": "vendor_mode", "description": "vendor_mode"},
    ]
    assert commands["climate.set_hvac_mode:hvac_mode"].description == "设置空调模式"
    assert commands["state:current_temperature"].description == "当前温度"
    assert commands["state"].value_list == commands["climate.set_hvac_mode:hvac_mode"].value_list


def test_a_range_leaves_out_what_the_entity_lacks():
    commands = by_id(facts("climate.a", {"hvac_modes": ["heat"]}, ClimateEntityFeature.TARGET_TEMPERATURE))
    assert commands["climate.set_temperature:temperature"].value_range == {"unit": "°C"}


def test_light_descriptions_and_ranges():
    commands = by_id(facts("light.a", {**CT_LIGHT, "brightness": 255, "color_temp_kelvin": 3000}))
    assert commands["light.turn_on"].description == "打开灯"
    assert commands["light.turn_off"].description == "关闭灯"
    assert commands["light.turn_on:brightness_pct"].description == "设置亮度"
    assert commands["light.turn_on:brightness_pct"].value_range == {"minimum": 0, "maximum": 100, "unit": "%"}
    assert commands["light.turn_on:color_temp_kelvin"].value_range == {
        "minimum": 2700,
        "maximum": 6500,
        "unit": "K",
    }
    assert commands["state"].description == "开关状态"
    assert commands["state"].value_list == [
        {"value": "on", "description": "开"},
        {"value": "off", "description": "关"},
    ]
    assert commands["state:color_temp_kelvin"].value_range == {"unit": "K"}
    named = commands["light.turn_on:color_temp_kelvin"].named_values or {}
    # as lamps are sold in China: 暖光 2700 K, 自然光 (neutral) 4000 K, 白光 (cool white) 6000 K
    assert (named["暖光"], named["自然光"], named["白光"]) == (2700, 4000, 6000)


def test_fan_speed_step_and_fixed_values():
    commands = by_id(
        facts("fan.a", {"percentage_step": 33.33}, FanEntityFeature.SET_SPEED | FanEntityFeature.OSCILLATE)
    )
    assert commands["fan.set_percentage:percentage"].value_range == {
        "minimum": 0,
        "maximum": 100,
        "step": 33.33,
        "unit": "%",
    }
    assert commands["fan.oscillate:oscillating"].value_list == [
        {"value": True, "description": "开启摇头"},
        {"value": False, "description": "关闭摇头"},
    ]


def test_media_player_volume_and_sources():
    commands = by_id(
        facts(
            "media_player.a",
            {"source_list": ["HDMI 1", "TV"]},
            MediaPlayerEntityFeature.VOLUME_SET
            | MediaPlayerEntityFeature.SELECT_SOURCE
            | MediaPlayerEntityFeature.VOLUME_MUTE
            | MediaPlayerEntityFeature.TURN_ON,
            "tv",
        )
    )
    assert commands["media_player.turn_on"].description == "打开电视"
    assert commands["media_player.volume_set:volume_level"].value_range == {"minimum": 0, "maximum": 1}
    assert commands["media_player.volume_up"].description == "调高音量"
    assert commands["media_player.volume_mute:is_volume_muted"].description == "静音"
    assert [item["value"] for item in commands["media_player.select_source:source"].value_list] == [
        "HDMI 1",
        "TV",
    ]


@pytest.mark.parametrize(
    ("entity_id", "device_class", "command_id", "description"),
    [
        ("cover.a", None, "cover.open_cover", "打开窗帘"),
        ("cover.a", "curtain", "cover.close_cover", "关闭窗帘"),
        ("cover.a", "garage", "cover.open_cover", "打开车库门"),
        ("cover.a", "blind", "cover.set_cover_position:position", "设置百叶窗位置"),
        ("switch.a", "outlet", "switch.turn_on", "打开插座"),
        ("switch.a", None, "switch.turn_off", "关闭开关"),
        ("media_player.a", "speaker", "media_player.turn_off", "关闭音箱"),
        ("humidifier.a", "dehumidifier", "humidifier.turn_on", "打开除湿机"),
        ("valve.a", "gas", "valve.close_valve", "关闭燃气阀"),
        ("cover.a", "unknown_class", "cover.open_cover", "打开窗帘"),
    ],
)
def test_descriptions_name_the_device_class(entity_id, device_class, command_id, description):
    assert by_id(facts(entity_id, {}, ALL_FEATURES, device_class))[command_id].description == description


@pytest.mark.parametrize(
    ("device_class", "unit", "description"),
    [
        ("temperature", "°C", "当前温度"),
        ("humidity", "%", "当前湿度"),
        ("battery", "%", "当前电量"),
        ("illuminance", "lx", "当前光照"),
        ("power", "W", "当前功率"),
        ("energy", "kWh", "当前用电量"),
        ("pm25", "µg/m³", "当前PM2.5浓度"),
        ("carbon_dioxide", "ppm", "当前二氧化碳浓度"),
        (None, None, "当前读数"),
    ],
)
def test_sensor_state_by_device_class(device_class, unit, description):
    attributes = {"unit_of_measurement": unit} if unit else {}
    (state,) = commands_for_entity(facts("sensor.a", attributes, 0, device_class))
    assert (state.id, state.description, state.readable) == ("state", description, True)
    assert state.value_range == ({"unit": unit} if unit else None)


def test_enum_sensor_lists_its_options():
    (state,) = commands_for_entity(facts("sensor.a", {"options": ["washing", "drying"]}, 0, "enum"))
    assert state.value_list == [
        {"value": "washing", "description": "washing"},
        {"value": "drying", "description": "drying"},
    ]


@pytest.mark.parametrize(
    ("device_class", "description", "on", "off"),
    [
        ("door", "门是否开着", "开着", "关着"),
        ("window", "窗户是否开着", "开着", "关着"),
        ("opening", "是否开着", "开着", "关着"),
        ("motion", "是否有人移动", "有人", "没人"),
        ("occupancy", "是否有人", "有人", "没人"),
        ("moisture", "是否漏水", "漏水", "干燥"),
        ("smoke", "是否有烟雾", "检测到", "正常"),
        ("lock", "是否上锁", "未上锁", "已上锁"),
        (None, "状态", "开", "关"),
    ],
)
def test_binary_sensor_state_by_device_class(device_class, description, on, off):
    (state,) = commands_for_entity(facts("binary_sensor.a", {}, 0, device_class))
    assert state.description == description
    assert state.value_list == [{"value": "on", "description": on}, {"value": "off", "description": off}]


# --- the spec file itself ---------------------------------------------------------------


def test_the_spec_covers_the_supported_domains():
    assert set(DOMAIN_SPECS) >= REQUIRED_DOMAINS | {"siren", "lawn_mower", "remote", "alarm_control_panel"}


def _everything(domain: str, device_class: str | None) -> EntityFacts:
    """Return an entity of ``domain`` with every feature, colour mode and attribute the spec reads."""
    attributes: dict[str, Any] = {"supported_color_modes": [mode.value for mode in ColorMode]}
    for rule in DOMAIN_SPECS[domain].rules:
        if rule.options:
            attributes[rule.options] = ["a", "b"]
        if rule.attribute:
            attributes[rule.attribute] = 1
    return facts(f"{domain}.a", attributes, ALL_FEATURES, device_class)


@pytest.mark.parametrize("domain", sorted(DOMAIN_SPECS))
def test_every_rule_applies_to_a_capable_entity_with_unique_ids(domain):
    spec = DOMAIN_SPECS[domain]
    for device_class in [None, *spec.nouns]:
        commands = commands_for_entity(_everything(domain, device_class))
        assert [command.id for command in commands] == [rule.id for rule in spec.rules]
        assert all(command.description and "{" not in command.description for command in commands)


def _entries(domain: str) -> list[dict[str, Any]]:
    raw = RAW_SPEC["domains"][domain]
    return [*raw.get("commands", []), *raw.get("readable", []), *raw.get("nouns", {}).values()]


@pytest.mark.parametrize("domain", sorted(RAW_SPEC["domains"]))
def test_every_entry_has_chinese_and_english(domain):
    for entry in _entries(domain):
        assert isinstance(entry["zh"], str)
        assert entry["zh"].strip()
        assert isinstance(entry["en"], str)
        assert entry["en"].strip()


def _services(domain: str) -> dict[str, Any]:
    """Return the domain's services.yaml of the installed Home Assistant."""
    text = resources.files(f"homeassistant.components.{domain}").joinpath("services.yaml").read_text("utf-8")
    return {name: entry or {} for name, entry in yaml.safe_load(text).items() if not name.startswith(".")}


def _fields(service: dict[str, Any]) -> dict[str, Any]:
    """Return a service's fields, those of collapsed sections included."""
    fields: dict[str, Any] = {}
    for name, field in (service.get("fields") or {}).items():
        if isinstance(field, dict) and "fields" in field:
            fields.update(field["fields"])
        else:
            fields[name] = field or {}
    return fields


def _ha_flags(names: list[Any]) -> set[int]:
    """Return the feature sets of a services.yaml filter (a nested list means all of them)."""
    sets: set[int] = set()
    for alternative in names:
        need = 0
        for name in alternative if isinstance(alternative, list) else [alternative]:
            domain, enum_name, member = name.split(".")
            need |= getattr(importlib.import_module(f"homeassistant.components.{domain}"), enum_name)[member]
        sets.add(need)
    return sets


@pytest.mark.parametrize("domain", COMMAND_DOMAINS)
def test_every_service_and_field_is_real(domain):
    services = _services(domain)
    for rule in DOMAIN_SPECS[domain].rules:
        if rule.readable:
            continue
        assert rule.service in services, rule.id
        if rule.field:
            assert rule.field in _fields(services[rule.service]), rule.id


@pytest.mark.parametrize("domain", COMMAND_DOMAINS)
def test_features_and_colour_modes_agree_with_the_service_filters(domain):
    """Where services.yaml filters a service or field by feature or colour mode, the spec asks the same."""
    services = _services(domain)
    for rule in DOMAIN_SPECS[domain].rules:
        if rule.readable:
            continue
        service = services[rule.service]
        target = (service.get("target") or {}).get("entity") or {}
        field_filter = (_fields(service).get(rule.field) or {}).get("filter") or {} if rule.field else {}
        required = field_filter.get("supported_features") or target.get("supported_features")
        if required:
            assert rule.features, rule.id
            assert set(rule.features) <= _ha_flags(required), rule.id
        if modes := field_filter.get("attribute", {}).get("supported_color_modes"):
            assert rule.color_modes == {ColorMode[name.rsplit(".", 1)[1]].value for name in modes}, rule.id


@pytest.mark.parametrize("domain", sorted(DEVICE_CLASSES))
def test_nouns_are_real_device_classes(domain):
    known = {device_class.value for device_class in DEVICE_CLASSES[domain]}
    assert set(DOMAIN_SPECS[domain].nouns) - {"default"} <= known


@pytest.mark.parametrize("domain", ["sensor", "binary_sensor"])
def test_every_sensor_device_class_is_described(domain):
    assert {device_class.value for device_class in DEVICE_CLASSES[domain]} <= set(DOMAIN_SPECS[domain].nouns)


def test_binary_sensor_values_are_on_and_off():
    for noun in DOMAIN_SPECS["binary_sensor"].nouns.values():
        assert noun.values is None or list(noun.values) == ["on", "off"]


VALID_DOMAIN = """
domains:
  fan:
    features: FanEntityFeature
    commands:
      - {service: turn_on, zh: 打开风扇, en: Turn on, features: [TURN_ON]}
"""


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("[TURN_ON]", "[TURN_ONN]", "FanEntityFeature has no flag TURN_ONN"),
        ("[TURN_ON]", "[TURN_ON|SPEED]", "has no flag SPEED"),
        ("FanEntityFeature", "FanFeature", "FanFeature is not a feature flag class"),
        ("features: FanEntityFeature", "features: FanEntityFeature\n    bogus: 1", "unknown keys"),
        ("en: Turn on, ", "", "en is missing"),
        ("zh: 打开风扇", "zh: ''", "zh is missing"),
        ("features: [TURN_ON]", "features: [TURN_ON], colour_modes: [hs]", "unknown keys"),
        ("features: [TURN_ON]", "color_modes: [rainbow]", "not a valid ColorMode"),
        ("features: [TURN_ON]", "values: no_such_table", "no label table"),
        ("features: [TURN_ON]", "options: preset_modes, values: {a: b}", "exclude each other"),
        ("features: [TURN_ON]", "named: {warm: 暖光}", "named points must be numbers"),
        ("zh: 打开风扇", "zh: '打开{noun}'", "has no nouns"),
        (
            "features: [TURN_ON]",
            "features: [TURN_ON], turn_on_first: maybe",
            "turn_on_first must be true or false",
        ),
        (
            "features: [TURN_ON]",
            "features: [TURN_ON], current: {state: true, attribute: percentage}",
            "current.state must be true and stand alone",
        ),
        ("  fan:", "  fann:", "not a Home Assistant domain"),
        (
            "features: [TURN_ON]}",
            "features: [TURN_ON]}\n      - {service: turn_on, zh: 开, en: Turn on again}",
            "duplicate ids",
        ),
    ],
)
def test_a_mistake_in_the_spec_fails_loudly(old, new, error):
    assert load_command_spec(VALID_DOMAIN)["fan"].rules[0].features == (FanEntityFeature.TURN_ON,)
    assert old in VALID_DOMAIN
    with pytest.raises(CommandSpecError, match=re.escape(error)):
        load_command_spec(VALID_DOMAIN.replace(old, new))


def test_settings_that_leave_an_entity_off_are_marked_to_turn_it_on_first():
    """A dehumidifier's target humidity and mode leave it off; a light's brightness does not."""
    assert entity_commands.turns_on_first("humidifier.set_humidity:humidity")
    assert entity_commands.turns_on_first("humidifier.set_mode:mode")
    assert entity_commands.turns_on_first("media_player.select_source:source")  # a TV off stays off
    assert not entity_commands.turns_on_first("light.turn_on:brightness_pct")
    assert not entity_commands.turns_on_first("nosuchdomain.set:value")


def test_the_shipped_spec_is_loaded_once_at_import():
    assert entity_commands.DOMAIN_SPECS is DOMAIN_SPECS
    assert load_command_spec(SPEC_TEXT.read_text(encoding="utf-8")).keys() == DOMAIN_SPECS.keys()


# --- end to end through the engine (offline parser) ------------------------------------

CATEGORIES = {
    "light": "Light",
    "climate": "AirConditioner",
    "cover": "Blind",
    "media_player": "Television",
    "sensor": "Sensor",
    "binary_sensor": "Sensor",
    "switch": "SmartPlug",
}


def _device(name: str, room: str, entity: EntityFacts) -> Device:
    category = CATEGORIES[entity.entity_id.partition(".")[0]]
    return Device(
        id=entity.entity_id, name=name, room=room, category=category, commands=commands_for_entity(entity)
    )


def _home(*, bedroom_ac_features: int = AC_FEATURES) -> list[Device]:
    return [
        _device("客厅灯", "客厅", facts("light.living_room", {**CT_LIGHT, "brightness": 200})),
        _device(
            "卧室灯",
            "卧室",
            facts("light.bedroom", {**CT_LIGHT, "supported_color_modes": ["color_temp", "hs"]}),
        ),
        _device("客厅空调", "客厅", facts("climate.living_room", AC, AC_FEATURES)),
        _device("卧室空调", "卧室", facts("climate.bedroom", AC, bedroom_ac_features)),
        _device(
            "窗帘",
            "客厅",
            facts(
                "cover.living_room",
                {"current_position": 0},
                CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE | CoverEntityFeature.SET_POSITION,
                "curtain",
            ),
        ),
        _device(
            "电视",
            "客厅",
            facts(
                "media_player.living_room_tv",
                {"volume_level": 0.2, "source_list": ["HDMI 1", "TV"]},
                MediaPlayerEntityFeature.TURN_ON
                | MediaPlayerEntityFeature.TURN_OFF
                | MediaPlayerEntityFeature.VOLUME_SET
                | MediaPlayerEntityFeature.VOLUME_STEP
                | MediaPlayerEntityFeature.VOLUME_MUTE
                | MediaPlayerEntityFeature.SELECT_SOURCE,
                "tv",
            ),
        ),
        _device(
            "客厅温度",
            "客厅",
            facts("sensor.living_room_temperature", {"unit_of_measurement": "°C"}, 0, "temperature"),
        ),
        _device(
            "卧室湿度", "卧室", facts("sensor.bedroom_humidity", {"unit_of_measurement": "%"}, 0, "humidity")
        ),
        _device("大门", "客厅", facts("binary_sensor.front_door", {}, 0, "door")),
        _device("卧室插座", "卧室", facts("switch.bedroom_outlet", {}, 0, "outlet")),
    ]


def _top_targets(text: str, home: list[Device]) -> set[tuple[str, str | None]]:
    """Return (entity, command) of the best candidate of the one command, a group's members included."""
    (result,) = retrieve(text, home, None, ConversationState(), vector_searcher=build_vector_searcher(home))
    best = result.candidates[0]
    if best.entity_kind == "group":
        group = result.groups[best.entity_id]
        return {(device_id, group.capability_id) for device_id in group.device_ids}
    return {(best.entity_id, best.capability_id)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("把客厅灯调到50%", {("light.living_room", "light.turn_on:brightness_pct")}),
        ("关掉卧室空调", {("climate.bedroom", "climate.turn_off")}),
        ("把窗帘打开", {("cover.living_room", "cover.open_cover")}),
        ("音量调到30", {("media_player.living_room_tv", "media_player.volume_set:volume_level")}),
        ("把电视静音", {("media_player.living_room_tv", "media_player.volume_mute:is_volume_muted")}),
        ("客厅空调调到制冷模式", {("climate.living_room", "climate.set_hvac_mode:hvac_mode")}),
        ("关掉卧室插座", {("switch.bedroom_outlet", "switch.turn_off")}),
        ("卧室湿度多少", {("sensor.bedroom_humidity", "state")}),
        ("大门开着吗", {("binary_sensor.front_door", "state")}),
    ],
)
def test_retrieval_on_a_home_built_from_entities(text, expected):
    assert _top_targets(text, _home()) == expected


def test_an_air_conditioner_without_turn_off_is_switched_off_by_its_mode():
    home = _home(bedroom_ac_features=ClimateEntityFeature.TARGET_TEMPERATURE)
    assert _top_targets("关掉卧室空调", home) == {("climate.bedroom", "climate.set_hvac_mode:hvac_mode")}


def test_a_temperature_question_reads_a_temperature():
    assert _top_targets("客厅温度多少", _home()) <= {
        ("sensor.living_room_temperature", "state"),
        ("climate.living_room", "state:current_temperature"),
    }


def test_the_present_value_of_a_command_is_read_from_the_entity():
    """26 °C for the target temperature, the fan mode as listed for the fan mode, None when not shown."""
    state = State("climate.ac", "cool", {"temperature": 26, "fan_mode": "low"})
    assert entity_commands.current_value(state, "climate.set_temperature:temperature") == 26.0
    assert entity_commands.current_value(state, "climate.set_fan_mode:fan_mode") == "low"
    assert entity_commands.current_value(state, "climate.set_hvac_mode:hvac_mode") == "cool"  # its state
    assert (
        entity_commands.current_value(State("climate.ac", "off", {}), "climate.set_fan_mode:fan_mode") is None
    )
    assert entity_commands.current_value(None, "climate.set_fan_mode:fan_mode") is None
    lamp = State("light.lamp", "on", {"color_temp_kelvin": 5000})
    assert entity_commands.current_value(lamp, "light.turn_on:color_temp_kelvin") == 5000.0
    seat = State("number.seat", "36", {"min": 30, "max": 40, "step": 1})  # a number's value is its state
    assert entity_commands.current_value(seat, "number.set_value:value") == 36.0
    unknown = State("number.seat", "unknown")
    assert entity_commands.current_value(unknown, "number.set_value:value") == "unknown"


@pytest.mark.parametrize(
    ("said", "colour"), [("粉", "pink"), ("粉色", "pink"), ("艳粉色", "hotpink"), ("红", "red")]
)
def test_a_colour_said_as_people_say_it_is_the_colour_name_sent(said: str, colour: str) -> None:
    """颜色换成粉的: 粉 is pink (粉色), not hot pink; 红 is red, the colour it begins."""
    light = facts("light.a", {"supported_color_modes": ["hs"]})
    assert command_argument(f"设置颜色={said}", by_id(light)["light.turn_on:color_name"]).value == colour
