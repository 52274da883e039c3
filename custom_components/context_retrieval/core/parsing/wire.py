"""Read the LLM's JSON command array strictly (CONTRACT §1).

The answer must be a non-empty JSON array of objects with the keys ``a`` (required,
a string; an empty one is kept so retrieval can still use ``n`` and fall back to the
raw text for the action) and ``s``, ``n``, ``t``, ``q``, ``c`` (optional; absent,
null or empty values take the defaults). Code fences and prose around the array are
tolerated; unknown keys are ignored. Anything else - not JSON, truncated JSON, not an
array, an empty array, an element that is not an object, a value of the wrong type -
degrades the *whole* answer to one UNKNOWN command: a half-valid array usually means
the model lost track of the format, and retrieval on the raw text is safer than
acting on part of a command sequence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from custom_components.context_retrieval.core.models import (
    ANY_NAME,
    ANY_ROOM,
    UNKNOWN_CATEGORY,
    UNKNOWN_COMMAND,
    Command,
    Quantifier,
)
from custom_components.context_retrieval.core.text import encodable

MAX_RAW_CHARS = 16_000
"""Longer answers are not a command array for one utterance; they degrade."""
MAX_COMMANDS = 32
"""More atomic commands than this in one utterance means the model is looping."""
MAX_ARRAY_STARTS = 64
"""How many ``[`` positions are tried when looking for the array inside prose."""

_QUANTIFIERS = {q.value: q for q in Quantifier}
_DECODER = json.JSONDecoder()


@dataclass(slots=True, frozen=True)
class ParseOutcome:
    """The commands read from one LLM answer and whether the parse degraded."""

    commands: list[Command]
    """Atomic commands in spoken order; ``[UNKNOWN_COMMAND]`` when degraded."""
    degraded: bool = False
    """True when the answer was unusable and retrieval must fall back to the raw text."""
    errors: list[str] = field(default_factory=list)
    """Why the answer degraded (empty when it did not)."""


class _WireError(ValueError):
    """One reason an answer is not a valid command array."""


def parse_commands(raw: str) -> ParseOutcome:
    """Return the commands of an LLM answer, degrading to UNKNOWN instead of raising."""
    try:
        commands = _read_commands(raw)
    except _WireError as err:
        return ParseOutcome(commands=[UNKNOWN_COMMAND], degraded=True, errors=[str(err)])
    return ParseOutcome(commands=commands)


def _read_commands(raw: object) -> list[Command]:
    """Return every command of the answer, or raise ``_WireError`` on the first problem."""
    items = _find_array(raw)
    if not items:
        raise _WireError("empty array")
    if len(items) > MAX_COMMANDS:
        raise _WireError(f"{len(items)} commands, more than {MAX_COMMANDS}")
    return [_command_from(item, index) for index, item in enumerate(items)]


def _find_array(raw: object) -> list[Any]:
    """Return the JSON array in ``raw``, skipping code fences and prose around it.

    The first non-empty array of objects wins; failing that, the first array of
    anything (which then fails validation), so ``见[1]：[{...}]`` still reads the
    commands.
    """
    if not isinstance(raw, str):
        raise _WireError(f"answer is {type(raw).__name__}, not text")
    if len(raw) > MAX_RAW_CHARS:
        raise _WireError(f"answer is {len(raw)} characters, more than {MAX_RAW_CHARS}")
    first: list[Any] | None = None
    start = raw.find("[")
    for _ in range(MAX_ARRAY_STARTS):
        if start < 0:
            break
        try:
            # Decoding from a ``[`` can only yield a list.
            value, _end = _DECODER.raw_decode(raw, start)
        except (ValueError, RecursionError):
            pass
        else:
            if value and all(isinstance(item, dict) for item in value):
                return value
            if first is None:
                first = value
        start = raw.find("[", start + 1)
    if first is None:
        raise _WireError("no complete JSON array in the answer")
    return first


def _command_from(item: object, index: int) -> Command:
    """Return the command an array element describes, or raise ``_WireError``."""
    if not isinstance(item, dict):
        raise _WireError(f"element {index} is {type(item).__name__}, not an object")
    action = _text(item, "a", index)
    if action is None:
        raise _WireError(f"element {index} has no action 'a'")
    quantifier_text = (_text(item, "q", index) or Quantifier.ONE.value).lower()
    quantifier = _QUANTIFIERS.get(quantifier_text)
    if quantifier is None:
        raise _WireError(f"element {index}: q={quantifier_text!r} is not one of {sorted(_QUANTIFIERS)}")
    return Command(
        a=action,
        s=_text(item, "s", index) or ANY_ROOM,
        n=_text(item, "n", index) or ANY_NAME,
        t=_text(item, "t", index) or UNKNOWN_CATEGORY,
        q=quantifier,
        c=_count(item, index),
        x=_names(item, index),
    )


def _text(item: dict[str, Any], key: str, index: int) -> str | None:
    """Return the stripped string under ``key``, or None when absent or null.

    JSON escapes can decode to lone surrogates, which no later step could encode as
    UTF-8 (the YAML context, hashing, Home Assistant's responses); they are dropped.
    """
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _WireError(f"element {index}: {key} is {type(value).__name__}, not a string")
    return encodable(value).strip()


def _names(item: dict[str, Any], index: int) -> tuple[str, ...]:
    """Return the names a set leaves out (``x``: a list of names, or one name), empty when absent."""
    value = item.get("x")
    if value is None:
        return ()
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _WireError(f"element {index}: x={value!r} is not a list of names")
    names = (_text({"x": v}, "x", index) for v in values)
    return tuple(name for name in names if name)


def _count(item: dict[str, Any], index: int) -> int | None:
    """Return the explicit device count ``c`` (a positive integer) or None when absent."""
    value = item.get("c")
    if value is None:
        return None
    # bool is an int subclass; true/false is not a count.
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _WireError(f"element {index}: c={value!r} is not a positive integer")
    return value
