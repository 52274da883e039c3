"""SmartThings through the direct connection: recall through the service, refresh time, memory.

Each SmartThings home is served over local HTTP by ``SmartThingsReplay``
(``demo/smartthings_replay.py``). The integration is set up in a Home Assistant test instance
with the replay's token and location and the home's spec file, its REST client pointed at the
replay (``clients.smartthings.API_ROOT``, as the tests' ``smartthings`` fixture does). Once the
index holds the account's devices, ``context_retrieval.retrieve`` is called once per labelled
utterance (``top_k=5``, no conversation id: a fresh state each), the parse coming from a local
OpenAI-compatible server that answers the gold command array. The responses are scored with the
metrics of the engine's own figures (``benchmarks.quality`` for the shared home,
``benchmarks.labelled_homes`` for the sets), next to core ``retrieve`` given the same gold
parses on the devices built directly from the dump. *Answers unlike the engine's* counts utterances
whose service answer (each command, its hint, its candidates in order with their command,
devices and score) is not the engine's.

The refresh figures time ``async_refresh()`` of a loaded entry's ``SmartThingsSource`` against
1,000 devices (the shared 30 cloned with new ids, names and rooms by
``benchmarks.data.synthetic_smartthings``) served in pages of 200, the page SmartThings gives
``GET /v1/devices`` unasked (home-assistant/core#140419: an account of 280 devices listed 200
and a link to the next page), then whole index rebuilds and the longest the event loop waited
in one. The memory of the last good read is what tracemalloc sees a fresh read hold while
the index keeps the previous read's devices.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import tracemalloc
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from time import perf_counter
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.context_retrieval.clients import smartthings as smartthings_client
from custom_components.context_retrieval.const import (
    ATTR_TEXT,
    ATTR_TOP_K,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_SMARTTHINGS_LOCATION_ID,
    CONF_SMARTTHINGS_SPEC,
    CONF_SMARTTHINGS_TOKEN,
    DOMAIN,
    REBUILD_COOLDOWN,
    SERVICE_RETRIEVE,
)
from custom_components.context_retrieval.core import (
    Candidate,
    Command,
    Group,
    Quantifier,
    RetrievalResult,
    devices_from_smartthings,
)
from custom_components.context_retrieval.retrieval import FIELD_SEPARATOR, SCORE_DIGITS
from demo.smartthings_replay import LOCATION, TOKEN, SmartThingsReplay

from .data import GoldLLM, data_dir, read_records, synthetic_smartthings
from .ha_service import MAX_LOOP_BLOCK_MS, _longest_block_during, chat_server
from .hass_instance import test_home_assistant
from .labelled_homes import (
    DATA,
    METRIC_TITLES,
    METRICS,
    SEALED,
    evaluate,
    load_smartthings_home,
    score_utterance,
    summarise,
)
from .quality import TOP_K, ModeReport, Target, expand, run_mode, score_case

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from custom_components.context_retrieval.core import Device

    from .data import Dataset

LABELLED_SETS = ("sealed_c", "heldout_a")
"""Set C's SmartThings home (the freshest held-out one) and set A's (tuned on)."""
RECALL_PAGE_SIZE = 25
"""Devices per page while measuring recall, so that every home spans several pages."""
PAGE_SIZE = 200
"""SmartThings' page of ``GET /v1/devices`` when none is asked for."""
REFRESH_DEVICES = 1000
REFRESHES = {True: 15, False: 40}
"""Timed refreshes, quick and full mode."""
REBUILDS = {True: 5, False: 15}
"""Timed index rebuilds, quick and full mode."""
CONVERSIONS = 5
MAX_SETTLE_ROUNDS = 20
MAX_LISTED_DIFFERENCES = 5
MB = 1024 * 1024

type Figures = dict[str, tuple[float, int]]
"""Mean and number of scored targets of each metric (``labelled_homes.METRICS``)."""


