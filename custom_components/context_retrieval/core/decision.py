"""What an agent without an LLM does with a retrieval: act, answer, ask back, or hand the utterance on.

Safety first: acting on the wrong device is worse than asking. A command is acted on only
when it is clear: one device or one group, a command the devices have, a value the command
takes and whose range holds it, no hint, and nothing the engine had to guess (a room it did
not find, a name nobody has, 它 with nothing before it, a whole-home set the user did not
ask for with an all-word). A question is answered from what can read it: reading never
changes anything, so close matches are all read. An utterance with no readable command
is handed on (to Home Assistant's own agent).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .arguments import SWITCHED_ON_WORDS, ArgumentProblem, command_argument
from .fusion import ActionValue, listed_in, takes_argument
from .gating import (
    DEVICE_WORDS,
    EVERYTHING_WORDS,
    GENERIC_TYPE_WORDS,
    TYPE_WORDS,
    in_category,
    is_kind_word,
    is_type_word,
    says_a_thing,
)
from .models import (
    ANY_NAME,
    ANY_ROOM,
    LAST_MENTIONED,
    UNKNOWN_ACTION,
    UNKNOWN_CATEGORY,
    Candidate,
    Quantifier,
)
from .parsing.offline import (
    ACTION_MUTE,
    ACTION_OFF,
    ACTION_ON,
    ACTION_PAUSE,
    ACTION_STOP,
    ATTRIBUTE_WORDS,
    EXTREME_VALUES,
    LOWERING_ACTIONS,
    RAISING_ACTIONS,
    SETTING_PREFIX,
    TEMPERATURE_ATTRIBUTE,
    relative_direction,
    says_fully,
    spoken_values,
)
from .search import (
    ANSWERED_REFERENCE,
    CLOSE_MATCH_MARGIN,
    MULTIPLE_CLOSE_MATCHES,
    NAME_NOT_FOUND,
    NO_TARGET,
    RECENT_REFERENCE,
    VALUE_NOT_TAKEN,
    VALUE_REFERENCE,
    close_matches,
    says_all,
    says_whole_home,
)
from .spec import VERB_SYNONYMS
from .text import as_heard, compact, has_latin, normalize, without_remarks

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from .models import CommandSpec, Device, RetrievalResult

SCENE_CATEGORY = "Scene"
"""Scenes and scripts (CONTRACT §3): said by name alone, they are run."""
SCENE_WORDS = DEVICE_WORDS[SCENE_CATEGORY].words
"""The words of a scene's kind (模式, 场景): 晚安模式 said as 晚安 is still run."""
_LATIN_WORD = re.compile(r"[a-z]{2,}")
MIN_NAME_LENGTH = 2
"""Characters a name must have to find a set by (家 of 家里 is no name)."""
MAX_SCENE_EXTRA = 3
"""Characters an utterance may say besides a scene's name for it to mean running it (执行早安)."""
MAX_SCENE_INSERTED = 2
"""Characters an utterance may put inside a scene's name (豆豆要睡觉了 for 豆豆睡觉)."""
MIN_SPREAD_NAME = 3
"""Characters a scene's name needs before words inside it are allowed."""
MAX_READINGS = 3
"""Close candidates read for a question about one thing (客厅温度多少: the sensor and the air conditioner)."""
MIN_CHOICES = 2
"""Candidates it takes to choose among."""
MAX_OPTIONS = 5
"""Devices or rooms named when asking which one."""
GUESSED = (
    "scope_include_fallback",
    "keyword_miss",
    "bulk_name_unmatched",
    "reference_unresolved",
    "kept_for_unfamiliar_action",
    "exclusion_unmatched",
)
"""Meta keys saying the engine guessed: a room it did not find, a name nobody has, 它 with no referent,
a command kept for an action it does not know, a device left out by a name nothing is called."""
NAME_REASONS = frozenset({"name_hit", "alias_hit", "pinyin_hit", "room_carried"})
"""Candidate reasons that say the device was found by what the user called it (or sounds like it)."""


class Outcome(StrEnum):
    """What the agent does with the utterance."""

    ACT = "act"
    ANSWER = "answer"
    ASK = "ask"
    HAND_OFF = "hand_off"


class AskReason(StrEnum):
    """Why the agent asks back instead of acting."""

    WHICH_DEVICE = "which_device"
    """Several devices fit equally well."""
    WHICH_ROOM = "which_room"
    """A set over the whole home the user did not ask for with an all-word (打开灯)."""
    TOO_MANY = "too_many"
    NOT_FOUND = "not_found"
    """No device is called what the user said, or the room was not found."""
    NO_TARGET = "no_target"
    """它 or a bare 关掉 with nothing mentioned before."""
    NO_COMMAND = "no_command"
    """The device chosen has no command for the action."""
    MISSING_VALUE = "missing_value"
    OUT_OF_RANGE = "out_of_range"
    UNKNOWN_VALUE = "unknown_value"
    UNEXPECTED_VALUE = "unexpected_value"
    OFF_STEP = "off_step"
    """The number falls between the command's steps."""
    AT_END = "at_end"
    """A step down said of a device at its lowest speed: lower is off (台扇风再小一点 at its first speed)."""
    UNREAD_WORDS = "unread_words"
    """The utterance has words nothing was read from (rainbow effect): acting would leave them out."""


_HINT_REASONS = {
    "multiple_close_matches": AskReason.WHICH_DEVICE,
    "too_many_targets": AskReason.TOO_MANY,
    "name_not_found": AskReason.NOT_FOUND,
    "no_target": AskReason.NO_TARGET,
}
_NO_VALUE_NAMED = frozenset({ArgumentProblem.MISSING, ArgumentProblem.UNKNOWN_VALUE})
"""What an action that names no value of its command gets: a clause of its own may say it."""
_ARGUMENT_REASONS = {
    ArgumentProblem.MISSING: AskReason.MISSING_VALUE,
    ArgumentProblem.OUT_OF_RANGE: AskReason.OUT_OF_RANGE,
    ArgumentProblem.UNKNOWN_VALUE: AskReason.UNKNOWN_VALUE,
    ArgumentProblem.UNEXPECTED: AskReason.UNEXPECTED_VALUE,
    ArgumentProblem.OFF_STEP: AskReason.OFF_STEP,
}


@dataclass(frozen=True, slots=True)
class Action:
    """One command to run on devices, with its value (None: the command takes none)."""

    device_ids: tuple[str, ...]
    command: CommandSpec
    value: Any = None
    said: str = ""
    """The wire action it carries out (关闭, 设置位置=50%)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A fact to read from a device's live state (a readable command: ``state`` or ``state:<attribute>``)."""

    device_id: str
    fact: CommandSpec


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to a question the agent asked back: the devices it stands for and the command for them."""

    label: str
    """How the question named it (客厅空调, or a room)."""
    words: tuple[str, ...]
    """What an answer may say to pick it: its label, names, aliases, room."""
    device_ids: tuple[str, ...]
    command_id: str | None
    action: str
    """The wire action of the command that was asked about (设置温度=26)."""
    done_before: tuple[Action, ...] = ()
    """The actions the turn settled before it asked (关灯, 空调开26度: the lights off)."""
    then: tuple[tuple[str | None, str], ...] = ()
    """The turn's later commands on the same devices, as command id and wire action (开空调, 26度)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome for an utterance, with what it needs."""

    outcome: Outcome
    actions: tuple[Action, ...] = ()
    readings: tuple[Reading, ...] = ()
    reason: AskReason | None = None
    options: tuple[str, ...] = ()
    """What the user may choose from, as said: devices or sets (which device), rooms (which room)."""
    subject: tuple[str, ...] = ()
    """The devices an ask is about (the value's range, the command missing)."""
    command: CommandSpec | None = None
    """The command an ask about a value is about."""
    choices: tuple[Choice, ...] = ()
    """What an answer to a which-question may pick (客厅的, 主卧那个)."""


@dataclass(slots=True)
class _Turn:
    actions: list[Action] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    named: dict[str, set[str]] = field(default_factory=dict)
    """The names said of each device acted on (two names finding one device: one found nothing)."""


type CurrentValues = Callable[[str, CommandSpec], float | str | None]
"""The present value of what a command sets on a device (for 调高两度, 风小一点), None when unknown."""


def _unknown(_device_id: str, _command: CommandSpec) -> float | None:
    return None


type RunningStates = Callable[[str], bool | None]
"""Whether a device is running (on, playing, heating), None when its state says nothing of it."""


def _not_known(_device_id: str) -> bool | None:
    return None


type DoneStates = Callable[[str, str], bool | None]
"""Whether a device is already in the state a command leaves it in (a lock locked for 锁定), None
when unknown or when the command leaves no state of its own (a value, a step)."""


def _not_done(_device_id: str, _command_id: str) -> bool | None:
    return None


@dataclass(frozen=True, slots=True)
class _Live:
    """The home's live state as a decision reads it."""

    current: CurrentValues
    running: RunningStates
    settles: RunningStates
    """What runs, when it may settle which device is meant (else nothing is known)."""
    playing: RunningStates
    done: DoneStates
    """What is already as a command leaves it, when that may settle which device is meant."""


def _by_state(live: _Live, action: str) -> _Live:
    """Return the live state with what runs settling which device is meant: on, or off (关闭)."""

    def done(device_id: str, command_id: str) -> bool | None:
        known = live.done(device_id, command_id)
        if known is not None or action != ACTION_OFF:
            return known
        running = live.running(device_id)
        return None if running is None else not running

    return replace(live, settles=live.running, done=done)


