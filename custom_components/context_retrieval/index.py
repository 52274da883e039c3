"""The home's retrieval index: built off the event loop, rebuilt (debounced) when the home changes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any

from homeassistant.components.conversation import DOMAIN as CONVERSATION_DOMAIN
from homeassistant.components.homeassistant.exposed_entities import (
    async_listen_entity_updates,
    async_should_expose,
)
from homeassistant.const import (
    ATTR_DEVICE_CLASS,
    ATTR_FRIENDLY_NAME,
    ATTR_SUPPORTED_FEATURES,
    EVENT_STATE_CHANGED,
)
from homeassistant.core import CALLBACK_TYPE, EventStateChangedData, HomeAssistant, State, callback
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers.debounce import Debouncer
from homeassistant.util import dt as dt_util

from .const import DOMAIN, LOGGER, REBUILD_COOLDOWN
from .core import Device, HomeIndex, build_vector_searcher, with_embedder
from .embeddings import EmbeddingUnavailable, RemoteEmbeddings, ThreadEmbedder
from .entities import HomeSnapshot, async_snapshot_home
from .entity_commands import DOMAIN_SPECS
from .smartthings_source import async_with_smartthings

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from .core import Room
    from .smartthings_source import SmartThingsSource

IGNORED_ENTITY_CHANGES = frozenset({"options"})
"""Entity registry changes that never change the index (async_should_expose itself writes options)."""
DEVICE_CHANGES = frozenset({"name", "name_by_user", "area_id", "disabled_by"})
"""Device registry changes that reach an entity's aliases or room."""


@dataclass(frozen=True, slots=True)
class BuiltHome:
    """One immutable build: the devices, their index and when it was made."""

    devices: tuple[Device, ...]
    rooms: tuple[Room, ...]
    index: HomeIndex
    built_at: datetime
    build_seconds: float
    by_id: dict[str, Device] = field(repr=False)
    remote_index: HomeIndex | None = None
    """The same index with the embedding endpoint's vectors (None: local embedder, or it failed)."""
    smartthings_ids: Mapping[str, str] = field(default_factory=dict)
    """The SmartThings deviceId of each device that has one (its commands run through SmartThings)."""

    def stats(self) -> dict[str, Any]:
        """Return figures about the build, for diagnostics."""
        return {
            "devices": len(self.devices),
            "rooms": len(self.rooms),
            "commands": sum(len(device.commands) for device in self.devices),
            "categories": sorted({device.category for device in self.devices}),
            "built_at": self.built_at.isoformat(),
            "build_seconds": round(self.build_seconds, 4),
            "remote_vectors": self.remote_index is not None,
        }


def build_home(snapshot: HomeSnapshot, remote: RemoteEmbeddings | None = None) -> BuiltHome:
    """Return the devices and index of a snapshot (CPU work: run it in an executor).

    With an embedding endpoint, the index is also built with its vectors (new command
    texts embedded, the rest from the cache); if the endpoint fails, the local index alone
    serves until a later build.
    """
    started = perf_counter()
    devices = tuple(snapshot.devices())
    index = build_vector_searcher(devices, rooms=snapshot.rooms)
    remote_index = None
    if remote is not None:
        try:
            remote_index = with_embedder(
                index, ThreadEmbedder(remote, documents=True), ThreadEmbedder(remote, documents=False)
            )
        except EmbeddingUnavailable as err:
            LOGGER.warning("Command texts could not be embedded (%s); the local embedder ranks them", err)
    return BuiltHome(
        devices=devices,
        rooms=snapshot.rooms,
        index=index,
        built_at=dt_util.utcnow(),
        build_seconds=perf_counter() - started,
        by_id={device.id: device for device in devices},
        remote_index=remote_index,
        smartthings_ids=snapshot.smartthings_ids,
    )


_READ_ATTRIBUTES = {
    domain: (spec.shaping_attributes, spec.readable_attributes) for domain, spec in DOMAIN_SPECS.items()
}
"""Per domain, the attributes whose values shape commands and those whose presence is read."""