@dataclass(frozen=True, slots=True)
class BridgedHome:
    """One home measured through the service and through core ``retrieve``."""

    name: str
    devices: int
    utterances: int
    same_devices: bool
    """The integration indexed exactly the devices core builds from the dump."""
    service: Figures
    engine: Figures
    differing: list[str]
    """Ids of the utterances whose service answer is not the engine's."""
    sealed: bool
    not_parsed_by_llm: int
    """Utterances the service did not parse with the gold server's answer (``meta.parse``)."""


@dataclass(frozen=True, slots=True)
class RefreshFigures:
    """Refreshes of a 1,000-device account through a loaded entry."""

    devices: int
    requests: int
    """HTTP requests per refresh (device pages and rooms)."""
    payload_mb: float
    """JSON of the device pages."""
    refresh_s: list[float]
    conversion_s: list[float]
    """``devices_from_smartthings`` on the same items, outside the refresh."""
    rebuild_s: list[float]
    build_s: list[float]
    """The part of each rebuild spent building the index in the executor."""
    loop_block_ms: float
    """The longest the event loop went without running during one more rebuild."""
    held_bytes: int
    peak_bytes: int


# --- the integration on a replayed account ------------------------------------------------------


async def _async_until_indexed(hass: HomeAssistant, entry: MockConfigEntry, device_ids: set[str]) -> None:
    """Let the background read finish and the debounced rebuild run until the index has the devices."""
    for _ in range(MAX_SETTLE_ROUNDS):
        await hass.async_block_till_done(wait_background_tasks=True)
        async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=REBUILD_COOLDOWN + 1))
        await hass.async_block_till_done()
        if device_ids <= entry.runtime_data.index.current.by_id.keys():
            return
    raise RuntimeError("the index never held the replayed SmartThings devices")


@asynccontextmanager
async def bridged_entry(
    hass: HomeAssistant, replay: SmartThingsReplay, spec: Path, llm_url: str | None = None
) -> AsyncIterator[MockConfigEntry]:
    """Yield a loaded entry reading the replayed account, once its devices are indexed."""
    await replay.start()
    options = {
        CONF_SMARTTHINGS_TOKEN: TOKEN,
        CONF_SMARTTHINGS_LOCATION_ID: LOCATION,
        CONF_SMARTTHINGS_SPEC: str(spec),
    }
    if llm_url is not None:
        options |= {CONF_LLM_BASE_URL: llm_url, CONF_LLM_MODEL: "gold", CONF_LLM_API_KEY: "key"}
    try:
        with patch.object(smartthings_client, "API_ROOT", replay.base_url):
            entry = MockConfigEntry(domain=DOMAIN, options=options)
            entry.add_to_hass(hass)
            if not await hass.config_entries.async_setup(entry.entry_id):
                raise RuntimeError("the integration did not set up")
            await _async_until_indexed(hass, entry, {item["deviceId"] for item in replay.devices})
            yield entry
            await hass.config_entries.async_unload(entry.entry_id)
    finally:
        await replay.close()


def result_from_json(data: dict[str, Any]) -> RetrievalResult:
    """Return the engine's result a service response's result was made from (scores as rounded)."""
    candidates, groups = [], {}
    for found in data["candidates"]:
        capability = found["capability_id"]
        if "field" in found:
            capability = f"{capability}{FIELD_SEPARATOR}{found['field']}"
        candidates.append(
            Candidate(
                found["entity_id"],
                found["kind"],
                capability,
                found["keyword_score"],
                found["vector_score"],
                found["score"],
                found["reasons"],
            )
        )
        if found["kind"] == "group":
            groups[found["entity_id"]] = Group(
                found["entity_id"], found["name"], found["device_ids"], capability
            )
    command = Command(**{**data["command"], "q": Quantifier(data["command"]["q"])})
    return RetrievalResult(command, candidates, data["hint"], groups, data["meta"])


def answer_of(results: Sequence[RetrievalResult]) -> list[Any]:
    """Return what a comparison of two answers looks at (scores as the service rounds them)."""
    return [
        (
            result.command.to_dict(),
            result.hint,
            [
                (c.entity_id, c.capability_id, sorted(expand(c, result)), round(c.total_score, SCORE_DIGITS))
                for c in result.candidates
            ],
        )
        for result in results
    ]


