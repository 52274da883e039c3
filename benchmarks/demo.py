"""Offline-parser quality on the bundled demo home and its hand-labelled utterances.

The cases are ``tests/core/data/demo_utterances.jsonl`` against ``load_demo_home()``;
every case runs through ``retrieve`` with ``llm=None``, a fresh ``ConversationState``
and one shared vector index. The metrics follow ``tests/core/test_demo_utterances.py``
(``_evaluate``), which cannot be imported cleanly (private, pytest module):

- device recall@5: share of the expected devices covered by all candidates of all
  results (a group counts as its members); a ``q=any`` case scores 1 if any is found;
- hit@1 (``q=one`` cases): every result's top candidate covers an expected device;
- capability hit@5: there are results and each has a candidate covering an expected
  device with an expected capability id;
- exact set (``all``/``except`` cases, not in the test): the devices of all results
  (group members plus device candidates) equal the expected devices;
- UNKNOWN action: some result's command has the ``UNKNOWN`` action.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from statistics import fmean
from typing import TYPE_CHECKING, Any

from custom_components.context_retrieval.core import ConversationState, build_vector_searcher, retrieve
from custom_components.context_retrieval.core.models import UNKNOWN_ACTION
from custom_components.context_retrieval.demo_home import load_demo_home

from .data import REPO_ROOT
from .quality import (
    BULK_QUANTIFIERS,
    TOP_K,
    describe_devices,
    describe_result,
    expand,
    labels_of,
    result_device_set,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from custom_components.context_retrieval.core import Device, RetrievalResult

CASES_FILE = REPO_ROOT / "tests" / "core" / "data" / "demo_utterances.jsonl"


@dataclass(frozen=True, slots=True)
class DemoCase:
    """One labelled utterance of ``demo_utterances.jsonl`` (numbered ``d-001``, ... in file order)."""

    id: str
    text: str
    expected_device_ids: frozenset[str]
    expected_capability_ids: frozenset[str]
    quantifier: str
    tags: tuple[str, ...]


@dataclass(slots=True)
class DemoOutcome:
    """How one demo case fared."""

    case: DemoCase
    results: list[RetrievalResult]
    recall: float
    hit_at_1: bool | None
    """``None`` when the case is not ``q=one``."""
    exact_set: bool | None
    """``None`` when the case is not ``all``/``except``."""
    capability_hit: bool
    unknown_action: bool
    error: str | None = None

    def misses(self) -> list[str]:
        """Return the metrics this case missed."""
        checks = [
            (self.error is not None, f"raised {self.error}"),
            (self.recall < 1.0, f"R@5 {self.recall:.2f}"),
            (self.hit_at_1 is False, "hit@1 ✗"),
            (not self.capability_hit, "cap@5 ✗"),
            (self.exact_set is False, "set ✗"),
            (self.unknown_action, "UNKNOWN"),
        ]
        return [label for missed, label in checks if missed]


def load_demo_cases(path: Path = CASES_FILE) -> list[DemoCase]:
    """Read the demo utterances."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        DemoCase(
            id=f"d-{number:03d}",
            text=record["text"],
            expected_device_ids=frozenset(record["expected_device_ids"]),
            expected_capability_ids=frozenset(record["expected_capability_ids"]),
            quantifier=record["quantifier"],
            tags=tuple(record.get("tags", ())),
        )
        for number, record in enumerate(records, start=1)
    ]


def demo_recall(case: DemoCase, results: Sequence[RetrievalResult]) -> float:
    """Return device recall@5 (``q=any``: 1 if any expected device is found)."""
    found = {device for result in results for c in result.candidates for device in expand(c, result)}
    hits = found & case.expected_device_ids
    if case.quantifier == "any":
        return float(bool(hits))
    return len(hits) / len(case.expected_device_ids)


def demo_capability_hit(case: DemoCase, results: Sequence[RetrievalResult]) -> bool:
    """Return whether every result has a candidate with an expected device and capability."""
    return bool(results) and all(
        any(
            expand(c, result) & case.expected_device_ids and c.capability_id in case.expected_capability_ids
            for c in result.candidates
        )
        for result in results
    )


def demo_hit_at_1(case: DemoCase, results: Sequence[RetrievalResult]) -> bool | None:
    """Return whether every result's top candidate covers an expected device (``q=one`` only)."""
    if case.quantifier != "one":
        return None
    return all(
        bool(result.candidates) and bool(expand(result.candidates[0], result) & case.expected_device_ids)
        for result in results
    )


