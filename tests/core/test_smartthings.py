"""Tests for mapping SmartThings REST items to engine devices (CONTRACT §2)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from custom_components.context_retrieval.core import render_yaml_context
from custom_components.context_retrieval.core.models import (
    UNKNOWN_CATEGORY,
    Candidate,
    Command,
    RetrievalResult,
)
from custom_components.context_retrieval.core.smartthings import (
    capability_table,
    commands_from_capabilities,
    devices_from_smartthings,
    room_names,
)
from custom_components.context_retrieval.core.spec import SpecIndex, load_spec

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED = REPO_ROOT / "tests" / "data" / "smartthings"

REQUIRED_CAPABILITIES = {
    "switch", "switchLevel", "colorControl", "colorTemperature", "windowShade", "windowShadeLevel",
    "windowShadePreset", "thermostatCoolingSetpoint", "thermostatHeatingSetpoint", "thermostatMode",
    "airConditionerMode", "fanSpeed", "fanSpeedPercent", "fanOscillationMode", "audioVolume", "audioMute",
    "mediaPlayback", "lock", "valve", "temperatureMeasurement", "relativeHumidityMeasurement",
    "contactSensor", "motionSensor", "robotCleanerMovement", "doorControl",
}  # fmt: skip


def _jsonl(name: str) -> list[dict[str, Any]]:
    lines = (SHARED / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _item(device_id: str = "d1", **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "deviceId": device_id,
        "label": "灯",
        "roomId": "r1",
        "components": [{"id": "main", "categories": [{"name": "Light"}], "capabilities": []}],
        "profile": {"id": "unknown-profile"},
    }
    item.update(fields)
    return item


ROOMS = [{"roomId": "r1", "name": "客厅"}]


# --- shared data ---------------------------------------------------------------------------


def test_shared_devices_map_to_rooms_categories_and_profile_commands() -> None:
    items, rooms = _jsonl("devices.jsonl"), _jsonl("rooms.jsonl")
    spec = load_spec(SHARED / "spec.jsonl")
    room_by_id = {room["roomId"]: room["name"] for room in rooms}

    devices = devices_from_smartthings(items, rooms, spec)

    assert len(devices) == len(items) == 30
    for item, device in zip(items, devices, strict=True):
        main = next(c for c in item["components"] if c["id"] == "main")
        assert device.id == item["deviceId"]
        assert device.name == item["label"]
        assert device.room == room_by_id[item["roomId"]]
        assert device.category == main["categories"][0]["name"]
        assert device.profile_id == item["profile"]["id"]
        assert [c.id for c in device.commands] == [c.id for c in spec.commands_for(item["profile"]["id"])]
        assert device.commands


def test_shared_category_outside_the_closed_set_is_kept() -> None:
    items = _jsonl("devices.jsonl")
    others = [item for item in items if item["components"][0]["categories"][0]["name"] == "Others"]
    assert others
    devices = devices_from_smartthings(others, _jsonl("rooms.jsonl"), SpecIndex())
    assert {device.category for device in devices} == {"Others"}


# --- names, rooms, categories --------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"label": "台灯", "name": "c2c-dimmer"}, "台灯"),
        ({"label": "", "name": "落地灯"}, "落地灯"),
        ({"label": None, "name": "落地灯"}, "落地灯"),
        ({"label": "  ", "name": None}, "d1"),
    ],
)
def test_name_falls_back_from_label_to_name_to_id(fields: dict[str, Any], expected: str) -> None:
    (device,) = devices_from_smartthings([_item(**fields)], ROOMS, SpecIndex())
    assert device.name == expected


def test_label_missing_uses_name() -> None:
    item = _item(name="吊灯")
    del item["label"]
    (device,) = devices_from_smartthings([item], ROOMS, SpecIndex())
    assert device.name == "吊灯"


@pytest.mark.parametrize("room_id", ["r-unknown", None, 5])
def test_unknown_room_is_empty(room_id: object) -> None:
    (device,) = devices_from_smartthings([_item(roomId=room_id)], ROOMS, SpecIndex())
    assert device.room == ""


def test_category_prefers_main_component() -> None:
    components = [
        {"id": "button2", "categories": [{"name": "RemoteController"}]},
        {"id": "main", "categories": [{"name": "Switch"}, {"name": "Light"}]},
    ]
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    assert device.category == "Switch"


def test_category_falls_back_to_first_component() -> None:
    components = [{"id": "left", "categories": [{"name": "Blind"}]}, {"id": "right"}]
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    assert device.category == "Blind"


@pytest.mark.parametrize(
    "components",
    [None, [], "main", [{"id": "main"}], [{"id": "main", "categories": [{"name": ""}, "Light"]}]],
)
def test_category_unknown_when_missing(components: object) -> None:
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    assert device.category == UNKNOWN_CATEGORY


# --- commands from the capability table ----------------------------------------------------


def test_table_covers_required_capabilities() -> None:
    assert set(capability_table()) >= REQUIRED_CAPABILITIES


def test_table_entries_all_parse(caplog: pytest.LogCaptureFixture) -> None:
    capability_table.cache_clear()
    with caplog.at_level(logging.WARNING):
        table = capability_table()
    assert not caplog.records
    assert all(table.values())


def test_table_describes_every_command_and_value_in_chinese_and_english() -> None:
    for capability in capability_table():
        for command in commands_from_capabilities("main", [capability]):
            assert command.description, command.id
            assert command.description_en, command.id
            assert command.description_en.isascii(), command.id
            for item in command.value_list or ():
                assert item["description"], (command.id, item["value"])
                assert item["description_en"], (command.id, item["value"])


def test_agents_conversing_in_english_read_the_english_descriptions() -> None:
    components = [{"id": "main", "capabilities": [{"id": "airConditionerMode"}]}]
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    command = next(c for c in device.commands if c.id == "main-airConditionerMode-setAirConditionerMode")
    result = RetrievalResult(
        command=Command(a="设置模式", n="空调", t="AirConditioner"),
        candidates=[Candidate(device.id, "device", command.id, 1.0, 1.0, 2.0)],
    )
    english = yaml.safe_load(render_yaml_context([result], [device], language="en").split("\n", 1)[1])
    chinese = yaml.safe_load(render_yaml_context([result], [device], language="zh-Hans").split("\n", 1)[1])
    (listed_en,) = english["devices"][0]["commands"]
    (listed_zh,) = chinese["devices"][0]["commands"]
    assert listed_en["description"] == command.description_en
    assert listed_zh["description"] == command.description
    assert [item["description"] for item in listed_en["value_list"]] == [
        item["description_en"] for item in command.value_list
    ]
    assert [item["value"] for item in listed_en["value_list"]] == [
        item["value"] for item in command.value_list
    ]


def test_table_ids_follow_the_spec_convention() -> None:
    pattern = re.compile(r"^main-[A-Za-z.]+(-[A-Za-z]+)?$")
    for capability in capability_table():
        for command in commands_from_capabilities("main", [capability]):
            assert pattern.match(command.id), command.id
            assert command.id.split("-")[1] == capability
        ids = [command.id for command in commands_from_capabilities("main", [capability])]
        assert len(ids) == len(set(ids)), capability


def test_table_agrees_with_the_shared_spec_where_they_overlap() -> None:
    spec = load_spec(SHARED / "spec.jsonl")
    light = next(p for p in spec.profiles.values() if any(c.id == "main-colorControl-setHue" for c in p))
    by_id = {c.id: c for c in light}
    ours = commands_from_capabilities("main", ["switch", "switchLevel", "colorControl"])
    for command in ours:
        if command.id in by_id:
            assert (command.description, command.readable) == (
                by_id[command.id].description,
                by_id[command.id].readable,
            )
    assert {"main-switch-on", "main-switch-off", "main-switchLevel-setLevel"} <= {c.id for c in ours}


def test_commands_from_listed_capabilities_when_profile_is_not_in_spec() -> None:
    components = [
        {
            "id": "main",
            "categories": [{"name": "Light"}],
            "capabilities": [
                {"id": "switch", "version": 1},
                {"id": "switchLevel", "version": 1},
                {"id": "x.custom"},
            ],
        },
        {"id": "switch1", "capabilities": [{"id": "switch", "version": 1}]},
    ]
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    commands = {c.id: c for c in device.commands}
    assert list(commands) == [
        "main-switch-on",
        "main-switch-off",
        "main-switch",
        "main-switchLevel-setLevel",
        "main-switchLevel-level",
        "switch1-switch-on",
        "switch1-switch-off",
        "switch1-switch",
    ]
    assert commands["main-switch-on"].description == "电源启用"
    assert commands["main-switchLevel-setLevel"].description == "调光器"
    assert commands["main-switch"].readable
    assert not commands["main-switch-on"].readable


def test_spec_profile_wins_over_listed_capabilities() -> None:
    spec = load_spec(
        [{"profileId": "p", "capabilities": [{"id": "main-switch-on", "description": "电源启用"}]}]
    )
    components = [{"id": "main", "capabilities": [{"id": "switchLevel"}]}]
    (device,) = devices_from_smartthings([_item(components=components, profile={"id": "p"})], ROOMS, spec)
    assert [c.id for c in device.commands] == ["main-switch-on"]


def test_malformed_capability_entries_are_ignored() -> None:
    components = [{"id": "main", "capabilities": [None, {"version": 1}, {"id": 3}, "switch"]}]
    (device,) = devices_from_smartthings([_item(components=components)], ROOMS, SpecIndex())
    assert [c.id for c in device.commands] == ["main-switch-on", "main-switch-off", "main-switch"]


def test_device_without_commands_is_kept_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        (device,) = devices_from_smartthings([_item(profile=None)], ROOMS, SpecIndex())
    assert device.commands == []
    assert device.profile_id is None
    assert "d1" in caplog.text


# --- malformed input -----------------------------------------------------------------------


def test_malformed_items_are_skipped(caplog: pytest.LogCaptureFixture) -> None:
    items: list[Any] = [
        "not a device",
        None,
        {"label": "没有编号"},
        {"deviceId": ""},
        {"deviceId": 42},
        _item("ok"),
        _item("ok", label="重复"),
        {"deviceId": "bare"},
    ]
    with caplog.at_level(logging.WARNING):
        devices = devices_from_smartthings(items, ROOMS, SpecIndex())
    assert [(d.id, d.name, d.room, d.category) for d in devices] == [
        ("ok", "灯", "客厅", "Light"),
        ("bare", "bare", "", UNKNOWN_CATEGORY),
    ]
    assert "duplicate" in caplog.text


def test_malformed_rooms_are_skipped(caplog: pytest.LogCaptureFixture) -> None:
    rooms: list[Any] = [{"roomId": "r1", "name": "客厅"}, {"roomId": "r2"}, "卧室", {"name": "厨房"}]
    with caplog.at_level(logging.WARNING):
        assert room_names(rooms) == {"r1": "客厅"}
    assert len(caplog.records) == 3


def test_empty_inputs() -> None:
    assert devices_from_smartthings([], [], SpecIndex()) == []
