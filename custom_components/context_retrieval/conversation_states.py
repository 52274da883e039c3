"""Memory per ``conversation_id``, bounded in number: the engine's state and the current request."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .const import MAX_CONVERSATIONS
from .core import ConversationState

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(slots=True)
class ConversationStates:
    """The conversation state of each recent conversation, least recently used dropped first."""

    max_conversations: int = MAX_CONVERSATIONS
    clock: Callable[[], float] = time.monotonic
    """Source of seconds, shared with the states (tests move time without sleeping)."""
    _states: OrderedDict[str, ConversationState] = field(default_factory=OrderedDict, init=False)

    def get(self, conversation_id: str | None) -> ConversationState:
        """Return the state of a conversation; a call without an id gets a fresh, unshared one."""
        if conversation_id is None:
            return ConversationState(clock=self.clock)
        self._drop_expired()
        state = self._states.pop(conversation_id, None) or ConversationState(clock=self.clock)
        self._states[conversation_id] = state
        while len(self._states) > self.max_conversations:
            self._states.popitem(last=False)
        return state

    def __len__(self) -> int:
        """Return how many conversations are remembered."""
        return len(self._states)

    def _drop_expired(self) -> None:
        """Forget conversations whose memory has expired."""
        for conversation_id in [key for key, state in self._states.items() if not state.last_mentioned()]:
            del self._states[conversation_id]


@dataclass(slots=True)
class RequestContext:
    """What one turn's request retrieved: its text, the YAML context and the devices its tools may read."""

    text: str
    yaml: str
    device_ids: set[str]
    """The devices retrieved, and those the turn's searches found."""
    in_prompt: bool = False
    """True when the agent of this integration put the context into its delegate's system prompt."""


@dataclass(slots=True)
class ConversationMemory[T]:
    """The latest value of each recent conversation, least recently used dropped first.

    With ``ttl``, a value older than that many seconds is gone.
    """

    max_conversations: int = MAX_CONVERSATIONS
    ttl: float | None = None
    clock: Callable[[], float] = time.monotonic
    _values: OrderedDict[str, tuple[float, T]] = field(default_factory=OrderedDict, init=False)

    def get(self, conversation_id: str) -> T | None:
        """Return the conversation's value, None when there is none (or it expired)."""
        stored = self._values.get(conversation_id)
        if stored is None:
            return None
        if self.ttl is not None and self.clock() - stored[0] > self.ttl:
            del self._values[conversation_id]
            return None
        self._values.move_to_end(conversation_id)
        return stored[1]

    def remember(self, conversation_id: str, value: T) -> None:
        """Make ``value`` the conversation's latest."""
        self._values.pop(conversation_id, None)
        self._values[conversation_id] = (self.clock(), value)
        while len(self._values) > self.max_conversations:
            self._values.popitem(last=False)

    def forget(self, conversation_id: str) -> None:
        """Drop the conversation's value."""
        self._values.pop(conversation_id, None)

    def __len__(self) -> int:
        """Return how many conversations have a value."""
        return len(self._values)


class RequestContexts(ConversationMemory[RequestContext]):
    """The current request of each recent conversation."""

    __slots__ = ()

    def current(self, conversation_id: str, text: str) -> RequestContext | None:
        """Return the conversation's context if it was retrieved for ``text`` (its current request)."""
        context = self.get(conversation_id)
        return context if context is not None and context.text == text else None
