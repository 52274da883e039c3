"""SmartThings devices, from an account read on a timer and on demand, the last good list kept.

The account is Home Assistant's own SmartThings integration (``smartthings_entry``) or the
direct connection of our options (``DirectAccount``). Its devices and rooms are read
in the background, never on the request path, and turned into engine devices: commands
from the device's profile when a spec knows it, else from the capabilities its
components list (the shipped capability table). A failed read keeps the last good list
and says why (``last_error``; a refused token sets ``auth_failed``).

A device Home Assistant has registered (device-registry identifier ``("smartthings",
deviceId)``) appears once: its main exposed entity keeps its entity id and gains the
SmartThings category and commands. The others are devices of their own.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util

from .clients.smartthings import SmartThingsAuthError, SmartThingsError
from .const import LOGGER
from .core import Device, Room, SpecIndex, devices_from_smartthings, load_spec

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from homeassistant.core import HomeAssistant

    from .clients.smartthings import SmartThingsClient
    from .data import ContextRetrievalConfigEntry
    from .entities import HomeSnapshot

SMARTTHINGS_DOMAIN = "smartthings"
"""Home Assistant's SmartThings integration (its device-registry identifiers)."""
SENSOR_DOMAINS = frozenset({"sensor", "binary_sensor", "event", "update", "button"})
"""Domains of the entities that read or announce a device rather than being it."""

type Items = list[Mapping[str, Any]]


class SpecFileError(Exception):
    """The user's spec file cannot be read or holds no profile."""


def read_spec_file(hass: HomeAssistant, path: str) -> SpecIndex:
    """Return the profiles of a spec file (blocking: call it in the executor).

    ``path`` is relative to the configuration directory unless absolute. Bad lines and
    profiles are skipped with a warning naming them (``load_spec``).
    """
    try:
        spec = load_spec(hass.config.path(path))
    except (OSError, UnicodeDecodeError) as err:
        raise SpecFileError(f"{path}: {err}") from err
    if not len(spec):
        raise SpecFileError(f"{path}: no profile could be read")
    return spec


class SmartThingsAccount(Protocol):
    """Where SmartThings devices are read from and their commands sent to."""

    standalone: bool
    """Whether a device Home Assistant has not registered is a device of its own."""

    async def async_read(self) -> tuple[Items, Items]:
        """Return the device items (``GET /v1/devices``) and room items of the account.

        Raises ``SmartThingsError`` (``SmartThingsAuthError`` for a refused token).
        """

    async def async_execute(self, device_id: str, command: Mapping[str, Any]) -> Any:
        """Send one command (``component``, ``capability``, ``command``, ``arguments``) to a device."""

    def diagnostics(self) -> dict[str, Any]:
        """Return what the account is, for diagnostics."""


@dataclass(slots=True)
class DirectAccount:
    """The direct connection of our options: a token and a location, through our REST client."""

    client: SmartThingsClient
    location_id: str
    standalone = True

    async def async_read(self) -> tuple[Items, Items]:
        """Return the location's device items (every page) and room items."""
        return await self.client.async_devices(self.location_id), await self.client.async_rooms(
            self.location_id
        )

    async def async_execute(self, device_id: str, command: Mapping[str, Any]) -> Any:
        """Send one command through the REST client."""
        return await self.client.async_execute(device_id, [command])

    def diagnostics(self) -> dict[str, Any]:
        """Return the connection's kind and location."""
        return {"account": "direct", "location_id": self.location_id}


@dataclass(frozen=True, slots=True)
class SmartThingsHome:
    """One good read of the account: its devices and rooms, and when."""

    devices: tuple[Device, ...]
    rooms: tuple[Room, ...]
    fetched_at: datetime


