"""Quality on independently written homes: a SmartThings home and a Home Assistant home.

Each set (``benchmarks/data/<set>/``) holds a SmartThings-shaped home (``home/``: rooms,
profiles, devices and labelled utterances), a Home Assistant home (``ha/home.yaml`` with
floors, areas, devices and entity states; ``ha/utterances.jsonl``) and a paraphrase test
(``paraphrase.jsonl``, see ``benchmarks.paraphrase``). Every utterance carries its gold
parse and one expected target per gold command: the device ids (the whole set for
``all``/``except``), the capability ids that carry it, and its quantifier.

The Home Assistant home is loaded into a real Home Assistant test instance (floors, areas
with aliases, devices, registry entries, states, exposure) and read through the
integration's own snapshot, so its devices are exactly what the integration indexes.

Metrics per expected target (``top_k=5``, a fresh ``ConversationState`` per utterance):
device recall@5 (share of the expected devices among the candidates, groups expanded),
hit@1 (``q=one``: the top candidate is an expected device), exact set (``all``/``except``:
the devices returned equal the expected set), capability hit@5 (a top-5 candidate has an
expected capability and covers an expected device). A target is scored against the result
of the same position when the parse gave as many commands as the gold, else against the
result that covers it best.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass
from statistics import fmean
from typing import TYPE_CHECKING, Any

import yaml
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.context_retrieval.core import (
    ConversationState,
    Room,
    build_vector_searcher,
    devices_from_smartthings,
    load_spec,
    retrieve,
)
from custom_components.context_retrieval.entities import async_snapshot_home

from .data import REPO_ROOT, GoldLLM, read_records
from .hass_instance import test_home_assistant
from .quality import Target, expand

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from custom_components.context_retrieval.core import Device, RetrievalResult

DATA = REPO_ROOT / "benchmarks" / "data"
TOP_K = 5
MODES = ("gold", "offline")
BULK = frozenset({"all", "except"})
METRICS = ("recall", "hit1", "exact_set", "capability")
METRIC_TITLES = {
    "recall": "device recall@5",
    "hit1": "hit@1 (q=one)",
    "exact_set": "exact set (all/except)",
    "capability": "capability hit@5",
}


@dataclass(frozen=True, slots=True)
class ExpectedTarget:
    """What one gold command must find."""

    device_ids: frozenset[str]
    capability_ids: frozenset[str]
    quantifier: str


@dataclass(frozen=True, slots=True)
class LabelledUtterance:
    """One utterance of a labelled home."""

    id: str
    kind: str
    """Its failure class (``name_vs_type``, ``questions``, ...)."""
    text: str
    gold: tuple[dict[str, Any], ...]
    targets: tuple[ExpectedTarget, ...]


@dataclass(frozen=True, slots=True)
class LabelledHome:
    """A home and its utterances."""

    name: str
    devices: list[Device]
    rooms: tuple[Room, ...]
    utterances: list[LabelledUtterance]


def load_utterances(path: Path) -> list[LabelledUtterance]:
    """Read labelled utterances (one JSON object per line)."""
    return [
        LabelledUtterance(
            id=record["id"],
            kind=record["class"],
            text=record["text"],
            gold=tuple(record["gold_commands"]),
            targets=tuple(
                ExpectedTarget(
                    frozenset(target["device_ids"]), frozenset(target["capability_ids"]), target["q"]
                )
                for target in record["targets"]
            ),
        )
        for record in read_records(path)
    ]


def load_smartthings_home(directory: Path) -> LabelledHome:
    """Load the SmartThings-shaped home of a set through the public converter."""
    home = directory / "home"
    spec = load_spec(home / "spec.jsonl")
    devices = devices_from_smartthings(
        read_records(home / "devices.jsonl"), read_records(home / "rooms.jsonl"), spec
    )
    return LabelledHome(
        f"{directory.name}: SmartThings home", devices, (), load_utterances(home / "utterances.jsonl")
    )


def load_ha_home(directory: Path) -> LabelledHome:
    """Load the Home Assistant home of a set the way the integration reads a real one."""
    layout = yaml.safe_load((directory / "ha" / "home.yaml").read_text(encoding="utf-8"))
    devices, rooms = asyncio.run(_async_snapshot(layout))
    return LabelledHome(
        f"{directory.name}: Home Assistant home",
        devices,
        rooms,
        load_utterances(directory / "ha" / "utterances.jsonl"),
    )


async def _async_snapshot(layout: dict[str, Any]) -> tuple[list[Device], tuple[Room, ...]]:
    """Create the layout in a Home Assistant test instance; return its devices and rooms."""
    async with test_home_assistant() as hass:
        await async_create_layout(hass, layout)
        snapshot = async_snapshot_home(hass)
        devices, rooms = snapshot.devices(), snapshot.rooms
        await hass.async_stop(force=True)
    return devices, rooms


async def async_create_layout(hass: HomeAssistant, layout: dict[str, Any]) -> None:
    """Create a ``home.yaml`` layout: floors, areas, devices, entities with their states, exposure."""
    owner = MockConfigEntry(domain="labelled_home")
    owner.add_to_hass(hass)
    floors, areas = fr.async_get(hass), ar.async_get(hass)
    device_registry, entity_registry = dr.async_get(hass), er.async_get(hass)
    floor_ids = {}
    for floor in layout.get("floors", []):
        created = floors.async_create(floor["name"], aliases=set(floor.get("aliases", [])))
        floor_ids[floor["id"]] = created.floor_id
    area_ids = {}
    for area in layout.get("areas", []):
        created = areas.async_create(
            area["name"], aliases=set(area.get("aliases", [])), floor_id=floor_ids.get(area.get("floor"))
        )
        area_ids[area["id"]] = created.id
    device_ids = {}
    for device in layout.get("devices", []):
        created = device_registry.async_get_or_create(
            config_entry_id=owner.entry_id,
            identifiers={("labelled_home", device["id"])},
            name=device["name"],
        )
        device_registry.async_update_device(
            created.id, name_by_user=device.get("name_by_user"), area_id=area_ids.get(device.get("area"))
        )
        device_ids[device["id"]] = created.id
    for entity in layout["entities"]:
        domain, _, object_id = entity["entity_id"].partition(".")
        entry = entity_registry.async_get_or_create(
            domain,
            "labelled_home",
            entity["entity_id"],
            suggested_object_id=object_id,
            config_entry=owner,
            device_id=device_ids.get(entity.get("device")),
        )
        entry = entity_registry.async_update_entity(
            entry.entity_id,
            new_entity_id=entity["entity_id"],
            # Home Assistant gives an entity an area of its own only with a name of its own
            name=entity["name"] if entity.get("device") and entity.get("area") else None,
            area_id=area_ids.get(entity.get("area")),
            aliases=[er.COMPUTED_NAME, *entity.get("aliases", [])],
        )
        attributes = {"friendly_name": entity["name"], **(entity.get("attributes") or {})}
        hass.states.async_set(entity["entity_id"], str(entity.get("state", "unknown")), attributes)
        async_expose_entity(
            hass, "conversation", entity["entity_id"], should_expose=entity.get("exposed", True)
        )
    await hass.async_block_till_done()


# --- scoring -----------------------------------------------------------------------------------


def _covered(result: RetrievalResult, k: int = TOP_K) -> set[str]:
    """Return the devices of a result's first ``k`` candidates, groups expanded."""
    return {device for candidate in result.candidates[:k] for device in expand(candidate, result)}


