"""Readable, compact text for the demo's terminal output (Chinese text aligned by display width)."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

COMMAND_FIELDS = ("a", "s", "n", "t", "q", "c")
"""Wire fields of a parsed command (CONTRACT §1), in the order they are printed."""
MAX_GROUP_MEMBERS_SHOWN = 3
MAX_REASONS_SHOWN = 5


def emit(line: str = "") -> None:
    """Write one line of output now (the tests and pipes read it as it comes)."""
    print(line, flush=True)  # noqa: T201 - the demo's whole job is to print


def display_width(text: str) -> int:
    """Return how many terminal columns ``text`` takes (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, width: int) -> str:
    """Return ``text`` padded with spaces to ``width`` terminal columns."""
    return text + " " * max(width - display_width(text), 0)


def format_command(command: Mapping[str, Any]) -> str:
    """Return a parsed command as ``a=打开 s=客厅 n=灯 t=Light q=all`` (empty fields left out)."""
    fields = [f"{key}={command[key]}" for key in COMMAND_FIELDS if command.get(key) not in (None, "")]
    fields += [f"{key}={value}" for key, value in command.items() if key not in COMMAND_FIELDS and value]
    return " ".join(fields) or "(empty)"


def _capability(candidate: Mapping[str, Any]) -> str:
    """Return the service (and field) carrying the command."""
    capability = str(candidate.get("capability_id") or "-")
    return f"{capability}:{candidate['field']}" if candidate.get("field") else capability


def _members(candidate: Mapping[str, Any]) -> str:
    """Return the first few entity ids of a group, and how many more there are."""
    members = list(candidate.get("device_ids") or [])
    more = len(members) - MAX_GROUP_MEMBERS_SHOWN
    return ", ".join(members[:MAX_GROUP_MEMBERS_SHOWN]) + (f", +{more}" if more > 0 else "")


def format_candidates(candidates: list[Mapping[str, Any]]) -> list[str]:
    """Return aligned lines: rank, entity id, name @ room, command, score, reasons (and a group's members)."""
    rows = []
    for rank, candidate in enumerate(candidates, 1):
        name, room = candidate.get("name") or "-", candidate.get("room")
        is_group = candidate.get("kind") == "group"
        reasons = list(candidate.get("reasons") or [])
        rows.append(
            (
                f"{rank}.",
                str(candidate["entity_id"]),
                # A group's name already lists its rooms.
                f"{name} @{room}" if room and not is_group else str(name),
                _capability(candidate),
                f"{float(candidate.get('score') or 0):.3f}",
                " ".join(reasons[:MAX_REASONS_SHOWN]) + (" …" if len(reasons) > MAX_REASONS_SHOWN else ""),
                _members(candidate) if is_group else "",
            )
        )
    if not rows:
        return []
    widths = [max(display_width(row[column]) for row in rows) for column in range(5)]
    lines = []
    for row in rows:
        cells = [pad(cell, width) for cell, width in zip(row[:5], widths, strict=True)]
        lines.append("  ".join([*cells, row[5]]))
        if row[6]:
            lines.append(f"{' ' * (widths[0] + 2)}= {row[6]}")
    return lines


def format_answer(text: str, answer: Mapping[str, Any], seconds: float) -> list[str]:
    """Return the lines describing one utterance's service answer."""
    lines = [f"» {text}   ({seconds * 1000:.0f} ms)"]
    results = answer.get("results") or []
    for number, result in enumerate(results, 1):
        meta = result.get("meta") or {}
        details = [f"parse={meta.get('parse', '?')}"]
        if meta.get("fallback"):
            details.append(f"fallback={meta['fallback']}")
        details.append(f"hint={result.get('hint') or '-'}")
        command = format_command(result.get("command") or {})
        lines.append(f"  command {number}: {command}   {' '.join(details)}")
        candidates = result.get("candidates") or []
        lines.extend(f"    {row}" for row in format_candidates(candidates))
        if not candidates:
            lines.append("    (no candidates)")
    if not results:
        lines.append("  (no commands)")
    lines.append(f"  YAML context: {len(answer.get('yaml') or '')} characters")
    return lines


def format_prompt(agent: Mapping[str, Any], *, compare_with_assist: bool = True) -> list[str]:
    """Return the lines showing an agent's prompt for the turn, its size next to Assist's, and its tools.

    Without ``compare_with_assist`` (devices only SmartThings has, which Assist never sees),
    the size stands alone.
    """
    ours, assist = agent["size"], agent["assist_size"]
    ratio = assist["characters"] / max(ours["characters"], 1)
    comparison = (
        f"Assist: {assist['characters']:,} characters, ~{assist['tokens']:,} tokens; {ratio:.1f}x smaller"
        if compare_with_assist
        else "Assist cannot see these devices: they are not Home Assistant entities"
    )
    lines = [
        f"  LLM agent prompt through Context Retrieval: {ours['characters']:,} characters, "
        f"~{ours['tokens']:,} tokens ({comparison})"
    ]
    lines.extend(f"    │ {line}" for line in agent["prompt"].splitlines())
    lines.append(f"  its tools: {', '.join(agent.get('tools') or ()) or '(none)'}")
    return lines