@dataclass(slots=True)
class SmartThingsSource:
    """The devices of one SmartThings account: the last good read and the last failure."""

    account: SmartThingsAccount
    spec: SpecIndex = field(default_factory=SpecIndex)
    last_good: SmartThingsHome | None = None
    last_error: str | None = None
    """Why the last refresh failed (None after a good one)."""
    auth_failed: bool = False
    """The token was refused: it expired (personal tokens last 24 hours) or lacks a scope."""
    _reading: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)

    async def async_refresh(self) -> bool:
        """Read the account again (one read at a time); return True when the device list changed."""
        async with self._reading:
            return await self._async_read()

    async def _async_read(self) -> bool:
        try:
            items, rooms = await self.account.async_read()
        except SmartThingsError as err:
            self.auth_failed = isinstance(err, SmartThingsAuthError)
            if self.last_error is None:
                LOGGER.warning("SmartThings could not be read (%s); the last device list is kept", err)
            self.last_error = f"{type(err).__name__}: {err}"
            return False
        if self.last_error is not None:
            LOGGER.info("SmartThings can be read again")
        self.last_error, self.auth_failed = None, False
        devices = tuple(devices_from_smartthings(items, rooms, self.spec))
        before = self.last_good.devices if self.last_good else ()
        now = dt_util.utcnow()
        if self.last_good is not None and devices == before:
            self.last_good = replace(self.last_good, fetched_at=now)  # the index keeps using these
            return False
        names = sorted({device.room for device in devices if device.room})
        self.last_good = SmartThingsHome(devices, tuple(Room(name) for name in names), now)
        return devices != before

    def diagnostics(self) -> dict[str, object]:
        """Return the source's state, for diagnostics."""
        return self.account.diagnostics() | {
            "devices": len(self.last_good.devices) if self.last_good else 0,
            "fetched_at": self.last_good.fetched_at.isoformat() if self.last_good else None,
            "last_error": self.last_error,
            "auth_failed": self.auth_failed,
        }


async def async_refresh_account(hass: HomeAssistant, entry: ContextRetrievalConfigEntry) -> bool:
    """Read an entry's SmartThings account again; return True when its devices changed.

    A token SmartThings refuses on the direct connection starts a re-authentication flow
    (Home Assistant's SmartThings entry re-authenticates itself; diagnostics show its state).
    """
    source = entry.runtime_data.smartthings
    changed = await source.async_refresh()
    if source.auth_failed and isinstance(source.account, DirectAccount):
        entry.async_start_reauth(hass)
    return changed


@callback
def async_with_smartthings(
    hass: HomeAssistant, snapshot: HomeSnapshot, source: SmartThingsSource
) -> HomeSnapshot:
    """Return the snapshot with the account's devices, each once (event loop only).

    A device Home Assistant registered gives its category and commands to its main
    exposed entity (none exposed: the user left it out); any other is a device of its
    own, and its room joins the rooms.
    """
    if source.last_good is None:
        return snapshot
    registered = _registered_devices(hass, source.last_good.devices)
    entities = er.async_get(hass)
    exposed = {entity.facts.entity_id: index for index, entity in enumerate(snapshot.entities)}
    merged = list(snapshot.entities)
    own: list[Device] = []
    ids: dict[str, str] = {}
    for device in source.last_good.devices:
        device_entry = registered.get(device.id)
        if device_entry is None:
            if source.account.standalone:
                own.append(device)
                ids[device.id] = device.id
            continue
        entries = [
            entry
            for entry in er.async_entries_for_device(entities, device_entry.id)
            if entry.entity_id in exposed
        ]
        if entries:
            main = min(entries, key=lambda entry: _main_entity_order(entry, device.id))
            position = exposed[main.entity_id]
            merged[position] = replace(merged[position], smartthings=device)
            ids[main.entity_id] = device.id
    known = {room.name for room in snapshot.rooms}
    rooms = [room for room in source.last_good.rooms if room.name not in known]
    return replace(
        snapshot,
        entities=tuple(merged),
        other_devices=(*snapshot.other_devices, *own),
        rooms=(*snapshot.rooms, *rooms),
        smartthings_ids=ids,
    )


def _registered_devices(hass: HomeAssistant, devices: tuple[Device, ...]) -> dict[str, dr.DeviceEntry]:
    """Return Home Assistant's device of each SmartThings deviceId it registered (one registry query)."""
    identifiers = {(SMARTTHINGS_DOMAIN, device.id) for device in devices}
    found: dict[str, dr.DeviceEntry] = {}
    for entry in dr.async_get(hass).async_get_devices(identifiers=identifiers):
        for domain, identifier in entry.identifiers:
            if domain == SMARTTHINGS_DOMAIN and (domain, identifier) in identifiers:
                found[identifier] = entry
    return found


def _main_entity_order(entry: er.RegistryEntry, device_id: str) -> tuple[bool, bool, int, str]:
    """Order a SmartThings device's entities: the device itself first, its readings last.

    Home Assistant's SmartThings entities are ``{deviceId}_{component}[_{capability}...]``:
    the shortest unique id of the main component's entity that is not a reading is the
    device's own (a hood's lamp, ``{deviceId}_hood``, is not).
    """
    main = entry.unique_id == f"{device_id}_main" or entry.unique_id.startswith(f"{device_id}_main_")
    return (entry.domain in SENSOR_DOMAINS, not main, len(entry.unique_id), entry.entity_id)
