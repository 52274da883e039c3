"""Conversation memory per ``conversation_id``: bounded in number, expired after the engine's TTL."""

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
