"""Retrieval quality when the LLM deviates from the prompt: perturbed gold command arrays.

Each perturbation rewrites the gold commands of ``pipeline_gold.jsonl`` the way a real
LLM sometimes does (room folded into the name, a lowercase or Chinese type, a
paraphrased or English action, missing optional keys, no category at all); a fake LLM
answers every utterance with its rewritten array. The metrics are those of the gold
table (see ``quality``), scored against the unchanged gold: device recall@5, hit@1,
exact set of ``all``/``except`` commands, capability hit@5. A command a perturbation
does not apply to is sent unchanged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .data import GoldLLM
from .quality import (
    TOP_K,
    CaseOutcome,
    ModeReport,
    describe_failure,
    labels_of,
    metric_rows,
    run_case,
    split_scope,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .data import Dataset

Command = dict[str, Any]

CHINESE_TYPES = {
    "Light": "灯",
    "Blind": "窗帘",
    "AirConditioner": "空调",
    "Fan": "风扇",
    "Television": "电视",
    "NetworkAudio": "音响",
    "SmartPlug": "插座",
    "Switch": "开关",
    "Washer": "洗衣机",
    "Charger": "充电器",
    "Hub": "网关",
}
UNKNOWN_TYPE = "Unknown"
UNNAMED = frozenset({"*", "@last"})
VERB_SYNONYMS = {"打开": "开启", "关闭": "关掉"}
VERB_PATTERNS = (
    (re.compile(r"^设置亮度=(\d+)%$"), r"调亮度=\1%"),
    (re.compile(r"^设置温度=(\d+)C?$"), r"调温度=\1"),
    (re.compile(r"^设置音量=(\d+)%$"), r"音量调到\1%"),
    (re.compile(r"^设置风速=(\d+)%$"), r"风速=\1%"),
)
ENGLISH_ACTIONS = {"打开": "turn on", "关闭": "turn off"}
OPTIONAL_KEYS = ("t", "q")


# --- perturbations ---------------------------------------------------------------------------


def room_in_name(command: Command, index: int) -> Command:  # noqa: ARG001 - uniform signature
    """Move the one included room into the name (``s=客厅, n=主灯`` -> ``s=*, n=客厅主灯``)."""
    include, exclude = split_scope(command.get("s", "*"))
    if len(include) != 1 or exclude or command.get("n", "*") in UNNAMED:
        return command
    return {**command, "s": "*", "n": f"{next(iter(include))}{command['n']}"}


def type_case(command: Command, index: int) -> Command:
    """Write ``t`` lowercase (even ``index``) or as a Chinese type word (odd ``index``)."""
    category = command.get("t")
    if not category or category == UNKNOWN_TYPE:
        return command
    chinese = CHINESE_TYPES.get(category)
    return {**command, "t": chinese if index % 2 and chinese else category.lower()}


def verb_paraphrase(command: Command, index: int) -> Command:  # noqa: ARG001 - uniform signature
    """Replace the canonical action by a paraphrase (打开 -> 开启, 设置亮度=50% -> 调亮度=50%)."""
    action = command.get("a", "")
    if action in VERB_SYNONYMS:
        return {**command, "a": VERB_SYNONYMS[action]}
    for pattern, replacement in VERB_PATTERNS:
        if pattern.match(action):
            return {**command, "a": pattern.sub(replacement, action)}
    return command


def defaults_only(command: Command, index: int) -> Command:  # noqa: ARG001 - uniform signature
    """Drop the optional keys ``t`` and ``q`` (the engine defaults them to Unknown and one)."""
    return {key: value for key, value in command.items() if key not in OPTIONAL_KEYS}


def english_action(command: Command, index: int) -> Command:  # noqa: ARG001 - uniform signature
    """Write 打开/关闭 in English (``turn on``/``turn off``); other actions stay."""
    action = command.get("a", "")
    return {**command, "a": ENGLISH_ACTIONS[action]} if action in ENGLISH_ACTIONS else command


def unknown_type(command: Command, index: int) -> Command:  # noqa: ARG001 - uniform signature
    """Set ``t`` to ``Unknown`` (no category gating)."""
    return {**command, "t": UNKNOWN_TYPE}


PERTURBATIONS: dict[str, Callable[[Command, int], Command]] = {
    "room_in_name": room_in_name,
    "type_case": type_case,
    "verb_paraphrase": verb_paraphrase,
    "defaults_only": defaults_only,
    "english_action": english_action,
    "unknown_type": unknown_type,
}


def perturb_cases(
    dataset: Dataset, perturbation: Callable[[Command, int], Command]
) -> dict[str, list[Command]]:
    """Return every pipeline query mapped to its perturbed gold array.

    ``index`` counts the commands the perturbation changes over the whole data set, so
    alternating perturbations (``type_case``) alternate deterministically.
    """
    perturbed: dict[str, list[Command]] = {}
    changed = 0
    for case in dataset.pipeline_cases:
        commands = []
        for command in case.gold:
            new = perturbation(dict(command), changed)
            changed += new != command
            commands.append(new)
        perturbed[case.query] = commands
    return perturbed


# --- running ---------------------------------------------------------------------------------


@dataclass(slots=True)
class PerturbationReport:
    """The outcomes of one perturbation and the arrays the fake LLM sent."""

    name: str
    report: ModeReport
    sent: dict[str, list[Command]]
    changed: set[str]
    """Ids of the cases with at least one changed command."""


def run_perturbation(name: str, dataset: Dataset) -> PerturbationReport:
    """Answer every pipeline utterance with its perturbed gold array and score it."""
    sent = perturb_cases(dataset, PERTURBATIONS[name])
    llm = GoldLLM(sent)
    outcomes = [run_case(case, dataset.devices, llm) for case in dataset.pipeline_cases]
    changed = {case.id for case in dataset.pipeline_cases if sent[case.query] != list(case.gold)}
    return PerturbationReport(
        name=name,
        report=ModeReport(mode=name, outcomes=outcomes, llm_calls=llm.calls, llm_misses=llm.misses),
        sent=sent,
        changed=changed,
    )


# --- rendering -------------------------------------------------------------------------------


def compact_json(commands: Sequence[Command]) -> str:
    """Return a command array as compact JSON (what the fake LLM answered)."""
    return json.dumps(list(commands), ensure_ascii=False, separators=(",", ":"))


def render_table(reports: Sequence[PerturbationReport]) -> list[str]:
    """Return the perturbation x metric table."""
    first = metric_rows(reports[0].report)
    header = " | ".join(f"{label} ({cases})" for _, label, _, cases in first)
    lines = [f"| perturbation | changed cases | {header} |", "|---|---|" + "---|" * len(first)]
    for item in reports:
        rows = metric_rows(item.report)
        values = " | ".join(f"{value:.3f}" for _, _, value, _ in rows)
        lines.append(f"| {item.name} | {len(item.changed)} | {values} |")
    return lines


def describe_perturbed_failure(item: PerturbationReport, outcome: CaseOutcome, labels: dict[str, str]) -> str:
    """Return one failure line plus the array the fake LLM sent."""
    first, _, rest = describe_failure(outcome, labels).partition("\n")
    unchanged = "" if outcome.case.id in item.changed else " (unchanged)"
    sent = f"  - sent{unchanged} `{compact_json(item.sent[outcome.case.query])}`"
    return "\n".join(line for line in (first, sent, rest) if line)


def render_failures(item: PerturbationReport, labels: dict[str, str]) -> list[str]:
    """Return the failure list of one perturbation."""
    failed = [o for o in item.report.outcomes if o.failed]
    lines = [
        "",
        f"### Failures, {item.name} ({len(failed)} of {len(item.report.outcomes)} cases)",
        "",
    ]
    if item.report.llm_misses:
        lines.append(f"- fake LLM got unknown texts: {item.report.llm_misses[:3]}")
    lines.extend(describe_perturbed_failure(item, outcome, labels) for outcome in failed)
    if not failed:
        lines.append("none")
    return lines


def perturbation_section(dataset: Dataset) -> str:
    """Run every perturbation; return the table and the failure lists as Markdown."""
    reports = [run_perturbation(name, dataset) for name in PERTURBATIONS]
    labels = labels_of(dataset.devices)
    lines = [
        f"## Perturbed LLM parses ({len(dataset.devices)}-device home, top_k={TOP_K}, "
        f"{len(dataset.pipeline_cases)} utterances, gold arrays rewritten)",
        "",
        "Scored against the unchanged gold arrays; column headers give the number of cases.",
        "",
        *render_table(reports),
    ]
    for item in reports:
        lines.extend(render_failures(item, labels))
    return "\n".join(lines)
