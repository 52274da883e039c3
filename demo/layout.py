"""The demo home's floors, areas and entities (``layout.yaml``) and how they are written into Home Assistant.

Everything goes through the websocket API a user's browser would use: the floor and
area registries, the entity registry (area, aliases, name, device class) and Assist
exposure. Applying the layout twice changes nothing the second time, so a kept demo
(``scripts/demo --serve``) can be brought up to date on every start.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from demo.api import WebSocketApi

LAYOUT_FILE = Path(__file__).with_name("layout.yaml")
ASSISTANT = "conversation"
"""The assistant the demo entities are exposed to (Assist)."""


class LayoutError(Exception):
    """The layout file is malformed or does not match the running Home Assistant."""


@dataclass(frozen=True, slots=True)
class Placement:
    """One entity of the demo home and what the entity registry should say about it."""

    entity_id: str
    aliases: tuple[str, ...] = ()
    """Other names; the entity keeps its own name as well."""
    name: str | None = None
    """A registry name, for entities whose configured name is their entity id."""
    device_class: str | None = None
    """A registry device class (template switches cannot configure one)."""

    def registry_update(self, area_id: str | None) -> dict[str, Any]:
        """Return the ``config/entity_registry/update`` fields for this entity."""
        # None stands for the entity's own name (er.COMPUTED_NAME): keep it among the aliases.
        fields: dict[str, Any] = {
            "entity_id": self.entity_id,
            "area_id": area_id,
            "aliases": [None, *self.aliases],
        }
        if self.name is not None:
            fields["name"] = self.name
        if self.device_class is not None:
            fields["device_class"] = self.device_class
        return fields


@dataclass(frozen=True, slots=True)
class Area:
    """An area (room) with its aliases and entities."""

    name: str
    aliases: tuple[str, ...]
    icon: str | None
    entities: tuple[Placement, ...]


@dataclass(frozen=True, slots=True)
class Floor:
    """A floor with its aliases and areas."""

    name: str
    aliases: tuple[str, ...]
    level: int | None
    icon: str | None
    areas: tuple[Area, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """The whole demo home."""

    floors: tuple[Floor, ...]
    unassigned: tuple[Placement, ...]
    """Entities exposed to Assist but in no area."""
    domain_states: Mapping[str, Any]
    """The initial state of the layout's entities, by domain."""
    entity_states: Mapping[str, Any]
    """The initial state of single entities (a state, or a dict with state and attributes)."""

    def areas(self) -> list[tuple[Floor, Area]]:
        """Return every area with its floor."""
        return [(floor, area) for floor in self.floors for area in floor.areas]

    def placements(self) -> Iterator[tuple[Area | None, Placement]]:
        """Yield every entity with its area (None for the unassigned ones)."""
        for _, area in self.areas():
            for placement in area.entities:
                yield area, placement
        for placement in self.unassigned:
            yield None, placement

    def entity_ids(self) -> list[str]:
        """Return the entity ids of the demo home, in layout order."""
        return [placement.entity_id for _, placement in self.placements()]

    def initial_states(self) -> dict[str, Any]:
        """Return the ``scene.apply`` entities that put the home in its initial state."""
        states = {
            entity_id: self.domain_states[entity_id.partition(".")[0]]
            for entity_id in self.entity_ids()
            if entity_id.partition(".")[0] in self.domain_states
        }
        return states | dict(self.entity_states)

    def summary(self) -> str:
        """Return the counts of floors, areas, entities and entities per domain."""
        domains = Counter(entity_id.partition(".")[0] for entity_id in self.entity_ids())
        per_domain = ", ".join(f"{domain} {count}" for domain, count in domains.most_common())
        entities = sum(domains.values())
        return f"{len(self.floors)} floors, {len(self.areas())} areas, {entities} entities ({per_domain})"


EMPTY_LAYOUT = Layout(floors=(), unassigned=(), domain_states={}, entity_states={})
"""No floors, areas or entities: applied, it leaves every entity unexposed."""