def decide(  # noqa: PLR0913 - the results, what they are read against, and the home's live state
    results: Sequence[RetrievalResult],
    devices: Mapping[str, Device],
    text: str,
    current: CurrentValues = _unknown,
    running: RunningStates = _not_known,
    *,
    which_by_running: bool = True,
    playing: RunningStates = _not_known,
    done: DoneStates = _not_done,
) -> Decision:
    """Return what to do with the results of ``text`` (one per parsed command).

    ``running`` says which devices run. An adjustment of a set moves only those that do (a
    light that is off has no brightness to dim). With ``which_by_running`` it also settles which
    of several devices is meant when exactly one of them runs and the command changes a running
    device (关掉, 调高, 调到26度): 冷气调到24度 with one of three air conditioners on, and by the
    one ``done`` says a command would change (把门锁上 with one of three locks unlocked). ``playing``
    says which devices play or clean: 暂停一下, said of nothing, pauses the one that does.
    """
    results = _without_target_fragments(results, devices)
    if not results:
        return Decision(Outcome.HAND_OFF)
    text = as_heard(text, dict(results[0].meta.get("heard_as") or {}))  # as retrieval read it
    text = without_remarks(text, results[0].meta.get("said_why") or ())  # 人都上楼了 says why
    turn = _Turn()
    for index, result in enumerate(results):
        before = len(turn.actions)
        if _acts_on_all_mentioned(result, devices):
            decision = _act_on_every_candidate(result, devices, turn, current)
        elif _switches_everything(result, text):
            decision = _switch_every_set(result, devices, turn, current)
        elif _sets_called_alike(result, devices):
            decision = _act_on_each(result, result.candidates, devices, turn, current)
        else:
            live = _Live(
                current,
                running,
                running if which_by_running else _not_known,
                playing,
                done if which_by_running else _not_done,
            )
            decision = _decide_one(result, devices, text, turn, live)
        if decision is not None:
            return _with_rest_of_turn(decision, turn, results[index + 1 :], devices)
        for action in turn.actions[before:]:
            for device_id in action.device_ids:
                turn.named.setdefault(device_id, set()).add(result.command.n)
    rooms = [
        room.lstrip("!") for r in results for room in r.command.s.split(",") if room not in ("", ANY_ROOM)
    ]
    meta = results[0].meta
    offline = meta.get("parse") == "offline"  # the offline parser reports what it left unread
    unread = tuple(str(word) for word in meta["unread"]) if "unread" in meta else (() if offline else None)
    return _settled(turn, devices, text, rooms, unread)


def _with_rest_of_turn(
    decision: Decision, turn: _Turn, later: Sequence[RetrievalResult], devices: Mapping[str, Device]
) -> Decision:
    """Return the decision with each choice carrying the rest of the turn, or with no choices.

    An answer to the question (哥哥房间的) then carries out all that was said (打开 AC, 26度), not the
    command asked about alone. When the turn also asked or read something (开空调，温度多少), or a
    later command has no command of its own for a choice's devices or goes beyond the devices
    asked about, the question takes no answer rather than one doing part of the turn.
    """
    if not decision.choices or (not turn.actions and not later):
        return decision
    asked = {device_id for choice in decision.choices for device_id in choice.device_ids}
    if turn.readings or any(
        not set(_targets(candidate, result)) <= asked
        for result in later
        for candidate in result.candidates[:1]
    ):
        return replace(decision, choices=())
    choices = []
    for choice in decision.choices:
        then = []
        for result in later:
            found: set[str | None] = set()
            covered: set[str] = set()
            for candidate in result.candidates:
                if held := set(_targets(candidate, result)) & set(choice.device_ids):
                    found.add(candidate.capability_id)
                    covered |= held
            if len(found) != 1 or covered != set(choice.device_ids):
                return replace(decision, choices=())
            capability = found.pop()
            command = _command_of(devices.get(choice.device_ids[0]), capability)
            if command is None or command.readable:
                return replace(decision, choices=())
            then.append((capability, result.command.a))
        choices.append(replace(choice, done_before=tuple(turn.actions), then=tuple(then)))
    return replace(decision, choices=tuple(choices))


def _settled(
    turn: _Turn,
    devices: Mapping[str, Device],
    text: str,
    rooms: Sequence[str],
    unread: tuple[str, ...] | None,
) -> Decision:
    """Return the turn's actions and readings, unless together they leave something said undone.

    ``unread`` holds the words the offline parser read nothing from: acting without them could do
    something else than was said (窗帘开个缝 opening the curtain all the way). After another parse
    (``None``), the Latin words no action reads are looked for.
    """
    if (
        twice := next((d for d, said in turn.named.items() if _named_apart(d, said, turn)), None)
    ) is not None:
        # 打开饭厅吊灯和灶台灯 finding the pendant for both: one of the names found nothing of its own.
        return Decision(Outcome.ASK, reason=AskReason.NOT_FOUND, options=(device_label(devices[twice]),))
    if not turn.actions:
        return Decision(Outcome.ANSWER, readings=tuple(turn.readings))
    actions = _without_subsumed(turn.actions)
    if unread := _unread_words(text, actions, devices, rooms) if unread is None else unread:
        return Decision(Outcome.ASK, reason=AskReason.UNREAD_WORDS, options=unread)
    if _values_unused(text, actions, devices, rooms):
        # 十分钟后关掉它: acting now would drop what the user asked for.
        first = actions[0]
        return Decision(
            Outcome.ASK,
            reason=AskReason.UNEXPECTED_VALUE,
            subject=first.device_ids[:1],
            command=first.command,
        )
    # 储物间的灯冇关，帮我关了它: the state said is the reason to act, not a question to answer
    acted = {device_id for action in actions for device_id in action.device_ids}
    readings = [reading for reading in turn.readings if reading.device_id not in acted]
    return Decision(Outcome.ACT, actions=tuple(actions), readings=tuple(readings))


def _named_apart(device_id: str, names: set[str], turn: _Turn) -> bool:
    """Return True when two names found one device for different actions (one name found nothing).

    储物间的灯冇关，帮我关了它 names the light and then 它: one action, said twice, is no conflict.
    """
    if len(names) < MIN_CHOICES:
        return False
    done = [action for action in turn.actions if device_id in action.device_ids]
    return any(action != done[0] for action in done[1:]) or not names & {LAST_MENTIONED}


def _without_target_fragments(
    results: Sequence[RetrievalResult], devices: Mapping[str, Device]
) -> list[RetrievalResult]:
    """Return the results without unread clauses that only name another command's target.

    客厅主灯再暗一点 parses as 客厅主灯 (no action) and 调暗 on it: the first is no command; nor is
    来客人了 (a scene's alias) before 开个来客模式, which finds that scene, or 像月亮样的灯 before
    帮我把它开一下, which acts on what it found.
    """
    acting = [r for r in results if r.command.a != UNKNOWN_ACTION]
    acted = {(r.command.s, r.command.n) for r in acting}
    found = {r.candidates[0].entity_id for r in acting if r.candidates}
    referred = {r.candidates[0].entity_id for r in acting if r.candidates and r.command.n == LAST_MENTIONED}

    def names_a_target(result: RetrievalResult) -> bool:
        if result.command.a != UNKNOWN_ACTION or result.command.n == ANY_NAME:
            return False
        top = result.candidates[0].entity_id if result.candidates else ""
        called = top in found and _is_called(devices.get(top), result.command.n)
        return (result.command.s, result.command.n) in acted or called or top in referred

    return [r for r in results if not names_a_target(r)]


def _decide_one(
    result: RetrievalResult,
    devices: Mapping[str, Device],
    text: str,
    turn: _Turn,
    live: _Live,
) -> Decision | None:
    """Add the result's action or readings to ``turn``; return a decision that ends the turn early."""
    current, running, settles, playing = live.current, live.running, live.settles, live.playing
    if (
        done := _scene_said_alone(result, devices, text) or _the_one_playing(result, devices, playing)
    ) is not None:
        turn.actions.append(done)  # 晚安模式; 暂停一下 with one thing in the home playing: that one
        return None
    if result.command.a == UNKNOWN_ACTION or "raw_text_reading" in result.meta or not result.candidates:
        return Decision(Outcome.HAND_OFF)
    top, targets = _chosen(result)
    if (warmth := _warmth_of_light(result, top, devices)) is not None:
        result, top = warmth  # 台灯暖一点: the light's colour temperature, lower
        targets = _targets(top, result)
    turned = _by_direction(result, top, devices)
    if turned is not None or _goes_as_said(result, top, devices):
        # 风小一点 kept on 调高风速 for want of a close command: the device's one going that way;
        # 清净机风大一点 kept on 提高风速: the adjustment said, in other words.
        top = turned or top
        result = _no_longer_unfamiliar(result)
    if result.command.c and len(targets) != result.command.c:
        return _which(AskReason.WHICH_DEVICE, result, devices)  # 两个卫生间的排气扇 finding one
    if _is_question(top, targets, devices):
        turn.readings.extend(_readings(result, devices))
        return None
    if (taking := _the_one_taking_the_value(result, top, devices)) is not None:
        top, targets = taking, (taking.entity_id,)  # 床头灯 color 换成 pink: the bedside light with colours
    top = _by_a_step(result, top, devices, current)
    if (meant := _meant(result, top, devices, text, live)) is not None:
        # the device found again keeps the command chosen for it above (the range taking 四十)
        top, targets = (top if meant.entity_id == top.entity_id else meant), (meant.entity_id,)
    # 客厅的灯关了 finding 楼上客厅灯, off, with 楼下客厅's lights on: which was meant?
    if (
        (meant is None and _asks_back(result))
        or _changes_nothing(result, top, devices, text, running)
        or _goes_no_further(result, top, devices, current, running)
    ):
        reason = AskReason.WHICH_DEVICE if meant is not None else _HINT_REASONS.get(result.hint or "")
        return _which(reason or AskReason.WHICH_DEVICE, result, devices)
    targets = _the_ones_it_changes(result, top, targets, running, settles)
    return (
        _at_its_lowest_speed(result, top, devices, current, running)
        or _unclear_target(result, top, targets, devices, text, running)
        or _act(result, top, targets, devices, turn, current)
    )


def _act(  # noqa: PLR0913 - the result, its choice, its targets and where to put the actions
    result: RetrievalResult,
    top: Candidate,
    targets: tuple[str, ...],
    devices: Mapping[str, Device],
    turn: _Turn,
    current: CurrentValues,
) -> Decision | None:
    """Add the action on ``targets`` to ``turn``, with a value or setting said in a clause of its own."""
    action, top = _with_value_said_apart(result, top, targets, devices)
    setting = _setting_said_apart(result, top, targets, devices)
    if setting is not None and setting[1].capability_id.partition(":")[0] == top.capability_id:
        return _action(*setting, targets, devices, turn, current)  # 打开，要暖光: turn_on at 2700 K
    return _action(action, top, targets, devices, turn, current) or (
        None if setting is None else _action(*setting, targets, devices, turn, current)
    )  # 扫地机开始，用 turbo: start, then the fan speed


def _asks_back(result: RetrievalResult) -> bool:
    """Return True when the result's hint asks which is meant.

    A value the chosen command does not take is left to the agent's own checks, which say why
    (the command takes no value, or another one takes it).
    """
    return result.hint is not None and result.hint != VALUE_NOT_TAKEN


