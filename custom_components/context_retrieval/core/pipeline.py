"""``retrieve``: parse an utterance into commands and find the devices and commands each needs."""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

from .frames import with_frame, with_implied_target, with_mode_or_scene
from .home_index import HomeIndex, build_home_index
from .models import (
    ANY_NAME,
    ANY_ROOM,
    UNKNOWN_ACTION,
    UNKNOWN_CATEGORY,
    UNKNOWN_COMMAND,
    Command,
    Device,
    LLMClient,
    RetrievalResult,
    Room,
)
from .parsing import command_to_ir, parse_commands
from .parsing.offline import LOCK_NAME, adjusted_for, relative_direction, value_spans
from .search import (
    MAX_COMMANDS,
    MAX_TOP_K,
    MULTIPLE_CLOSE_MATCHES,
    NAME_NOT_FOUND,
    NO_TARGET,
    CommandSearch,
    close_matches,
)
from .text import as_heard, encodable, says_cantonese, without_remarks

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from .embedding import Embedder
    from .spec import SpecIndex
    from .state import ConversationState

_LOGGER = logging.getLogger(__name__)

DEFAULT_TOP_K = 5


def build_vector_searcher(
    devices: Sequence[Device],
    spec: SpecIndex | None = None,
    embedder: Embedder | None = None,
    rooms: Sequence[Room] = (),
) -> HomeIndex:
    """Build the reusable index of a home (keyword, scope, category and command vectors).

    ``rooms`` (optional) gives room aliases and floors that scope commands too.
    """
    return build_home_index(devices, spec, embedder, rooms)


@dataclass(slots=True)
class _IndexCache:
    """The index built by the last ``retrieve`` call that was given none."""

    key: tuple[Any, ...] | None = None
    index: HomeIndex | None = None


_CACHE = _IndexCache()


def _fingerprint(devices: Sequence[Device]) -> tuple[Any, ...]:
    """Return everything about the devices that the index depends on."""
    return tuple(
        (d.id, d.name, d.room, d.category, d.profile_id, tuple(d.aliases), tuple(c.id for c in d.commands))
        for d in devices
    )


def _index_for(devices: Sequence[Device], given: HomeIndex | None) -> HomeIndex:
    """Return the given index when it covers the devices, else a cached or new one."""
    if given is not None and given.covers(devices):
        return given
    if given is not None:
        _LOGGER.warning(
            "The index passed to retrieve() was built for other devices; indexing these instead "
            "(rebuild it with build_vector_searcher when the devices change)"
        )
    key = _fingerprint(devices)
    if _CACHE.key != key or _CACHE.index is None:
        _CACHE.key, _CACHE.index = key, build_home_index(devices)
    return _CACHE.index


def retrieve(  # noqa: PLR0913 - the public signature is fixed by the contract
    text: str,
    devices: Sequence[Device],
    llm: LLMClient | None,
    state: ConversationState,
    top_k: int = DEFAULT_TOP_K,
    vector_searcher: HomeIndex | None = None,
) -> list[RetrievalResult]:
    """Return one result per command of the utterance, in order (CONTRACT §2)."""
    text = encodable(text) if isinstance(text, str) else ""
    top_k = min(max(top_k, 1), MAX_TOP_K) if isinstance(top_k, int) else DEFAULT_TOP_K
    index = _index_for(devices, vector_searcher)
    started = perf_counter()
    spoken = index.home_words.separate(text)  # 开细路房: 开 细路房, the room kept whole
    commands, parse_meta = _parse(text, spoken, llm, index)
    text = spoken
    if len(commands) > MAX_COMMANDS:
        # A pasted paragraph must not keep the caller (Home Assistant's event loop) busy.
        parse_meta["commands_dropped"] = len(commands) - MAX_COMMANDS
        commands = commands[:MAX_COMMANDS]
    heard_in_text = parse_meta.pop("heard_as", {})
    unread_if_carried = parse_meta.pop("unread_if_carried", None)
    if "said_why" in parse_meta:  # as the parser heard it: 人都上楼了 is 人都三楼了
        text = without_remarks(as_heard(text, heard_in_text), parse_meta["said_why"])
    parse_ms = (perf_counter() - started) * 1000
    group_ids = (f"group-{n}" for n in itertools.count(1))
    results = []
    said_rooms: frozenset[str] = frozenset()
    last = state.last_command()
    if last is not None and last.s == ANY_ROOM and (rooms := state.last_rooms()):
        last = replace(last, s=rooms)  # 晴晴房间冷气开, 窗户有关吗 (the whole home), 那卷帘也拉下来: hers
    mentioned = [
        index.devices[index.positions[d]].category for d in state.last_mentioned() if d in index.positions
    ]
    searches = _Searches(index, text, top_k, state, group_ids, len(commands) == 1, heard_in_text)
    for said in commands:
        command_started = perf_counter()
        command = with_implied_target(
            with_frame(said, last, text, index.calls_in_room, index.room_inside), text, LOCK_NAME, mentioned
        )
        command = with_mode_or_scene(command, mentioned, index.calls_in_room)
        if command != said:
            parse_meta["frame"] = command.to_dict()
            if said.a == UNKNOWN_ACTION and unread_if_carried:
                parse_meta["unread"] = unread_if_carried  # 三楼走廊的呢: no 走廊 to carry 打开 to
        if _says_nothing(command):
            command = UNKNOWN_COMMAND  # 客厅的呢 with nothing before: read the raw text
        search = searches.of(command, said_rooms)
        result = search.run(command)
        if (moved := _moving_what_it_moves(command, result, index)) is not None:
            # 客厅的油汀关小点: the heater found by its name is turned down by its temperature
            command = moved
            search = searches.of(moved, said_rooms)
            result = search.run(moved)
        if search.ir.scope_include or search.room_from_hint:
            said_rooms = search.ir.scope_include or frozenset({search.room_from_hint or ""})
        result.meta.update(parse_meta)
        result.meta["timings_ms"] = {
            "parse": round(parse_ms, 3),
            "retrieve": round((perf_counter() - command_started) * 1000, 3),
        }
        _remember(state, result)
        results.append(result)
    return results