async def _async_service_answers(
    items: list[dict[str, Any]], rooms: list[dict[str, Any]], spec: Path, gold: GoldLLM, texts: list[str]
) -> tuple[list[Device], list[list[RetrievalResult]]]:
    """Serve a home, ask the service about every text; return the indexed devices and the answers."""
    replay = SmartThingsReplay(items, rooms, page_size=RECALL_PAGE_SIZE)
    async with (
        test_home_assistant() as hass,
        chat_server(lambda text: gold.complete("", text)) as llm_url,
        bridged_entry(hass, replay, spec, llm_url) as entry,
    ):
        devices = list(entry.runtime_data.index.current.devices)
        answers = []
        for text in texts:
            response = await hass.services.async_call(
                DOMAIN,
                SERVICE_RETRIEVE,
                {ATTR_TEXT: text, ATTR_TOP_K: TOP_K},
                blocking=True,
                return_response=True,
            )
            answers.append([result_from_json(result) for result in response["results"]])
    return devices, answers


# --- recall through the service -----------------------------------------------------------------


def _mode_figures(report: ModeReport) -> Figures:
    """Return a ``benchmarks.quality`` report's metrics under the labelled homes' names."""
    count = len(report.outcomes)
    return {
        "recall": (report.recall(), count),
        "hit1": report.hit_at_1(),
        "exact_set": report.exact_set(),
        "capability": (report.capability(), count),
    }


def _differing(ids: Sequence[str], service: Sequence[list[Any]], engine: Sequence[list[Any]]) -> list[str]:
    """Return the ids whose two answers differ."""
    return [case_id for case_id, ours, theirs in zip(ids, service, engine, strict=True) if ours != theirs]


def _not_parsed_by_llm(answers: Sequence[list[RetrievalResult]]) -> int:
    """Return how many answers have a result the LLM did not parse."""
    return sum(any(result.meta.get("parse") != "llm" for result in answer) for answer in answers)


def bridge_shared_home(dataset: Dataset) -> BridgedHome:
    """Measure the shared home's labelled utterances through the service and through core."""
    gold = GoldLLM(dataset.gold_texts())
    cases = dataset.pipeline_cases
    devices, answers = asyncio.run(
        _async_service_answers(
            dataset.items, dataset.rooms, data_dir() / "spec.jsonl", gold, [c.query for c in cases]
        )
    )
    service = ModeReport(
        "service", [score_case(c, a, dataset.devices) for c, a in zip(cases, answers, strict=True)]
    )
    engine = run_mode("gold", dataset)
    return BridgedHome(
        name=f"shared ({data_dir().name})",
        devices=len(dataset.devices),
        utterances=len(cases),
        same_devices=sorted(devices, key=lambda d: d.id) == sorted(dataset.devices, key=lambda d: d.id),
        service=_mode_figures(service),
        engine=_mode_figures(engine),
        differing=_differing(
            [c.id for c in cases],
            [answer_of(a) for a in answers],
            [answer_of(o.results) for o in engine.outcomes],
        ),
        sealed=False,
        not_parsed_by_llm=_not_parsed_by_llm(answers),
    )


