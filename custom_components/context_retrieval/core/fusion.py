"""Hybrid scoring and capability consistency (seed 001 混合召回, seed 004 命令一致性校验)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .parsing.offline import EXTREME_VALUES, relative_direction
from .text import compact, has_han, has_latin, unified

if TYPE_CHECKING:
    import numpy as np

    from .models import CommandSpec, QueryIR
    from .vector import CommandVectorIndex

_LOGGER = logging.getLogger(__name__)

GATED_WEIGHTS = (1.0, 0.5)
"""Keyword and vector weights when a category gate applies."""
UNGATED_WEIGHTS = (1.5, 0.2)
"""Keyword and vector weights when the names carry the signal (no usable type hint)."""
ROOM_BONUS = 0.2
TYPE_BONUS = 0.2
CAPABILITY_MIN_SIMILARITY = 0.12
"""Below this cosine a command is not what the action asks for."""
SWITCH_VALUES = frozenset({"开", "开启", "打开", "启用", "关", "关闭", "关掉", "停用"})
"""Values that only say on/off (设置摆风=开启): embedding them would pull towards the power switch."""
UNNAMED_SETTING = "设置"
"""The action of a setting that names nothing set (设置=50%)."""

QUERY_WORDS = ("查询", "多少", "状态", "是否", "几度", "查看", "看看", "有没有", "是不是", "读取", "当前")
"""Words that make an action a question about state, answered by readable attributes."""


_NUMBER_WITH_UNIT = re.compile(r"(-?\d+(?:\.\d+)?)\s*(%|℃|°c|°f|°|度|c|f|k)?", re.IGNORECASE)
_LATIN_BEFORE = re.compile(r"[a-z]$", re.IGNORECASE)
TEMPERATURE_UNITS = frozenset({"℃", "°c", "°f", "°", "度", "c", "f", "celsius", "fahrenheit"})
PERCENT_UNITS = frozenset({"%"})


@dataclass(slots=True, frozen=True)
class ActionValue:
    """The argument an action carries (设置温度=26, 调到24C, 50%, 自然风): its number and unit, if any."""

    number: float | None = None
    unit: str | None = None
    end: int | None = None
    """An end of the range (设置风速=最大: 1, 最小: -1), which every range holds."""
    words: str | None = None
    """A value said in words (设置=紫色), which a command listing it holds."""
    unnamed: bool = False
    """True when the action names no setting (设置=50% for 开到一半 on a device of unknown kind)."""
    change: bool = False
    """True when the number is a change by it (调高温度=5C), not a value to set: no range need hold it."""

    @classmethod
    def parse(cls, action: str) -> ActionValue | None:
        """Return the value of ``设置X=v`` or a number said in the action, None when there is none."""
        key, equals, value = action.partition("=")
        said = value.strip() if equals else ""
        unnamed = equals != "" and key.strip() == UNNAMED_SETTING
        if (end := EXTREME_VALUES.get(said)) is not None:
            return cls(end=end, unnamed=unnamed)
        match = _NUMBER_WITH_UNIT.search(said or key)
        if match is None or _LATIN_BEFORE.search((said or key)[: match.start()]):
            # HDMI1, PS5: a number written onto a word is part of that word
            return cls(words=said.lower(), unnamed=unnamed) if said and said not in SWITCH_VALUES else None
        unit = match.group(2).lower() if match.group(2) else None
        change = relative_direction(key) is not None
        return cls(float(match.group(1)), unit, unnamed=unnamed, change=change)

    def unit_fits(self, command: CommandSpec) -> bool:
        """Return True when the value has no unit, or one of the same kind as the command's range."""
        unit = _range_unit(command.value_range or {})
        return self.unit is None or _unit_family(self.unit) == _unit_family(unit)

    def unit_fits_range(self, command: CommandSpec) -> bool:
        """Return True unless the value has a unit and the command's range one of another kind."""
        unit = _range_unit(command.value_range or {})
        return self.unit is None or unit is None or self.unit_fits(command)

    def fits(self, command: CommandSpec) -> bool:
        """Return True when the command's range holds the number in a compatible unit."""
        value_range = command.value_range or {}
        if self.end is not None:
            return all(isinstance(value_range.get(key), (int, float)) for key in ("minimum", "maximum"))
        if self.words is not None:
            named = command.named_values or {}
            return any(listed_in(self.words, item) for item in command.value_list or ()) or any(
                word in self.words for word in named
            )
        if self.number is None or not value_range:
            return False
        low, high = value_range.get("minimum"), value_range.get("maximum")
        # 调高五度 is five degrees more, whatever the range
        held = self.change or (
            (not isinstance(low, (int, float)) or self.number >= low)
            and (not isinstance(high, (int, float)) or self.number <= high)
        )
        return held and self.unit_fits(command)


