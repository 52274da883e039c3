"""Conversation state: last-mentioned devices with a TTL (seed 002 §1.3), on a fake clock."""

from dataclasses import dataclass

import pytest

from custom_components.context_retrieval.core.models import Command
from custom_components.context_retrieval.core.state import (
    DEFAULT_STATE_TTL_SECONDS,
    RECENT_MENTIONS,
    ConversationState,
)


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def state(clock: FakeClock) -> ConversationState:
    return ConversationState(clock=clock)


def test_constructible_without_arguments():
    state = ConversationState()
    assert state.ttl_seconds == DEFAULT_STATE_TTL_SECONDS == 300
    assert state.last_mentioned() == []
    state.remember(["lamp-1"])
    assert state.last_mentioned() == ["lamp-1"]


def test_nothing_remembered(state):
    assert state.last_mentioned() == []


def test_remember_one_device(state):
    state.remember(["lamp-1"])
    assert state.last_mentioned() == ["lamp-1"]


def test_remember_group_members_in_order_without_duplicates(state):
    state.remember(["lamp-3", "lamp-1", "lamp-3"])
    assert state.last_mentioned() == ["lamp-3", "lamp-1"]


def test_later_remember_replaces_earlier(state):
    state.remember(["lamp-1", "lamp-2"])
    state.remember(["ac-1"])
    assert state.last_mentioned() == ["ac-1"]


def test_empty_sequence_is_ignored(state, clock):
    state.remember(["lamp-1"])
    clock.now += 10
    state.remember([])
    assert state.last_mentioned() == ["lamp-1"]


def test_bare_string_is_rejected(state):
    with pytest.raises(TypeError):
        state.remember("lamp-1")


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [
        (0, ["lamp-1"]),
        (DEFAULT_STATE_TTL_SECONDS - 0.001, ["lamp-1"]),
        (DEFAULT_STATE_TTL_SECONDS, []),
        (DEFAULT_STATE_TTL_SECONDS + 60, []),
    ],
)
def test_expires_after_ttl(state, clock, elapsed, expected):
    state.remember(["lamp-1"])
    clock.now += elapsed
    assert state.last_mentioned() == expected


def test_expiry_counts_from_last_remember(state, clock):
    state.remember(["lamp-1"])
    clock.now += 200
    state.remember(["lamp-2"])
    clock.now += 200
    assert state.last_mentioned() == ["lamp-2"]
    clock.now += 100
    assert state.last_mentioned() == []


def test_reading_does_not_extend_ttl(state, clock):
    state.remember(["lamp-1"])
    clock.now += 250
    assert state.last_mentioned() == ["lamp-1"]
    clock.now += 50
    assert state.last_mentioned() == []


def test_custom_ttl(clock):
    state = ConversationState(ttl_seconds=5, clock=clock)
    state.remember(["lamp-1"])
    clock.now += 4
    assert state.last_mentioned() == ["lamp-1"]
    clock.now += 1
    assert state.last_mentioned() == []


def test_clear(state):
    state.remember(["lamp-1"])
    state.clear()
    assert state.last_mentioned() == []


def test_returned_list_is_a_copy(state):
    state.remember(["lamp-1"])
    state.last_mentioned().append("lamp-2")
    assert state.last_mentioned() == ["lamp-1"]


def test_is_slotted():
    assert not hasattr(ConversationState(), "__dict__")


def test_all_of_the_last_few_mentions_one_device_each_is_what_they_mentioned():
    """主卫灯打开, 浴霸也开, then 好了都关掉: both; acting on one device of two found narrows that mention."""
    state = ConversationState()
    state.remember(["light.a", "light.mirror"])  # found two alike
    state.remember(["light.a"])  # acted on one
    state.remember(["switch.heater"])
    assert state.recently_mentioned() == ["light.a", "switch.heater"]
    for n in range(RECENT_MENTIONS):
        state.remember([f"fan.{n}"])
    assert state.recently_mentioned() == [f"fan.{n}" for n in range(RECENT_MENTIONS)]
    state.clear()
    assert state.recently_mentioned() == []


def test_the_rooms_of_the_last_command_naming_rooms_are_kept_until_the_memory_expires():
    """晴晴房间冷气开, then 窗户有关吗 (the whole home): the conversation is still in 晴晴房间."""
    now = [0.0]
    state = ConversationState(clock=lambda: now[0])
    assert state.last_rooms() is None
    state.remember(["climate.girl"], Command(a="打开", s="晴晴房间", n="空调"))
    state.remember(["cover.a", "cover.b"], Command(a="查询状态", n="窗户"))
    assert state.last_rooms() == "晴晴房间"
    state.remember(["light.x"], Command(a="关闭", s="*,!客厅", n="灯"))  # an exclusion is no place
    assert state.last_rooms() == "晴晴房间"
    now[0] += state.ttl_seconds
    assert state.last_rooms() is None
