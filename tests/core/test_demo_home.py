"""Tests for the demo home shipped with the integration."""

from __future__ import annotations

import json
import logging
from collections import Counter
from importlib import resources
from typing import TYPE_CHECKING

from custom_components.context_retrieval.core.gating import CATEGORIES
from custom_components.context_retrieval.core.smartthings import capability_table
from custom_components.context_retrieval.demo_home import DEMO_HOME_FILE, load_demo_home

if TYPE_CHECKING:
    import pytest


def _raw_home() -> dict:
    path = resources.files("custom_components.context_retrieval").joinpath("data", DEMO_HOME_FILE)
    return json.loads(path.read_text(encoding="utf-8"))


def test_demo_home_loads_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        devices = load_demo_home()
    assert not caplog.records
    assert 30 <= len(devices) <= 45
    assert len({device.id for device in devices}) == len(devices)


def test_demo_home_has_rooms_and_devices_in_them() -> None:
    devices = load_demo_home()
    rooms = {device.room for device in devices} - {""}
    assert {"客厅", "主卧", "次卧", "厨房", "书房", "阳台", "餐厅", "卫生间"} <= rooms
    assert {room["name"] for room in _raw_home()["rooms"]} == rooms


def test_every_demo_device_has_commands_from_the_table() -> None:
    table = capability_table()
    for item in _raw_home()["devices"]:
        for component in item["components"]:
            assert {cap["id"] for cap in component["capabilities"]} <= set(table)
    for device in load_demo_home():
        assert device.commands, device.id
        ids = [command.id for command in device.commands]
        assert len(ids) == len(set(ids)), device.id


def test_demo_home_has_the_tricky_names() -> None:
    devices = load_demo_home()
    by_name = {device.name: device for device in devices}
    assert by_name["老伙计"].category == "Fan"
    assert by_name["小白"].category == "RobotCleaner"
    assert by_name["客厅老伙计"].room != "客厅"
    rooms_of = Counter(device.name for device in devices)
    assert rooms_of["台灯"] >= 2
    assert len({device.room for device in devices if device.name == "台灯"}) >= 2


def test_demo_home_categories_are_mostly_known() -> None:
    categories = Counter(device.category for device in load_demo_home())
    known = sum(count for category, count in categories.items() if category in CATEGORIES)
    assert known >= 0.9 * sum(categories.values())
    assert {"Light", "Blind", "AirConditioner", "Fan", "Television", "Sensor"} <= set(categories)


def test_demo_home_profiles_are_its_own() -> None:
    devices = load_demo_home()
    assert all(device.profile_id and device.profile_id.startswith("demo-") for device in devices)
