"""The value an action gives a command (设置亮度=50% → 50), checked against the command's range or list.

An agent that acts without an LLM needs the argument of the command it runs; a value it
cannot read, or one outside the command's range, is a reason to ask instead of acting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .fusion import ActionValue, is_plain_number, listed_words, takes_argument
from .parsing.offline import EXTREME_VALUES, MODE_WORDS, relative_direction
from .spec import VERB_SYNONYMS
from .text import compact, has_han
from .value_order import ascending_words, outside_words

if TYPE_CHECKING:
    from .models import CommandSpec

UNIT_INTERVAL_PERCENT = 100.0
"""A percentage said for a command whose range is 0 to 1 (a volume level) is divided by this."""
PERCENT_STEP = 20.0
"""How far 亮一点 / 大一点 moves a percentage of 0 to 100 when no number is said."""
PERCENT_SPAN = 100.0
"""The span of a whole percentage."""
UNIT_INTERVAL_STEP = 0.1
"""How far 大声一点 moves a 0-to-1 value (a volume level) when no number is said."""
UNIT_STEP = 1.0
"""How far 调高一点 moves any other value (a temperature) when no number is said."""
WIDE_RANGE = 100
"""Units a range spans beyond which a unit is no step a person would notice (2700 to 6500 K)."""
WIDE_RANGE_STEPS = 10
"""Steps an adjustment without a number takes across a wide range."""
ROUND_MULTIPLES = (1, 2, 5, 10)
"""The round steps people count in, times a power of ten."""
_SMALLEST_STEP = {1: 0.01}
"""The first step above 0 of a 0-to-1 range (a volume level); 1 for any other."""


LEVEL_WORD = "档"
"""The word of a numbered level (三档): the third step of a range."""
SWITCHED_ON_WORDS = frozenset({"开启", *VERB_SYNONYMS["开启"]})
"""Values saying a setting is switched on (设置摆风=开启)."""
OFF_VALUE = "off"
"""Home Assistant's value of a listed setting switched off (swing_mode off)."""
STEP_TOLERANCE = 1e-6
"""How far from a step a number may be (in steps) and still be on it."""


class ArgumentProblem(StrEnum):
    """Why an action gives a command no usable value."""

    MISSING = "missing"
    """The command takes a value and the action says none (调一下音量)."""
    OUT_OF_RANGE = "out_of_range"
    """The number is outside the command's range (把灯调到200%)."""
    UNKNOWN_VALUE = "unknown_value"
    """The command takes one of a list and the action names none of them."""
    UNEXPECTED = "unexpected"
    """The action carries a value and the command takes none (the value would be lost)."""
    OFF_STEP = "off_step"
    """The number falls between the command's steps (25.5 °C on an air conditioner set by whole degrees)."""


@dataclass(frozen=True, slots=True)
class Argument:
    """The value for a command (None when it takes none), or the problem that prevents one."""

    value: Any = None
    problem: ArgumentProblem | None = None


def command_argument(action: str, command: CommandSpec, current: float | str | None = None) -> Argument:
    """Return the value ``action`` (a wire-format action such as 设置温度=26) gives ``command``.

    An adjustment (调高温度=2C, 调暗) moves the value: a change command (a brightness step)
    gets the signed change, any other the ``current`` value moved by it, held within the range;
    a listed value (风小一点 at 中风) the next one its words rank that way.
    """
    said = ActionValue.parse(action)
    if said is not None and said.words and command.named_values and command.value_range:
        return _named_value(said.words, command)
    direction = relative_direction(action)
    if direction is not None and (adjusted := _adjusted(direction, said, command, current)) is not None:
        return adjusted
    if not takes_argument(command):
        if direction is not None and relative_direction(command.description) is None:
            # 叶片再关一点 answered by 合上叶片: a command that goes all the way is no step
            return Argument(problem=ArgumentProblem.MISSING)
        return Argument(problem=ArgumentProblem.UNEXPECTED) if said is not None else Argument()
    if command.value_list:
        return _listed_value(action, command.value_list)
    return _ranged_value(action, said, command)


def _ranked(value_list: list[dict[str, Any]]) -> list[tuple[int, Any, str]]:
    """Return the listed values their descriptions' words rank, with each rank and the words, lowest first."""
    order = ascending_words()
    ranked = []
    for item in value_list:
        words = compact(_value_words(item))  # as said: a vacuum's quiet is 静音, its max 最大
        held = max((word for word in order if word in words), key=len, default=None)
        if held is not None:
            ranked.append((order.index(held), item.get("value"), words))
    return sorted(ranked, key=lambda ranked_value: ranked_value[0])