def _frozen(value: Any) -> Any:
    """Return a hashable form of an attribute value (lists and mappings of options)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(key), _frozen(item)) for key, item in value.items()))
    return value


def _command_signature(state: State) -> tuple[Any, ...]:
    """Return what of a state shapes the entity's name and commands (not its changing values).

    That is its name, features and device class, the values of the attributes that
    shape commands (option lists, ranges, colour modes) and which readable attributes
    it has; a media player's title or position coming and going changes nothing.
    """
    attributes = state.attributes
    shaping, readable = _READ_ATTRIBUTES.get(state.domain, (frozenset(), frozenset()))
    return (
        attributes.get(ATTR_FRIENDLY_NAME),
        attributes.get(ATTR_SUPPORTED_FEATURES),
        attributes.get(ATTR_DEVICE_CLASS),
        tuple(sorted((key, _frozen(value)) for key, value in attributes.items() if key in shaping)),
        frozenset(key for key in attributes if key in readable),
    )


async def _async_build(
    hass: HomeAssistant, remote: RemoteEmbeddings | None, smartthings: SmartThingsSource | None
) -> BuiltHome:
    """Snapshot the home and its SmartThings devices on the loop; build it in the executor."""
    snapshot = async_snapshot_home(hass)
    if smartthings is not None:
        snapshot = async_with_smartthings(hass, snapshot, smartthings)
    built = await hass.async_add_executor_job(build_home, snapshot, remote)
    LOGGER.debug(
        "Indexed %d exposed entities in %d areas in %.3f s",
        len(built.devices),
        len(built.rooms),
        built.build_seconds,
    )
    return built


class HomeIndexManager:
    """Keep the current build of the home; rebuild it off the event loop when the home changes.

    A request always reads ``current``; a rebuild swaps it in only when complete, so a
    request that arrives during a rebuild uses the previous index.
    """

    def __init__(
        self,
        hass: HomeAssistant,
        remote: RemoteEmbeddings | None = None,
        smartthings: SmartThingsSource | None = None,
    ) -> None:
        """Prepare a manager; ``async_create`` builds the home the first time."""
        self.hass = hass
        self.remote = remote
        """The embedding endpoint, when the openai backend is configured."""
        self.smartthings = smartthings
        """The SmartThings direct connection, when configured."""
        self._current: BuiltHome | None = None
        self.rebuilds = 0
        """Builds after the first."""
        self._debouncer: Debouncer[Any] = Debouncer(
            hass, LOGGER, cooldown=REBUILD_COOLDOWN, immediate=False, function=self.async_rebuild
        )
        self._unsubscribe: list[CALLBACK_TYPE] = []
        self._build_lock = asyncio.Lock()
        """Held by the build under way (the refresh action and the debouncer may both ask)."""
        self._changed_while_building = False

    @property
    def current(self) -> BuiltHome:
        """Return the latest complete build (there is one once ``async_create`` returned)."""
        if self._current is None:
            raise RuntimeError("the home has not been indexed yet")
        return self._current

    @classmethod
    async def async_create(
        cls,
        hass: HomeAssistant,
        remote: RemoteEmbeddings | None = None,
        smartthings: SmartThingsSource | None = None,
    ) -> HomeIndexManager:
        """Return a manager holding a first build of the home and following its changes.

        It listens before the first build, so a change made while that build runs is
        built again right after it.
        """
        manager = cls(hass, remote, smartthings)
        manager.async_listen()
        try:
            await manager.async_rebuild()
        except BaseException:
            manager.async_stop()
            raise
        return manager

    async def async_rebuild(self) -> None:
        """Build the home again and swap the new build in; build again if it changed meanwhile."""
        async with self._build_lock:
            first = self._current is None
            self._changed_while_building = False
            self._current = await _async_build(self.hass, self.remote, self.smartthings)
        self.rebuilds += not first
        if self._changed_while_building:
            self.async_schedule_rebuild()

    @callback
    def async_schedule_rebuild(self, *_: Any) -> None:
        """Rebuild after the home has been quiet for a moment."""
        if self._build_lock.locked():
            # The build under way may have read the home before this change.
            self._changed_while_building = True
        self._debouncer.async_schedule_call()

    @callback
    def _entity_change_matters(self, event_data: er.EventEntityRegistryUpdatedData) -> bool:
        """Return True unless the registry only recorded options (exposure defaults), or it is our agent."""
        entry = er.async_get(self.hass).async_get(event_data["entity_id"])
        if entry is not None and entry.platform == DOMAIN:
            return False
        if event_data["action"] != "update":
            return True
        return not set(event_data["changes"]) <= IGNORED_ENTITY_CHANGES

    @callback
    def _device_change_matters(self, event_data: dr.EventDeviceRegistryUpdatedData) -> bool:
        """Return True when a device was added, removed, renamed or moved (not this integration's own)."""
        device = dr.async_get(self.hass).async_get(event_data["device_id"])
        if device is not None and any(domain == DOMAIN for domain, _ in device.identifiers):
            return False
        if event_data["action"] != "update":
            return True
        return bool(DEVICE_CHANGES & set(event_data["changes"]))

    @callback
    def _state_change_matters(self, event_data: EventStateChangedData) -> bool:
        """Return True when an exposed entity is added, removed, renamed or reshaped."""
        entity_id = event_data["entity_id"]
        known = self._current is None or entity_id in self._current.by_id
        if not known and not async_should_expose(self.hass, CONVERSATION_DOMAIN, entity_id):
            return False
        old, new = event_data["old_state"], event_data["new_state"]
        if old is None or new is None:
            return True
        return _command_signature(old) != _command_signature(new)

    @callback
    def async_listen(self) -> None:
        """Rebuild on registry, state (added, removed, renamed, reshaped) and exposure changes."""
        bus = self.hass.bus
        schedule = self.async_schedule_rebuild
        self._unsubscribe = [
            bus.async_listen(
                er.EVENT_ENTITY_REGISTRY_UPDATED, schedule, event_filter=self._entity_change_matters
            ),
            bus.async_listen(
                dr.EVENT_DEVICE_REGISTRY_UPDATED, schedule, event_filter=self._device_change_matters
            ),
            bus.async_listen(ar.EVENT_AREA_REGISTRY_UPDATED, schedule),
            bus.async_listen(fr.EVENT_FLOOR_REGISTRY_UPDATED, schedule),
            bus.async_listen(EVENT_STATE_CHANGED, schedule, event_filter=self._state_change_matters),
            async_listen_entity_updates(self.hass, CONVERSATION_DOMAIN, schedule),
        ]

    @callback
    def async_stop(self) -> None:
        """Stop listening and drop any pending rebuild."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self._debouncer.async_shutdown()
