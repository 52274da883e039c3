"""Conversation state: the devices mentioned last, kept for a few minutes (seed 002 §1.3)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .models import ANY_ROOM, Command, Quantifier
from .parsing.offline import ACTION_QUERY

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

DEFAULT_STATE_TTL_SECONDS = 300.0
"""How long the last-mentioned devices stay resolvable (the seed's ~5 minute session)."""
RECENT_MENTIONS = 3
"""How many of the last mentions 都关掉 may gather (主卫灯打开, 浴霸也开, 好了都关掉: both)."""


def _acts_on_the_home(command: Command) -> bool:
    """Return True for an action on a set over the home (所有灯都关掉, 除了卧室都关掉), no question."""
    return command.q in {Quantifier.ALL, Quantifier.EXCEPT} and not command.a.startswith(ACTION_QUERY)


@dataclass(slots=True)
class ConversationState:
    """Remember the last-mentioned devices of one conversation so 它/那个 can point back."""

    ttl_seconds: float = DEFAULT_STATE_TTL_SECONDS
    """Seconds after the last ``remember`` at which the memory expires."""
    clock: Callable[[], float] = time.monotonic
    """Source of seconds; injected by tests to move time without sleeping."""
    _command: Command | None = field(default=None, init=False, repr=False)
    _remembered_at: float = field(default=0.0, init=False, repr=False)
    _recent: tuple[tuple[str, ...], ...] = field(default=(), init=False, repr=False)
    """The devices of the last few mentions, oldest first: the last of them is the last mentioned."""
    _rooms: str = field(default="", init=False, repr=False)
    """The rooms the last command naming rooms went to (wire ``s``): where the conversation is."""

    def remember(self, device_ids: Sequence[str], command: Command | None = None) -> None:
        """Remember the devices just mentioned (one device, or every member of a group) and the command.

        An empty sequence keeps the previous memory, so a command that found
        nothing does not make 它 forget what it meant.
        """
        if isinstance(device_ids, str):
            raise TypeError("remember() takes a sequence of device ids, not one string")
        if not device_ids:
            return
        if self._expired():
            self._recent, self._rooms = (), ""
        mentioned = tuple(dict.fromkeys(device_ids))
        self._command = command
        if command is not None and command.s != ANY_ROOM and "!" not in command.s:
            self._rooms = command.s
        elif command is not None and _acts_on_the_home(command):
            self._rooms = ""  # 所有灯都关掉: the conversation left the room
        self._remembered_at = self.clock()
        if self._recent and set(mentioned) <= set(self._recent[-1]):
            # the agent acting on one of the devices just found narrows that mention
            self._recent = (*self._recent[:-1], mentioned)
        else:
            self._recent = (*self._recent, mentioned)[-RECENT_MENTIONS:]

    def _expired(self) -> bool:
        return self.clock() - self._remembered_at >= self.ttl_seconds

    def last_command(self) -> Command | None:
        """Return the command that mentioned the remembered devices, or None when none or expired."""
        if self._command is None or self._expired():
            return None
        return self._command

    def last_rooms(self) -> str | None:
        """Return the rooms the last command naming rooms went to (客厅,卧室), or None if none or expired."""
        if not self._rooms or self._expired():
            return None
        return self._rooms

    def last_mentioned(self) -> list[str]:
        """Return the remembered device ids, or an empty list when none or expired."""
        if not self._recent or self._expired():
            return []
        return list(self._recent[-1])

    def recently_mentioned(self) -> list[str]:
        """Return the devices of the last few mentions, oldest first, or an empty list when expired."""
        if not self._recent or self._expired():
            return []
        return list(dict.fromkeys(device_id for mention in self._recent for device_id in mention))

    def clear(self) -> None:
        """Forget the remembered devices."""
        self._command = None
        self._remembered_at = 0.0
        self._recent = ()
        self._rooms = ""
