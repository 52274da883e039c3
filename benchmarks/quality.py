"""Retrieval quality on the 30-device home, and exact-match rate of the offline parser.

Metrics (per parse mode, ``top_k=5``, a fresh ``ConversationState`` per utterance):

- device recall@5: fraction of ``expected_device_ids`` covered by the candidates of
  all results of the utterance (a group candidate counts as all its members);
- hit@1: for cases whose gold is one ``q=one`` command, the first result's top
  candidate (expanded) contains an expected device;
- exact set: for each gold ``all``/``except`` command, the devices of that result
  (every group's members plus device candidates) equal the literal target set: all
  devices of category ``t`` in the included rooms (if any) and not in the excluded ones;
- capability hit@5: one of the first 5 candidates of a result has an expected
  capability id and, expanded, contains an expected device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import TYPE_CHECKING, Any

from custom_components.context_retrieval.core import ConversationState, retrieve

from .data import GarbageLLM, GoldLLM

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from custom_components.context_retrieval.core import Candidate, Device, RetrievalResult

    from .data import Dataset, ParseCase, PipelineCase

TOP_K = 5
BULK_QUANTIFIERS = frozenset({"all", "except"})
MODES = ("gold", "offline", "garbage")
MAX_GROUP_LABELS = 4
MAX_LISTED_CANDIDATES = 3
PARSE_FIELDS = ("a", "s", "n", "t", "q", "c")


@dataclass(frozen=True, slots=True)
class Target:
    """A threshold a benchmark value must reach (``>=``) or stay under (``<=``)."""

    threshold: float
    at_most: bool = False

    def passes(self, value: float | None) -> bool:
        """Return whether ``value`` meets the target (a missing value fails)."""
        if value is None:
            return False
        return value <= self.threshold if self.at_most else value >= self.threshold

    def describe(self) -> str:
        """Return the target as text, e.g. ``>= 0.99``."""
        return f"{'<=' if self.at_most else '>='} {self.threshold:g}"

    def status(self, value: float | None) -> str:
        """Return ``PASS`` or ``FAIL``."""
        return "PASS" if self.passes(value) else "FAIL"


QUALITY_TARGETS: dict[tuple[str, str], Target] = {
    ("gold", "recall"): Target(0.99),
    ("gold", "hit1"): Target(0.97),
    ("gold", "capability"): Target(0.97),
    ("offline", "recall"): Target(0.90),
}


# --- metrics ---------------------------------------------------------------------------------


def expand(candidate: Candidate, result: RetrievalResult) -> set[str]:
    """Return the device ids a candidate stands for (a group expands to its members)."""
    if candidate.entity_kind == "group":
        group = result.groups.get(candidate.entity_id)
        return set(group.device_ids) if group else set()
    return {candidate.entity_id}


def returned_devices(results: Sequence[RetrievalResult]) -> set[str]:
    """Return every device covered by the candidates of all results."""
    return {
        device
        for result in results
        for candidate in result.candidates
        for device in expand(candidate, result)
    }


def device_recall(results: Sequence[RetrievalResult], expected: Iterable[str]) -> float:
    """Return the fraction of ``expected`` devices covered by the results."""
    wanted = set(expected)
    return len(wanted & returned_devices(results)) / len(wanted) if wanted else 1.0


def top_devices(results: Sequence[RetrievalResult]) -> set[str]:
    """Return the devices of the first result's top candidate."""
    if not results or not results[0].candidates:
        return set()
    return expand(results[0].candidates[0], results[0])


def capability_hit(
    results: Sequence[RetrievalResult], devices: Iterable[str], capabilities: Iterable[str], k: int = TOP_K
) -> bool:
    """Return whether a top-``k`` candidate has an expected capability and an expected device."""
    wanted_devices, wanted_capabilities = set(devices), set(capabilities)
    return any(
        candidate.capability_id in wanted_capabilities and expand(candidate, result) & wanted_devices
        for result in results
        for candidate in result.candidates[:k]
    )


