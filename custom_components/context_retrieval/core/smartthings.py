"""Turn SmartThings REST items into engine devices (CONTRACT §2), and commands back into the API's."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from .fusion import ActionValue
from .models import UNKNOWN_CATEGORY, CommandSpec, Device
from .spec import SpecIndex, command_id_parts, parse_command
from .text import package_text

_LOGGER = logging.getLogger(__name__)

MAIN_COMPONENT = "main"
CAPABILITY_TABLE = "smartthings_capabilities.json"
"""Package data file mapping a SmartThings capability to its commands and attributes.

Each capability id maps to a list of entries ``{"suffix", "description", "type",
"value_range", "value_list", "readable"}``. A command's id is
``{componentId}-{capabilityId}-{suffix}``; a readable attribute's id is the same,
or ``{componentId}-{capabilityId}`` when it has no suffix (the spec.jsonl convention).
"""

type CapabilityTemplate = tuple[str | None, CommandSpec]
"""An id suffix (None for the bare capability) and the command it stands for."""


@functools.cache
def capability_table() -> dict[str, tuple[CapabilityTemplate, ...]]:
    """Return the shipped capability table, read once from package data."""
    raw_table = json.loads(package_text(CAPABILITY_TABLE))
    table: dict[str, tuple[CapabilityTemplate, ...]] = {}
    for capability, entries in raw_table.items():
        templates: list[CapabilityTemplate] = []
        for entry in entries:
            try:
                templates.append(_template(capability, entry))
            except (TypeError, ValueError) as err:
                _LOGGER.warning("Capability table %s: skipping an entry: %s", capability, err)
        table[capability] = tuple(templates)
    return table


def _template(capability: str, entry: object) -> CapabilityTemplate:
    """Return the id suffix and command of one capability table entry."""
    if not isinstance(entry, Mapping):
        raise TypeError("entry is not an object")
    suffix = entry.get("suffix")
    if suffix is not None and not isinstance(suffix, str):
        raise ValueError("suffix is not a string")
    return suffix, parse_command({**entry, "id": capability}, readable=entry.get("readable") is True)


def commands_from_capabilities(component_id: str, capability_ids: Iterable[str]) -> list[CommandSpec]:
    """Return the commands of a component's capabilities from the shipped table."""
    table = capability_table()
    commands: list[CommandSpec] = []
    for capability in capability_ids:
        templates = table.get(capability)
        if templates is None:
            _LOGGER.debug("No command table for SmartThings capability %s", capability)
            continue
        for suffix, template in templates:
            command_id = f"{component_id}-{capability}" + (f"-{suffix}" if suffix else "")
            commands.append(dataclasses.replace(template, id=command_id))
    return commands


def _text(value: object) -> str:
    """Return ``value`` stripped when it is a string, else an empty string."""
    return value.strip() if isinstance(value, str) else ""