def _with_value_said_apart(
    result: RetrievalResult, top: Candidate, targets: tuple[str, ...], devices: Mapping[str, Device]
) -> tuple[str, Candidate]:
    """Return the action and candidate, with the value a clause of its own said when the action names none.

    换个颜色，紫色 (or 整个紫的): the colour said after the command is its value, for the device's
    command taking it (its colour by name, where 颜色 found its colour by numbers).
    """
    action = result.command.a
    device = devices.get(targets[0]) if targets else None
    command = _command_of(device, top.capability_id)
    if device is None or command is None or command_argument(action, command).problem not in _NO_VALUE_NAMED:
        return action, top
    remarks = result.meta.get("said_why") or ()
    found = next(_remarks_taken(device, action.partition("=")[0], remarks, first=command.id), None)
    return (found[0], replace(top, capability_id=found[1].id)) if found else (action, top)


def _setting_said_apart(
    result: RetrievalResult, top: Candidate, targets: tuple[str, ...], devices: Mapping[str, Device]
) -> tuple[str, Candidate] | None:
    """Return the setting a clause of its own says after switching a device on, None without one.

    餐厅吊灯打开，要暖光: the light's colour temperature at 暖光 too; 扫地机开始，用 turbo: its fan
    speed. Every target must take the value said.
    """
    remarks = result.meta.get("said_why") or ()
    if not remarks or result.command.a not in SWITCHING_ON:
        return None
    commands = [_command_of(devices.get(device_id), top.capability_id) for device_id in targets]
    if not targets or any(command is None or takes_argument(command) for command in commands):
        return None
    taken_by_all = (
        (said, other)
        for said, other in _remarks_taken(devices[targets[0]], SETTING_PREFIX, remarks, in_words=True)
        if all(_takes(devices.get(device_id), other.id, said) for device_id in targets[1:])
    )
    found = next(taken_by_all, None)
    return (found[0], replace(top, capability_id=found[1].id)) if found else None


def _remarks_taken(
    device: Device, base: str, remarks: Sequence[str], *, first: str | None = None, in_words: bool = False
) -> Iterator[tuple[str, CommandSpec]]:
    """Yield each remark said as the value of ``base`` (设置=暖光) with a command of the device taking it.

    Remarks in order; for each, the device's commands in order, ``first`` before the others.
    With ``in_words``, a listed value is taken only when the remark says its words: after 开开,
    贼热 shares 热 with 制热 but says how it feels, not which mode.
    """
    for remark in remarks:
        said = f"{base}={remark}"
        for other in sorted(device.commands, key=lambda c: c.id != first):
            if other.readable or not takes_argument(other):
                continue
            argument = command_argument(said, other)
            if argument.problem is None and (not in_words or _says_listed(remark, other, argument.value)):
                yield said, other


def _says_listed(remark: str, command: CommandSpec, value: Any) -> bool:
    """Return True when the command lists no values or the remark says the words of ``value``."""
    listed = command.value_list or ()
    return not listed or any(listed_in(remark, item) for item in listed if item.get("value") == value)


def _takes(device: Device | None, command_id: str, said: str) -> bool:
    """Return True when the device has the command and it takes the value of the action said."""
    command = _command_of(device, command_id)
    return command is not None and command_argument(said, command).problem is None


def _the_ones_it_changes(
    result: RetrievalResult,
    top: Candidate,
    targets: tuple[str, ...],
    running: RunningStates,
    settles: RunningStates,
) -> tuple[str, ...]:
    """Return the targets an action said of what runs is meant for.

    客厅的灯调暗一点: the lights that are on; 把它关掉 after 哪几台空调开着: of the air
    conditioners just listed, the one that runs.
    """
    if top.entity_kind == "group" and relative_direction(result.command.a) is not None:
        return _running_members(targets, running)
    if {"last_mentioned", VALUE_REFERENCE} & set(top.reasons) and result.command.q == Quantifier.ONE:
        one = _one_running(result.command.a, targets, settles)
        return targets if one is None else (targets[one],)
    return targets


def _meant(
    result: RetrievalResult,
    top: Candidate,
    devices: Mapping[str, Device],
    text: str,
    live: _Live,
) -> Candidate | None:
    """Return the one device meant when it is not the top candidate as ranked, else None.

    Among close matches: the one called by its full name (关掉公卫灯 with 公卫灯 and 公卫镜前灯
    close), the one whose name holds all of the name said, the room's own (厨房灯), the only one the
    action changes, the one that runs; a change said relative, the only one it changes before the
    room's own (灯也调暗点 with one of the room's lights on). Ranked first by a short alias: the one
    whose whole name is said (關掉書房燈 for 书房灯, not the desk lamp aliased lamp, 灯). A set over
    the home the user did not ask for: its one member that runs (冷气调到24度 with one air
    conditioner on), or the one member the action changes (把门锁上 with one lock of three unlocked).
    """
    if result.hint == MULTIPLE_CLOSE_MATCHES:
        return _close_match_meant(result, devices, text, live)
    if _asks_back(result):
        return None
    carried_kind = "room_carried" in top.reasons and is_kind_word(compact(result.command.n))
    if (
        top.entity_kind == "device"
        and not carried_kind  # 大灯关掉, 台灯调到六十: the room's lamp, not one elsewhere called 台灯
        and not _says_name(devices.get(top.entity_id), text, MIN_NAME_LENGTH)
    ):
        named = _named_in_text(result, devices, text, live)
        if named is not None and compact(result.command.n) in compact(device_label(devices[named.entity_id])):
            return named
    if _whole_home_unasked(result, top, text):
        members = _members(top, result)
        return _the_running_one(result, members, devices, live) or _the_one_it_changes(
            result, members, devices, live
        )
    return None


def _by_a_step(
    result: RetrievalResult, top: Candidate, devices: Mapping[str, Device], current: CurrentValues
) -> Candidate:
    """Return the top on its device's change command when a change is said.

    亮度调低点: brightness_step_pct, the change itself, whether the brightness is known (not moved
    from a value that may be stale) or not (nothing to ask); never a change of another unit
    (色温调暖一点 is no brightness step).
    """
    action = result.command.a
    device = devices.get(top.entity_id) if top.entity_kind == "device" else None
    command = _command_of(device, top.capability_id)
    if device is None or command is None or relative_direction(action) is None or _changes(command):
        return top
    service, unit = command.id.partition(":")[0], (command.value_range or {}).get("unit")
    steps = [
        other
        for other in device.commands
        if other.id.startswith(f"{service}:")
        and _changes(other)
        and (other.value_range or {}).get("unit") == unit
    ]
    if (
        len(steps) != 1
        or command_argument(action, steps[0], current(device.id, steps[0])).problem is not None
    ):
        return top
    return replace(top, capability_id=steps[0].id)


def _changes(command: CommandSpec) -> bool:
    """Return True for a change command: its range goes below zero (brightness_step_pct)."""
    low = (command.value_range or {}).get("minimum")
    return isinstance(low, (int, float)) and low < 0


_NOT_TAKEN = frozenset({ArgumentProblem.MISSING, ArgumentProblem.UNKNOWN_VALUE})
"""How a command answers a value said that it cannot take (pink of a brightness)."""


def _the_one_taking_the_value(
    result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]
) -> Candidate | None:
    """Return the top's other command, or the one other device found by the name said, taking the value.

    颜色换成红的 on a light found with its colour by numbers: its colour by name; 床头灯换成 pink,
    with two bedside lights called so: the one with colours, not the other's brightness.
    """
    action = result.command.a
    base, _, value = action.partition("=")
    device = devices.get(top.entity_id)
    command = _command_of(device, top.capability_id)
    if device is None or command is None or not value:
        return None
    if command_argument(action, command).problem not in _NOT_TAKEN:
        return None
    attribute = base.removeprefix(SETTING_PREFIX)
    own = [
        other
        for other in device.commands
        if other.id != command.id
        # 炕调到四十二: a number said of nothing named is the one range holding it (30-50 °C)
        and ((attribute and attribute in other.description) or (not attribute and other.value_range))
        and not other.readable
        and takes_argument(other)
        and command_argument(action, other).problem is None
    ]
    if len(own) == 1:
        return replace(top, capability_id=own[0].id)
    if not NAME_REASONS & set(top.reasons):
        return None
    taking = [
        candidate
        for candidate in result.candidates[1:]
        if candidate.entity_kind == "device"
        and NAME_REASONS & set(candidate.reasons)
        and (other := _command_of(devices.get(candidate.entity_id), candidate.capability_id)) is not None
        and command_argument(action, other).problem is None
    ]
    return taking[0] if len(taking) == 1 else None


def _close_match_meant(
    result: RetrievalResult, devices: Mapping[str, Device], text: str, live: _Live
) -> Candidate | None:
    """Return the one of several close matches that is meant (see ``_meant``), else None."""
    named = _named_in_text(result, devices, text, live) or _holding_name_said(result, devices)
    if named is not None:
        return named
    close = close_matches(result.candidates)
    if (able := _the_one_able(result, close)) is not None:
        return able
    changed = _the_one_it_changes(result, close, devices, live)
    running = _the_running_one(result, close, devices, live)
    if relative_direction(result.command.a) is not None and (changed or running) is not None:
        # 灯也调暗点: the one it changes before the room's own; 油烟机再开大些: the one running
        return changed or running
    return _room_and_kind(result, devices) or changed or running


def _the_one_able(result: RetrievalResult, close: Sequence[Candidate]) -> Candidate | None:
    """Return the one close match with a command like the action, the others kept without one, else None.

    热水器调到四十八度 finding a heat pump that takes a temperature and a water heater's plug that
    only switches: the heat pump.
    """
    kept = _kept_unlike(result)
    if not kept:
        return None
    able = [candidate for candidate in close if candidate.entity_id not in kept]
    return able[0] if len(able) == 1 else None


def _kept_unlike(result: RetrievalResult) -> frozenset[str]:
    """Return the devices the search kept though none of their commands is like the action."""
    kept = result.meta.get("kept_unfamiliar")
    return frozenset(kept) if isinstance(kept, list) else frozenset()


