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
class RequestContexts:
    """The latest request of each recent conversation, least recently used dropped first."""

    max_conversations: int = MAX_CONVERSATIONS
    _contexts: OrderedDict[str, RequestContext] = field(default_factory=OrderedDict, init=False)

    def get(self, conversation_id: str, text: str) -> RequestContext | None:
        """Return the conversation's context if it was retrieved for ``text`` (its current request)."""
        context = self._contexts.get(conversation_id)
        if context is None or context.text != text:
            return None
        self._contexts.move_to_end(conversation_id)
        return context

    def remember(self, conversation_id: str, context: RequestContext) -> None:
        """Make ``context`` the conversation's current request."""
        self._contexts.pop(conversation_id, None)
        self._contexts[conversation_id] = context
        while len(self._contexts) > self.max_conversations:
            self._contexts.popitem(last=False)

    def __len__(self) -> int:
        """Return how many conversations have a request remembered."""
        return len(self._contexts)
