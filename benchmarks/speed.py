"""Latency of ``retrieve()`` and index build time on synthetic homes, peak memory in a subprocess.

Timing follows the baseline harness (research/seed_implementation_baseline.md §3): the
gold-parse fake LLM (no LLM time), a fresh ``ConversationState`` per call, one warm-up
pass, then ``R`` passes over the 50 utterances; each utterance's latency is its median
over the passes, and the table reports the median and p95 of those 50 medians.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from statistics import fmean, median, quantiles
from time import perf_counter
from typing import TYPE_CHECKING, Any

from custom_components.context_retrieval.core import ConversationState, build_vector_searcher, retrieve

from .data import REPO_ROOT, GoldLLM, build_home
from .quality import TOP_K, Target, device_recall, top_devices

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from custom_components.context_retrieval.core import Device

    from .data import Dataset, PipelineCase

SIZES = (30, 1_000, 10_000)
LARGE_HOME = 10_000
SMALL_REPEATS = 7
LARGE_REPEATS = 3
SMALL_COLD_SAMPLES = 5
LARGE_COLD_SAMPLES = 3
SMALL_BUILD_SAMPLES = 3
MEMORY_TIMEOUT_S = 1_800
SLOWEST_LISTED = 3
MEMORY_ERROR_LINES = 15

WARM_TARGETS: dict[int, Target] = {
    30: Target(1.0, at_most=True),
    1_000: Target(3.0, at_most=True),
    10_000: Target(30.0, at_most=True),
}
BUILD_TARGETS: dict[int, Target] = {10_000: Target(10.0, at_most=True)}
MEMORY_TARGET = Target(500.0, at_most=True)


@dataclass(slots=True)
class SpeedRow:
    """Timings of one synthetic home."""

    size: int
    rooms: int
    build_s: float
    warm_ms: list[float]
    """Per-utterance medians, in case order."""
    cold_ms: list[float]
    """First ``retrieve()`` on fresh device lists without a prebuilt index, in sample order."""
    repeat_ms: list[float]
    """Second ``retrieve()`` on the same lists, still without an index (a cache may serve it)."""
    recall: float
    hit_at_1: float
    queries: list[str]

    @property
    def warm_median(self) -> float:
        """Return the median of the per-utterance medians."""
        return median(self.warm_ms)

    @property
    def warm_p95(self) -> float:
        """Return the 95th percentile of the per-utterance medians."""
        return percentile(self.warm_ms, 95)


@dataclass(slots=True)
class MemoryRow:
    """Peak memory of a home measured in fresh subprocesses."""

    size: int
    home_rss_mb: float
    """Max RSS after loading the data and building the home, before the index."""
    maxrss_mb: float
    """Max RSS after index build and the queries (plain run, no tracemalloc)."""
    tracemalloc_peak_mb: float
    """Python allocations at their peak during index build + queries (traced run)."""


def percentile(values: Sequence[float], percent: int) -> float:
    """Return the ``percent``-th percentile (inclusive method, linear interpolation)."""
    if len(values) < 2:
        return values[0]
    return quantiles(values, n=100, method="inclusive")[percent - 1]


def elapsed_ms(call: Callable[[], object]) -> float:
    """Return the wall time of one call in milliseconds."""
    start = perf_counter()
    call()
    return (perf_counter() - start) * 1_000


def repeats_for(size: int) -> int:
    """Return the number of timed passes for a home size."""
    return LARGE_REPEATS if size >= LARGE_HOME else SMALL_REPEATS


def time_build(devices: list[Device], spec: Any) -> tuple[float, Any]:
    """Return the median build time in seconds and the last index built."""
    samples = 1 if len(devices) >= LARGE_HOME else SMALL_BUILD_SAMPLES
    times, searcher = [], None
    for _ in range(samples):
        start = perf_counter()
        searcher = build_vector_searcher(devices, spec)
        times.append(perf_counter() - start)
    return median(times), searcher


def warm_up(
    cases: Sequence[PipelineCase], devices: list[Device], llm: GoldLLM, searcher: Any
) -> tuple[float, float]:
    """Run one untimed pass; return gold recall@5 and hit@1 of this home."""
    recalls, hits = [], []
    for case in cases:
        results = retrieve(
            case.query, devices, llm, ConversationState(), top_k=TOP_K, vector_searcher=searcher
        )
        recalls.append(device_recall(results, case.expected_device_ids))
        if len(case.gold) == 1 and case.gold[0].get("q") == "one":
            hits.append(bool(top_devices(results) & set(case.expected_device_ids)))
    return fmean(recalls), (fmean(hits) if hits else 0.0)


def time_warm(
    queries: Sequence[str], devices: list[Device], llm: GoldLLM, searcher: Any, repeats: int
) -> list[float]:
    """Return each query's median latency (ms) over ``repeats`` passes with the prebuilt index."""
    samples: list[list[float]] = [[] for _ in queries]
    for _ in range(repeats):
        for index, query in enumerate(queries):
            state = ConversationState()
            samples[index].append(
                elapsed_ms(
                    lambda q=query, s=state: retrieve(
                        q, devices, llm, s, top_k=TOP_K, vector_searcher=searcher
                    )
                )
            )
    return [median(times) for times in samples]