def _parse(
    text: str, spoken: str, llm: LLMClient | None, index: HomeIndex
) -> tuple[list[Command], dict[str, Any]]:
    """Return the commands of the utterance and how they were obtained.

    The LLM reads ``text`` as said; the offline parser ``spoken``, its home words kept whole.
    """
    if not text.strip():
        return [UNKNOWN_COMMAND], {"parse": "empty"}
    if llm is None:
        # Rooms, device names and type words heard wrong (除房 for 厨房, 垫扇 for 电扇) would mislead
        # the parser (除 as 除了); values said (三成) are numbers, never words misheard (三层).
        spoken, latin = index.latin_names.respell(spoken)  # home pot: HomePod
        spoken, joined = index.home_words.rejoined(spoken)  # 浇一下花: the script 浇花
        heard, respelled = index.word_sounds.respell(
            spoken, value_spans(spoken), cantonese=says_cantonese(spoken)
        )
        respelled = joined | latin | respelled
        meta: dict[str, Any] = {"parse": "offline"} | ({"heard_as": respelled} if respelled else {})
        commands, unread, remarks, unread_if_carried = index.offline_parser.read(heard)
        if unread:
            meta["unread"] = list(unread)  # 窗帘开个缝 read as 窗帘开: 缝 says how far
        if unread_if_carried:
            meta["unread_if_carried"] = list(unread_if_carried)
        if remarks:
            meta["said_why"] = list(remarks)  # 鱼缸灯关脱,鱼也要困觉的: no word of 困觉 is a target
        return commands, meta
    try:
        raw = llm.complete(index.system_prompt, text)
    except Exception as err:  # noqa: BLE001 - any LLM client failure degrades to the offline parser
        _LOGGER.warning("LLM parse failed (%s); using the offline parser", type(err).__name__)
        commands, meta = _parse(text, spoken, None, index)
        return commands, meta | {"llm_error": type(err).__name__}
    outcome = parse_commands(raw if isinstance(raw, str) else "")
    if outcome.degraded:
        return outcome.commands, {"parse": "degraded", "parser_errors": outcome.errors}
    return outcome.commands, {"parse": "llm"}


@dataclass(frozen=True, slots=True)
class _Searches:
    """What every command of one utterance is searched with."""

    index: HomeIndex
    text: str
    top_k: int
    state: ConversationState
    group_ids: Iterator[str]
    sole_command: bool
    heard: dict[str, str]

    def of(self, command: Command, carried_rooms: frozenset[str]) -> CommandSearch:
        """Return the search of one command, preferring the rooms an earlier command named."""
        return CommandSearch(
            index=self.index,
            ir=command_to_ir(command, self.text),
            top_k=self.top_k,
            state=self.state,
            group_ids=self.group_ids,
            sole_command=self.sole_command,
            carried_rooms=carried_rooms,
            heard=dict(self.heard),
        )


def _moving_what_it_moves(command: Command, result: RetrievalResult, index: HomeIndex) -> Command | None:
    """Return a direction said of a device of unsaid kind moving what the device found moves, or None.

    油汀关小点 says no kind; the oil heater found is a thermostat, whose 调小 is its temperature.
    """
    if command.t != UNKNOWN_CATEGORY or relative_direction(command.a) is None or not result.candidates:
        return None
    found = [candidate.entity_id for candidate in result.candidates]
    if not all(device_id in index.positions for device_id in found):
        return None
    kinds = {index.devices[index.positions[device_id]].category for device_id in found}
    if len(kinds) > 1:
        return None  # 护理床放低点 finding a light, a backrest and a height: which is meant stays a question
    moved = adjusted_for(command.a, kinds.pop())
    return replace(command, a=moved) if moved != command.a else None


def _says_nothing(command: Command) -> bool:
    """Return True for a command saying no action and no device (客厅的呢: the raw text is read)."""
    return command.a == UNKNOWN_ACTION and command.n == ANY_NAME


def _remember(state: ConversationState, result: RetrievalResult) -> None:
    """Remember the devices a result points at, for 它/那个 and bare follow-ups.

    What the raw text of an utterance read as no command only resembles (转 Netflix finding a
    橱柜灯) was not mentioned: the devices before it stay the ones 声音小一点 is said of. A room
    said in it was (細路房好熱呀, then 咁就開冷氣啦).
    """
    if not result.candidates or result.hint in (NAME_NOT_FOUND, NO_TARGET):
        return
    top = result.candidates[0]
    if _says_nothing(result.command) and "room_hit" not in top.reasons:
        return
    if top.entity_kind == "device" and result.hint == MULTIPLE_CLOSE_MATCHES:
        # 除湿机开着吗 read two alike: the next 那台 may mean either, so both are remembered.
        state.remember([c.entity_id for c in close_matches(result.candidates)], result.command)
        return
    if top.entity_kind == "device":
        state.remember([top.entity_id], result.command)
        return
    state.remember(
        [device_id for group in result.groups.values() for device_id in group.device_ids], result.command
    )