def _listed_end(end: int, value_list: list[dict[str, Any]]) -> Argument:
    """Return the listed value ranked highest (``end`` 1) or lowest (-1) by the words of its description."""
    ranked = _ranked(value_list)
    if not ranked:
        return Argument(problem=ArgumentProblem.UNKNOWN_VALUE)
    rank = ranked[-1][0] if end > 0 else ranked[0][0]
    # max and max_plus both say 最大: the one saying no more than that
    at_end = [(value, words) for r, value, words in ranked if r == rank]
    return Argument(min(at_end, key=lambda value_words: len(value_words[1]))[0])


def _listed_step(direction: int, value_list: list[dict[str, Any]], current: float | str | None) -> Argument:
    """Return the listed value ranked next after ``current`` that way (风小一点 at 中风: 低风).

    At an end the value stays. A present value outside the order (自动风) stands in the middle of
    the ranks: 风小一点 at 自动风 of 低风, 中风, 高风 is 低风. Any other present value that no word
    ranks, or none known, is asked about.
    """
    ranked = _ranked(value_list)
    values = [value for _, value, _ in ranked]
    if current in values:
        position = values.index(current) + direction
    elif values and _outside_order(current, value_list):
        middle = (len(values) - 1) / 2
        position = math.ceil(middle - 1) if direction < 0 else math.floor(middle + 1)
    else:
        return Argument(problem=ArgumentProblem.MISSING)
    return Argument(values[min(max(position, 0), len(values) - 1)])


def _outside_order(current: float | str | None, value_list: list[dict[str, Any]]) -> bool:
    """Return True when the present value's words put it outside the order (自动风, 智能)."""
    item = next((item for item in value_list if item.get("value") == current), None)
    words = compact(_value_words(item)) if item else ""
    return any(word in words for word in outside_words())


def _value_words(item: dict[str, Any]) -> str:
    """Return the words a listed value is ranked by: its description, else itself."""
    return str(item.get("description") or item.get("value") or "")


def _adjusted(
    direction: int, said: ActionValue | None, command: CommandSpec, current: float | str | None
) -> Argument | None:
    """Return the value an adjustment moves a listed or ranged command to, None for other commands."""
    if command.value_list and command.type != "boolean":
        return _listed_step(direction, command.value_list, current)
    if command.value_range and not isinstance(current, str):
        return _relative_value(direction, said, command, current)
    return None


def _named_value(words: str, command: CommandSpec) -> Argument:
    """Return the point of the range the words name (调成暖光: 2700 K), held within the range."""
    named = command.named_values or {}
    said = max((word for word in named if word in words), key=len, default=None)
    if said is None:  # a range has no list to offer: how much is asked
        return Argument(problem=ArgumentProblem.MISSING)
    value_range = command.value_range or {}
    value = named[said]
    low, high = value_range.get("minimum"), value_range.get("maximum")
    if isinstance(low, (int, float)):
        value = max(value, low)
    if isinstance(high, (int, float)):
        value = min(value, high)
    return Argument(round(value))


def _listed_value(action: str, value_list: list[dict[str, Any]]) -> Argument:
    """Return the listed value whose description (or value) the action names; the longest wins.

    An end of the list (风速调到最大 of 低风, 中风, 高风) is the value its words rank so.
    """
    _, equals, said = action.partition("=")
    if equals and (end := EXTREME_VALUES.get(said.strip())) is not None:
        return _listed_end(end, value_list)
    text = compact(said if equals else action)
    best: tuple[int, Any] | None = None
    for item in value_list:
        for word in listed_words(item):
            if word and word in text and (best is None or len(word) > best[0]):
                best = (len(word), item.get("value"))
    if best is None and text:
        # 设置摆风=开启 on a fan listing 开启摇头 and 关闭摇头: the one value whose words hold it.
        holding = [item for item in value_list if text in compact(str(item.get("description") or ""))]
        # 红 of 红色 and 粉红色: the one it begins
        starting = [item for item in holding if compact(str(item.get("description") or "")).startswith(text)]
        only = holding if len(holding) == 1 else starting
        best = (len(text), only[0].get("value")) if len(only) == 1 else None
    if (
        best is None
        and equals
        and text not in MODE_WORDS  # 制热 on an air conditioner without heating is no 制冷
        and (only := _the_one_sharing_a_character(text, value_list)) is not None
    ):
        best = (1, only)  # 风速调到低档 of 自动风, 低风, 中风, 高风: 低 is 低风's alone
    if best is None and text in SWITCHED_ON_WORDS:
        # 摆风=开启 on an air conditioner listing off and vertical: the one that is not off.
        on = [item for item in value_list if str(item.get("value")).lower() != OFF_VALUE]
        best = (len(text), on[0].get("value")) if len(on) == 1 < len(value_list) else None
    if best is None:
        return Argument(problem=ArgumentProblem.UNKNOWN_VALUE if equals else ArgumentProblem.MISSING)
    return Argument(best[1])


