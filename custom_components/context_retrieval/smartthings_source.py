"""SmartThings devices through the direct connection: fetched on a timer, the last good list kept.

The account's devices and rooms are read with the REST client (never on the request path)
and turned into engine devices: commands from the device's profile when a spec knows it,
else from the capabilities its components list (the shipped capability table). A failed
refresh keeps the last good list and says why (``last_error``; an expired token sets
``auth_failed``). Devices Home Assistant already has through its own SmartThings
integration (device-registry identifier ``("smartthings", deviceId)``) are left to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from homeassistant.helpers import device_registry as dr
from homeassistant.util import dt as dt_util

from .clients.smartthings import SmartThingsAuthError, SmartThingsError
from .const import LOGGER
from .core import Device, Room, SpecIndex, devices_from_smartthings, load_spec

if TYPE_CHECKING:
    from datetime import datetime

    from homeassistant.core import HomeAssistant

    from .clients.smartthings import SmartThingsClient

SMARTTHINGS_DOMAIN = "smartthings"
"""Home Assistant's SmartThings integration (its device-registry identifiers)."""


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


@dataclass(frozen=True, slots=True)
class SmartThingsHome:
    """One good read of the account: its devices and rooms, and when."""

    devices: tuple[Device, ...]
    rooms: tuple[Room, ...]
    fetched_at: datetime


@dataclass(slots=True)
class SmartThingsSource:
    """The direct connection to one SmartThings location."""

    client: SmartThingsClient
    location_id: str
    spec: SpecIndex = field(default_factory=SpecIndex)
    last_good: SmartThingsHome | None = None
    last_error: str | None = None
    """Why the last refresh failed (None after a good one)."""
    auth_failed: bool = False
    """The token was refused: it expired (personal tokens last 24 hours) or lacks a scope."""

    async def async_refresh(self) -> bool:
        """Read the account again; return True when the device list changed."""
        try:
            items = await self.client.async_devices(self.location_id)
            rooms = await self.client.async_rooms(self.location_id)
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
        names = sorted({device.room for device in devices if device.room})
        before = self.last_good.devices if self.last_good else None
        self.last_good = SmartThingsHome(devices, tuple(Room(name) for name in names), dt_util.utcnow())
        return devices != before

    def devices_for(self, hass: HomeAssistant) -> tuple[tuple[Device, ...], tuple[Room, ...]]:
        """Return the devices Home Assistant does not have already, and their rooms (event loop)."""
        if self.last_good is None:
            return (), ()
        registry = dr.async_get(hass)
        devices = tuple(
            device
            for device in self.last_good.devices
            if registry.async_get_device(identifiers={(SMARTTHINGS_DOMAIN, device.id)}) is None
        )
        return devices, self.last_good.rooms

    def device_ids(self) -> set[str]:
        """Return the ids of the account's devices (the last good read)."""
        return {device.id for device in self.last_good.devices} if self.last_good else set()

    def diagnostics(self) -> dict[str, object]:
        """Return the source's state, for diagnostics."""
        return {
            "location_id": self.location_id,
            "devices": len(self.last_good.devices) if self.last_good else 0,
            "fetched_at": self.last_good.fetched_at.isoformat() if self.last_good else None,
            "last_error": self.last_error,
            "auth_failed": self.auth_failed,
        }