def _range_unit(value_range: dict[str, object]) -> str | None:
    """Return a range's unit (SmartThings lists it: ``["℃"]``)."""
    unit = value_range.get("unit")
    if isinstance(unit, list):
        unit = unit[0] if unit else None
    return str(unit).lower() if unit else None


def _unit_family(unit: str | None) -> str | None:
    """Return ``temperature``, ``percent`` or the unit itself."""
    if unit is None:
        return None
    if unit in TEMPERATURE_UNITS:
        return "temperature"
    if unit in PERCENT_UNITS:
        return "percent"
    return unit


def listed_words(item: dict[str, Any]) -> list[str]:
    """Return the words saying a listed value, its description and itself, read as utterances are.

    The home's spelling is folded like what is said (極光 is 极光; Night is 夜间, as night mode).
    """
    return [compact(word) for word in (item.get("description"), item.get("value")) if isinstance(word, str)]


def listed_in(words: str, item: dict[str, Any]) -> bool:
    """Return True when ``words`` say a listed value, by its description or itself (睡眠模式: sleep)."""
    said = compact(words)
    return any(word and word in said for word in listed_words(item))


def is_plain_number(value: str) -> bool:
    """Return True when ``value`` is only a number and a unit this module knows (26, 50%, 24C; not 3档)."""
    return _NUMBER_WITH_UNIT.fullmatch(value.strip()) is not None


def takes_argument(command: CommandSpec) -> bool:
    """Return True when a command is given a value (a range or a list to choose from)."""
    return bool(command.value_range or command.value_list)


@dataclass(slots=True, frozen=True)
class VectorQuery:
    """The text embedded for one command and why it was chosen."""

    text: str
    fallback_reason: str | None = None
    is_question: bool = False
    value: ActionValue | None = None
    """The action's argument, when it carries one: commands taking one are preferred."""


def vector_query_for(ir: QueryIR) -> VectorQuery:
    """Return the Chinese action as the embedding query, or the raw utterance (seed 004).

    ``设置亮度=50%`` embeds ``设置亮度``; a Chinese value is kept (``设置风模式=自然风``
    embeds ``设置风模式 自然风``). An English or empty action falls back to the raw text.
    """
    action = (ir.action or "").strip()
    if not action:
        _LOGGER.debug("No action parsed; embedding the raw query %r instead", ir.raw)
        return VectorQuery(ir.raw, "empty_action", _is_question(ir.raw))
    key, _, value = action.partition("=")
    value = value.strip()
    # 风速调到最大: an end of a range says nothing of which setting it is, unlike 自然风
    named = has_han(value) and value not in SWITCH_VALUES and value not in EXTREME_VALUES
    text = f"{key} {value}".strip() if named else key.strip()
    # A number's unit letter (调到24C, 50%) does not make the action English.
    if has_latin(_NUMBER_WITH_UNIT.sub("", text)) or not has_han(text):
        _LOGGER.debug("Action %r is not a Chinese phrase; embedding the raw query %r instead", action, ir.raw)
        return VectorQuery(ir.raw, "non_chinese_action", _is_question(ir.raw))
    if _is_question(text):
        # 查询状态 names no attribute; the utterance (门关了没, 几度) says which one, once the
        # device's own name and rooms are out of it (烟雾报警器 would pull towards 烟雾).
        said = _clause_about(unified(ir.raw), unified(ir.name_hint or ""))
        for word in (ir.name_hint, *ir.scope_include):
            said = said.replace(unified(word), " ") if word else said
        return VectorQuery(f"{_QUESTION_WORDS.sub('', text)} {said}".strip(), None, is_question=True)
    specific = _SET_VERBS.sub("", _NUMBER_WITH_UNIT.sub("", text)).strip()
    return VectorQuery(specific if has_han(specific) else text, None, value=ActionValue.parse(action))


_QUESTION_WORDS = re.compile("|".join(QUERY_WORDS))
SET_VERBS = ("设置", "调整", "调节", "调到", "调成", "调为", "设为", "设成", "改成", "切换到", "切换")
"""Verbs every setter shares: embedding them pulls 设置摆风 towards 设置风速, so they are dropped."""
_SET_VERBS = re.compile("|".join(SET_VERBS))