def time_cold(
    dataset: Dataset, size: int, queries: Sequence[str], llm: GoldLLM
) -> tuple[list[float], list[float]]:
    """Time ``retrieve()`` without an index on new device lists: first call, then a second one.

    Each sample's device ids carry a unique tag, so no index cached by an earlier call
    (keyed on the devices) can serve the first call; the second call on the same list
    shows what such a cache saves. Returns both lists of latencies in ms.
    """
    count = LARGE_COLD_SAMPLES if size >= LARGE_HOME else SMALL_COLD_SAMPLES
    first, second = [], []
    for sample in range(count):
        devices = build_home(dataset, size, tag=f"~cold{sample}")
        query, again = queries[sample % len(queries)], queries[(sample + 1) % len(queries)]
        first.append(elapsed_ms(lambda: retrieve(query, devices, llm, ConversationState(), top_k=TOP_K)))  # noqa: B023
        second.append(elapsed_ms(lambda: retrieve(again, devices, llm, ConversationState(), top_k=TOP_K)))  # noqa: B023
    return first, second


def measure_home(dataset: Dataset, size: int) -> SpeedRow:
    """Measure index build, warm and cold latency of one synthetic home."""
    llm = GoldLLM(dataset.gold_texts())
    devices = build_home(dataset, size)
    queries = [case.query for case in dataset.pipeline_cases]
    build_s, searcher = time_build(devices, dataset.spec)
    recall, hit_at_1 = warm_up(dataset.pipeline_cases, devices, llm, searcher)
    warm = time_warm(queries, devices, llm, searcher, repeats_for(size))
    cold, repeat = time_cold(dataset, size, queries, llm)
    return SpeedRow(
        size=size,
        rooms=len({device.room for device in devices}),
        build_s=build_s,
        warm_ms=warm,
        cold_ms=cold,
        repeat_ms=repeat,
        recall=recall,
        hit_at_1=hit_at_1,
        queries=queries,
    )