def _returned_set(result: RetrievalResult) -> set[str]:
    """Return every device a result lists (all groups' members and device candidates)."""
    members = {device for group in result.groups.values() for device in group.device_ids}
    return members | {c.entity_id for c in result.candidates if c.entity_kind == "device"}


def _recall(target: ExpectedTarget, result: RetrievalResult) -> float:
    """Return the share of the target's devices a result covers."""
    return len(target.device_ids & _covered(result)) / len(target.device_ids) if target.device_ids else 1.0


def score_target(target: ExpectedTarget, result: RetrievalResult | None) -> dict[str, bool | float | None]:
    """Return the metrics of one expected target against the result meant for it."""
    if result is None:
        return {
            "recall": 0.0,
            "hit1": False if target.quantifier not in BULK else None,
            "exact_set": False if target.quantifier in BULK else None,
            "capability": False,
        }
    top = expand(result.candidates[0], result) if result.candidates else set()
    return {
        "recall": _recall(target, result),
        "hit1": bool(top & target.device_ids) if target.quantifier not in BULK else None,
        "exact_set": _returned_set(result) == target.device_ids if target.quantifier in BULK else None,
        "capability": any(
            candidate.capability_id in target.capability_ids and expand(candidate, result) & target.device_ids
            for candidate in result.candidates[:TOP_K]
        ),
    }


