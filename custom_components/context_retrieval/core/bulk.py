"""Quantified commands (all / except): groups that cover the whole target set (seed 001 量词)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .gating import CATEGORY_WORDS, in_category

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .fusion import CapabilityChoice
    from .models import Device

MAX_BULK_TARGETS = 100
"""Most devices one bulk result lists before asking the user to narrow down."""
MAX_GROUPS = 10
"""Most groups one bulk result lists."""
TOO_MANY_TARGETS = "too_many_targets"
MAX_NAMED_ROOMS = 3
MAX_NAMED_KINDS = 2
DEVICE_WORD = "设备"
"""What a group calls devices whose category has no Chinese type word."""


@dataclass(slots=True)
class TargetGroup:
    """Targets for which the same command was chosen, and that choice."""

    positions: list[int]
    choice: CapabilityChoice


def group_targets(positions: Sequence[int], choose: Callable[[int], CapabilityChoice]) -> list[TargetGroup]:
    """Group targets by the command chosen for each, largest group first.

    Every member of a group has the group's command (it was chosen among its own), so
    the command is valid for all of them (seed 004); lights of different profiles that
    all switch on with ``main-switch-on`` form one group a person can read.
    """
    by_command: dict[str | None, TargetGroup] = {}
    for position in positions:
        choice = choose(position)
        group = by_command.get(choice.command_id)
        if group is None:
            by_command[choice.command_id] = TargetGroup([position], choice)
        else:
            group.positions.append(position)
    return sorted(by_command.values(), key=lambda group: (-len(group.positions), min(group.positions)))


def group_name(devices: Sequence[Device], positions: Sequence[int]) -> str:
    """Return a short human name such as ``客厅的灯 (8)`` or ``客厅、卧室的灯、插座 (5)``.

    A group of one device is called what the device is (阳台晾衣架, not 阳台的窗帘 (1)).
    """
    if len(positions) == 1:
        return _called(devices[positions[0]])
    rooms = list(dict.fromkeys(devices[p].room for p in positions if devices[p].room))
    kinds = list(dict.fromkeys(_category_word(devices[p].category) for p in positions))
    shown_rooms = "、".join(rooms[:MAX_NAMED_ROOMS]) + ("…" if len(rooms) > MAX_NAMED_ROOMS else "")
    shown_kinds = "、".join(kinds[:MAX_NAMED_KINDS]) + ("…" if len(kinds) > MAX_NAMED_KINDS else "")
    return (
        f"{shown_rooms}的{shown_kinds} ({len(positions)})" if rooms else f"{shown_kinds} ({len(positions)})"
    )


def _called(device: Device) -> str:
    """Return a device's name with its room before it when the name does not say it (阳台 晾衣架)."""
    if not device.room or device.room in device.name:
        return device.name
    return f"{device.room}{' ' if device.name[:1].isascii() else ''}{device.name}"


def _category_word(category: str) -> str:
    """Return what a person calls a category's devices (a ContactSensor is a 传感器)."""
    word = CATEGORY_WORDS.get(category)
    if word is None:
        word = next((w for kind, w in CATEGORY_WORDS.items() if in_category(category, kind)), DEVICE_WORD)
    return word


def bound_groups(groups: list[TargetGroup], top_k: int) -> tuple[list[TargetGroup], bool]:
    """Cut groups to top_k (at most MAX_GROUPS) and MAX_BULK_TARGETS devices; say if anything was cut."""
    kept: list[TargetGroup] = []
    room = MAX_BULK_TARGETS
    for group in groups[: min(MAX_GROUPS, top_k)]:
        if room <= 0:
            break
        members = group.positions[:room]
        kept.append(TargetGroup(members, group.choice))
        room -= len(members)
    total = sum(len(group.positions) for group in groups)
    return kept, sum(len(group.positions) for group in kept) < total