def _names(value: Any, where: str) -> tuple[str, ...]:
    """Return a list of names (aliases) from the layout file."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise LayoutError(f"{where}: aliases must be a list of names")
    return tuple(item.strip() for item in value)


def _placements(entities: Mapping[str, Any] | None, where: str) -> tuple[Placement, ...]:
    """Return the entities of an area (or the unassigned ones) from the layout file."""
    placements = []
    for entity_id, options in (entities or {}).items():
        options = options or {}  # noqa: PLW2901 - a bare key means no options
        if "." not in entity_id or not isinstance(options, dict):
            raise LayoutError(f"{where}: {entity_id!r} must be an entity id with optional settings")
        if unknown := set(options) - {"aliases", "name", "device_class"}:
            raise LayoutError(f"{where}: {entity_id}: unknown settings {sorted(unknown)}")
        placements.append(
            Placement(
                entity_id=entity_id,
                aliases=_names(options.get("aliases"), f"{where}: {entity_id}"),
                name=options.get("name"),
                device_class=options.get("device_class"),
            )
        )
    return tuple(placements)


def load_layout(path: Path = LAYOUT_FILE) -> Layout:
    """Return the layout in ``path``; raise LayoutError when it is malformed."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    floors = tuple(
        Floor(
            name=floor["name"],
            aliases=_names(floor.get("aliases"), floor["name"]),
            level=floor.get("level"),
            icon=floor.get("icon"),
            areas=tuple(
                Area(
                    name=area["name"],
                    aliases=_names(area.get("aliases"), area["name"]),
                    icon=area.get("icon"),
                    entities=_placements(area.get("entities"), area["name"]),
                )
                for area in floor.get("areas", ())
            ),
        )
        for floor in data["floors"]
    )
    initial = data.get("initial_state") or {}
    layout = Layout(
        floors=floors,
        unassigned=_placements(data.get("unassigned"), "unassigned"),
        domain_states=initial.get("domains") or {},
        entity_states=initial.get("entities") or {},
    )
    counts = Counter(layout.entity_ids())
    if duplicates := sorted(entity_id for entity_id, count in counts.items() if count > 1):
        raise LayoutError(f"entities placed twice: {duplicates}")
    if strangers := sorted(set(layout.entity_states) - set(counts)):
        raise LayoutError(f"initial states of entities not in the layout: {strangers}")
    names = Counter(area.name for _, area in layout.areas())
    if duplicates := sorted(name for name, count in names.items() if count > 1):
        raise LayoutError(f"areas named twice: {duplicates}")
    return layout


@dataclass(frozen=True, slots=True)
class AppliedLayout:
    """What applying the layout did."""

    floors_created: int
    areas_created: int
    entities_placed: int
    exposed: int
    unexposed: int


async def _async_create_or_update(
    ws: WebSocketApi, kind: str, known: dict[str, str], name: str, fields: dict[str, Any]
) -> bool:
    """Update the floor or area called ``name`` (``kind``), else create it; return True when created."""
    id_key = f"{kind}_id"
    if name in known:
        await ws.call(f"config/{kind}_registry/update", **{id_key: known[name]}, **fields)
        return False
    created = await ws.call(f"config/{kind}_registry/create", name=name, **fields)
    known[name] = created[id_key]
    return True


async def async_apply_layout(ws: WebSocketApi, layout: Layout) -> AppliedLayout:
    """Write the layout into Home Assistant: floors, areas, entities, Assist exposure.

    Floors and areas are matched by name, so the areas onboarding creates (客厅, 厨房,
    卧室 in Chinese) are reused. New entities stop being exposed by default, then
    exactly the layout's entities are exposed to Assist.
    """
    registered = {entry["entity_id"] for entry in await ws.call("config/entity_registry/list")}
    if missing := [entity_id for entity_id in layout.entity_ids() if entity_id not in registered]:
        raise LayoutError(f"entities of layout.yaml missing from Home Assistant: {', '.join(missing)}")

    await ws.call("homeassistant/expose_new_entities/set", assistant=ASSISTANT, expose_new=False)

    floor_ids = {floor["name"]: floor["floor_id"] for floor in await ws.call("config/floor_registry/list")}
    floors_created = 0
    for floor in layout.floors:
        fields = {"aliases": list(floor.aliases), "level": floor.level, "icon": floor.icon}
        floors_created += await _async_create_or_update(ws, "floor", floor_ids, floor.name, fields)

    area_ids = {area["name"]: area["area_id"] for area in await ws.call("config/area_registry/list")}
    areas_created = 0
    for floor, area in layout.areas():
        fields = {"aliases": list(area.aliases), "floor_id": floor_ids[floor.name]}
        if area.icon is not None:
            fields["icon"] = area.icon
        areas_created += await _async_create_or_update(ws, "area", area_ids, area.name, fields)

    for area, placement in layout.placements():
        area_id = area_ids[area.name] if area else None
        await ws.call("config/entity_registry/update", **placement.registry_update(area_id))

    wanted = layout.entity_ids()
    others = sorted({state["entity_id"] for state in await ws.call("get_states")} - set(wanted))
    for entity_ids, should_expose in ((wanted, True), (others, False)):
        if entity_ids:
            await ws.call(
                "homeassistant/expose_entity",
                assistants=[ASSISTANT],
                entity_ids=entity_ids,
                should_expose=should_expose,
            )
    return AppliedLayout(
        floors_created=floors_created,
        areas_created=areas_created,
        entities_placed=len(wanted),
        exposed=len(wanted),
        unexposed=len(others),
    )


async def async_set_initial_states(ws: WebSocketApi, layout: Layout) -> int:
    """Put the home's entities in their initial state (one ``scene.apply``); return how many."""
    states = layout.initial_states()
    if not states:
        return 0
    await ws.call("call_service", domain="scene", service="apply", service_data={"entities": states})
    return len(states)