_CLAUSE_BREAKS = re.compile(r"[，,。；;！!？?]|然后")


def _clause_about(text: str, name: str | None) -> str:
    """Return the clause of an utterance that names ``name`` (the whole text if none or several do).

    卧室窗户关了没，温度多少 asks two things; the window's question is 卧室窗户关了没.
    """
    clauses = [clause for clause in _CLAUSE_BREAKS.split(text) if clause.strip()]
    if not name or len(clauses) < 2:
        return text
    naming = [clause for clause in clauses if name in clause]
    if len(naming) != 1 or not naming[0].replace(name, "").strip():
        return text
    return naming[0]


def _is_question(text: str) -> bool:
    """Return True when the text asks about state rather than commanding."""
    return any(word in text for word in QUERY_WORDS)


@dataclass(slots=True, frozen=True)
class CapabilityChoice:
    """The command chosen for a device and its similarity to the action."""

    command: CommandSpec | None
    similarity: float
    evidence: float = 0.0
    """What the command's argument adds for an action with a value (see ``_value_evidence``)."""

    @property
    def command_id(self) -> str | None:
        """Return the chosen command's id (None for a device without command specs)."""
        return self.command.id if self.command else None


def choose_capability(
    vectors: CommandVectorIndex,
    position: int,
    pair_scores: np.ndarray,
    *,
    question: bool,
    value: ActionValue | None = None,
) -> CapabilityChoice:
    """Return the device's command most similar to the action (or whose kin is, see ``vector``).

    A question is answered by the most similar readable attribute when the device has
    one, else by its most similar command; a command is never answered by an attribute.
    An action with a value weighs, besides the wording, whether a command takes an
    argument (开到三成: a level, not a step) and whether its range holds the number in its
    unit (调到26度: the set point, not a fan speed); a command holding it beats one that would
    drop it. A device without command specs gets
    its name/room document's similarity.
    """
    best: dict[bool, CapabilityChoice] = {}
    commands: list[CapabilityChoice] = []
    for entry in vectors.device_entries[position]:
        command = vectors.entry_command[entry]
        score = float(pair_scores[vectors.entry_pair[entry]])
        if command is None:  # name/room fallback document: similarity only, no command
            return CapabilityChoice(None, score)
        if command.readable and not question:
            continue
        if not command.readable:
            commands.append(CapabilityChoice(command, score))
        if command.readable not in best or score > best[command.readable].similarity:
            best[command.readable] = CapabilityChoice(command, score)
    if value is not None and not question and commands:
        weighed = [replace(choice, evidence=_value_evidence(choice, value)) for choice in commands]
        holding = [c for c in weighed if c.command is not None and value.fits(c.command)]
        if value.unnamed and holding:
            return holding[0]  # 开到一半 names no setting: the device's first (main) one that takes it
        # 叶片调到一半: a command taking no value (合上叶片) would drop it, however alike its words
        # (an end of a range, 风速调到最大, is no number to hold: a list of speeds has ends too)
        restricted = holding if value.end is None else []
        return max(restricted or weighed, key=lambda choice: choice.similarity + choice.evidence)
    return best.get(True) or best.get(False) or CapabilityChoice(None, 0.0)


def _value_evidence(choice: CapabilityChoice, value: ActionValue) -> float:
    """Return how much a command's argument adds for an action with a value.

    A range that holds the number counts as much as being similar enough to the action
    (CAPABILITY_MIN_SIMILARITY); taking an argument at all, half of that; one in another unit
    (19.5 °C for a brightness in %), nothing.
    """
    command = choice.command
    if command is None or not takes_argument(command) or not value.unit_fits_range(command):
        return 0.0
    # every range has ends: 风速调到最大 holds no more for a set point than for a fan speed
    held = value.end is None and value.fits(command)
    return CAPABILITY_MIN_SIMILARITY * (1.0 if held else 0.0) + CAPABILITY_MIN_SIMILARITY / 2


def is_capable(choice: CapabilityChoice, *, enforce: bool) -> bool:
    """Return True when the chosen command carries out the action or answers the question.

    The check is enforced only when the query is the parsed Chinese action; a raw
    utterance is too noisy to reject commands by.
    """
    if not enforce or (choice.command is not None and choice.command.readable):
        return True  # any readable attribute answers a question about its device
    return choice.command is not None and choice.similarity + choice.evidence >= CAPABILITY_MIN_SIMILARITY