def _the_one_playing(
    result: RetrievalResult, devices: Mapping[str, Device], playing: RunningStates
) -> Action | None:
    """Return the pause of the one device in the home that plays and can pause, for a pause said of nothing.

    Or of what it plays, which no device is called (戏不要放了: the opera). None for any other action
    or a pause said of a device, or when none or several devices play.
    """
    action = result.command.a
    if action != ACTION_PAUSE or result.hint not in {NO_TARGET, NAME_NOT_FOUND}:
        return None
    pausing = [
        (device, command)
        for device in devices.values()
        for command in device.commands
        if not command.readable
        and not takes_argument(command)
        and command.description.startswith(ACTION_PAUSE)
    ]
    active = [(device, command) for device, command in pausing if playing(device.id)]
    if len(active) != 1:
        return None
    device, command = active[0]
    return Action((device.id,), command, None, action)


def _running_members(targets: tuple[str, ...], running: RunningStates) -> tuple[str, ...]:
    """Return the members of a set that run, when some do and the others are known not to."""
    states = [running(device_id) for device_id in targets]
    if None in states or not any(states):
        return targets
    return tuple(device_id for device_id, state in zip(targets, states, strict=True) if state)


def _members(group: Candidate, result: RetrievalResult) -> list[Candidate]:
    """Return a group's members as candidates with its command."""
    return [
        replace(group, entity_id=device_id, entity_kind="device") for device_id in _targets(group, result)
    ]


def _the_running_one(
    result: RetrievalResult, candidates: Sequence[Candidate], devices: Mapping[str, Device], live: _Live
) -> Candidate | None:
    """Return the one candidate that runs when the action changes a running device, else None.

    Turning off, muting, pausing, adjusting or setting a value (关掉, 静音, 调高, 调到26度) is said
    of what runs; turning on is not settled this way (which of the devices that are off is still open).
    A value the running one already has is not said of it (空调调到制热 with the one that runs heating).
    """
    one = _one_running(result.command.a, [candidate.entity_id for candidate in candidates], live.settles)
    if one is None or _already_has(result.command.a, candidates[one], devices, live.current):
        return None
    return candidates[one]


def _already_has(
    action: str, candidate: Candidate, devices: Mapping[str, Device], current: CurrentValues
) -> bool:
    """Return True when the candidate's command already holds the value the action sets."""
    device = devices.get(candidate.entity_id)
    command = device.command(candidate.capability_id) if device is not None else None
    if command is None or ActionValue.parse(action) is None or relative_direction(action) is not None:
        return False
    argument = command_argument(action, command)
    now = current(candidate.entity_id, command)
    return argument.problem is None and argument.value is not None and argument.value == now


def _the_one_it_changes(
    result: RetrievalResult,
    candidates: Sequence[Candidate],
    devices: Mapping[str, Device],
    live: _Live,
) -> Candidate | None:
    """Return the one candidate the action would change, when it changes none of the others, else None.

    Turning on: the one that is off (抽油烟机开一下 with two range hoods, the basement's running);
    locking: the one unlocked (把门锁上); a change said relative: the one that can go further
    (书房太暗了 with the study's light at full brightness and its desk lamp off).
    """
    action, direction = result.command.a, relative_direction(result.command.a)
    if len(candidates) < MIN_CHOICES:
        return None
    changes: list[bool] = []
    for candidate in candidates:
        device = devices.get(candidate.entity_id)
        if device is None:
            return None
        if direction is not None:
            if live.settles(candidate.entity_id) is None:
                return None
            changes.append(
                not _at_its_end(device, candidate.capability_id, direction, live.current, live.settles)
            )
            continue
        done = live.settles(candidate.entity_id) if action == ACTION_ON else None
        done = done if done is not None else live.done(candidate.entity_id, candidate.capability_id)
        if done is None:
            return None
        changes.append(not done)
    return candidates[changes.index(True)] if changes.count(True) == 1 else None


def _changes_nothing(
    result: RetrievalResult, top: Candidate, devices: Mapping[str, Device], text: str, running: RunningStates
) -> bool:
    """Return True when switching the device chosen changes nothing, while one found like it would change.

    The device is already on (off) and was not called by a name of its own (an alias that is
    only a kind word, 电视, 吊扇 or 台灯, is no name of its own); another of its kind found by its name
    or room is off (on): the user likely means that one. When a kind was said (台灯), the other
    must be called so too: 客厅开落地灯 does not mean the room's ceiling light.
    """
    action = result.command.a
    device = devices.get(top.entity_id)
    if top.entity_kind != "device" or device is None or action not in {ACTION_ON, ACTION_OFF}:
        return False
    wanted = action == ACTION_ON
    if running(device.id) is not wanted or _says_name(device, text, MIN_NAME_LENGTH, own=True, things=True):
        return False
    kind = compact(result.command.n)
    said_kind = kind if is_kind_word(kind) else None
    return any(
        (said_kind is None or _holds_name(other, said_kind)) and running(other.id) is (not wanted)
        for _, other in _found_alike(result, device, devices)
    )


def _goes_no_further(
    result: RetrievalResult,
    top: Candidate,
    devices: Mapping[str, Device],
    current: CurrentValues,
    running: RunningStates,
) -> bool:
    """Return True when a change said relative to the chosen device can go no further, and one alike can.

    小林房间的灯调暗点 with that light off (nothing to dim) and the bedside lamp on; 书房太暗了 with
    the study's light at full brightness and its desk lamp off: the user means another.
    """
    direction = relative_direction(result.command.a)
    device = devices.get(top.entity_id)
    if direction is None or top.entity_kind != "device" or device is None:
        return False
    if not _at_its_end(device, top.capability_id, direction, current, running):
        return False
    return any(
        not _at_its_end(other, candidate.capability_id, direction, current, running)
        for candidate, other in _found_alike(result, device, devices)
    )


def _at_its_lowest_speed(
    result: RetrievalResult,
    top: Candidate,
    devices: Mapping[str, Device],
    current: CurrentValues,
    running: RunningStates,
) -> Decision | None:
    """Return the question when a step down is said of a running device at its first speed: lower is off.

    台扇风再小一点 with the fan at the first of three speeds: a step down would switch it off, which
    was not asked. A level without speeds (a brightness) is dimmed within its range instead.
    """
    device = devices.get(top.entity_id) if top.entity_kind == "device" else None
    direction = relative_direction(result.command.a)
    if device is None or direction is None or direction > 0 or running(device.id) is not True:
        return None
    for level in (c for c in device.commands if not c.readable and not _changes(c)):
        bounds = level.value_range or {}
        step, low = bounds.get("step"), bounds.get("minimum")
        if str(bounds.get("unit")) != "%" or not _is_number(step) or step <= 1 or low != 0:
            continue
        value = current(device.id, level)
        if _is_number(value) and 0 < value <= step + STEP_TOLERANCE_PERCENT:
            return Decision(Outcome.ASK, reason=AskReason.AT_END, subject=(device.id,))
    return None


STEP_TOLERANCE_PERCENT = 1
"""How far above its first speed a fan's percentage may read and still be at it (33 of 33.33 steps)."""


def _found_alike(
    result: RetrievalResult, device: Device, devices: Mapping[str, Device]
) -> Iterator[tuple[Candidate, Device]]:
    """Yield the other devices found of the chosen one's category by name or room, with their candidates."""
    for candidate in result.candidates[1:]:
        other = devices.get(candidate.entity_id) if candidate.entity_kind == "device" else None
        if (
            other is not None
            and other.category == device.category
            and {"name_partial", "room_hit"} & set(candidate.reasons)
        ):
            yield candidate, other


def _at_its_end(
    device: Device, command_id: str, direction: int, current: CurrentValues, running: RunningStates
) -> bool:
    """Return True when the level a command changes is already at the end it would go towards.

    The level is the one the command's service shows (a light's brightness for 调亮或调暗): lowered
    while the device is off, or at the top of its range when raised.
    """
    service = command_id.partition(":")[0]
    for level in (c for c in device.commands if c.id.partition(":")[0] == service and not c.readable):
        bounds = level.value_range or {}
        low, high = bounds.get("minimum"), bounds.get("maximum")
        if not (_is_number(low) and _is_number(high)) or _changes(level):
            continue
        value = current(device.id, level)
        if direction < 0 and (running(device.id) is False or (_is_number(value) and value <= low)):
            return True
        if direction > 0 and running(device.id) is not False and _is_number(value) and value >= high:
            return True
    return False


SAID_OF_WHAT_RUNS = frozenset({ACTION_OFF, ACTION_MUTE, ACTION_PAUSE, ACTION_STOP})
"""Actions that only change a device that runs (电视静音 with one television on: that one)."""


def _one_running(action: str, device_ids: Sequence[str], running: RunningStates) -> int | None:
    """Return the index of the one device that runs, for an action said of what runs, else None."""
    if not (
        action in SAID_OF_WHAT_RUNS
        or relative_direction(action) is not None
        or action.startswith(SETTING_PREFIX)
    ):
        return None
    states = [running(device_id) for device_id in device_ids]
    if len(device_ids) < MIN_CHOICES or None in states or states.count(True) != 1:
        return None
    return states.index(True)


def _acts_on_all_mentioned(result: RetrievalResult, devices: Mapping[str, Device]) -> bool:
    """Return True for an action on all of what was mentioned before (把它们都关了 after 哪些灯开着)."""
    command = result.command
    recent = result.meta.get("reference") == RECENT_REFERENCE  # 主卫灯打开, 浴霸也开, 好了都关掉
    if (
        (command.n != LAST_MENTIONED and not recent)
        or command.q != Quantifier.ALL
        or command.a == UNKNOWN_ACTION
    ):
        return False
    if _asks_back(result) or not result.candidates:
        return False
    top = result.candidates[0]
    mentioned = {device_id for candidate in result.candidates for device_id in _targets(candidate, result)}
    # 把它们都关了 after one device: more was meant than was mentioned (asked in _unclear_target)
    return len(mentioned) > 1 and not _is_question(top, _targets(top, result), devices)


def _act_on_every_candidate(
    result: RetrievalResult, devices: Mapping[str, Device], turn: _Turn, current: CurrentValues
) -> Decision | None:
    """Add the action on every candidate of the first one's category (each set with its command) to ``turn``.

    哪些灯开着 also reads a plug named 植物灯; 它们 are the lights. What the last few turns
    mentioned one by one is all meant, whatever its kinds.
    """
    kinds = [{devices[d].category for d in _targets(c, result) if d in devices} for c in result.candidates]
    every_kind = result.meta.get("reference") == RECENT_REFERENCE
    meant = [c for c, kind in zip(result.candidates, kinds, strict=True) if kind == kinds[0] or every_kind]
    return _act_on_each(result, meant, devices, turn, current)