def bridge_labelled_home(set_name: str) -> BridgedHome:
    """Measure a set's SmartThings home through the service and through core."""
    directory = DATA / set_name / "home"
    home = load_smartthings_home(DATA / set_name)
    gold = GoldLLM({u.text: list(u.gold) for u in home.utterances})
    devices, answers = asyncio.run(
        _async_service_answers(
            read_records(directory / "devices.jsonl"),
            read_records(directory / "rooms.jsonl"),
            directory / "spec.jsonl",
            gold,
            [u.text for u in home.utterances],
        )
    )
    service = [o for u, a in zip(home.utterances, answers, strict=True) for o in score_utterance(u, a)]
    engine = evaluate(home, "gold")
    engine_answers = {o.utterance.id: answer_of(o.results) for o in engine}
    return BridgedHome(
        name=f"{set_name} ({'sealed' if set_name in SEALED else 'tuned on'})",
        devices=len(home.devices),
        utterances=len(home.utterances),
        same_devices=sorted(devices, key=lambda d: d.id) == sorted(home.devices, key=lambda d: d.id),
        service=summarise(service),
        engine=summarise(engine),
        differing=_differing(
            [u.id for u in home.utterances],
            [answer_of(a) for a in answers],
            [engine_answers[u.id] for u in home.utterances],
        ),
        sealed=set_name in SEALED,
        not_parsed_by_llm=_not_parsed_by_llm(answers),
    )


# --- refresh time and memory at 1,000 devices ---------------------------------------------------


async def _async_timed(work: Callable[[], Awaitable[Any]]) -> float:
    """Return the seconds ``work`` took."""
    started = perf_counter()
    await work()
    return perf_counter() - started


async def _async_refresh_figures(dataset: Dataset, *, quick: bool) -> RefreshFigures:
    """Time refreshes and rebuilds of a loaded entry on 1,000 devices; measure the last good read."""
    items, rooms = synthetic_smartthings(dataset.items, dataset.rooms, REFRESH_DEVICES, tag="-st")
    conversion = []
    for _ in range(CONVERSIONS):
        started = perf_counter()
        devices_from_smartthings(items, rooms, dataset.spec)
        conversion.append(perf_counter() - started)
    replay = SmartThingsReplay(items, rooms, page_size=PAGE_SIZE)
    payload = sum(
        len(json.dumps(items[start : start + PAGE_SIZE], ensure_ascii=False).encode())
        for start in range(0, len(items), PAGE_SIZE)
    )
    async with test_home_assistant() as hass, bridged_entry(hass, replay, data_dir() / "spec.jsonl") as entry:
        source, manager = entry.runtime_data.smartthings, entry.runtime_data.index
        before = len(replay.requests)
        refresh = [await _async_timed(source.async_refresh) for _ in range(REFRESHES[quick])]
        requests = (len(replay.requests) - before) // len(refresh)
        rebuild, build = [], []
        for _ in range(REBUILDS[quick]):
            rebuild.append(await _async_timed(manager.async_rebuild))
            build.append(manager.current.build_seconds)
        block = await _longest_block_during(hass, manager.async_rebuild)
        held, peak = await _async_last_good_bytes(source)
    return RefreshFigures(
        REFRESH_DEVICES, requests, payload / MB, refresh, conversion, rebuild, build, block, held, peak
    )


async def _async_last_good_bytes(source: Any) -> tuple[int, int]:
    """Return the bytes a fresh last good read alone holds, and the peak a refresh allocates.

    ``last_good`` is dropped first, so the refresh makes new devices while the index keeps
    the previous read's: what tracemalloc still sees after it is that read alone. (An
    unchanged read keeps the devices the index uses, so in steady state they are shared.)
    """
    source.last_good = None
    gc.collect()
    tracemalloc.start()
    try:
        await source.async_refresh()
        gc.collect()
        holding, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return holding, peak


# --- rendering ----------------------------------------------------------------------------------