def split_scope(scope: str) -> tuple[set[str], set[str]]:
    """Return the included and excluded rooms of a wire-format scope (``*`` = any room)."""
    include: set[str] = set()
    exclude: set[str] = set()
    for part in (piece.strip() for piece in scope.split(",")):
        if part.startswith("!"):
            exclude.add(part[1:].strip())
        elif part and part != "*":
            include.add(part)
    return include, exclude


def target_set(command: dict[str, Any], devices: Sequence[Device]) -> set[str]:
    """Return the literal targets of a bulk command: category ``t``, in scope."""
    include, exclude = split_scope(command.get("s", "*"))
    return {
        device.id
        for device in devices
        if device.category == command.get("t")
        and (not include or device.room in include)
        and device.room not in exclude
    }


def result_device_set(result: RetrievalResult) -> set[str]:
    """Return every group member plus every device candidate of a result."""
    members = {device for group in result.groups.values() for device in group.device_ids}
    return members | {c.entity_id for c in result.candidates if c.entity_kind == "device"}


def is_single_target(gold: Sequence[dict[str, Any]]) -> bool:
    """Return whether a gold parse is exactly one ``q=one`` command."""
    return len(gold) == 1 and gold[0].get("q", "one") == "one"


# --- running a mode --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetCheck:
    """The exact-set check of one gold ``all``/``except`` command."""

    ok: bool
    missing: frozenset[str]
    extra: frozenset[str]


@dataclass(slots=True)
class CaseOutcome:
    """Everything measured for one utterance in one mode."""

    case: PipelineCase
    results: list[RetrievalResult]
    recall: float
    hit_at_1: bool | None
    """``None`` when the case is not a single-target command."""
    set_checks: list[SetCheck]
    capability_hit: bool
    error: str | None = None

    @property
    def failed(self) -> bool:
        """Return whether any metric of this case missed."""
        return (
            self.error is not None
            or self.recall < 1.0
            or self.hit_at_1 is False
            or not self.capability_hit
            or not all(check.ok for check in self.set_checks)
        )


@dataclass(slots=True)
class ModeReport:
    """The outcomes of one parse mode over all pipeline cases."""

    mode: str
    outcomes: list[CaseOutcome]
    llm_calls: int | None = None
    llm_misses: list[str] = field(default_factory=list)

    def recall(self) -> float:
        """Return mean device recall@5."""
        return fmean(o.recall for o in self.outcomes)

    def hit_at_1(self) -> tuple[float, int]:
        """Return hit@1 rate and the number of single-target cases."""
        hits = [o.hit_at_1 for o in self.outcomes if o.hit_at_1 is not None]
        return (sum(hits) / len(hits) if hits else 0.0), len(hits)

    def exact_set(self) -> tuple[float, int]:
        """Return the exact-set rate and the number of ``all``/``except`` commands."""
        checks = [check.ok for o in self.outcomes for check in o.set_checks]
        return (sum(checks) / len(checks) if checks else 0.0), len(checks)

    def capability(self) -> float:
        """Return the capability hit@5 rate."""
        return fmean(o.capability_hit for o in self.outcomes)


def check_sets(
    case: PipelineCase, results: Sequence[RetrievalResult], devices: Sequence[Device]
) -> list[SetCheck]:
    """Check each gold ``all``/``except`` command against the result at the same position."""
    checks = []
    for index, command in enumerate(case.gold):
        if command.get("q") not in BULK_QUANTIFIERS:
            continue
        wanted = target_set(command, devices)
        got = result_device_set(results[index]) if index < len(results) else set()
        checks.append(SetCheck(got == wanted, frozenset(wanted - got), frozenset(got - wanted)))
    return checks