def _act_on_each(
    result: RetrievalResult,
    candidates: Sequence[Candidate],
    devices: Mapping[str, Device],
    turn: _Turn,
    current: CurrentValues,
) -> Decision | None:
    """Add the action on each candidate (each set with its command) to ``turn``; a question ends it."""
    for candidate in candidates:
        asked = _action(result.command.a, candidate, _targets(candidate, result), devices, turn, current)
        if asked is not None:
            return asked
    return None


def _switches_everything(result: RetrievalResult, text: str) -> bool:
    """Return True for switching every device of a place, said as things (工作室的东西全部关掉)."""
    command = result.command
    return (
        command.a in {ACTION_ON, ACTION_OFF}
        and command.n == ANY_NAME
        and command.q in {Quantifier.ALL, Quantifier.EXCEPT}
        and any(word in compact(text) for word in EVERYTHING_WORDS)
        and not _asks_back(result)
        and not any(key in result.meta for key in GUESSED)  # 除了冰箱 with no fridge: ask
        and bool(result.candidates)
        and all(candidate.entity_kind == "group" for candidate in result.candidates)
    )


def _sets_called_alike(result: RetrievalResult, devices: Mapping[str, Device]) -> bool:
    """Return True for several sets of one name said (热水器全部关掉: two plugs and a water heater).

    Every member of every set has a name ending with the name said, which is no kind the engine
    knows (a Chinese compound names its kind last): the sets differ only in how their devices are
    driven. A word they only hold (所有取暖的, 豆豆的东西) may leave others out or take too many.
    """
    command = result.command
    if (
        command.q != Quantifier.ALL
        or command.t != UNKNOWN_CATEGORY
        or command.n in {ANY_NAME, LAST_MENTIONED}
        or _asks_back(result)
        or any(key in result.meta for key in GUESSED)
        or len(result.candidates) < MIN_CHOICES
        or not all(candidate.entity_kind == "group" for candidate in result.candidates)
    ):
        return False
    said = compact(command.n)
    members = [devices.get(d) for candidate in result.candidates for d in _targets(candidate, result)]
    return len(said) >= MIN_NAME_LENGTH and all(
        member is not None and any(name.endswith(said) for name in _called(member)) for member in members
    )


def _switch_every_set(
    result: RetrievalResult, devices: Mapping[str, Device], turn: _Turn, current: CurrentValues
) -> Decision | None:
    """Add switching each set that switches to ``turn``: not closing covers or valves, nor locking."""
    switching = [
        c
        for c in result.candidates
        if not any(d in devices and _closes(devices[d]) for d in _targets(c, result))
    ]
    return _act_on_each(result, switching, devices, turn, current)


CLOSING_CATEGORIES = frozenset({"Blind", "Valve", "GarageDoor", "SmartLock"})
"""Categories that 关 closes or locks rather than switches off: not among a room's things switched."""


def _closes(device: Device) -> bool:
    """Return True for a device that 关 closes or locks (a cover, a valve, a lock)."""
    return any(in_category(device.category, category) for category in CLOSING_CATEGORIES)


def _by_direction(result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]) -> Candidate | None:
    """Return the top device with the one command of its own that goes the way the adjustment says.

    None when the action is no adjustment, the command chosen already goes that way, or the
    device has not exactly one command going that way (nor, when none goes any way, one level).
    """
    direction = relative_direction(result.command.a)
    device = devices.get(top.entity_id) if top.entity_kind == "device" else None
    chosen = _command_of(device, top.capability_id)
    if (
        direction is None
        or device is None
        or (chosen and relative_direction(chosen.description) == direction)
    ):
        return None
    said = _setting_said(result.command.a)  # 调高温度: a blind's slats going up are no temperature
    going = [
        c
        for c in device.commands
        if not c.readable
        and not takes_argument(c)
        and relative_direction(c.description) == direction
        and said in compact(c.description)
    ]
    if (
        not going
        and result.command.a in LEVEL_DIRECTIONS
        and not (chosen and takes_argument(chosen))
        and not in_category(device.category, OPENING_CATEGORY)  # a cover raised opens
    ):
        # 加湿器较高啲: raised or lowered, a device with one level of its own moves that level
        going = [c for c in device.commands if not c.readable and c.value_range and not _changes(c)]
    if len(going) != 1:
        return None
    return replace(top, capability_id=going[0].id)


MEASURED_SETTINGS = frozenset({"温度", "湿度", "亮度", "色温"})
"""Settings measured in a unit of their own: said, no other setting going the same way stands for them
(小声一点 may slow a purifier's fan; 温度 raises no blind's slats)."""


def _setting_said(action: str) -> str:
    """Return the measured setting an adjustment names (调高温度=2C: 温度), empty for any other (调高)."""
    key = action.partition("=")[0]
    verb = next((v for v in (*RAISING_ACTIONS, *LOWERING_ACTIONS) if key.startswith(v)), "")
    said = compact(key.removeprefix(verb)) if verb else ""
    return said if said in MEASURED_SETTINGS else ""


LEVEL_DIRECTIONS = frozenset({"调高", "调低"})
"""Raising or lowering with nothing said of what: a level (大/小 or 强 may be a speed as well)."""
START_SERVICE = "start"
"""How Home Assistant's services that start a task begin (vacuum.start, lawn_mower.start_mowing)."""
SWITCHING_ON = frozenset(
    {*SWITCHED_ON_WORDS, *(verb for verb, synonyms in VERB_SYNONYMS.items() if "开启" in synonyms)}
)
"""Actions switching a device on (打开, 开始): a setting said after them is what it runs at."""


WARMER_LIGHT, COOLER_LIGHT = "调低色温", "调高色温"
"""Warmer light is a lower colour temperature; cooler light, a higher one."""
COLOUR_TEMPERATURE_FIELD = "color_temp_kelvin"
TEMPERATURE_FIELD = "temperature"
"""Held by the fields of a temperature of a device's own (temperature, target_temp_high)."""


def _warmth_of_light(
    result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]
) -> tuple[RetrievalResult, Candidate] | None:
    """Return the result and candidate moving a light's colour temperature when warmth is said of it.

    暖一点 said of a device with a colour temperature and no temperature of its own is warmer
    light: a lower colour temperature (冷一点, a higher one). None otherwise.
    """
    action = result.command.a
    direction = relative_direction(action)
    if direction is None or TEMPERATURE_ATTRIBUTE not in action or top.entity_kind != "device":
        return None
    device = devices.get(top.entity_id)
    if device is None or any(TEMPERATURE_FIELD in c.id for c in device.commands if not c.readable):
        return None  # a device with a temperature of its own: warmer is its temperature
    # 儿童房的灯光调暖一点 among the room's lights: each found is moved by its colour temperature, the
    # first that has one leading (a desk lamp without one is no light to warm)
    coloured = [_by_colour_temperature(c, devices) for c in result.candidates]
    kept = [c for c in coloured if c is not None]
    if not kept:
        return None
    command = replace(result.command, a=WARMER_LIGHT if direction > 0 else COOLER_LIGHT)
    hint = None if len(kept) == 1 and result.hint == MULTIPLE_CLOSE_MATCHES else result.hint  # the one able
    warmer = _no_longer_unfamiliar(replace(result, command=command, candidates=kept, hint=hint))
    return warmer, kept[0]


def _by_colour_temperature(candidate: Candidate, devices: Mapping[str, Device]) -> Candidate | None:
    """Return the device candidate on its colour temperature command, None when it has none."""
    device = devices.get(candidate.entity_id) if candidate.entity_kind == "device" else None
    for command in device.commands if device is not None else ():
        if command.id.rpartition(":")[2] == COLOUR_TEMPERATURE_FIELD and not command.readable:
            return replace(candidate, capability_id=command.id)
    return None


def _no_longer_unfamiliar(result: RetrievalResult) -> RetrievalResult:
    """Return the result without the mark of a device kept for an action unlike its commands.

    The action was found among them after all, in other words (风小一点: 调低风速; 暖一点 of a lamp).
    """
    return replace(result, meta={k: v for k, v in result.meta.items() if k != "kept_for_unfamiliar_action"})


def _goes_as_said(result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]) -> bool:
    """Return True when the command chosen for an adjustment goes the way it says (调大: 提高风速)."""
    direction = relative_direction(result.command.a)
    device = devices.get(top.entity_id) if top.entity_kind == "device" else None
    chosen = _command_of(device, top.capability_id)
    return (
        direction is not None and chosen is not None and relative_direction(chosen.description) == direction
    )


def _chosen(result: RetrievalResult) -> tuple[Candidate, tuple[str, ...]]:
    """Return the top candidate and the devices it stands for (随便开两盏灯: the first two ranked)."""
    top = result.candidates[0]
    if result.command.q == Quantifier.ANY and result.command.c:
        devices = [c.entity_id for c in result.candidates if c.entity_kind == "device"]
        return top, tuple(devices[: result.command.c])
    return top, _targets(top, result)


def _unclear_target(  # noqa: PLR0913 - the result, its choice, the home, what was said and what runs
    result: RetrievalResult,
    top: Candidate,
    targets: tuple[str, ...],
    devices: Mapping[str, Device],
    text: str,
    running: RunningStates,
) -> Decision | None:
    """Return the question to ask when the target is not clearly the one said, else None."""
    if top.entity_kind == "group" and _set_guessed(result, top, devices, text):
        return _which(AskReason.NOT_FOUND, result, devices)
    if (
        {"last_mentioned", VALUE_REFERENCE} & set(top.reasons)
        and _count_unlike(result.command.q, len(targets))
        and not _opened_fully(targets, devices, text)
        and not _switching_those_answered(result)
    ):
        return _which(AskReason.WHICH_DEVICE, result, devices)
    device = devices.get(top.entity_id) if top.entity_kind == "device" else None
    # an alias that only says a kind (门锁) is no name said: 铁门锁上 holds 门锁 across 铁门 and 锁上
    said_name = _says_name(device, text, own=True) or _says_kind_named(device, text)
    said_name = said_name and not _says_more(device, result.command.n)
    if _guessed(result, top, targets) or (not said_name and _name_unmatched(result, top, devices)):
        return _which(AskReason.NOT_FOUND, result, devices)
    several_sets = (
        result.command.t == UNKNOWN_CATEGORY
        and top.entity_kind == "group"
        and any(c.entity_kind == "group" for c in result.candidates[1:])
    )
    if several_sets or (not said_name and _name_calls_several(result, top, devices, running)):
        # 除了卧室都关掉: lights, curtains and valves are each a set; which are meant is a guess.
        # Xiaomi 开一下: the lamp or the fan?
        return _which(AskReason.WHICH_DEVICE, result, devices)
    counts = Counter(devices[d].room for d in targets if d in devices and devices[d].room)
    rooms = sorted(counts, key=lambda room: (-counts[room], room))  # the rooms with most of the set first
    if len(rooms) > 1 and _whole_home_unasked(result, top, text):
        return _which_room(rooms, result, top, targets, devices)
    # 阿宝房灯调成红色 finding the room's colour light: the light named cannot do it
    return None if said_name else _named_one_unable(device, top, targets, devices, text)


