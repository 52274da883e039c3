"""Home Assistant's own SmartThings integration as a SmartThings account, read duck-typed.

Its loaded config entry holds ``runtime_data`` with ``devices`` (deviceId -> an object
whose ``device`` is pysmartthings' ``Device``), ``rooms`` (roomId -> name) and ``client``,
an authenticated pysmartthings ``SmartThings`` whose OAuth token Home Assistant refreshes.
That integration is never imported (its library need not be installed): the raw device
JSON (``client.get_raw_devices()``, which also gives ``profile.id``) is read for the
devices the entry has, and commands go through ``client.execute_device_command``.
Without ``get_raw_devices`` the device models stand in (no profile: the capability table
gives the commands).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigEntryState

from .clients.smartthings import (
    SmartThingsAuthError,
    SmartThingsConnectionError,
    SmartThingsError,
    SmartThingsResponseError,
)
from .smartthings_source import SMARTTHINGS_DOMAIN, Items

if TYPE_CHECKING:
    from homeassistant.config_entries import ConfigEntry
    from homeassistant.core import HomeAssistant

AUTH_ERRORS = frozenset({"SmartThingsAuthenticationFailedError", "SmartThingsForbiddenError"})
"""pysmartthings' errors for a refused token (matched by name: the library is not imported)."""
COMMAND_ERRORS = frozenset({"SmartThingsCommandError"})
"""pysmartthings' error for a command SmartThings refused (409, 422)."""


class SmartThingsEntryUnavailableError(SmartThingsError):
    """Home Assistant's SmartThings integration has no loaded entry."""


@dataclass(slots=True)
class HomeAssistantAccount:
    """The account of Home Assistant's SmartThings config entry (the first loaded one)."""

    hass: HomeAssistant
    standalone = False
    """Home Assistant registers every device the entry holds: none is a device of its own."""

    def entry(self) -> ConfigEntry | None:
        """Return the loaded SmartThings entry, else the first one (None: there is none)."""
        entries = self.hass.config_entries.async_entries(SMARTTHINGS_DOMAIN)
        loaded = [entry for entry in entries if entry.state is ConfigEntryState.LOADED]
        return (loaded or entries or [None])[0]

    @staticmethod
    def _runtime_data(entry: ConfigEntry | None) -> Any:
        """Return the loaded entry's runtime data, or say why there is none."""
        if entry is None:
            raise SmartThingsEntryUnavailableError("Home Assistant's SmartThings integration is not set up")
        if entry.state is not ConfigEntryState.LOADED:
            raise SmartThingsEntryUnavailableError(
                f"Home Assistant's SmartThings entry {entry.title!r} is {entry.state.value}"
            )
        return entry.runtime_data

    async def async_read(self) -> tuple[Items, Items]:
        """Return the raw items of the devices the entry has, and its rooms (none without an entry)."""
        entry = self.entry()
        if entry is None:
            return [], []
        data = self._runtime_data(entry)
        rooms: Items = [{"roomId": room_id, "name": name} for room_id, name in dict(data.rooms).items()]
        models = dict(data.devices)
        get_raw_devices = getattr(data.client, "get_raw_devices", None)
        if get_raw_devices is None:
            return [_item_from_model(full.device) for full in models.values()], rooms
        answer = await _async_call(get_raw_devices())
        items = [item for item in _raw_items(answer) if item.get("deviceId") in models]
        return items, rooms

    async def async_execute(self, device_id: str, command: Mapping[str, Any]) -> Any:
        """Send one command through the entry's client (``execute_device_command``)."""
        data = self._runtime_data(self.entry())
        await _async_call(
            data.client.execute_device_command(
                device_id,
                command["capability"],
                command["command"],
                command["component"],
                list(command.get("arguments") or []) or None,
            )
        )
        return {"status": "sent"}  # pysmartthings answers nothing

    def diagnostics(self) -> dict[str, Any]:
        """Return the entry the account is, and its state."""
        entry = self.entry()
        return {
            "account": "home_assistant",
            "entry_id": entry.entry_id if entry else None,
            "entry_state": entry.state.value if entry else None,
        }


async def _async_call(awaitable: Any) -> Any:
    """Await a pysmartthings call; its errors become ours (a refused token: ``SmartThingsAuthError``)."""
    try:
        return await awaitable
    except Exception as err:  # the library's errors cannot be imported: told apart by name
        name = type(err).__name__
        kind = (
            SmartThingsAuthError
            if name in AUTH_ERRORS
            else SmartThingsResponseError
            if name in COMMAND_ERRORS
            else SmartThingsConnectionError
        )
        raise kind(f"{name}: {err}") from err


def _raw_items(answer: Any) -> Items:
    """Return the device items of ``get_raw_devices``: a list of pages (4.x) or one page.

    pysmartthings hands back the body of a 429 or 5xx answer as a page: a page without
    ``items`` is an error, so the last good list is kept.
    """
    pages = answer if isinstance(answer, list) else [answer]
    items: Items = []
    for page in pages:
        if not isinstance(page, Mapping) or not isinstance(page.get("items"), list):
            error = page.get("error") if isinstance(page, Mapping) else None
            raise SmartThingsConnectionError(f"SmartThings answered no device list: {error or page!r}")
        items.extend(item for item in page["items"] if isinstance(item, Mapping))
    return items


def _item_from_model(device: Any) -> dict[str, Any]:
    """Return the ``GET /v1/devices`` item of a pysmartthings ``Device`` (no profile id)."""
    components = getattr(device, "components", None) or {}
    return {
        "deviceId": device.device_id,
        "label": getattr(device, "label", None) or getattr(device, "name", None),
        "roomId": getattr(device, "room_id", None),
        "components": [
            {
                "id": component_id,
                "capabilities": [{"id": str(capability)} for capability in component.capabilities],
                "categories": [
                    {"name": str(category)}
                    for category in (
                        getattr(component, "user_category", None),
                        getattr(component, "manufacturer_category", None),
                    )
                    if category
                ],
            }
            for component_id, component in components.items()
        ],
    }
