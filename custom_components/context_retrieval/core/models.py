"""Data model of the retrieval engine (CONTRACT §2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol


class Quantifier(StrEnum):
    """How many of the matching devices a command targets (wire key ``q``)."""

    ONE = "one"
    ALL = "all"
    ANY = "any"
    EXCEPT = "except"


UNKNOWN_ACTION = "UNKNOWN"
LAST_MENTIONED = "@last"
LAST_ROOM = "@room"
"""A room said by whose it is, in a follow-up (把他空调开起 after 轩轩房间几度): the last command's room."""
ANY_ROOM = "*"
ANY_NAME = "*"
UNKNOWN_CATEGORY = "Unknown"


class LLMClient(Protocol):
    """Anything that turns a system prompt and an utterance into model text."""

    def complete(self, system_prompt: str, user_text: str) -> str:
        """Return the model's raw answer."""


@dataclass(slots=True)
class CommandSpec:
    """One command (or, with ``readable``, one readable attribute) of a device."""

    id: str
    description: str
    type: str | None = None
    value_range: dict[str, Any] | None = None
    """``minimum``, ``maximum`` and ``unit`` of a numeric argument."""
    value_list: list[dict[str, Any]] | None = None
    """Allowed values, each with ``value`` and ``description``."""
    readable: bool = False
    """True for a spec ``condition``: an attribute that answers a query."""
    description_en: str | None = None
    """The description in English, when known (shown to agents conversing in another language)."""
    named_values: dict[str, float] | None = None
    """Points of the range said in words (暖光: 2700 for a colour temperature in K)."""


@dataclass(slots=True)
class Device:
    """A controllable thing in the home, as the engine sees it."""

    id: str
    name: str
    room: str
    category: str
    commands: list[CommandSpec] = field(default_factory=list)
    profile_id: str | None = None
    aliases: list[str] = field(default_factory=list)
    """Other names the user may call the device by."""
    kind: str = ""
    """What its device class is called (百叶窗, 窗户 for covers), empty when it has none."""
    part_of: str = ""
    """The appliance it is part of (a Home Assistant device): an airer's light and the airer share it."""

    def command(self, command_id: str | None) -> CommandSpec | None:
        """Return the device's command (or readable fact) with that id, None when it has none."""
        return next((command for command in self.commands if command.id == command_id), None)


@dataclass(slots=True, frozen=True)
class Room:
    """A room of the home with the other words that scope a command to it.

    A Home Assistant area gives its name and aliases, and its floor's name and
    aliases: 起居室 (an alias) means 客厅, and 一楼 every room on that floor.
    """

    name: str
    aliases: tuple[str, ...] = ()
    floor_names: tuple[str, ...] = ()
    """The floor's name and aliases."""


@dataclass(slots=True, frozen=True)
class Command:
    """One atomic command in the parser's wire format (CONTRACT §1)."""

    a: str
    s: str = ANY_ROOM
    n: str = ANY_NAME
    t: str = UNKNOWN_CATEGORY
    q: Quantifier = Quantifier.ONE
    c: int | None = None
    x: tuple[str, ...] = ()
    """Names of devices a set leaves out (除了落地灯: ``["落地灯"]``), optional (an extension of §1)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the wire-format object (``c`` and ``x`` only when set)."""
        data: dict[str, Any] = {"a": self.a, "s": self.s, "n": self.n, "t": self.t, "q": str(self.q)}
        if self.c is not None:
            data["c"] = self.c
        if self.x:
            data["x"] = list(self.x)
        return data


UNKNOWN_COMMAND = Command(a=UNKNOWN_ACTION)


@dataclass(slots=True)
class QueryIR:
    """The retrieval-side reading of one command."""

    raw: str
    """The whole utterance."""
    action: str | None
    name_hint: str | None
    type_hint: str | None
    scope_include: frozenset[str] = frozenset()
    scope_exclude: frozenset[str] = frozenset()
    quantifier: Quantifier = Quantifier.ONE
    references: tuple[str, ...] = ()
    """``("last-mentioned",)`` when the command points back (它/那个/刚才的)."""
    count: int | None = None
    confidence: float = 1.0
    exclude_names: tuple[str, ...] = ()
    """Names of devices the set leaves out (the wire's ``x``)."""


@dataclass(slots=True)
class Candidate:
    """One ranked answer: a device or a group, with the command to run."""

    entity_id: str
    entity_kind: Literal["device", "group"]
    capability_id: str | None
    keyword_score: float
    vector_score: float
    total_score: float
    reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Group:
    """Devices that share one command set and are targeted together."""

    id: str
    name: str
    device_ids: list[str]
    capability_id: str | None = None


@dataclass(slots=True)
class RetrievalResult:
    """What retrieval found for one parsed command."""

    command: Command
    candidates: list[Candidate] = field(default_factory=list)
    hint: str | None = None
    groups: dict[str, Group] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