def _guessed(result: RetrievalResult, top: Candidate, targets: tuple[str, ...]) -> bool:
    """Return True when the search guessed what was meant, about the devices chosen.

    A device kept for an action none of its commands is like (风扇 naming the exhaust fan too)
    makes a guess only when it is one of those chosen.
    """
    kept = result.meta.get("kept_unfamiliar")
    return any(
        key in result.meta
        and not (
            key == "kept_for_unfamiliar_action"
            and isinstance(kept, list)
            and not set(kept) & {top.entity_id, *targets}
        )
        for key in GUESSED
    )


OPENING_CATEGORY = "Blind"
"""Devices that open by degrees (curtains, blinds, vents): 全拉开 says how far they open."""


def _opened_fully(targets: tuple[str, ...], devices: Mapping[str, Device], text: str) -> bool:
    """Return True for 全拉开 said of the one cover just mentioned: fully, not every one."""
    return (
        len(targets) == 1
        and targets[0] in devices
        and in_category(devices[targets[0]].category, OPENING_CATEGORY)
        and says_fully(text)
    )


def _switching_those_answered(result: RetrievalResult) -> bool:
    """Return True for a bare switch after a question answered of several (关掉 after 浩浩房间的灯关了冇).

    Switching those just read is what was asked; a value (调到25) may have been meant of one of them.
    """
    return ANSWERED_REFERENCE in result.meta and result.command.a in {ACTION_ON, ACTION_OFF}


def _count_unlike(quantifier: Quantifier, mentioned: int) -> bool:
    """Return True when what was mentioned last is not as many as the words say.

    都关掉 after one device (the user means more than was mentioned), 再大一点 after two TVs
    (the question which one is still open).
    """
    return (quantifier == Quantifier.ALL and mentioned == 1) or (
        quantifier == Quantifier.ONE and mentioned > 1
    )


def _set_guessed(result: RetrievalResult, top: Candidate, devices: Mapping[str, Device], text: str) -> bool:
    """Return True when a set is not the one said.

    That is: found by nothing said (no type, room, or member called what was said; one character
    is no name: 家 of 家里 is not 米家), an exception by name the scope cannot hold (客厅的灯除了
    落地灯), or shrunk to the devices that can do it when the user did not ask for all of them with
    an all-word (开喇叭 where three speakers cannot be switched on).
    """
    command = result.command
    # 都关掉: the devices just mentioned; 转去 ViuTV: those listing the value
    said = {"type_hit", "room_hit", "last_mentioned", VALUE_REFERENCE} | NAME_REASONS
    if not said & set(top.reasons):
        wanted = compact(command.n)
        members = [devices[d] for d in _targets(top, result) if d in devices]
        if len(wanted) < MIN_NAME_LENGTH or not any(
            wanted in compact(n) for m in members for n in (m.name, *m.aliases)
        ):
            return True
    rooms_left_out = any(part.startswith("!") for part in command.s.split(","))
    if command.q == Quantifier.EXCEPT and not command.x and not rooms_left_out:
        return True
    return (
        "unsupported_targets" in result.meta
        and not says_all(text)
        and not _listed_by_one(result, top, devices)
    )


def _listed_by_one(result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]) -> bool:
    """Return True when the set kept one device, whose command lists the value said (电视换到爱奇艺).

    Of two televisions, the one with 爱奇艺 among its sources is the one meant: the value names it.
    """
    _, equals, value = result.command.a.partition("=")
    members = _targets(top, result)
    if not equals or not value or len(members) != 1:
        return False
    command = _command_of(devices.get(members[0]), top.capability_id)
    return command is not None and any(listed_in(value, item) for item in command.value_list or ())


def _opposite(action: str, command: CommandSpec) -> bool:
    """Return True when an adjustment and the command chosen for it go opposite ways (调小 and 调高风速)."""
    said, does = relative_direction(action), relative_direction(command.description)
    return said is not None and does is not None and said != does


def _scene_said_alone(result: RetrievalResult, devices: Mapping[str, Device], text: str) -> Action | None:
    """Return the activation of the one scene the utterance is, give or take a verb (执行早安, 哄睡模式)."""
    if result.command.a != UNKNOWN_ACTION:
        return None
    said = compact(text)
    named: list[tuple[str, Device]] = []
    for device in devices.values():
        if device.category == SCENE_CATEGORY:
            spoken = max((n for n in _scene_names(device) if _said_within(n, said)), key=len, default="")
            if spoken:
                named.append((spoken, device))
    named.sort(key=lambda found: -len(found[0]))
    if not named or (len(named) > 1 and len(named[1][0]) == len(named[0][0])):
        return None  # no scene said, or two said alike: 豆豆要睡觉了 is 豆豆睡觉, not 睡觉模式
    spoken, scene = named[0]
    if len(said) - len(spoken) > MAX_SCENE_EXTRA:
        return None  # 空气净化器切到睡眠模式, 明天早上七点叫我起床: more is said than the scene's name
    rooms = [compact(room.lstrip("!")) for room in result.command.s.split(",")]
    if any(room not in ("", ANY_ROOM, compact(scene.room)) and room not in spoken for room in rooms):
        return None  # 一楼的灯全部熄咖 holds a script called 灯全部熄咖, which is not the first floor's
    activate = next((c for c in scene.commands if not c.readable and not takes_argument(c)), None)
    return Action((scene.id,), activate) if activate is not None else None


def _said_within(name: str, said: str) -> bool:
    """Return True when ``said`` holds the name, or its characters in order with a word or two between.

    豆豆要睡觉了 says 豆豆睡觉 (a script's name) with 要 inside; names shorter than three
    characters must be said whole.
    """
    if name in said:
        return True
    if len(name) < MIN_SPREAD_NAME:
        return False
    for start in (i for i, char in enumerate(said) if char == name[0]):
        position = start
        for char in name[1:]:
            position = said.find(char, position + 1)
            if position < 0:
                break
        if position >= 0 and position - start + 1 - len(name) <= MAX_SCENE_INSERTED:
            return True
    return False


def _scene_names(scene: Device) -> list[str]:
    """Return what a scene is called, compacted, also without the word of its kind (晚安模式: 晚安)."""
    names = [compact(n) for n in (scene.name, *scene.aliases, device_label(scene)) if n]
    shorter = [
        name.removesuffix(word)
        for name in names
        for word in SCENE_WORDS
        if name.endswith(word) and len(name) - len(word) >= MIN_NAME_LENGTH
    ]
    return [*names, *shorter]


def _targets(candidate: Candidate, result: RetrievalResult) -> tuple[str, ...]:
    """Return the device ids a candidate stands for (a group's members)."""
    if candidate.entity_kind == "group":
        group = result.groups.get(candidate.entity_id)
        return tuple(group.device_ids) if group else ()
    return (candidate.entity_id,)


def _command_of(device: Device | None, command_id: str | None) -> CommandSpec | None:
    """Return the device's command (or readable fact) with that id."""
    return device.command(command_id) if device is not None else None


def _is_question(top: Candidate, targets: tuple[str, ...], devices: Mapping[str, Device]) -> bool:
    """Return True when the chosen command reads state instead of changing it."""
    spec = _command_of(devices.get(targets[0]) if targets else None, top.capability_id)
    return spec is not None and spec.readable


def _readings(result: RetrievalResult, devices: Mapping[str, Device]) -> list[Reading]:
    """Return the facts that answer a question: a set's members, or one thing and those like it.

    Like it: as close as the engine's margin for close matches, reading the same fact (客厅温度多少
    reads the sensor and the air conditioner's current temperature, not a light's brightness).
    """
    if result.command.q != Quantifier.ONE:
        top = result.candidates[0]
        facts = [(d, _command_of(devices.get(d), top.capability_id)) for d in _targets(top, result)]
        return [Reading(device_id, fact) for device_id, fact in facts if fact is not None and fact.readable]
    readings: list[Reading] = []
    for candidate in result.candidates:
        if readings and result.candidates[0].total_score - candidate.total_score >= CLOSE_MATCH_MARGIN:
            break
        fact = _command_of(devices.get(candidate.entity_id), candidate.capability_id)
        if fact is None or not fact.readable or candidate.entity_kind != "device":
            continue
        if not readings or fact.description == readings[0].fact.description:
            readings.append(Reading(candidate.entity_id, fact))
        if len(readings) >= MAX_READINGS:
            break
    return readings


def _called(device: Device) -> list[str]:
    """Return what a device is called, compacted: its name, aliases, and room and name (客厅主灯)."""
    return [compact(n) for n in (device.name, *device.aliases, device_label(device)) if n]


def _says_name(
    device: Device | None, text: str, shortest: int = 1, *, own: bool = False, things: bool = False
) -> bool:
    """Return True when the utterance holds the device's whole name, an alias, or its room and name.

    Names shorter than ``shortest`` characters (compacted: lamp is 灯) do not count; with ``own``,
    nor do those that only say a kind (an alias 电视 or 台灯 is no name of the device's own); with
    ``things`` too, nor those naming a kind of thing set apart (an alias 抽风机, an exhaust fan).
    """
    if device is None:
        return False
    said = compact(text)
    return any(
        len(name) >= shortest
        and not (own and is_kind_word(name))
        and not (things and says_a_thing(name))
        and name in said
        for name in _called(device)
    )


def _says_kind_named(device: Device | None, text: str) -> bool:
    """Return True when the utterance holds the device's own name, a kind word (吊扇 named so), whole."""
    return device is not None and is_kind_word(name := compact(device.name)) and name in compact(text)


