"""Exposed entities become the engine's devices: names, aliases, areas, floors, categories, commands."""

from __future__ import annotations

import pytest
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.context_retrieval.core import Room
from custom_components.context_retrieval.entities import async_snapshot_home, category_for

from .conftest import call_retrieve
from .home import HomeEntity, add_entity


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
        "humidifier.bedroom_dehumidifier",
    }


def test_an_entity_knows_the_appliance_it_is_part_of(home, devices):
    """The air conditioner belongs to its device (客厅空调); an entity with no device, to none."""
    entry = er.async_get(home).async_get("climate.living_ac")
    assert entry is not None
    ac_device = dr.async_get(home).async_get(entry.device_id or "")
    assert ac_device is not None
    assert ac_device.name == "客厅空调"
    assert devices["climate.living_ac"].part_of == ac_device.id
    assert devices["switch.water_outlet"].part_of == ""


def test_name_and_aliases_stay_a_list(devices):
    light = devices["light.living_main"]
    assert light.name == "客厅主灯"
    assert light.aliases == ["大灯"]
    assert devices["climate.living_ac"].aliases[-1] == "客厅空调"  # the device's name, last


async def test_a_devices_name_inside_an_entitys_own_is_not_its_alias(home: HomeAssistant):
    """晾衣架灯 on the device 晾衣架 says how it differs from the airer: 晾衣架 alone calls the airer."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    add_entity(home, HomeEntity("cover.airer", "晾衣架", "open", device="晾衣架", device_area="车库"), owner)
    add_entity(
        home, HomeEntity("light.airer", "晾衣架灯", "off", device="晾衣架", aliases=("衣架灯",)), owner
    )
    add_entity(
        home, HomeEntity("switch.dry", "晾衣架烘干", "off", device="晾衣架", aliases=("晾衣架",)), owner
    )
    devices = {device.id: device for device in async_snapshot_home(home).devices()}
    assert "晾衣架" not in devices["light.airer"].aliases
    assert "衣架灯" in devices["light.airer"].aliases
    assert "晾衣架" in devices["switch.dry"].aliases  # an alias given to the entity stays


async def test_a_devices_name_inside_an_entitys_room_and_name_is_not_its_alias(home: HomeAssistant):
    """The ceiling fan's device 客厅吊扇 is no name of its light 吊扇灯 in 客厅: 客厅吊扇 calls the fan."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    add_entity(
        home, HomeEntity("fan.ceiling", "客厅吊扇", "on", device="客厅吊扇", device_area="客厅"), owner
    )
    add_entity(home, HomeEntity("light.ceiling", "吊扇灯", "off", device="客厅吊扇"), owner)
    add_entity(home, HomeEntity("light.other", "灯", "off", device="客厅吊扇", area="卧室"), owner)
    devices = {device.id: device for device in async_snapshot_home(home).devices()}
    assert devices["light.ceiling"].room == "客厅"
    assert "客厅吊扇" not in devices["light.ceiling"].aliases
    assert "客厅吊扇" in devices["light.other"].aliases  # 卧室灯 does not hold it


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


@pytest.mark.parametrize(
    ("modes", "category"),
    [
        (["off", "heat"], "Thermostat"),
        (["off", "cool", "heat", "fan_only"], "AirConditioner"),
        (["off", "heat_cool"], "AirConditioner"),
        (["off", "dry"], "AirConditioner"),
        (None, "AirConditioner"),
    ],
)
def test_a_climate_entity_that_cannot_cool_is_a_thermostat(modes, category):
    attributes = {} if modes is None else {"hvac_modes": modes}
    assert category_for("climate", None, attributes) == category


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


async def test_an_unavailable_entity_keeps_the_commands_its_registry_entry_knows(home):
    registry = er.async_get(home)
    entry = registry.async_get_or_create(
        "climate",
        "test",
        "bedroom-ac",
        suggested_object_id="bedroom_ac",
        capabilities={"hvac_modes": ["off", "cool"], "min_temp": 16, "max_temp": 30},
        supported_features=1 | 128 | 256,
    )
    home.states.async_set(entry.entity_id, "unavailable", {"friendly_name": "卧室空调"})
    async_expose_entity(home, "conversation", entry.entity_id, should_expose=True)
    device = {d.id: d for d in async_snapshot_home(home).devices()}[entry.entity_id]
    ids = {command.id for command in device.commands}
    assert {
        "climate.turn_off",
        "climate.set_hvac_mode:hvac_mode",
        "climate.set_temperature:temperature",
    } <= ids