def _the_one_sharing_a_character(text: str, value_list: list[dict[str, Any]]) -> Any:
    """Return the one listed value holding a character of ``text`` that no other value holds, else None.

    Every such character must point to the same value (低档: 低 is only 低风's; 档 is none's).
    """
    words = [(item.get("value"), "".join(listed_words(item))) for item in value_list]
    found = {
        value
        for char in set(text)
        if has_han(char)
        for holding in [[value for value, said in words if char in said]]
        if len(holding) == 1
        for value in holding
    }
    return found.pop() if len(found) == 1 else None


def _ranged_value(action: str, said: ActionValue | None, command: CommandSpec) -> Argument:
    """Return the number said (or an end of the range: 调到最亮), fitted to the command's unit and type."""
    _, equals, value = action.partition("=")
    if equals and (end := EXTREME_VALUES.get(value.strip())) is not None:
        return _range_end(end, command)
    if said is None or said.number is None:
        return Argument(problem=ArgumentProblem.MISSING)
    value_range = command.value_range or {}
    if equals and not is_plain_number(value):
        level = _level(value, said.number, value_range)  # 五档 of a fan in 10 % steps: 50 %
        if level is None:
            return Argument(problem=ArgumentProblem.UNKNOWN_VALUE)  # 三档 is a level, not 3 %
        said = ActionValue(level, "%")
    elif equals and said.unit is None and (level := _plain_level(said.number, value_range)) is not None:
        said = ActionValue(level, "%")  # 风速调到6 on a fan of ten speeds: the sixth, 60 %
    number = said.number
    if (
        value_range.get("minimum") == 0
        and value_range.get("maximum") == 1
        and (said.unit == "%" or number > 1)
    ):
        said = ActionValue(number / UNIT_INTERVAL_PERCENT)
    if said.number is None or not said.fits(command):
        return Argument(problem=ArgumentProblem.OUT_OF_RANGE)
    if _off_step(said.number, value_range):
        return Argument(problem=ArgumentProblem.OFF_STEP)
    fitted: float | int = said.number
    if command.type == "integer" or (float(fitted).is_integer() and _integral(value_range)):
        fitted = round(fitted)
    return Argument(fitted)


def _level(value: str, number: float, value_range: dict[str, Any]) -> float | None:
    """Return the percentage of the ``number``-th level (档) of a range in percent steps, None otherwise."""
    return _nth_step(number, value_range) if value.strip().endswith(LEVEL_WORD) else None


def _plain_level(number: float, value_range: dict[str, Any]) -> float | None:
    """Return the percentage of the ``number``-th step of a percent range of few steps, None otherwise.

    A number said without a unit of a range with steps coarser than 1 % is a level when the
    range has that many steps (6 of ten speeds); a larger number is a percentage (30: 30 %).
    """
    if number < 1 or not isinstance(value_range.get("maximum"), (int, float)):
        return None
    return _nth_step(number, value_range, coarser_than=1)


def _nth_step(number: float, value_range: dict[str, Any], *, coarser_than: float = 0) -> float | None:
    """Return the percentage of the ``number``-th step of a percent range, None when it has no such step.

    Only ranges whose step is coarser than ``coarser_than`` (percent) count.
    """
    step, high = value_range.get("step"), value_range.get("maximum")
    if str(value_range.get("unit")) != "%" or not isinstance(step, (int, float)) or step <= coarser_than:
        return None
    if not float(number).is_integer():
        return None
    if not isinstance(high, (int, float)):
        return _whole_percent(number * step)
    if abs(number * step - high) < 1:
        return high  # the top of three speeds in steps written 33.33: 100, not 99
    level = _whole_percent(number * step)
    return level if level <= high + STEP_TOLERANCE else None


def _off_step(number: float, value_range: dict[str, Any]) -> bool:
    """Return True when a number falls between the steps of a range (a percentage is rounded: never)."""
    step, low = value_range.get("step"), value_range.get("minimum")
    if str(value_range.get("unit")) == "%" or not isinstance(step, (int, float)) or step <= 0:
        return False
    steps = (number - (low if isinstance(low, (int, float)) else 0)) / step
    return abs(steps - round(steps)) > STEP_TOLERANCE