def run_case(case: PipelineCase, devices: Sequence[Device], llm: Any) -> CaseOutcome:
    """Retrieve one utterance and score it."""
    error = None
    try:
        results = list(retrieve(case.query, list(devices), llm, ConversationState(), top_k=TOP_K))
    except Exception as err:  # noqa: BLE001 - one broken case must not hide the others
        results, error = [], f"{type(err).__name__}: {err}"
    return score_case(case, results, devices, error)


def score_case(
    case: PipelineCase, results: list[RetrievalResult], devices: Sequence[Device], error: str | None = None
) -> CaseOutcome:
    """Score the results of one utterance, however they were retrieved."""
    return CaseOutcome(
        case=case,
        results=results,
        recall=device_recall(results, case.expected_device_ids),
        hit_at_1=bool(top_devices(results) & set(case.expected_device_ids))
        if is_single_target(case.gold)
        else None,
        set_checks=check_sets(case, results, devices),
        capability_hit=capability_hit(results, case.expected_device_ids, case.expected_capability_ids),
        error=error,
    )


def make_llm(mode: str, dataset: Dataset) -> GoldLLM | GarbageLLM | None:
    """Return the fake LLM of a parse mode (``None`` selects the offline parser)."""
    if mode == "gold":
        return GoldLLM(dataset.gold_texts())
    if mode == "garbage":
        return GarbageLLM()
    return None


def run_mode(mode: str, dataset: Dataset) -> ModeReport:
    """Run every pipeline case in one parse mode."""
    llm = make_llm(mode, dataset)
    outcomes = [run_case(case, dataset.devices, llm) for case in dataset.pipeline_cases]
    return ModeReport(
        mode=mode,
        outcomes=outcomes,
        llm_calls=getattr(llm, "calls", None),
        llm_misses=list(getattr(llm, "misses", [])),
    )


# --- offline parser --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParseOutcome:
    """The offline parse of one utterance next to its gold array."""

    case_id: str
    text: str
    gold: list[dict[str, Any]]
    got: list[dict[str, Any]]
    tags: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """Return whether the parse equals the gold array exactly."""
        return self.got == self.gold


def offline_parse(text: str, devices: Sequence[Device]) -> list[dict[str, Any]]:
    """Return the commands the offline parser reads from ``text`` (via ``retrieve``)."""
    try:
        results = retrieve(text, list(devices), None, ConversationState(), top_k=TOP_K)
    except Exception as err:  # noqa: BLE001 - one broken case must not hide the others
        return [{"error": f"{type(err).__name__}: {err}"}]
    return [result.command.to_dict() for result in results]


def run_parse_cases(cases: Sequence[ParseCase], devices: Sequence[Device]) -> list[ParseOutcome]:
    """Parse every ``parse_cases.jsonl`` utterance offline."""
    return [
        ParseOutcome(case.id, case.text, list(case.gold), offline_parse(case.text, devices), case.tags)
        for case in cases
    ]


def run_pipeline_parses(cases: Sequence[PipelineCase], devices: Sequence[Device]) -> list[ParseOutcome]:
    """Parse every pipeline utterance offline, against ``pipeline_gold.jsonl``."""
    return [
        ParseOutcome(case.id, case.query, list(case.gold), offline_parse(case.query, devices))
        for case in cases
    ]


def field_accuracy(outcomes: Sequence[ParseOutcome], key: str) -> float:
    """Return the share of gold commands whose ``key`` the parse got right (paired by position)."""
    pairs = [
        (command.get(key), outcome.got[index].get(key) if index < len(outcome.got) else object())
        for outcome in outcomes
        for index, command in enumerate(outcome.gold)
    ]
    return sum(gold == got for gold, got in pairs) / len(pairs) if pairs else 0.0


# --- rendering -------------------------------------------------------------------------------


def labels_of(devices: Sequence[Device]) -> dict[str, str]:
    """Return ``room/name`` for each device id."""
    return {device.id: f"{device.room}/{device.name}" for device in devices}


