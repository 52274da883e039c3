"""Conversation memory per conversation_id: bounded in number, expired after the engine's TTL."""

from __future__ import annotations

from custom_components.context_retrieval.conversation_states import ConversationStates
from custom_components.context_retrieval.core.state import DEFAULT_STATE_TTL_SECONDS


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_same_id_gets_the_same_state_and_no_id_a_fresh_one():
    states = ConversationStates()
    states.get("a").remember(["light.a"])
    assert states.get("a").last_mentioned() == ["light.a"]
    assert states.get(None).last_mentioned() == []
    assert states.get("b").last_mentioned() == []


def test_states_are_bounded_least_recently_used_first():
    states = ConversationStates(max_conversations=3)
    for name in ("a", "b", "c"):
        states.get(name).remember([f"light.{name}"])
    states.get("a")  # used again: now the most recent
    states.get("d").remember(["light.d"])
    assert len(states) == 3
    assert states.get("a").last_mentioned() == ["light.a"]
    assert states.get("b").last_mentioned() == []  # dropped


def test_expired_conversations_are_forgotten():
    clock = Clock()
    states = ConversationStates(clock=clock)
    states.get("a").remember(["light.a"])
    clock.now = DEFAULT_STATE_TTL_SECONDS - 1
    assert states.get("a").last_mentioned() == ["light.a"]
    clock.now += DEFAULT_STATE_TTL_SECONDS
    states.get("b")
    assert "a" not in states._states
