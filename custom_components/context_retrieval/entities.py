"""Entities exposed to Assist, with their names, areas and floors, as the engine's devices."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from homeassistant.components.conversation import DOMAIN as CONVERSATION_DOMAIN
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_DEVICE_CLASS, ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant, State, callback
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers import intent

from .core import Device, Room
from .entity_commands import EntityFacts, commands_for_entity, kind_for

if TYPE_CHECKING:
    from collections.abc import Mapping

UNKNOWN_CATEGORY = "Unknown"
DOMAIN_CATEGORIES: dict[str, str] = {
    "light": "Light",
    "switch": "Switch",
    "input_boolean": "Switch",
    "cover": "Blind",
    "climate": "AirConditioner",
    "fan": "Fan",
    "media_player": "NetworkAudio",
    "lock": "SmartLock",
    "vacuum": "RobotCleaner",
    "valve": "Valve",
    "sensor": "Sensor",
    "binary_sensor": "Sensor",
    "scene": "Scene",
    "script": "Scene",
    "humidifier": "Humidifier",
    "camera": "Camera",
}
"""Category of an entity by its domain (CONTRACT §3)."""
DEVICE_CLASS_CATEGORIES: dict[tuple[str, str], str] = {
    ("switch", "outlet"): "SmartPlug",
    ("cover", "garage"): "GarageDoor",
    ("media_player", "tv"): "Television",
    ("humidifier", "dehumidifier"): "Dehumidifier",
}
"""Device classes that refine the domain's category (CONTRACT §3)."""


COOLING_HVAC_MODES = frozenset({"cool", "heat_cool", "dry"})
"""HVAC modes that make a climate entity an air conditioner; one that only heats is a thermostat."""


def category_for(domain: str, device_class: str | None, attributes: Mapping[str, Any] | None = None) -> str:
    """Return the engine category of an entity of ``domain`` with ``device_class``.

    A climate entity whose modes cannot cool (floor heating, an electric blanket, a bath
    heater) is a Thermostat: 所有空调都关了 leaves it alone.
    """
    if device_class and (category := DEVICE_CLASS_CATEGORIES.get((domain, device_class))):
        return category
    modes = (attributes or {}).get("hvac_modes")
    if domain == "climate" and isinstance(modes, (list, tuple)) and modes:
        return "AirConditioner" if COOLING_HVAC_MODES.intersection(map(str, modes)) else "Thermostat"
    return DOMAIN_CATEGORIES.get(domain, UNKNOWN_CATEGORY)


@dataclass(frozen=True, slots=True)
class ExposedEntity:
    """One exposed entity as read on the event loop; turned into a Device off it."""

    facts: EntityFacts
    name: str
    aliases: tuple[str, ...]
    room: str
    smartthings: Device | None = None
    """The SmartThings device this entity is the main entity of (Home Assistant's SmartThings)."""
    part_of: str = ""
    """The id of the Home Assistant device the entity belongs to, empty when none."""

    def to_device(self) -> Device:
        """Return the engine's device: commands from the shipped entity spec, and SmartThings'.

        The main entity of a SmartThings device keeps its id and name and gains the
        device's SmartThings category (when known), profile and commands.
        """
        domain = self.facts.entity_id.partition(".")[0]
        category = category_for(domain, self.facts.device_class, self.facts.attributes)
        commands = commands_for_entity(self.facts)
        profile_id = None
        if (smartthings := self.smartthings) is not None:
            if smartthings.category != UNKNOWN_CATEGORY:
                category = smartthings.category
            commands = [*commands, *smartthings.commands]
            profile_id = smartthings.profile_id
        return Device(
            id=self.facts.entity_id,
            name=self.name,
            room=self.room,
            category=category,
            commands=commands,
            profile_id=profile_id,
            aliases=list(self.aliases),
            kind=kind_for(self.facts),
            part_of=self.part_of,
        )