def describe_command(command: dict[str, Any]) -> str:
    """Return a wire-format command as ``a·s·n·t·q[·c]``."""
    parts = [str(command.get(key)) for key in ("a", "s", "n", "t", "q")]
    if command.get("c") is not None:
        parts.append(f"c={command['c']}")
    return "·".join(parts) if "error" not in command else str(command["error"])


def describe_devices(ids: Iterable[str], labels: dict[str, str], limit: int = MAX_GROUP_LABELS) -> str:
    """Return a short, sorted list of device labels."""
    names = sorted(labels.get(device, device) for device in ids)
    more = f" +{len(names) - limit}" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def describe_candidate(candidate: Candidate, result: RetrievalResult, labels: dict[str, str]) -> str:
    """Return one candidate as ``label cap score`` (a group lists its first members)."""
    if candidate.entity_kind == "group":
        members = expand(candidate, result)
        who = f"{candidate.entity_id}[{len(members)}: {describe_devices(members, labels)}]"
    else:
        who = labels.get(candidate.entity_id, candidate.entity_id)
    return f"{who} {candidate.capability_id} {candidate.total_score:.2f}"


def describe_result(result: RetrievalResult, labels: dict[str, str]) -> str:
    """Return the parsed command, first candidates and hint of one result."""
    shown = "; ".join(
        describe_candidate(c, result, labels) for c in result.candidates[:MAX_LISTED_CANDIDATES]
    )
    extra = (
        f" (+{len(result.candidates) - MAX_LISTED_CANDIDATES})"
        if len(result.candidates) > MAX_LISTED_CANDIDATES
        else ""
    )
    hint = f" hint={result.hint}" if result.hint else ""
    return f"`{describe_command(result.command.to_dict())}` → {shown or 'nothing'}{extra}{hint}"


def describe_misses(outcome: CaseOutcome) -> str:
    """Return which metrics a case missed."""
    misses = []
    if outcome.recall < 1.0:
        misses.append(f"R@5 {outcome.recall:.2f}")
    if outcome.hit_at_1 is False:
        misses.append("hit@1 ✗")
    if not outcome.capability_hit:
        misses.append("cap@5 ✗")
    if not all(check.ok for check in outcome.set_checks):
        misses.append("set ✗")
    return ", ".join(misses)


def describe_failure(outcome: CaseOutcome, labels: dict[str, str]) -> str:
    """Return one failure-list line: id, query, missed metrics and what came back."""
    head = f"- **{outcome.case.id}** {outcome.case.query} [{describe_misses(outcome)}]"
    if outcome.error:
        return f"{head} raised {outcome.error}"
    wanted = describe_devices(outcome.case.expected_device_ids, labels)
    caps = ",".join(outcome.case.expected_capability_ids)
    body = " ‖ ".join(describe_result(result, labels) for result in outcome.results) or "no results"
    lines = [f"{head} want {wanted} / {caps}: {body}"]
    lines.extend(
        f"  - set: missing {describe_devices(check.missing, labels) or '-'}; "
        f"extra {describe_devices(check.extra, labels) or '-'}"
        for check in outcome.set_checks
        if not check.ok
    )
    return "\n".join(lines)


def metric_rows(report: ModeReport) -> list[tuple[str, str, float, str]]:
    """Return ``(key, label, value, cases)`` rows of one mode."""
    hit, hit_n = report.hit_at_1()
    exact, exact_n = report.exact_set()
    n = len(report.outcomes)
    return [
        ("recall", "device recall@5", report.recall(), str(n)),
        ("hit1", "hit@1 (single target)", hit, str(hit_n)),
        ("exact", "exact set (all/except)", exact, str(exact_n)),
        ("capability", "capability hit@5", report.capability(), str(n)),
    ]


