"""Exposed entities become the engine's devices: names, aliases, areas, floors, categories, commands."""

from __future__ import annotations

import pytest
from homeassistant.core import HomeAssistant

from custom_components.context_retrieval.core import Room
from custom_components.context_retrieval.entities import async_snapshot_home, category_for

from .conftest import call_retrieve


@pytest.fixture
def devices(home: HomeAssistant) -> dict:
    return {device.id: device for device in async_snapshot_home(home).devices()}


def test_only_exposed_entities_become_devices(devices):
    assert "light.hidden" not in devices
    assert set(devices) == {
        "light.living_main",
        "light.kitchen",
        "light.bedside",
        "climate.living_ac",
        "switch.water_outlet",
        "cover.garage_door",
        "sensor.living_temperature",
        "media_player.tv",
    }


def test_name_and_aliases_stay_a_list(devices):
    light = devices["light.living_main"]
    assert light.name == "客厅主灯"
    assert light.aliases == ["大灯"]
    assert devices["climate.living_ac"].aliases[-1] == "客厅空调"  # the device's name, last


def test_room_is_the_entity_area_else_the_device_area(devices):
    assert devices["light.kitchen"].room == "厨房"
    assert devices["climate.living_ac"].room == "客厅"  # no area of its own: its device's


@pytest.mark.parametrize(
    ("entity_id", "category"),
    [
        ("light.living_main", "Light"),
        ("climate.living_ac", "AirConditioner"),
        ("switch.water_outlet", "SmartPlug"),
        ("cover.garage_door", "GarageDoor"),
        ("sensor.living_temperature", "Sensor"),
        ("media_player.tv", "Television"),
    ],
)
def test_category_from_domain_and_device_class(devices, entity_id, category):
    assert devices[entity_id].category == category


@pytest.mark.parametrize(
    ("domain", "device_class", "category"),
    [
        ("switch", None, "Switch"),
        ("cover", "curtain", "Blind"),
        ("media_player", "speaker", "NetworkAudio"),
        ("lock", None, "SmartLock"),
        ("vacuum", None, "RobotCleaner"),
        ("valve", "water", "Valve"),
        ("binary_sensor", "door", "Sensor"),
        ("scene", None, "Scene"),
        ("script", None, "Scene"),
        ("fan", None, "Fan"),
        ("todo", None, "Unknown"),
    ],
)
def test_category_table(domain, device_class, category):
    assert category_for(domain, device_class) == category


def test_commands_follow_supported_features_and_attributes(devices):
    light = {command.id for command in devices["light.living_main"].commands}
    assert {"light.turn_on", "light.turn_off", "light.turn_on:brightness_pct"} <= light
    climate = {command.id: command for command in devices["climate.living_ac"].commands}
    assert climate["climate.set_temperature:temperature"].value_range["minimum"] == 16
    assert climate["state:current_temperature"].readable


def test_areas_become_rooms_with_aliases_and_floors(home):
    rooms = {room.name: room for room in async_snapshot_home(home).rooms}
    assert rooms["客厅"] == Room("客厅", aliases=("起居室",), floor_names=("一楼", "1F"))
    assert rooms["车库"] == Room("车库")


async def test_an_area_alias_scopes_a_command(loaded_entry, home):
    response = await call_retrieve(home, "起居室的空调开一下")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "climate.living_ac"
    assert result["candidates"][0]["room"] == "客厅"


async def test_a_floor_scopes_every_light_on_it(loaded_entry, home):
    response = await call_retrieve(home, "一楼的灯都关掉")
    [result] = response["results"]
    members = {
        device_id
        for candidate in result["candidates"]
        for device_id in candidate.get("device_ids", [candidate["entity_id"]])
    }
    assert members == {"light.living_main", "light.kitchen"}