def _range_end(end: int, command: CommandSpec) -> Argument:
    """Return the top (``end`` 1) or the bottom (-1) of a command's range.

    A range that starts at 0 starts with "off" (a brightness, a fan speed): its bottom, as people
    mean 最暗 or 最小, is the first step above it.
    """
    value_range = command.value_range or {}
    bound = value_range.get("maximum" if end > 0 else "minimum")
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        return Argument(problem=ArgumentProblem.UNKNOWN_VALUE)
    if end < 0 and bound == 0:
        step = value_range.get("step")
        bound = (
            _whole_percent(step)
            if isinstance(step, (int, float)) and step > 0
            else _SMALLEST_STEP.get(value_range.get("maximum"), 1)
        )
    return Argument(round(bound) if float(bound).is_integer() else bound)


def _whole_percent(percent: float) -> int:
    """Return a step's percentage as Home Assistant writes it: whole, rounded down (66 for 2 of 3 speeds).

    Home Assistant reads 67 % of a three-speed fan as its top speed (it rounds up to a speed).
    """
    return math.floor(percent + STEP_TOLERANCE)


def _relative_value(
    direction: int, said: ActionValue | None, command: CommandSpec, current: float | None
) -> Argument:
    """Return the value an adjustment gives a ranged command, from its step or the number said."""
    value_range = command.value_range or {}
    low, high = value_range.get("minimum"), value_range.get("maximum")
    step = _step(said, command)
    if step is None:
        return Argument(problem=ArgumentProblem.UNKNOWN_VALUE)
    if isinstance(low, (int, float)) and low < 0:
        if direction < 0 and (said is None or said.number is None) and isinstance(current, (int, float)):
            step = min(step, _round_step_within(current / 2))  # 暗一点 at 15 %: a dim light stays lit
        value = direction * step  # a change command: brightness_step_pct
    elif current is None:
        return Argument(problem=ArgumentProblem.MISSING)  # nothing to move from: ask for the value
    else:
        value = current + direction * step
    if isinstance(low, (int, float)):
        value = max(value, low)
    if isinstance(high, (int, float)):
        value = min(value, high)
    if command.type == "integer" or (float(value).is_integer() and _integral(value_range)):
        return Argument(round(value))
    return Argument(round(value, 2))


def _step(said: ActionValue | None, command: CommandSpec) -> float | None:
    """Return how far an adjustment moves a ranged command: the number said, else its usual step.

    None when the number's unit is not the command's.
    """
    value_range = command.value_range or {}
    low, high = value_range.get("minimum"), value_range.get("maximum")
    unit_interval = low == 0 and high == 1
    if said is not None and said.number is not None:
        if not said.unit_fits(command) and not (unit_interval and said.unit == "%"):
            return None
        if unit_interval and (said.unit == "%" or said.number > 1):
            return said.number / UNIT_INTERVAL_PERCENT
        return said.number
    if unit_interval:
        return UNIT_INTERVAL_STEP
    if str(value_range.get("unit")) == "%":
        return _percent_step(low, high)
    return _unit_step(low, high)


def _percent_step(low: object, high: object) -> float:
    """Return how far an adjustment without a number moves a percentage: PERCENT_STEP of a whole one.

    A narrower range moves by as large a share of it, the nearest step people count in: a
    humidifier's target of 30 to 80 % by 10, not 20 (two fifths of its range); 1 to 100 % by 20.
    """
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and 0 < high - low < PERCENT_SPAN:
        share = PERCENT_STEP * (high - low) / PERCENT_SPAN
        power = 10 ** math.floor(math.log10(share))
        return min((m * power for m in ROUND_MULTIPLES), key=lambda step: abs(step - share))
    return PERCENT_STEP


def _unit_step(low: object, high: object) -> float:
    """Return how far an adjustment without a number moves a range: a unit, or a tenth of a wide one.

    调高一点 moves a temperature by a degree; a colour temperature of 2700 to 6500 K by a tenth,
    380 K, said as people count: 500 K (the first of 1, 2 and 5 times a power of ten not below
    it, so that the change is seen: 3000 to 6000 K moves by 500 K too, not 200).
    """
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and high - low > WIDE_RANGE:
        tenth = (high - low) / WIDE_RANGE_STEPS
        power = 10 ** math.floor(math.log10(tenth))
        return min(m * power for m in ROUND_MULTIPLES if m * power >= tenth)
    return UNIT_STEP


def _round_step_within(most: float) -> float:
    """Return the largest step people count in (1, 2, 5 times a power of ten) up to ``most``, at least 1."""
    if most < 1:
        return 1
    power = 10 ** math.floor(math.log10(most))
    return max(m * power for m in ROUND_MULTIPLES if m * power <= most)


def _integral(value_range: dict[str, Any]) -> bool:
    """Return True when a range's bounds and step are whole numbers (a percentage, a step of 1)."""
    bounds = [value_range.get(key) for key in ("minimum", "maximum", "step")]
    return all(
        bound is None or (isinstance(bound, (int, float)) and float(bound).is_integer()) for bound in bounds
    )
