"""Conversation frames: a follow-up that says only part of a command takes the rest from the last one.

主卫的也开 after 打开客厅的灯 means the lights of 主卫; 那卧室的呢 after 客厅温度多少 asks the
temperature of 卧室; 书房的 after 打开台灯 corrects it to the study's; 主灯也一样 after 打开落地灯
turns on 主灯. The last command is kept with the last-mentioned devices (``ConversationState``)
and expires with them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .gating import CATEGORY_WORDS, category_named, is_type_word, says_a_thing
from .models import (
    ANY_NAME,
    ANY_ROOM,
    LAST_MENTIONED,
    LAST_ROOM,
    UNKNOWN_ACTION,
    UNKNOWN_CATEGORY,
    Command,
    Quantifier,
)
from .parsing import parse_scope
from .parsing.offline import (
    ACTION_OFF,
    ACTION_ON,
    PART_WORDS,
    SCENE_CATEGORY,
    SETTING_PREFIX,
    adjusted_for,
    ends_in_a_scene_word,
    relative_direction,
)
from .search import says_all
from .text import compact

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

FOLLOW_UP_MARKERS = ("也", "一样", "还有", "呢", "同样", "照样")
"""Words that say an utterance goes on from the last one (也, 呢): it may leave the rest unsaid."""


type CalledInRoom = Callable[[str, str], int]
"""How many devices in a room (or floor) word are called by a name."""


def _anywhere(_room: str, _name: str) -> int:
    return 1


type RoomInside = Callable[[str, str], bool]
"""Whether a room word is, or is inside, another room or floor word (楼梯 on 一楼)."""


def _same_word(room: str, scope: str) -> bool:
    return room == scope


def with_frame(
    command: Command,
    last: Command | None,
    text: str,
    called: CalledInRoom = _anywhere,
    inside: RoomInside = _same_word,
) -> Command:
    """Return ``command`` completed from the ``last`` one when it says only a room or only a name.

    A name carried to a room where nothing is called so becomes its kind: 那厨房呢 after 客厅大灯关了
    is about the kitchen's light, the kitchen having no 大灯.
    """
    command = _in_whose_room(command, last)
    if last is None:
        return command
    said = compact(text)  # in any variety: Cantonese 纱帘都系 is 纱帘也一样
    command = _more_of_the_same(command, last, said)
    goes_on = any(marker in said for marker in FOLLOW_UP_MARKERS)
    command = _placed_by_the_last(command, last, said, called, goes_on=goes_on)
    command = _doing_the_last_to_the_one_said(_moving_what_the_last_moves(command, last), last)
    command = _switching_the_last_part(command, last)
    if last.a == UNKNOWN_ACTION or last.n in {ANY_NAME, LAST_MENTIONED}:
        return command
    if (kept := _kept_from_set(command, last, inside)) is not None:
        return kept
    rooms_only = (
        command.n == ANY_NAME
        and command.t == UNKNOWN_CATEGORY
        and command.s != ANY_ROOM
        and not command.s.startswith("!")
    )
    if rooms_only and (goes_on or command.a != UNKNOWN_ACTION or _only_rooms_said(said, command)):
        # 那卧室的呢, 卧室的也开, or a correction: 书房的 after 打开台灯
        quantifier = Quantifier.ALL if last.q == Quantifier.EXCEPT else last.q
        action = last.a if command.a == UNKNOWN_ACTION else command.a
        name = last.n
        rooms = command.s.split(",")
        if last.t in CATEGORY_WORDS and not is_type_word(name) and not any(called(r, name) for r in rooms):
            name = CATEGORY_WORDS[last.t]
        scope = _left_out_within(command.s, last.s, inside)
        return replace(command, a=action, s=scope, n=name, t=last.t, q=quantifier)
    named = command.a == UNKNOWN_ACTION and command.n not in {ANY_NAME, LAST_MENTIONED}
    if named and (goes_on or _narrows(command, last, said)):
        return replace(command, a=last.a)
    return command


_OPPOSITE = {ACTION_ON: ACTION_OFF, ACTION_OFF: ACTION_ON}


def _left_out_within(scope: str, last_scope: str, inside: RoomInside) -> str:
    """Return a scope leaving rooms out of the home as leaving them out of the last command's rooms.

    一楼哪些灯开着, then 除了客厅，全部关掉: the first floor's lights but the living room's, not every
    light of the home; a room left out that is not inside them leaves the home's scope as said.
    """
    placed, left_out = parse_scope(scope)
    rooms, earlier_out = parse_scope(last_scope)
    if placed or not left_out or not rooms or earlier_out:
        return scope
    if not all(any(inside(room, said) for said in rooms) for room in left_out):
        return scope
    return ",".join([*sorted(rooms), *(f"!{room}" for room in sorted(left_out))])


def _doing_the_last_to_the_one_said(command: Command, last: Command) -> Command:
    """Return a follow-up saying only where the one pointed at is with the last action (北边那个).

    阳台灯关掉 asked which of two; 北边那个 is the one meant, to switch off.
    """
    if (
        command.a == UNKNOWN_ACTION
        and command.n == LAST_MENTIONED
        and command.s not in {ANY_ROOM, LAST_ROOM}
        and last.a != UNKNOWN_ACTION
    ):
        return replace(command, a=last.a)
    return command


def _placed_by_the_last(
    command: Command, last: Command, said: str, called: CalledInRoom, *, goes_on: bool
) -> Command:
    """Return a command naming no room placed where the last one was, or made its part."""
    if (command.a != UNKNOWN_ACTION or goes_on) and _in_the_last_room(command, last, said, called):
        # 书房好冷 then 把空调开起: the study's air conditioner, not every one in the home
        return replace(command, s=last.s)
    if not goes_on:
        return command
    if _kind_in_the_last_room(command, last, said):
        # 家庭厅的电视换到 YouTube, then 灯也调暗点: a light there (the one it changes), no all-word said
        return replace(command, s=last.s, q=Quantifier.ONE)
    if (part := _part_of_the_last(command, last, said, called)) is not None:
        # 晾衣架降下来, then 灯也开一下: the airer's own light (晾衣架灯)
        return replace(command, n=part, q=Quantifier.ONE)
    if _missing_from_the_last_room(command, last, said, called):
        # 排气扇也开开 after 公卫浴霸开开, 公卫 having none: asked about there, not one found elsewhere
        return replace(command, s=last.s)
    return command


def _switching_the_last_part(command: Command, last: Command) -> Command:
    """Return a bare switch said after a part was switched, switching that part.

    算了,关上 after 百叶帘叶片打开: the slats, not the whole blind.
    """
    if (
        command.a not in _OPPOSITE
        or command.n != ANY_NAME
        or command.s != ANY_ROOM
        or command.q != Quantifier.ONE
    ):
        return command  # 都关了 after 叶片打开: every device, as said
    part = next((p for p in PART_WORDS if last.a in (ACTION_ON + p, ACTION_OFF + p)), None)
    return command if part is None else replace(command, a=command.a + part)


def _moving_what_the_last_moves(command: Command, last: Command) -> Command:
    """Return a direction said alone moving what it moves on the last command's kind of device.

    再调低点 after 里屋空调整成制冷: the air conditioner's temperature, as 空调调低点 would.
    """
    if command.n != ANY_NAME or command.t != UNKNOWN_CATEGORY or last.t == UNKNOWN_CATEGORY:
        return command
    if relative_direction(command.a) is None:
        return command
    return replace(command, a=adjusted_for(command.a, last.t))


def _kept_from_set(command: Command, last: Command, inside: RoomInside) -> Command | None:
    """Return the command switching back what a follow-up keeps out of the set just switched, or None.

    台灯留着 after 姐姐房的灯关掉: the desk lamp goes back on; 主卧的留着 after 所有空调都关了: the
    master bedroom's air conditioners do; 楼梯灯留着 after 一楼的灯都关了: the stairs' lights. Only
    what the set held is kept: a name of its kind (not 电视留着 after 所有灯都关了), a room inside it
    and not left out of it (not 主卧的留着 after 客厅的灯全部关掉, nor after 除了主卧，空调都关了).
    """
    opposite = _OPPOSITE.get(last.a)
    if (
        opposite is None
        or command.a != UNKNOWN_ACTION
        or command.q != Quantifier.EXCEPT
        or command.n != ANY_NAME
        or last.q not in {Quantifier.ALL, Quantifier.EXCEPT}
    ):
        return None
    placed, kept_rooms = parse_scope(command.s)
    said_rooms, left_out = parse_scope(last.s)
    kind = command.x[0] if len(command.x) == 1 and category_named(command.x[0]) == last.t else None
    kept_rooms = kept_rooms or (placed if kind is not None else frozenset())  # 楼梯灯留着: the stairs' lights
    if kind is not None and not kept_rooms:
        return replace(
            command, a=opposite, s=",".join(sorted(said_rooms)) or ANY_ROOM, n=kind, q=Quantifier.ONE, x=()
        )
    if said_rooms:
        within = all(any(inside(room, said) for said in said_rooms) for room in kept_rooms)
    else:
        within = not kept_rooms & left_out
    if kept_rooms and (not command.x or kind is not None) and within:
        return replace(
            command,
            a=opposite,
            s=",".join(sorted(kept_rooms)),
            n=kind or last.n,
            t=last.t,
            q=Quantifier.ALL,
            x=(),
        )
    return None


def _narrows(command: Command, last: Command, said: str) -> bool:
    """Return True when the utterance says only a device of the last command's kind (纱帘 after 窗帘打开).

    It says which of them was meant, as a room does (书房的 after 打开台灯).
    """
    if command.t == UNKNOWN_CATEGORY or command.t != last.t:
        return False
    for word in sorted([command.n, *command.s.split(",")], key=len, reverse=True):
        said = said.replace(compact(word), "")
    return not set(said) - CORRECTION_PARTICLES


def _in_the_last_room(command: Command, last: Command, said: str, called: CalledInRoom) -> bool:
    """Return True when a command naming a device but no room is about the rooms of the last one.

    That is when the last command named rooms, each has one device called by the name said, and
    the utterance asks for no whole set (所有空调). Where a room has several (打开那个灯 after
    客厅温度多少, with three lights there), which is meant stays a question.
    """
    return _said_without_room(command, last, said) and all(
        called(room, command.n) == 1 for room in last.s.split(",")
    )


def _missing_from_the_last_room(command: Command, last: Command, said: str, called: CalledInRoom) -> bool:
    """Return True when a follow-up names a device, no room, that none of the last command's rooms has.

    The speaker takes it to be there (也): which one elsewhere is meant is for them to say.
    """
    return (
        _said_without_room(command, last, said)
        and command.t != SCENE_CATEGORY  # 睡眠模式也开一下: the last device's mode, a scene, in no room
        and says_a_thing(command.n)  # 小米台灯也开一下: a device's own name is wherever it is
        and not any(called(room, command.n) for room in last.s.split(","))
    )


def _said_without_room(command: Command, last: Command, said: str) -> bool:
    """Return True when a command names a device but no room, after a command in rooms, with no all-word."""
    return (
        command.s == ANY_ROOM
        and command.n not in {ANY_NAME, LAST_MENTIONED}
        and compact(command.n) in said
        and last.s != ANY_ROOM
        and not any(room.startswith("!") for room in last.s.split(","))
        and not says_all(said)
    )


def _kind_in_the_last_room(command: Command, last: Command, said: str) -> bool:
    """Return True when a follow-up names only a kind of device, no room, after a command in rooms.

    灯也调暗点 after 家庭厅的电视换到 YouTube: a light there; 所有灯也关了 asks for the whole home.
    """
    rooms = last.s.split(",")
    return (
        command.s == ANY_ROOM
        and is_type_word(compact(command.n))
        and compact(command.n) in said
        and last.s != ANY_ROOM
        and not any(room.startswith("!") for room in rooms)
        and not says_all(said)
    )


def _part_of_the_last(command: Command, last: Command, said: str, called: CalledInRoom) -> str | None:
    """Return the name of the last device's part of the kind a follow-up names alone, or None.

    灯也开一下 after 晾衣架降下来: the one device called 晾衣架灯, the airer's light, as a ceiling
    fan's, a range hood's or a fish tank's light is named after it.
    """
    if (
        command.s != ANY_ROOM
        or not is_type_word(compact(command.n))
        or compact(command.n) not in said
        or says_all(said)
        or last.n in {ANY_NAME, LAST_MENTIONED}
        or is_type_word(compact(last.n))
    ):
        return None
    part = compact(last.n) + compact(command.n)
    return part if called(ANY_ROOM, part) == 1 else None


MORE_WORDS = frozenset("再多来一点些儿啲")
"""What asking for more of the last step says (再一点, 再来点, 多啲, a bit more): nothing else."""
MORE_MARKERS = frozenset("再多")
"""The words of MORE_WORDS that ask for more: 一点 alone is no request."""


def _more_of_the_same(command: Command, last: Command, said: str) -> Command:
    """Return a turn saying only more, after a step (调低, 调暗), as that step on what it moved.

    电视调低, then 再一点 (a bit more): the television down once more.
    """
    if (
        command.a == UNKNOWN_ACTION
        and command.n == ANY_NAME
        and command.s == ANY_ROOM
        and relative_direction(last.a) is not None
        and set(said) & MORE_MARKERS
        and not set(said) - MORE_WORDS
    ):
        return replace(command, a=last.a, n=LAST_MENTIONED, t=last.t, q=Quantifier.ONE)
    return command


CORRECTION_PARTICLES = frozenset("的那个吧呢啊呀嘛是只台盏部哦噢")
"""What a correction says besides its room or name: particles, classifiers (书房的, 是书房那个吧, 那只)."""


def _in_whose_room(command: Command, last: Command | None) -> Command:
    """Return the command with a room said by whose it is (他空调) read as the last command's room.

    With no last command, or one of the whole home, no room is said, and a set said of that room
    (她屋里的灯开开) is one device of the home to ask about, not every one.
    """
    rooms = command.s.split(",")
    if LAST_ROOM not in rooms:
        return command
    said = [room for room in rooms if room != LAST_ROOM]
    if last is not None and last.s != ANY_ROOM:
        said += [room for room in last.s.split(",") if not room.startswith("!") and room not in said]
    if not said and command.q == Quantifier.ALL:
        return replace(command, s=ANY_ROOM, q=Quantifier.ONE)
    return replace(command, s=",".join(said) or ANY_ROOM)


def _only_rooms_said(said: str, command: Command) -> bool:
    """Return True when the utterance says its rooms and nothing more than particles (书房的, 哦，客房)."""
    for room in sorted(command.s.split(","), key=len, reverse=True):
        said = said.replace(compact(room), "")
    return not {char for char in said if char.isalnum()} - CORRECTION_PARTICLES


def _called_nowhere(_room: str, _name: str) -> int:
    return 0


def with_mode_or_scene(
    command: Command, mentioned: Sequence[str], called: CalledInRoom = _called_nowhere
) -> Command:
    """Return a mode set with no device said, and none just mentioned, as the scene called so.

    开成睡眠模式 after 把主卧空调打开 sets the air conditioner's mode; 轉去瞓覺模式 alone runs the
    scene of that name. The other way round, 开睡眠模式 just after an air conditioner, no scene
    being called so, sets that device's mode.
    """
    if (
        mentioned
        and SCENE_CATEGORY not in mentioned
        and (command.a, command.s, command.t) == (ACTION_ON, ANY_ROOM, SCENE_CATEGORY)
        and not called(ANY_ROOM, command.n)
    ):
        return replace(command, a=f"{SETTING_PREFIX}={command.n}", n=ANY_NAME, t=UNKNOWN_CATEGORY)
    base, equals, value = command.a.partition("=")
    if mentioned or command.n != ANY_NAME or base != SETTING_PREFIX or not equals:
        return command
    if not ends_in_a_scene_word(value):
        return command
    return replace(command, a=ACTION_ON, n=value, t=SCENE_CATEGORY)


def with_implied_target(command: Command, text: str, implied: str, mentioned: Sequence[str]) -> Command:
    """Return ``command`` on what was just mentioned when its name is only implied by the verb.

    锁上 names no lock; the parser gives it ``implied`` (门锁). After 车库进户门呢 it means that
    lock: ``mentioned`` holds the categories of the devices last mentioned, all of the kind.
    """
    if command.n != implied or implied in compact(text) or not mentioned:
        return command
    if any(category != command.t for category in mentioned):
        return command
    return replace(command, n=LAST_MENTIONED, q=Quantifier.ONE)
