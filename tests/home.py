"""A small Chinese-named Home Assistant home for the integration tests (registries + states)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from pytest_homeassistant_custom_component.common import MockConfigEntry

LIGHT_ATTRS = {"supported_color_modes": ["brightness"], "color_mode": "brightness", "brightness": 128}
CLIMATE_ATTRS = {
    "hvac_modes": ["off", "cool", "heat", "auto"],
    "min_temp": 16,
    "max_temp": 30,
    "target_temp_step": 1,
    "current_temperature": 27,
    "temperature": 26,
    "supported_features": 1 | 128 | 256,  # TARGET_TEMPERATURE | TURN_OFF | TURN_ON
}
COVER_ATTRS = {"current_position": 40, "supported_features": 1 | 2 | 4 | 8}
TV_ATTRS = {"volume_level": 0.3, "supported_features": 4 | 8 | 128 | 256 | 1024}


@dataclass(slots=True)
class HomeEntity:
    """One entity of the test home."""

    entity_id: str
    name: str
    state: str
    attributes: dict[str, Any] = field(default_factory=dict)
    area: str | None = None
    device: str | None = None
    """Name of the device the entity belongs to (its area is the device's when the entity has none)."""
    device_area: str | None = None
    aliases: tuple[str, ...] = ()
    device_class: str | None = None
    exposed: bool = True


FLOORS = {"一楼": {"1F"}, "二楼": set()}
AREAS = {
    "客厅": ({"起居室"}, "一楼"),
    "厨房": (set(), "一楼"),
    "卧室": ({"睡房"}, "二楼"),
    "车库": (set(), None),
}
ENTITIES = (
    HomeEntity("light.living_main", "客厅主灯", "on", LIGHT_ATTRS, area="客厅", aliases=("大灯",)),
    HomeEntity("light.kitchen", "厨房灯", "off", LIGHT_ATTRS, area="厨房"),
    HomeEntity("light.bedside", "床头灯", "off", LIGHT_ATTRS, area="卧室"),
    HomeEntity("climate.living_ac", "空调", "cool", CLIMATE_ATTRS, device="客厅空调", device_area="客厅"),
    HomeEntity("switch.water_outlet", "饮水机插座", "on", area="厨房", device_class="outlet"),
    HomeEntity("cover.garage_door", "车库门", "closed", COVER_ATTRS, area="车库", device_class="garage"),
    HomeEntity(
        "sensor.living_temperature",
        "客厅温度",
        "26.5",
        {"unit_of_measurement": "°C", "state_class": "measurement"},
        area="客厅",
        device_class="temperature",
    ),
    HomeEntity("media_player.tv", "电视", "on", TV_ATTRS, area="客厅", device_class="tv"),
    HomeEntity("light.hidden", "储藏室灯", "off", LIGHT_ATTRS, area="厨房", exposed=False),
    HomeEntity(
        "humidifier.bedroom_dehumidifier",
        "除湿机",
        "off",
        {"min_humidity": 30, "max_humidity": 80, "humidity": 50},
        area="卧室",
        device_class="dehumidifier",
    ),
)


def add_entity(hass: HomeAssistant, entity: HomeEntity, config_entry: MockConfigEntry) -> er.RegistryEntry:
    """Register an entity (and its device), place it in its area, set its state and exposure."""
    areas, devices, entities = ar.async_get(hass), dr.async_get(hass), er.async_get(hass)
    domain, _, object_id = entity.entity_id.partition(".")
    device_id = None
    if entity.device:
        device = devices.async_get_or_create(
            config_entry_id=config_entry.entry_id, identifiers={("test", entity.device)}, name=entity.device
        )
        if entity.device_area:
            device = devices.async_update_device(
                device.id, area_id=areas.async_get_area_by_name(entity.device_area).id
            )
        device_id = device.id
    entry = entities.async_get_or_create(
        domain,
        "test",
        entity.entity_id,
        suggested_object_id=object_id,
        original_name=entity.name,
        original_device_class=entity.device_class,
        device_id=device_id,
        config_entry=config_entry,
    )
    updates: dict[str, Any] = {}
    if entity.area:
        updates["area_id"] = areas.async_get_area_by_name(entity.area).id
    if entity.aliases:
        updates["aliases"] = [er.COMPUTED_NAME, *entity.aliases]
    if updates:
        entry = entities.async_update_entity(entry.entity_id, **updates)
    attributes = {"friendly_name": entity.name, **entity.attributes}
    if entity.device_class:
        attributes["device_class"] = entity.device_class
    hass.states.async_set(entry.entity_id, entity.state, attributes)
    async_expose_entity(hass, "conversation", entry.entity_id, entity.exposed)
    return entry


def build_home(hass: HomeAssistant, config_entry: MockConfigEntry) -> None:
    """Create the floors, areas and entities of the test home."""
    floors, areas = fr.async_get(hass), ar.async_get(hass)
    floor_ids = {
        name: floors.async_create(name, aliases=aliases).floor_id for name, aliases in FLOORS.items()
    }
    for name, (aliases, floor) in AREAS.items():
        areas.async_create(name, aliases=aliases, floor_id=floor_ids.get(floor) if floor else None)
    for entity in ENTITIES:
        add_entity(hass, entity, config_entry)
