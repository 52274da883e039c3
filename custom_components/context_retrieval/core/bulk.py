"""Quantified commands (all / except): groups that cover the whole target set (seed 001 量词)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .fusion import CapabilityChoice
    from .models import Device

MAX_BULK_TARGETS = 100
"""Most devices one bulk result lists before asking the user to narrow down."""
MAX_GROUPS = 10
"""Most groups one bulk result lists."""
TOO_MANY_TARGETS = "too_many_targets"


@dataclass(slots=True)
class TargetGroup:
    """Targets sharing one command set, and the command chosen for all of them."""

    positions: list[int]
    choice: CapabilityChoice


def group_targets(
    positions: Sequence[int],
    command_sets: Sequence[frozenset[str]],
    choose: Callable[[int], CapabilityChoice],
) -> tuple[list[TargetGroup], bool]:
    """Group targets by identical command-id sets, largest first; one choice per group.

    Members of a group have the same command ids, so the command chosen for the first
    member is valid for every member (seed 001 按命令集一致性分组). When that gives more
    than MAX_GROUPS groups, groups with the same chosen command are merged (still valid
    for every member), so slightly different profiles don't look like a set explosion.
    Returns the groups and whether they were merged.
    """
    by_commands: dict[frozenset[str], list[int]] = {}
    for position in positions:
        by_commands.setdefault(command_sets[position], []).append(position)
    groups = [TargetGroup(members, choose(members[0])) for members in by_commands.values()]
    merged = len(groups) > MAX_GROUPS
    if merged:
        by_command: dict[str | None, TargetGroup] = {}
        for group in groups:
            key = group.choice.command_id
            if key in by_command:
                by_command[key].positions.extend(group.positions)
            else:
                by_command[key] = TargetGroup(list(group.positions), group.choice)
        groups = list(by_command.values())
    groups.sort(key=lambda group: (-len(group.positions), min(group.positions)))
    return groups, merged


def group_name(devices: Sequence[Device], positions: Sequence[int]) -> str:
    """Return a short human name such as ``客厅、卧室 Light ×3``."""
    rooms = list(dict.fromkeys(devices[p].room for p in positions if devices[p].room))
    categories = list(dict.fromkeys(devices[p].category for p in positions))
    shown_rooms = "、".join(rooms[:3]) + ("…" if len(rooms) > 3 else "")
    return f"{shown_rooms} {'/'.join(categories[:2])} ×{len(positions)}".strip()


def bound_groups(groups: list[TargetGroup]) -> tuple[list[TargetGroup], bool]:
    """Cut groups to MAX_GROUPS and MAX_BULK_TARGETS devices; report whether anything was cut."""
    kept: list[TargetGroup] = []
    room = MAX_BULK_TARGETS
    for group in groups[:MAX_GROUPS]:
        if room <= 0:
            break
        members = group.positions[:room]
        kept.append(TargetGroup(members, group.choice))
        room -= len(members)
    total = sum(len(group.positions) for group in groups)
    return kept, sum(len(group.positions) for group in kept) < total