def _says_more(device: Device | None, name: str) -> bool:
    """Return True when the name parsed says more than the device is called (卧室电视 for 客厅 电视).

    What is left of the name past the longest run it shares with what the device is called
    says more when it is two characters or longer and no type word (電鍋插座 for 大同電鍋) or
    attribute (空调温度).
    """
    wanted = compact(name)
    if device is None or name in {ANY_NAME, LAST_MENTIONED} or is_type_word(wanted):
        return False
    called = _called(device)
    shared = max((_shared_run_text(n, wanted) for n in called), key=len, default="")
    extra = [part for part in wanted.split(shared) if part] if shared else [wanted]
    return any(
        len(part) >= MIN_NAME_LENGTH and part not in TYPE_WORDS and part not in ATTRIBUTE_WORDS
        for part in extra
    )


def _room_and_kind(result: RetrievalResult, devices: Mapping[str, Device]) -> Candidate | None:
    """Return the one close candidate called its room and the kind said (厨房灯 for 灶房的灯).

    By its name or an alias (主卧灯 for 主卧吸顶灯), or by the end of that (走廊灯 in 二楼走廊).
    """
    kind = compact(result.command.n)
    if result.command.s == ANY_ROOM or not is_type_word(kind):
        return None

    def called(device: Device) -> bool:
        said = compact(device.room) + kind
        names = [compact(n) for n in (device.name, *device.aliases) if n]
        return any(said.endswith(name) and len(name) > len(kind) for name in names)

    found = [
        c
        for c in result.candidates
        if c.entity_kind == "device"
        and (d := devices.get(c.entity_id)) is not None
        and "room_hit" in c.reasons
        and called(d)
    ]
    return found[0] if len(found) == 1 else None


def _holding_name_said(result: RetrievalResult, devices: Mapping[str, Device]) -> Candidate | None:
    """Return the one close candidate with a name holding all of the name said, when that is no category word.

    排风扇 with the bathroom's 排风扇 and a standing fan called 电风扇 close: only the first is
    called all that was said; 灯 or 空调 name a whole kind and settle nothing.
    """
    wanted = compact(result.command.n)
    if (
        len(wanted) < MIN_NAME_LENGTH
        or result.command.n in {ANY_NAME, LAST_MENTIONED}
        or is_type_word(wanted)
    ):
        return None
    holding = [
        candidate
        for candidate in close_matches(result.candidates)
        if (device := devices.get(candidate.entity_id)) is not None and _holds_name(device, wanted)
    ]
    return holding[0] if len(holding) == 1 else None


def _holds_name(device: Device, wanted: str) -> bool:
    """Return True when one of the device's names holds ``wanted``, or it is a word of one and its kind."""
    return any(wanted in compact(n) for n in (device.name, *device.aliases) if n) or _word_and_kind(
        device, wanted
    )


def _named_in_text(
    result: RetrievalResult, devices: Mapping[str, Device], text: str, live: _Live
) -> Candidate | None:
    """Return the one close candidate the utterance calls by its whole name, alias or room and name.

    Of several called alike, the only one the action changes (厕所灯开开 with one 厕所灯 on and another
    called so by an alias off), else the one called by its name, not an alias.

    A name said only inside a longer word of another device's name is not said: 排风扇 holds
    风扇, an alias of the standing fan, but calls the exhaust fans; 开柜台灯 holds 台灯, the desk
    lamp's name, but calls the counter's light.
    """
    said = compact(text)
    called = {
        candidate.entity_id: _called(d)
        for candidate in result.candidates
        if candidate.entity_kind == "device" and (d := devices.get(candidate.entity_id)) is not None
    }
    said_in_home = [
        (device_id, name) for device_id, device in devices.items() for name in _called(device) if name in said
    ]
    lengths: dict[str, int] = {}
    for candidate in result.candidates:
        names = called.get(candidate.entity_id)
        if candidate.entity_kind != "device" or names is None:
            continue
        others = [
            name
            for device_id, own in [*called.items(), *((d, [n]) for d, n in said_in_home)]
            if device_id != candidate.entity_id
            for name in own
        ]
        lengths[candidate.entity_id] = max(
            (len(name) for name in names if _said_whole(name, said, others)), default=0
        )
    longest = max(lengths.values(), default=0)
    best = [c for c in result.candidates if longest and lengths.get(c.entity_id) == longest]
    if (
        len(best) > 1
        and (changed := _the_one_it_changes(result, best, devices, _by_state(live, result.command.a)))
        is not None
    ):
        return changed
    if len(best) > 1:
        # 浴霸开开: the switch named 浴霸, not the exhaust fan of the 浴霸 it is part of (an alias)
        best = [c for c in best if compact(devices[c.entity_id].name) in said]
    return best[0] if len(best) == 1 else None


def _named_one_unable(
    chosen: Device | None,
    top: Candidate,
    targets: tuple[str, ...],
    devices: Mapping[str, Device],
    text: str,
) -> Decision | None:
    """Return the answer that the device named cannot do it, when another was chosen; else None."""
    named = _other_one_named(chosen, targets, devices, text)
    if named is None or _command_of(named, top.capability_id) is not None:
        return None
    return Decision(Outcome.ASK, reason=AskReason.NO_COMMAND, subject=(named.id,))


def _other_one_named(
    chosen: Device | None, targets: tuple[str, ...], devices: Mapping[str, Device], text: str
) -> Device | None:
    """Return the device of the chosen one's kind the utterance calls by its own name, if not chosen.

    The search keeps only devices that can do what was asked, so a device named in full that
    cannot do it leaves its room's others, and acting on one of them would be a guess.
    """
    if chosen is None:
        return None
    said = compact(text)
    alike = [d for d in devices.values() if d.category == chosen.category and d.id not in targets]
    called = {d.id: [n for n in _called(d) if not is_kind_word(n)] for d in (*alike, chosen)}
    others = [n for names in called.values() for n in names]
    named = [
        d
        for d in alike
        if any(_said_whole(n, said, [o for o in others if o not in called[d.id]]) for n in called[d.id])
    ]
    return named[0] if len(named) == 1 else None


def _said_whole(name: str, said: str, others: Sequence[str]) -> bool:
    """Return True when ``said`` holds ``name`` once at least not as part of a longer word of ``others``."""
    start = said.find(name)
    while name and start >= 0:
        wider = (said[max(start - 1, 0) : start + len(name)], said[start : start + len(name) + 1])
        if not any(len(word) > len(name) and any(word in other for other in others) for word in wider):
            return True
        start = said.find(name, start + 1)
    return False


def _name_calls_several(
    result: RetrievalResult, top: Candidate, devices: Mapping[str, Device], running: RunningStates
) -> bool:
    """Return True when the name said, no kind, is part of several found devices' names (Xiaomi).

    A set said by a name (所有小米的) is meant to take them all. Devices kept though no command of
    theirs is like the action (a water heater's plug, for 热水器调到四十八度) are not meant by it,
    nor, for a change by a step (油烟机再开大些), those that do not run.
    """
    if top.entity_kind != "device" or result.command.n in {ANY_NAME, LAST_MENTIONED}:
        return False
    if is_kind_word(compact(result.command.n)):
        return False
    unable = _kept_unlike(result) - {top.entity_id}
    counted = result.command.c or 1  # 两个排风扇: the two called so are those meant
    called = {
        candidate.entity_id
        for candidate in result.candidates
        if candidate.entity_kind == "device"
        and _is_called(devices.get(candidate.entity_id), result.command.n)
    }
    if (
        relative_direction(result.command.a) is not None
        and _one_running(result.command.a, sorted(called), running) is not None
    ):
        called = {device_id for device_id in called if running(device_id) is not False}
    return len(called - unable) > counted


def _name_unmatched(result: RetrievalResult, top: Candidate, devices: Mapping[str, Device]) -> bool:
    """Return True when the device chosen is not the one the user named.

    That is: found by its type or part of its name alone (冰箱插座 is not 鱼缸插座), found by
    how a word the user said as a kind of device sounds (台灯 heard as 大灯), or outside the
    room the user named.
    """
    command, reasons = result.command, set(top.reasons)
    heard = result.meta.get("heard_as")
    if isinstance(heard, dict) and any(is_kind_word(word) for word in heard):
        return True  # 台灯 is a word of its own, not 大灯 misheard
    included = [
        room for room in command.s.split(",") if room and room != ANY_ROOM and not room.startswith("!")
    ]
    if included and "room_hit" not in reasons:
        return True
    if top.entity_kind != "device" or command.n in {ANY_NAME, LAST_MENTIONED} or is_type_word(command.n):
        return False
    in_room = bool(included)  # the room was said and holds the device
    return not NAME_REASONS & reasons and not _is_called(
        devices.get(top.entity_id), command.n, in_room=in_room
    )


def _is_called(device: Device | None, name: str, *, in_room: bool = False) -> bool:
    """Return True when ``name`` calls the device: a name or alias, with or without its room, or its own part.

    主灯 calls 客厅主灯; 排风扇 calls 二楼排风扇; 爸爸 and 妈妈的灯 call 主卧妈妈床头灯, 冰箱插座 not
    鱼缸插座. A name of three characters or more calls a device whose name ends with it, of two
    when its room was said too (餐厅的吊灯 for 饭桌吊灯, 书房的台灯 for 书桌台灯). A part is its
    own when, without the type word it ends with, it is two characters or more of one of the
    device's names, and that name holds the type word too. A word of a name (a brand in a
    model's name, Xiaomi 米家 KFR-35GW) and its category's word call it too (米家空调).
    """
    if device is None:
        return False
    wanted, room = compact(name), compact(device.room)
    kind = max((word for word in TYPE_WORDS if wanted.endswith(word)), key=len, default="")
    part = wanted.removesuffix(kind)
    for called in (device.name, *device.aliases):
        full = compact(called)
        if wanted in {full, full.replace(room, "") if room else full}:
            return True
        shortest = MIN_NAME_LENGTH if in_room else MIN_NAME_LENGTH + 1
        if len(wanted) >= shortest and full.endswith(wanted) and not is_type_word(wanted):
            return True  # 排风扇 for 二楼排风扇: the head of the name, its modifiers left unsaid
        if len(part) >= MIN_NAME_LENGTH and part in full and kind in full and not is_type_word(part):
            return True
    return _word_and_kind(device, wanted)