def render_quality(reports: Sequence[ModeReport], devices: Sequence[Device]) -> str:
    """Return the quality table and the failure list of every mode as Markdown."""
    lines = [
        f"## Retrieval quality ({len(devices)}-device home, top_k={TOP_K}, "
        f"{len(reports[0].outcomes)} utterances, fresh state each)",
        "",
        "| mode | metric | value | cases | target | status |",
        "|---|---|---|---|---|---|",
    ]
    for report in reports:
        for key, label, value, cases in metric_rows(report):
            target = QUALITY_TARGETS.get((report.mode, key))
            status = (target.describe(), target.status(value)) if target else ("", "")
            lines.append(f"| {report.mode} | {label} | {value:.3f} | {cases} | {status[0]} | {status[1]} |")
    labels = labels_of(devices)
    for report in reports:
        lines.extend(render_failures(report, labels))
    return "\n".join(lines)


def render_failures(report: ModeReport, labels: dict[str, str]) -> list[str]:
    """Return the failure list of one mode."""
    failed = [o for o in report.outcomes if o.failed]
    calls = f", LLM calls: {report.llm_calls}" if report.llm_calls is not None else ""
    lines = [
        "",
        f"### Failures, {report.mode} parse ({len(failed)} of {len(report.outcomes)} cases{calls})",
        "",
    ]
    if report.llm_misses:
        lines.append(f"- fake LLM got unknown texts: {report.llm_misses[:3]}")
    lines.extend(describe_failure(outcome, labels) for outcome in failed)
    if not failed:
        lines.append("none")
    return lines


def render_parse(named: Sequence[tuple[str, Sequence[ParseOutcome]]]) -> str:
    """Return the offline-parser table and failure lists as Markdown."""
    header = " | ".join(f"{name} ({len(outcomes)})" for name, outcomes in named)
    lines = ["## Offline parser (llm=None) vs gold command arrays", "", f"| metric | {header} |"]
    lines.append("|---|" + "---|" * len(named))
    rows: list[tuple[str, Callable[[Sequence[ParseOutcome]], float]]] = [
        ("exact match", lambda outcomes: fmean(o.exact for o in outcomes)),
        ("same command count", lambda outcomes: fmean(len(o.got) == len(o.gold) for o in outcomes)),
    ]
    rows.extend(
        (f"field `{key}`", lambda outcomes, key=key: field_accuracy(outcomes, key)) for key in PARSE_FIELDS
    )
    for label, metric in rows:
        lines.append(f"| {label} | " + " | ".join(f"{metric(outcomes):.3f}" for _, outcomes in named) + " |")
    for name, outcomes in named:
        failed = [o for o in outcomes if not o.exact]
        lines.extend(["", f"### Parse mismatches, {name} ({len(failed)} of {len(outcomes)})", ""])
        lines.extend(
            f"- **{o.case_id}** {o.text}{' ' + ','.join(o.tags) if o.tags else ''}: "
            f"want `{' | '.join(describe_command(c) for c in o.gold)}`, "
            f"got `{' | '.join(describe_command(c) for c in o.got) or 'nothing'}`"
            for o in failed
        )
        if not failed:
            lines.append("none")
    return "\n".join(lines)


def quality_section(dataset: Dataset) -> tuple[str, list[tuple[str, str, float, Target]]]:
    """Run every quality benchmark; return Markdown and the ``(area, metric, value, target)`` checks."""
    reports = [run_mode(mode, dataset) for mode in MODES]
    parse_outcomes = [
        ("parse_cases", run_parse_cases(dataset.parse_cases, dataset.devices)),
        ("pipeline_gold", run_pipeline_parses(dataset.pipeline_cases, dataset.devices)),
    ]
    checks = [
        (f"quality, {report.mode}", label, value, QUALITY_TARGETS[report.mode, key])
        for report in reports
        for key, label, value, _ in metric_rows(report)
        if (report.mode, key) in QUALITY_TARGETS
    ]
    markdown = render_quality(reports, dataset.devices) + "\n\n" + render_parse(parse_outcomes)
    return markdown, checks