def align(
    targets: Sequence[ExpectedTarget], results: Sequence[RetrievalResult]
) -> list[RetrievalResult | None]:
    """Return the result each target is scored against."""
    if len(targets) == len(results):
        return list(results)
    return [max(results, key=lambda result: _recall(target, result), default=None) for target in targets]


@dataclass(slots=True)
class TargetOutcome:
    """The scores of one expected target in one mode."""

    utterance: LabelledUtterance
    number: int
    scores: dict[str, bool | float | None]
    results: list[RetrievalResult]

    @property
    def failed(self) -> bool:
        """Return whether any metric missed."""
        return any(
            value is False or (isinstance(value, float) and value < 1.0) for value in self.scores.values()
        )


def evaluate(home: LabelledHome, mode: str) -> list[TargetOutcome]:
    """Run every utterance of a home in one mode; return one outcome per expected target."""
    index = build_vector_searcher(home.devices, rooms=home.rooms)
    llm = GoldLLM({u.text: list(u.gold) for u in home.utterances}) if mode == "gold" else None
    outcomes = []
    for utterance in home.utterances:
        results = retrieve(
            utterance.text, home.devices, llm, ConversationState(), TOP_K, vector_searcher=index
        )
        outcomes += score_utterance(utterance, results)
    return outcomes


def score_utterance(utterance: LabelledUtterance, results: list[RetrievalResult]) -> list[TargetOutcome]:
    """Return one outcome per expected target of an utterance, however its results were retrieved."""
    return [
        TargetOutcome(utterance, number, score_target(target, result), results)
        for number, (target, result) in enumerate(
            zip(utterance.targets, align(utterance.targets, results), strict=True)
        )
    ]


def summarise(outcomes: Sequence[TargetOutcome]) -> dict[str, tuple[float, int]]:
    """Return each metric's mean and number of scored targets."""
    summary = {}
    for metric in METRICS:
        values = [float(o.scores[metric]) for o in outcomes if o.scores[metric] is not None]
        summary[metric] = (fmean(values) if values else float("nan"), len(values))
    return summary


def _cell(value: tuple[float, int]) -> str:
    mean, count = value
    return "-" if not count else f"{mean:.3f} ({count})"


def render_home(home: LabelledHome, runs: dict[str, list[TargetOutcome]]) -> list[str]:
    """Return a home's tables: metrics per mode, then per class and mode."""
    lines = [
        f"### {home.name} ({len(home.devices)} devices, {len(home.utterances)} utterances)",
        "",
        "| parse | " + " | ".join(METRIC_TITLES[m] for m in METRICS) + " |",
        "|---|" + "---|" * len(METRICS),
    ]
    for mode, outcomes in runs.items():
        summary = summarise(outcomes)
        lines.append(f"| {mode} | " + " | ".join(_cell(summary[m]) for m in METRICS) + " |")
    lines += ["", "| class | parse | " + " | ".join(METRIC_TITLES[m] for m in METRICS) + " |"]
    lines.append("|---|---|" + "---|" * len(METRICS))
    by_class: dict[str, dict[str, list[TargetOutcome]]] = defaultdict(lambda: defaultdict(list))
    for mode, outcomes in runs.items():
        for outcome in outcomes:
            by_class[outcome.utterance.kind][mode].append(outcome)
    for kind in sorted(by_class):
        for mode, outcomes in by_class[kind].items():
            summary = summarise(outcomes)
            lines.append(f"| {kind} | {mode} | " + " | ".join(_cell(summary[m]) for m in METRICS) + " |")
    return lines