def _word_and_kind(device: Device, wanted: str) -> bool:
    """Return True when ``wanted`` is a word of one of the device's names and its category's word.

    米家空调 for an air conditioner whose model is a Xiaomi 米家 KFR-35GW.
    """
    kind = max((word for word in GENERIC_TYPE_WORDS if wanted.endswith(word)), key=len, default="")
    part = wanted.removesuffix(kind)
    return (
        bool(kind)
        and len(part) >= MIN_NAME_LENGTH
        and in_category(device.category, GENERIC_TYPE_WORDS[kind])
        and any(part in normalize(name).split() for name in (device.name, *device.aliases) if name)
    )


def _starts_a_task(command: CommandSpec) -> bool:
    """Return True for a service starting a task (vacuum.start): no setting of the device does that."""
    return command.id.partition(".")[2].startswith(START_SERVICE)


def _without_subsumed(actions: list[Action]) -> list[Action]:
    """Return the actions once each, without those a valued action on the same devices carries out anyway.

    打开一半 parses as 打开 and 设置位置=50%: setting the position opens it half, and 关到三成
    closes it to 30 %. A setting from a list never turns off (空调制冷关掉 ends with it off), and
    one switched on or off (摇头) does not turn the device on (风扇开咗佢,摇埋头: both); no setting
    starts a task (扫地机开始，用 turbo: both).
    """
    valued = {
        action.device_ids
        for action in actions
        if action.value is not None and not isinstance(action.value, bool)
    }
    numbers = {action.device_ids for action in actions if _is_number(action.value)}
    kept = [
        action
        for action in actions
        if action.value is not None
        or _starts_a_task(action.command)
        or action.device_ids not in (numbers if action.said == ACTION_OFF else valued)
    ]
    once: list[Action] = []
    for action in kept:
        if action not in once:  # the same action said twice (关了它 after 灯冇关) is done once
            once.append(action)
    return once


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unread_words(
    text: str, actions: list[Action], devices: Mapping[str, Device], rooms: Sequence[str]
) -> tuple[str, ...]:
    """Return the Latin words of the utterance that are in no room said, name of a device acted on or value.

    The parser reads Chinese; 开 rainbow 效果 would otherwise turn a light on and drop the effect.
    """
    said = normalize(text)
    for room in rooms:
        said = said.replace(normalize(room), " ")  # living room 啲灯: an area's alias
    for action in actions:
        if isinstance(action.value, str) and action.value:
            said = said.replace(normalize(action.value), " ")  # 切到 dry 模式: the value read
        for device_id in action.device_ids:
            if (device := devices.get(device_id)) is not None:
                for name in (device.name, *device.aliases, device.room):
                    said = said.replace(normalize(name), " ")
    return tuple(dict.fromkeys(_LATIN_WORD.findall(said)))


def _values_unused(
    text: str, actions: list[Action], devices: Mapping[str, Device], rooms: Sequence[str]
) -> bool:
    """Return True when the utterance says more values than the actions carry (digits of names, rooms aside).

    二十八楼啲灯全部熄晒: the floor 二十八楼 holds a number, which is no value.
    """
    said = compact(text)
    for room in sorted(rooms, key=len, reverse=True):
        said = said.replace(compact(room), " ")
    for action in actions:
        if isinstance(action.value, str) and action.value:
            said = said.replace(compact(action.value), " ")  # 切到 HDMI1: the value chosen holds its digit
        for device_id in action.device_ids:
            if (device := devices.get(device_id)) is not None:
                for name in (device.name, *device.aliases):
                    said = said.replace(compact(name), " ")
    numbers = sum(
        _is_number(a.value)
        or (a.value is not None and a.said.partition("=")[2].strip() in EXTREME_VALUES)  # 最大: 高风
        for a in actions
    )
    return len(spoken_values(said)) > numbers


def _which_room(
    rooms: list[str],
    result: RetrievalResult,
    top: Candidate,
    targets: tuple[str, ...],
    devices: Mapping[str, Device],
) -> Decision:
    """Return the question which room's part of a whole-home set is meant, each room a choice."""
    choices = tuple(
        Choice(
            room,
            (room,),
            tuple(d for d in targets if devices[d].room == room),
            top.capability_id,
            result.command.a,
        )
        for room in rooms
    )
    return Decision(
        Outcome.ASK, reason=AskReason.WHICH_ROOM, options=tuple(rooms[:MAX_OPTIONS]), choices=choices
    )


def _which(reason: AskReason, result: RetrievalResult, devices: Mapping[str, Device]) -> Decision:
    """Return the question which of the candidates is meant, with the answers it may get."""
    choices = []
    for candidate in result.candidates:
        device = devices.get(candidate.entity_id)
        if candidate.entity_kind != "device" or device is None:
            continue
        words = (device_label(device), device.name, *device.aliases, device.room)
        choices.append(
            Choice(device_label(device), words, (device.id,), candidate.capability_id, result.command.a)
        )
    return Decision(Outcome.ASK, reason=reason, options=_options(result, devices), choices=tuple(choices))


def decide_choice(
    choices: Sequence[Choice],
    devices: Mapping[str, Device],
    text: str,
    current: CurrentValues = _unknown,
    names: Sequence[str] = (),
) -> Decision | None:
    """Return the decision for an answer to a which-question (主卧的), None when it picks no one choice.

    A choice is picked when the answer shares a longer run of characters with one of its words
    than with any other choice's, two at least: 主卧的 picks the choice in 主卧, 纱帘 主卧纱帘 over
    主卧窗帘, 爸爸那边的 主卧爸爸床头灯. An answer naming something no choice is called by (``names``,
    as parsed: 嫲嫲's room a bit warmer after which of the lounge's blinds) is a request of its own.
    """
    if any(
        max((_shared_run(compact(word), compact(name)) for c in choices for word in c.words), default=0)
        < MIN_NAME_LENGTH
        for name in names
    ):
        return None
    said = compact(text)
    said_words = set(_LATIN_WORD.findall(text.lower()))
    best: tuple[int, list[Choice]] = (MIN_NAME_LENGTH - 1, [])
    for choice in choices:
        length = max((_shared_part(w, said, said_words) for w in choice.words if w), default=0)
        if length > best[0]:
            best = (length, [choice])
        elif length >= MIN_NAME_LENGTH and length == best[0]:
            best[1].append(choice)
    if len(best[1]) != 1:
        return None
    (choice,) = best[1]
    said_rooms = {room for room in (compact(d.room) for d in devices.values() if d.room) if room in said}
    if said_rooms and not said_rooms & {compact(word) for word in choice.words}:
        return None  # 工人房的 shares 人房 with 主人房 but names another room
    turn = _Turn()
    turn.actions.extend(choice.done_before)
    for command_id, action in ((choice.command_id, choice.action), *choice.then):
        top = Candidate(choice.device_ids[0], "device", command_id, 0.0, 0.0, 0.0)
        if asked := _action(action, top, choice.device_ids, devices, turn, current):
            return asked
    return Decision(Outcome.ACT, actions=tuple(_without_subsumed(turn.actions)))


def _shared_run(word: str, text: str) -> int:
    """Return the length of the longest run of characters ``word`` and ``text`` share."""
    return len(_shared_run_text(word, text))


def _shared_part(word: str, said: str, said_words: set[str]) -> int:
    """Return how much of a choice's word an answer says: a run of its characters, or Latin words whole.

    Letters say nothing in pairs (make … a bit warmer shares bi with bay window blinds): a Latin run
    counts only as words the answer says whole (the lounge ones, for Lounge blinds).
    """
    run = _shared_run_text(compact(word), said)
    if run.isascii():
        return max((len(w) for w in _LATIN_WORD.findall(word.lower()) if w in said_words), default=0)
    return len(run)


def _shared_run_text(word: str, text: str) -> str:
    """Return the longest run of characters ``word`` and ``text`` share (the first found on a tie)."""
    longest = ""
    for start in range(len(word)):
        for end in range(len(word), start + len(longest), -1):
            if word[start:end] in text:
                longest = word[start:end]
                break
    return longest


def _options(result: RetrievalResult, devices: Mapping[str, Device]) -> tuple[str, ...]:
    """Return the candidates to name when asking which one, best first: devices with their room, sets."""
    labels: dict[str, None] = {}
    for candidate in result.candidates:
        if candidate.entity_kind == "group":
            group = result.groups.get(candidate.entity_id)
            if group is not None:
                labels[group.name] = None
        elif (device := devices.get(candidate.entity_id)) is not None:
            labels[device_label(device)] = None
    return tuple(list(labels)[:MAX_OPTIONS])


def device_label(device: Device) -> str:
    """Return how a person names a device: its room first unless its name already says it (客厅 吊灯)."""
    if not device.room or device.room in device.name:
        return device.name
    separator = " " if has_latin(device.room) or has_latin(device.name) else ""
    return f"{device.room}{separator}{device.name}"


def _whole_home_unasked(result: RetrievalResult, top: Candidate, text: str) -> bool:
    """Return True for a set over every room that the user did not ask for with an all-word (打开灯)."""
    command = result.command
    return (
        top.entity_kind == "group"
        and command.q == Quantifier.ALL
        and command.s == ANY_ROOM
        and not says_whole_home(text)
    )


def _action(  # noqa: PLR0913 - the command, its targets and where to put the result
    action: str,
    top: Candidate,
    targets: tuple[str, ...],
    devices: Mapping[str, Device],
    turn: _Turn,
    current: CurrentValues = _unknown,
) -> Decision | None:
    """Add the action on ``targets`` to ``turn`` when every device has the command and takes the value.

    Devices given different values (调高两度 from different temperatures) get an action each.
    """
    by_value: dict[tuple[str, Any], list[str]] = {}
    commands: dict[tuple[str, Any], CommandSpec] = {}
    for device_id in targets:
        command = _command_of(devices.get(device_id), top.capability_id)
        if command is None or command.readable or _opposite(action, command):
            return Decision(Outcome.ASK, reason=AskReason.NO_COMMAND, subject=(device_id,))
        argument = command_argument(action, command, current(device_id, command))
        if argument.problem is not None:
            reason = _ARGUMENT_REASONS[argument.problem]
            return Decision(Outcome.ASK, reason=reason, subject=(device_id,), command=command)
        key = (type(argument.value).__name__, argument.value)
        by_value.setdefault(key, []).append(device_id)
        commands.setdefault(key, command)
    if not by_value:
        return Decision(Outcome.HAND_OFF)
    turn.actions.extend(Action(tuple(ids), commands[key], key[1], action) for key, ids in by_value.items())
    return None