def _components(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Return the well-formed components of a device item, ``main`` first."""
    raw = item.get("components")
    if not isinstance(raw, list):
        return []
    components = [component for component in raw if isinstance(component, Mapping)]
    return sorted(components, key=lambda component: component.get("id") != MAIN_COMPONENT)


def _category(components: list[Mapping[str, Any]]) -> str:
    """Return the first category name of the main (or first) component, else ``Unknown``."""
    if not components:
        return UNKNOWN_CATEGORY
    categories = components[0].get("categories")
    if isinstance(categories, list):
        for category in categories:
            if isinstance(category, Mapping) and (name := _text(category.get("name"))):
                return name
    return UNKNOWN_CATEGORY


def _capability_ids(component: Mapping[str, Any]) -> list[str]:
    """Return the capability ids a component lists (``{"id": "switch", "version": 1}`` items)."""
    raw = component.get("capabilities")
    if not isinstance(raw, list):
        return []
    ids = [_text(entry.get("id")) if isinstance(entry, Mapping) else _text(entry) for entry in raw]
    return [capability for capability in ids if capability]


def _commands(item: Mapping[str, Any], profile_id: str | None, spec: SpecIndex) -> list[CommandSpec]:
    """Return a device's commands: from its spec profile, else from its listed capabilities."""
    if profile_id in spec:
        return spec.commands_for(profile_id)
    commands: list[CommandSpec] = []
    for component in _components(item):
        if component_id := _text(component.get("id")):
            commands.extend(commands_from_capabilities(component_id, _capability_ids(component)))
    return commands


def room_names(rooms: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Return ``roomId -> name`` for the well-formed items of ``GET /v1/locations/{id}/rooms``."""
    names: dict[str, str] = {}
    for room in rooms:
        if not isinstance(room, Mapping):
            _LOGGER.warning("Skipping a SmartThings room that is not an object")
            continue
        room_id, name = _text(room.get("roomId")), _text(room.get("name"))
        if room_id and name:
            names[room_id] = name
        else:
            _LOGGER.warning("Skipping a SmartThings room without roomId or name: %r", room)
    return names


def devices_from_smartthings(
    items: Iterable[Mapping[str, Any]], rooms: Iterable[Mapping[str, Any]], spec: SpecIndex
) -> list[Device]:
    """Return engine devices for the items of SmartThings ``GET /v1/devices``.

    Commands come from the spec profile when it is known, else from the
    capabilities the components list (shipped table). Malformed items are
    skipped with a warning.
    """
    names = room_names(rooms)
    devices: list[Device] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, Mapping):
            _LOGGER.warning("Skipping a SmartThings device that is not an object")
            continue
        device_id = _text(item.get("deviceId"))
        if not device_id:
            _LOGGER.warning("Skipping a SmartThings device without deviceId")
            continue
        if device_id in seen:
            _LOGGER.warning("Skipping duplicate SmartThings device %s", device_id)
            continue
        seen.add(device_id)
        profile = item.get("profile")
        profile_id = _text(profile.get("id")) if isinstance(profile, Mapping) else ""
        commands = _commands(item, profile_id or None, spec)
        if not commands:
            _LOGGER.warning(
                "SmartThings device %s (profile %s) has no spec or known capabilities; "
                "retrieval uses its name and room only",
                device_id,
                profile_id or "-",
            )
        devices.append(
            Device(
                id=device_id,
                name=_text(item.get("label")) or _text(item.get("name")) or device_id,
                room=names.get(_text(item.get("roomId")), ""),
                category=_category(_components(item)),
                commands=commands,
                profile_id=profile_id or None,
            )
        )
    return devices


class InvalidCommandError(ValueError):
    """The command or its value does not fit the device."""


def smartthings_command(spec: CommandSpec, value: Any) -> dict[str, Any]:
    """Return the API's command object (``POST /v1/devices/{id}/commands``) for a device's command.

    The command's value must fit its ``value_list`` or ``value_range``; a command taking
    neither takes no value.
    """
    parts = command_id_parts(spec.id)
    if spec.readable or parts is None or parts[2] is None:
        raise InvalidCommandError(f"{spec.id} is not a command")
    component, capability, command = parts
    return {
        "component": component,
        "capability": capability,
        "command": command,
        "arguments": _arguments(spec, value),
    }


def _arguments(spec: CommandSpec, value: Any) -> list[Any]:
    """Return the command's arguments: none, or the value checked against its list or range."""
    if spec.value_list:
        allowed = [item.get("value") for item in spec.value_list]
        if value not in allowed:
            raise InvalidCommandError(f"{spec.id} takes one of {allowed}, not {value!r}")
        return [value]
    if spec.value_range:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidCommandError(f"{spec.id} takes a number")
        if not ActionValue(float(value)).fits(spec):
            low, high = spec.value_range.get("minimum"), spec.value_range.get("maximum")
            raise InvalidCommandError(f"{spec.id} takes a number from {low} to {high}, not {value}")
        return [value]
    if value is not None:
        raise InvalidCommandError(f"{spec.id} takes no value")
    return []