def _cell(value: tuple[float, int]) -> str:
    mean, count = value
    return "-" if not count else f"{mean:.3f} ({count})"


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def render_recall(homes: Sequence[BridgedHome]) -> list[str]:
    """Return the recall table: each home through the service and through core."""
    lines = [
        "| home | path | "
        + " | ".join(METRIC_TITLES[m] for m in METRICS)
        + " | answers unlike the engine's |",
        "|---|---|" + "---|" * (len(METRICS) + 1),
    ]
    notes = []
    for home in homes:
        title = f"{home.name}, {home.devices} devices, {home.utterances} utterances"
        for path, figures in (("service", home.service), ("engine", home.engine)):
            differing = f"{len(home.differing)} of {home.utterances}" if path == "service" else ""
            lines.append(
                f"| {title} | {path} | "
                + " | ".join(_cell(figures[m]) for m in METRICS)
                + f" | {differing} |"
            )
        if not home.same_devices:
            notes.append(
                f"- {home.name}: the integration indexed other devices than core builds from the dump"
            )
        if home.not_parsed_by_llm:
            notes.append(f"- {home.name}: {home.not_parsed_by_llm} utterances not parsed by the gold server")
        if home.differing and not home.sealed:
            listed = ", ".join(home.differing[:MAX_LISTED_DIFFERENCES])
            more = " …" if len(home.differing) > MAX_LISTED_DIFFERENCES else ""
            notes.append(f"- {home.name}: differing answers {listed}{more}")
    return [*lines, "", *(notes or ["Every answer through the service equals the engine's."])]


def render_refresh(figures: RefreshFigures) -> list[str]:
    """Return the refresh and memory tables."""
    median = statistics.median
    return [
        f"{len(figures.refresh_s)} `async_refresh()` calls of a loaded entry (its client, local HTTP, "
        f"pages of {PAGE_SIZE}), then {len(figures.rebuild_s)} whole index rebuilds (`async_rebuild()`: "
        "the snapshot on the loop, the index in the executor) and one more under a 1 ms ticker:",
        "",
        "| devices | requests per refresh | device JSON | refresh p50 | refresh p90 "
        "| conversion alone p50 | rebuild p50 | rebuild p90 | of which index build p50 "
        "| longest loop block in a rebuild |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {figures.devices:,} | {figures.requests} | {figures.payload_mb:.2f} MB "
        f"| {median(figures.refresh_s) * 1000:.1f} ms | {_p90(figures.refresh_s) * 1000:.1f} ms "
        f"| {median(figures.conversion_s) * 1000:.1f} ms | {median(figures.rebuild_s) * 1000:.0f} ms "
        f"| {_p90(figures.rebuild_s) * 1000:.0f} ms | {median(figures.build_s) * 1000:.0f} ms "
        f"| {figures.loop_block_ms:.0f} ms |",
        "",
        "| devices | last good read (tracemalloc, a fresh read) | per device | peak of one refresh |",
        "|---|---|---|---|",
        f"| {figures.devices:,} | {figures.held_bytes / MB:.2f} MB "
        f"| {figures.held_bytes / figures.devices / 1024:.2f} KB | {figures.peak_bytes / MB:.2f} MB |",
    ]


def smartthings_bridge_section(
    dataset: Dataset, *, quick: bool
) -> tuple[str, list[tuple[str, str, float, Target]]]:
    """Measure the SmartThings direct connection; return Markdown and the target checks.

    The targets: the service answers as the engine does, and a rebuild keeps the loop
    free as with Home Assistant's own entities.
    """
    homes = [bridge_shared_home(dataset), *(bridge_labelled_home(name) for name in LABELLED_SETS)]
    refresh = asyncio.run(_async_refresh_figures(dataset, quick=quick))
    checks = [
        (
            "smartthings bridge",
            f"{home.name}: answers unlike the engine's",
            len(home.differing),
            Target(0, at_most=True),
        )
        for home in homes
    ]
    checks.append(
        (
            "smartthings bridge",
            f"loop block ms in a rebuild, {refresh.devices:,} devices",
            refresh.loop_block_ms,
            Target(MAX_LOOP_BLOCK_MS, at_most=True),
        )
    )
    markdown = "\n".join(
        [
            "## SmartThings through the direct connection (replayed account, retrieve service)",
            "",
            f"Gold parses from a local chat server, `top_k={TOP_K}`, a fresh state per utterance; "
            f"homes served in pages of {RECALL_PAGE_SIZE}. *engine*: core `retrieve` with the same "
            "gold parses on the devices built from the dump (the engine's own figures).",
            "",
            *render_recall(homes),
            "",
            *render_refresh(refresh),
        ]
    )
    return markdown, checks