@dataclass(frozen=True, slots=True)
class HomeSnapshot:
    """What the index is built from: the exposed entities and every area."""

    entities: tuple[ExposedEntity, ...]
    rooms: tuple[Room, ...]
    other_devices: tuple[Device, ...] = ()
    """Devices from outside Home Assistant (SmartThings devices Home Assistant lacks)."""
    smartthings_ids: Mapping[str, str] = field(default_factory=dict)
    """The SmartThings deviceId of each device that has one (its entity id or its own id)."""

    def devices(self) -> list[Device]:
        """Return the engine's devices of the snapshot."""
        return [*(entity.to_device() for entity in self.entities), *self.other_devices]


@callback
def async_snapshot_home(hass: HomeAssistant) -> HomeSnapshot:
    """Read the exposed entities and the areas from Home Assistant (event loop only)."""
    areas = ar.async_get(hass)
    floors = fr.async_get(hass)
    entity_registry = er.async_get(hass)
    device_registry = dr.async_get(hass)
    entities = []
    for state in hass.states.async_all():
        if not async_should_expose(hass, CONVERSATION_DOMAIN, state.entity_id):
            continue
        entry = entity_registry.async_get(state.entity_id)
        device = device_registry.async_get(entry.device_id) if entry and entry.device_id else None
        area_id = er.async_get_effective_area_id(hass, entry) if entry else None
        area = areas.async_get_area(area_id) if area_id else None
        entities.append(
            ExposedEntity(
                facts=_facts(state, entry),
                name=state.name.strip(),
                aliases=_aliases(hass, state, entry, device, area.name if area else ""),
                room=area.name if area else "",
                part_of=device.id if device else "",
            )
        )
    rooms = tuple(_room(area, floors) for area in areas.async_list_areas())
    return HomeSnapshot(tuple(entities), rooms)


def _facts(state: State, entry: er.RegistryEntry | None) -> EntityFacts:
    """Return what the command spec needs to know about an entity.

    The registry keeps an entity's capabilities (modes, ranges) and supported features
    while it is unavailable; its state's attributes, when present, are newer.
    """
    attributes: Mapping[str, Any] = {**((entry.capabilities or {}) if entry else {}), **state.attributes}
    device_class = (entry.device_class or entry.original_device_class) if entry else None
    features = attributes.get(ATTR_SUPPORTED_FEATURES) or (entry.supported_features if entry else 0)
    return EntityFacts(
        entity_id=state.entity_id,
        state=state.state,
        attributes=attributes,
        device_class=device_class or attributes.get(ATTR_DEVICE_CLASS),
        supported_features=int(features or 0),
    )


def _aliases(
    hass: HomeAssistant,
    state: State,
    entry: er.RegistryEntry | None,
    device: dr.DeviceEntry | None,
    room: str,
) -> tuple[str, ...]:
    """Return the other names of an entity: its aliases, then its device's names (never joined).

    A device's name inside the entity's own, or its room and name, is no other name of it: 晾衣架灯
    says how it differs from the airer 晾衣架 of the same device, and 晾衣架 alone calls the airer;
    客厅吊扇, a ceiling fan's device, is no name of its light 吊扇灯 in 客厅.
    """
    names = intent.async_get_entity_aliases(hass, entry, state=state)
    own = state.name.strip()
    if device is not None:
        device_names = [name.strip() for name in (device.name_by_user, device.name) if name]
        given = {alias.strip() for alias in (entry.aliases if entry else ()) if isinstance(alias, str)}
        labels = (own, f"{room}{own}")
        inside = {
            name
            for name in device_names
            if name not in labels and any(name in label for label in labels) and name not in given
        }
        names = [name for name in [*names, *device_names] if name and name.strip() not in inside]
    return tuple(dict.fromkeys(name.strip() for name in names if name and name.strip() != own))


def _room(area: ar.AreaEntry, floors: fr.FloorRegistry) -> Room:
    """Return an area as a room: its aliases, and its floor's name and aliases."""
    floor = floors.async_get_floor(area.floor_id) if area.floor_id else None
    return Room(
        name=area.name,
        aliases=tuple(sorted(area.aliases)),
        floor_names=(floor.name, *sorted(floor.aliases)) if floor else (),
    )