def describe_failure(outcome: TargetOutcome, devices: dict[str, Device]) -> str:
    """Return one line saying what a failed target wanted and what came back."""
    utterance = outcome.utterance
    target = utterance.targets[outcome.number]

    def label(device_id: str) -> str:
        device = devices.get(device_id)
        return f"{device.room}/{device.name}" if device else device_id

    wanted = ", ".join(sorted(map(label, target.device_ids))[:4]) + (
        " +" if len(target.device_ids) > 4 else ""
    )
    missed = [
        metric
        for metric, value in outcome.scores.items()
        if value is False or (isinstance(value, float) and value < 1.0)
    ]
    got = []
    for result in outcome.results:
        listed = []
        for candidate in result.candidates[:3]:
            members = sorted(expand(candidate, result))
            who = label(members[0]) if len(members) == 1 else f"{candidate.entity_id}[{len(members)}]"
            listed.append(f"{who} {candidate.capability_id} {candidate.total_score:.2f}")
        command = "·".join(str(v) for v in result.command.to_dict().values())
        got.append(f"`{command}` → " + ("; ".join(listed) or f"nothing ({result.hint})"))
    return (
        f"- **{utterance.id}** [{utterance.kind}] {utterance.text} ({', '.join(missed)}): want {wanted} / "
        f"{', '.join(sorted(target.capability_ids)[:3])}; got " + " ‖ ".join(got)
    )


TUNED_ON = ("heldout_a",)
"""Sets used while tuning the engine: regression suites now, not measures."""
SEALED = ("sealed_b", "sealed_c")
"""Sets nobody looked at while tuning: the honest figures (tables only, no failures listed).

Set B's tables were seen after each round of issue 6's changes; set C's first at its end."""
TARGETS: dict[tuple[str, str], Target] = {
    ("gold", "hit1"): Target(0.97),
    ("gold", "exact_set"): Target(0.95),
    ("gold", "capability"): Target(0.97),
    ("offline", "recall"): Target(0.92),
}
"""Issue 6's targets (and recall@5 >= 0.97 with gold parses on Home Assistant homes)."""
HA_GOLD_RECALL = Target(0.97)


def labelled_homes_checks(figures: dict[str, Any]) -> list[tuple[str, str, float, Target]]:
    """Return the target checks of the sealed sets' figures."""
    checks = []
    for home, modes in figures.items():
        if not home.startswith(SEALED):
            continue
        for (mode, metric), target in TARGETS.items():
            checks.append(
                (f"held-out, {home}", f"{mode} {METRIC_TITLES[metric]}", modes[mode][metric][0], target)
            )
        if "Home Assistant" in home:
            checks.append(
                (f"held-out, {home}", "gold device recall@5", modes["gold"]["recall"][0], HA_GOLD_RECALL)
            )
    return checks


def labelled_homes_section(set_names: Sequence[str], *, failures: bool = True) -> tuple[str, dict[str, Any]]:
    """Measure every home of the named sets; return Markdown and the figures by home and mode."""
    lines = ["## Independently written homes", ""]
    figures: dict[str, Any] = {}
    for set_name in set_names:
        directory = DATA / set_name
        for home in (load_smartthings_home(directory), load_ha_home(directory)):
            runs = {mode: evaluate(home, mode) for mode in MODES}
            figures[home.name] = {mode: summarise(outcomes) for mode, outcomes in runs.items()}
            lines += [*render_home(home, runs), ""]
            if failures and directory.name not in SEALED:
                by_id = {device.id: device for device in home.devices}
                for mode, outcomes in runs.items():
                    failed = [o for o in outcomes if o.failed]
                    lines += [f"Failures, {mode} ({len(failed)} of {len(outcomes)} targets):", ""]
                    lines += [describe_failure(o, by_id) for o in failed] or ["none"]
                    lines.append("")
    return "\n".join(lines), figures


def main() -> None:
    """Print the section for the sets named on the command line (default: heldout_a).

    ``--no-failures`` prints the tables only (for a sealed set).
    """
    import sys

    arguments = sys.argv[1:]
    names = [name for name in arguments if not name.startswith("--")] or ["heldout_a"]
    text, _ = labelled_homes_section(names, failures="--no-failures" not in arguments)
    print(text)


if __name__ == "__main__":
    main()