def demo_exact_set(case: DemoCase, results: Sequence[RetrievalResult]) -> bool | None:
    """Return whether the devices of all results equal the expected set (``all``/``except`` only)."""
    if case.quantifier not in BULK_QUANTIFIERS:
        return None
    got = {device for result in results for device in result_device_set(result)}
    return got == case.expected_device_ids


def evaluate_demo_case(case: DemoCase, devices: list[Device], searcher: Any) -> DemoOutcome:
    """Retrieve one demo utterance offline and score it."""
    error = None
    try:
        results = list(
            retrieve(case.text, devices, None, ConversationState(), top_k=TOP_K, vector_searcher=searcher)
        )
    except Exception as err:  # noqa: BLE001 - one broken case must not hide the others
        results, error = [], f"{type(err).__name__}: {err}"
    return DemoOutcome(
        case=case,
        results=results,
        recall=demo_recall(case, results),
        hit_at_1=demo_hit_at_1(case, results),
        exact_set=demo_exact_set(case, results),
        capability_hit=demo_capability_hit(case, results),
        unknown_action=any(result.command.a == UNKNOWN_ACTION for result in results),
        error=error,
    )


def rate(values: Sequence[bool | None]) -> tuple[float, int]:
    """Return the share of true values among the non-``None`` ones and their number."""
    scored = [value for value in values if value is not None]
    return (sum(scored) / len(scored) if scored else 0.0), len(scored)


def render_demo_table(outcomes: Sequence[DemoOutcome]) -> list[str]:
    """Return the metric table of the demo cases."""
    n = len(outcomes)
    hit, hit_n = rate([o.hit_at_1 for o in outcomes])
    exact, exact_n = rate([o.exact_set for o in outcomes])
    rows = [
        ("device recall@5", fmean(o.recall for o in outcomes), n),
        ("hit@1 (q=one)", hit, hit_n),
        ("exact set (all/except)", exact, exact_n),
        ("capability hit@5", fmean(o.capability_hit for o in outcomes), n),
        ("UNKNOWN action (share of cases)", fmean(o.unknown_action for o in outcomes), n),
    ]
    lines = ["| metric | value | cases |", "|---|---|---|"]
    lines.extend(f"| {label} | {value:.3f} | {cases} |" for label, value, cases in rows)
    return lines


def describe_demo_failure(outcome: DemoOutcome, labels: dict[str, str]) -> str:
    """Return one failure line: id, text, tags, missed metrics, wanted and returned."""
    case = outcome.case
    misses = ", ".join(outcome.misses())
    head = f"- **{case.id}** {case.text} ({case.quantifier}; {','.join(case.tags)}) [{misses}]"
    wanted = describe_devices(case.expected_device_ids, labels)
    caps = ",".join(sorted(case.expected_capability_ids))
    body = " ‖ ".join(describe_result(result, labels) for result in outcome.results) or "no results"
    lines = [f"{head} want {wanted} / {caps}: {body}"]
    if outcome.exact_set is False:
        got = {device for result in outcome.results for device in result_device_set(result)}
        lines.append(
            f"  - set: missing {describe_devices(case.expected_device_ids - got, labels) or '-'}; "
            f"extra {describe_devices(got - case.expected_device_ids, labels) or '-'}"
        )
    return "\n".join(lines)


def labelled_set_section(title: str, name: str, cases: Sequence[DemoCase]) -> str:
    """Run labelled demo-home cases offline; return a titled table and failure list as Markdown."""
    devices = load_demo_home()
    searcher = build_vector_searcher(devices)
    outcomes = [evaluate_demo_case(case, devices, searcher) for case in cases]
    failed = [o for o in outcomes if o.misses()]
    labels = labels_of(devices)
    lines = [
        f"## {title}",
        "",
        f"{len(devices)}-device demo home, top_k={TOP_K}, {len(outcomes)} utterances, "
        "fresh state each, llm=None.",
        "",
        *render_demo_table(outcomes),
        "",
        f"### Failures, {name} ({len(failed)} of {len(outcomes)} cases)",
        "",
    ]
    lines.extend(describe_demo_failure(outcome, labels) for outcome in failed)
    if not failed:
        lines.append("none")
    return "\n".join(lines)


def demo_section() -> str:
    """Run the project's own demo utterances offline; return the table and failures as Markdown."""
    return labelled_set_section("Demo home, offline parser", "demo home", load_demo_cases())
