"""Turn one wire command into the retrieval-side QueryIR (seed 003, ADR-001)."""

from __future__ import annotations

import re

from custom_components.context_retrieval.core.models import (
    ANY_NAME,
    ANY_ROOM,
    LAST_MENTIONED,
    UNKNOWN_ACTION,
    Command,
    QueryIR,
)

REFERENCE_LAST_MENTIONED = "last-mentioned"
"""The ``QueryIR.references`` entry for 它/那个/刚才的 (``n`` = ``@last``)."""

_SCOPE_SEPARATORS = re.compile(r"[,，、;；]")
"""Entry separators; whitespace is only trimmed, since room names may contain spaces."""
_EXCLUDE_MARKS = ("!", "！")


def command_to_ir(command: Command, raw: str) -> QueryIR:
    """Return the QueryIR for ``command``; ``raw`` is the whole utterance.

    Room strings are kept as written (only stripped): the scope filter normalises
    them when it matches rooms.
    """
    action = command.a.strip()
    name = command.n.strip()
    references: tuple[str, ...] = ()
    if name == LAST_MENTIONED:
        references = (REFERENCE_LAST_MENTIONED,)
    include, exclude = parse_scope(command.s)
    return QueryIR(
        raw=raw,
        action=None if action in {"", UNKNOWN_ACTION} else action,
        name_hint=None if name in {"", ANY_NAME, LAST_MENTIONED} else name,
        type_hint=command.t.strip() or None,
        scope_include=include,
        scope_exclude=exclude,
        quantifier=command.q,
        references=references,
        count=command.c,
        exclude_names=tuple(name.strip() for name in command.x if name.strip()),
    )


def parse_scope(scope: str) -> tuple[frozenset[str], frozenset[str]]:
    """Return the included and excluded rooms of a wire scope (``*``, ``客厅,卧室``, ``*,!卧室``).

    A ``*`` anywhere among the included entries means every room: include then
    filters nothing (seed 003 §6.2, include only when non-empty and without ``*``).
    """
    include: set[str] = set()
    exclude: set[str] = set()
    any_room = False
    for part in _SCOPE_SEPARATORS.split(scope):
        entry = part.strip()
        if entry.startswith(_EXCLUDE_MARKS):
            room = entry[1:].strip()
            if room and room != ANY_ROOM:
                exclude.add(room)
        elif entry == ANY_ROOM:
            any_room = True
        elif entry:
            include.add(entry)
    return frozenset() if any_room else frozenset(include), frozenset(exclude)