def run_memory_probe(size: int, *, trace: bool) -> dict[str, float]:
    """Run ``benchmarks.memory`` in a fresh interpreter and return its JSON report."""
    command = [sys.executable, "-m", "benchmarks.memory", str(size)] + (["--trace"] if trace else [])
    completed = subprocess.run(  # noqa: S603 - our own interpreter and module
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=MEMORY_TIMEOUT_S
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def measure_memory(size: int) -> MemoryRow:
    """Measure max RSS (plain run) and the tracemalloc peak (traced run) of one home."""
    plain = run_memory_probe(size, trace=False)
    traced = run_memory_probe(size, trace=True)
    return MemoryRow(
        size=size,
        home_rss_mb=plain["home_maxrss_mb"],
        maxrss_mb=plain["maxrss_mb"],
        tracemalloc_peak_mb=traced["tracemalloc_peak_mb"],
    )


def cell(value: float, target: Target | None, digits: int = 2) -> str:
    """Return a value, annotated with its target and status when it has one."""
    text = f"{value:.{digits}f}"
    return f"{text} ({target.status(value)} {target.describe()})" if target else text


def speed_line(row: SpeedRow) -> str:
    """Return the table row of one home."""
    warm = cell(row.warm_median, WARM_TARGETS.get(row.size), 3)
    cold = f"{median(row.cold_ms):.2f} (n={len(row.cold_ms)}) | {median(row.repeat_ms):.2f}"
    return (
        f"| {row.size:,} | {row.rooms:,} | {cell(row.build_s, BUILD_TARGETS.get(row.size), 3)} "
        f"| {warm} | {row.warm_p95:.3f} | {repeats_for(row.size)} | {cold} "
        f"| {row.recall:.3f} | {row.hit_at_1:.3f} |"
    )


def render_speed(rows: Sequence[SpeedRow]) -> str:
    """Return the speed table and the slowest utterances as Markdown."""
    lines = [
        f"## Speed (gold-parse fake LLM, top_k={TOP_K}, 50 utterances)",
        "",
        "| devices | rooms | index build (s) | warm median (ms) | warm p95 (ms) | repeats "
        "| cold, no index (ms) | 2nd call, no index (ms) | gold R@5 | gold hit@1 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines.extend(speed_line(row) for row in rows)
    lines.extend(["", "Slowest utterances (warm, per-utterance median):", ""])
    for row in rows:
        slowest = sorted(zip(row.warm_ms, row.queries, strict=True), reverse=True)[:SLOWEST_LISTED]
        lines.append(f"- {row.size:,} devices: " + "; ".join(f"{query} {ms:.3f} ms" for ms, query in slowest))
    return "\n".join(lines)


def render_memory(rows: Sequence[MemoryRow]) -> str:
    """Return the memory table as Markdown."""
    lines = [
        "## Peak memory (fresh subprocess: home, index build, 50 queries)",
        "",
        "| devices | max RSS after home (MB) | max RSS after index + queries (MB) "
        "| tracemalloc peak, index + queries (MB) |",
        "|---|---|---|---|",
    ]
    lines.extend(
        f"| {row.size:,} | {row.home_rss_mb:.1f} | {cell(row.maxrss_mb, MEMORY_TARGET, 1)} "
        f"| {row.tracemalloc_peak_mb:.1f} |"
        for row in rows
    )
    return "\n".join(lines)


def speed_checks(
    rows: Sequence[SpeedRow], memory: Sequence[MemoryRow]
) -> list[tuple[str, str, float, Target]]:
    """Return the ``(area, metric, value, target)`` checks of the speed section."""
    checks = [
        ("speed", f"warm median @{row.size:,} (ms)", row.warm_median, WARM_TARGETS[row.size])
        for row in rows
        if row.size in WARM_TARGETS
    ]
    checks.extend(
        ("speed", f"index build @{row.size:,} (s)", row.build_s, BUILD_TARGETS[row.size])
        for row in rows
        if row.size in BUILD_TARGETS
    )
    checks.extend(("memory", f"max RSS @{row.size:,} (MB)", row.maxrss_mb, MEMORY_TARGET) for row in memory)
    return checks


def speed_section(dataset: Dataset, *, quick: bool) -> tuple[str, list[tuple[str, str, float, Target]]]:
    """Run the speed and memory benchmarks; return Markdown and the target checks."""
    sizes = [size for size in SIZES if not (quick and size >= LARGE_HOME)]
    rows = [measure_home(dataset, size) for size in sizes]
    parts = [render_speed(rows)]
    memory: list[MemoryRow] = []
    if not quick:
        try:
            memory.append(measure_memory(LARGE_HOME))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            tail = "\n".join(str(err.stderr or "").strip().splitlines()[-MEMORY_ERROR_LINES:])
            parts.append(f"## Peak memory\n\nthe memory probe failed: {err}\n\n```\n{tail}\n```")
        else:
            parts.append(render_memory(memory))
    return "\n\n".join(parts), speed_checks(rows, memory)
