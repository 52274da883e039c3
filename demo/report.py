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
MAX_PROMPT_LINES = 10
"""Lines of a turn's part of the delegate's prompt shown (the rest is counted)."""
SHOWN_ATTRIBUTES = (
    "brightness",
    "color_temp_kelvin",
    "rgb_color",
    "temperature",
    "target_temp_low",
    "target_temp_high",
    "hvac_mode",
    "fan_mode",
    "preset_mode",
    "percentage",
    "current_position",
    "volume_level",
    "is_volume_muted",
    "source",
)
"""Attributes whose changes an agent's turn shows (others, such as color_mode, follow from these)."""
IGNORED_DOMAINS = frozenset({"conversation"})


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


def changed_states(
    before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Return what changed between two ``/api/states`` snapshots (by entity id), in entity id order.

    Each change has the entity id, its state before and after, and the shown attributes
    (``SHOWN_ATTRIBUTES``) whose value changed, as ``{name: [before, after]}``. Entities
    of ``IGNORED_DOMAINS`` (an agent's own state is the time it last answered) are left out.
    """
    changes = []
    for entity_id in sorted(after):
        if entity_id.partition(".")[0] in IGNORED_DOMAINS:
            continue
        old = before.get(entity_id) or {}
        new = after[entity_id]
        old_attributes, new_attributes = old.get("attributes") or {}, new.get("attributes") or {}
        attributes = {
            name: [old_attributes.get(name), new_attributes.get(name)]
            for name in SHOWN_ATTRIBUTES
            if old_attributes.get(name) != new_attributes.get(name)
        }
        if old.get("state") != new.get("state") or attributes:
            changes.append(
                {
                    "entity_id": entity_id,
                    "from": old.get("state"),
                    "to": new.get("state"),
                    "attributes": attributes,
                }
            )
    return changes


def format_change(change: Mapping[str, Any]) -> str:
    """Return one change as ``light.x: off → on, brightness 128`` (attributes that went away left out)."""
    parts = [f"{change['from']} → {change['to']}"] if change["from"] != change["to"] else []
    for name, (old, new) in change["attributes"].items():
        if new is not None:
            parts.append(f"{name} {old} → {new}" if old is not None else f"{name} {new}")
    return f"{change['entity_id']}: {', '.join(parts) or 'attributes cleared'}"


def format_agent_reply(
    agent_id: str, result: Mapping[str, Any], changes: list[Mapping[str, Any]], seconds: float
) -> list[str]:
    """Return the lines of an agent's turn: what it said (and whether it asks back), then what changed."""
    response = result.get("response") or {}
    speech = ((response.get("speech") or {}).get("plain") or {}).get("speech") or "(nothing said)"
    kind = response.get("response_type") or "?"
    asks = ", asks back" if result.get("continue_conversation") else ""
    lines = [f"  agent {agent_id} ({seconds * 1000:.0f} ms, {kind}{asks}): {speech}"]
    lines.extend(f"    changed {format_change(change)}" for change in changes)
    if not changes:
        lines.append("    (no state changed)")
    return lines


def format_delegate_prompt(agent: Mapping[str, Any]) -> list[str]:
    """Return, short, what a delegate LLM agent would receive for the turn: sizes, this turn's part, tools.

    The API's static prompt is the same on every turn and only counted; the request's part
    (the turn's devices) is shown up to ``MAX_PROMPT_LINES`` lines.
    """
    ours, assist = agent["size"], agent["assist_size"]
    ratio = assist["characters"] / max(ours["characters"], 1)
    comparison = f"{ratio:.1f}x smaller" if ratio >= 1 else f"{1 / ratio:.1f}x larger"
    static, request = agent.get("static_prompt") or "", agent.get("request_prompt") or agent["prompt"]
    lines = [
        f"  LLM agent prompt through Context Retrieval: {ours['characters']:,} characters, "
        f"~{ours['tokens']:,} tokens (Assist: {assist['characters']:,} characters, "
        f"~{assist['tokens']:,} tokens; {comparison}): the static prompt "
        f"({len(static):,} characters, the same every turn), then this turn's part:"
    ]
    request_lines = request.splitlines()
    lines.extend(f"    │ {line}" for line in request_lines[:MAX_PROMPT_LINES])
    if len(request_lines) > MAX_PROMPT_LINES:
        lines.append(f"    │ … {len(request_lines) - MAX_PROMPT_LINES} more lines")
    lines.append(f"  its tools: {len(agent.get('tools') or ())}")
    return lines
