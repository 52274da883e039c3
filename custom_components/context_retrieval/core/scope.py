"""Room scope: exclude always hard, include hard with fallback, room words in names (seed 003).

Room words are looked up in device names only when the device's own room is missing
or contradicts its name (device-level conflict) or when the command names a room the
home does not have (command-level unknown); matching is longest-first,
non-overlapping, and two different rooms in one name mean "unknown".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from .text import LINKING_WORD, compact, cuts_a_latin_word, has_han, package_text

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from .models import Room

MIN_ROOM_WORD_CHARS = 2
"""Single-character room words match too much text to be trusted (seed 003 §1)."""
MIN_LATIN_OWNER = 3
"""Letters a Latin name has to say whose a room is (Chloe of Chloe's room; no Al or Jo alone)."""
NO_ROOM = -1
AMBIGUOUS_ROOM = -2


ROOM_WORDS_FILE = "room_words.yaml"
"""Package data: the words a room's name ends with that people leave out or change (房间, 房, 屋)."""


class RoomWordsError(ValueError):
    """The shipped room words file is malformed."""


@dataclass(frozen=True, slots=True)
class OwnerWords:
    """The words that end a room named after its owner (``owned``) and those said after the owner."""

    owned: tuple[str, ...]
    said_with: tuple[str, ...]
    ends_said: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """A room word's end -> the ends it is also said with (房: 房间)."""
    sides: tuple[str, ...] = ()
    """Words said after a place to say the side of it (北边, 东面): the place alone says as much."""
    same_rooms: tuple[tuple[str, ...], ...] = ()
    """Words saying the same kind of room (主卧, 主人房): a room called by one is called by the others."""

    @classmethod
    def from_data(cls, raw: object, where: str = ROOM_WORDS_FILE) -> OwnerWords:
        """Return the words of ``{owned: [房间], said_with: [房间, 房], ends_said: {房: [房间]}}``.

        Raise RoomWordsError when the file is malformed.
        """
        lists = []
        for key in ("owned", "said_with"):
            words = raw.get(key) if isinstance(raw, dict) else None
            if not _listed_words(words):
                raise RoomWordsError(f"{where}: expected {key}, a list of words")
            lists.append(tuple(sorted(words, key=len, reverse=True)))
        ends = raw.get("ends_said", {}) if isinstance(raw, dict) else None
        if not isinstance(ends, dict) or not all(
            isinstance(end, str) and has_han(end) and _chinese_words(said) for end, said in ends.items()
        ):
            raise RoomWordsError(f"{where}: expected ends_said, Chinese words each with a list of them")
        sides = raw.get("sides", []) if isinstance(raw, dict) else None
        if not isinstance(sides, list) or not all(isinstance(w, str) and has_han(w) for w in sides):
            raise RoomWordsError(f"{where}: expected sides, a list of Chinese words")
        same = raw.get("same_rooms", []) if isinstance(raw, dict) else None
        if not isinstance(same, list) or not all(_listed_words(group, least=2) for group in same):
            raise RoomWordsError(f"{where}: expected same_rooms, lists of two words or more")
        return cls(
            *lists,
            ends_said={end: tuple(said) for end, said in ends.items()},
            sides=tuple(sides),
            same_rooms=tuple(tuple(compact(word) for word in group) for group in same),
        )


def _listed_words(words: object, least: int = 1) -> bool:
    """Return True for a list of ``least`` words or more, Chinese or English (房间, room; living room)."""
    return (
        isinstance(words, list)
        and len(words) >= least
        and all(isinstance(w, str) and compact(w) for w in words)
    )


def _chinese_words(words: object) -> bool:
    """Return True for a non-empty list of strings holding Chinese characters."""
    return isinstance(words, list) and bool(words) and all(isinstance(w, str) and has_han(w) for w in words)


@functools.cache
def _owner_words() -> OwnerWords:
    return OwnerWords.from_data(yaml.safe_load(package_text(ROOM_WORDS_FILE)))


def is_side(word: str) -> bool:
    """Return True for a side word (边, 头): after a place it says where in it (铺子头: in the shop)."""
    return word in _owner_words().sides


def without_side(word: str) -> str:
    """Return a place word without the side word ending it (北边: 北), or the word when none does."""
    side = next((s for s in _owner_words().sides if word.endswith(s) and len(word) > len(s)), "")
    return word.removesuffix(side) if side else word


def with_owner_words(rooms: Sequence[Room], device_names: Collection[str] = ()) -> list[Room]:
    """Return the rooms with the words that say them by whose they are (悦悦, 悦悦房 for 悦悦房间).

    The part before an ``owned`` word of ``room_words.yaml`` becomes an alias, alone and with
    each ``said_with`` word, when it is two characters or more, the same for no other room, and
    no floor's or device's name. A room word's end is also said as ``ends_said`` has it
    (爷爷奶奶房间 for 爷爷奶奶房), a room word with 的 inside is said without it (里头厕所), and a
    room called by a word of ``same_rooms`` by the other words of its group no room or device has,
    when no other room is called by a word of the group and no other room's word ends with them
    (客厅 is the living room though 楼下客厅 is one too; a Bathroom is no 厕所 beside 楼下厕所).
    """
    words = _owner_words()
    said = {compact(word) for room in rooms for word in (room.name, *room.aliases, *room.floor_names)}
    spoken = [[compact(word) for word in (room.name, *room.aliases)] for room in rooms]
    stems: dict[str, set[str]] = {}
    for room, fulls in zip(rooms, spoken, strict=True):
        for full in fulls:
            before = next((full.removesuffix(s) for s in words.owned if full.endswith(s)), "")
            stem = before.removesuffix(LINKING_WORD)  # 老人的房间: 老人
            if _names_someone(stem, whose=stem != before):
                stems.setdefault(stem, set()).add(room.name)
    taken = said | {compact(name) for name in device_names}
    owned = {
        stem: next(iter(owners)) for stem, owners in stems.items() if len(owners) == 1 and stem not in taken
    }
    called_so = {  # rooms called by a word of the kind: 客厅 is; 楼下客厅, a living room too, is not
        group: sum(any(full in group for full in fulls) for fulls in spoken) for group in words.same_rooms
    }
    result = []
    for index, (room, fulls) in enumerate(zip(rooms, spoken, strict=True)):
        others = [
            full for elsewhere, words_there in enumerate(spoken) if elsewhere != index for full in words_there
        ]
        extra = [
            word
            for stem, owner in owned.items()
            if owner == room.name
            for word in (stem, *(stem + suffix for suffix in words.said_with))
            if word not in said
        ]
        extra += [
            full.removesuffix(end) + other
            for full in fulls
            for end, others_said in words.ends_said.items()
            if full.endswith(end)
            for other in others_said
            if full.removesuffix(end) + other not in said
        ]
        extra += [
            other  # 主人房 for 主卧: the same kind of room, when no other room or device is called so
            for full in fulls
            for group in words.same_rooms
            if full in group and called_so[group] == 1
            for other in group
            # 厕所 is no Bathroom's when 楼下厕所 ends with it
            if other not in taken and not any(there.endswith(other) for there in others)
        ]
        extra += [
            full.replace(LINKING_WORD, "")  # 里头的厕所 is said 里头厕所
            for full in fulls
            if LINKING_WORD in full.strip(LINKING_WORD) and full.replace(LINKING_WORD, "") not in taken
        ]
        result.append(replace(room, aliases=(*room.aliases, *dict.fromkeys(extra))) if extra else room)
    return result


def _names_someone(stem: str, *, whose: bool) -> bool:
    """Return True for what a room is said to be whose: two Chinese characters or more, or a Latin name.

    A Latin name only when said as whose it is (Chloe's room; a baby room or a guest room is no one's).
    """
    if stem.isascii():
        return whose and len(stem) >= MIN_LATIN_OWNER and stem.isalpha()
    return len(stem) >= MIN_ROOM_WORD_CHARS and all(map(has_han, stem))


def extract_room_from_name(name: str, vocabulary: Collection[str], longest: int) -> str | None | bool:
    """Return the one room word in a compacted name, None for none, False when ambiguous.

    A Latin word holds no room word inside it: Marshall is in no hall.
    """
    hits: list[tuple[int, int]] = []
    for size in range(min(longest, len(name)), MIN_ROOM_WORD_CHARS - 1, -1):
        hits.extend(
            (start, start + size)
            for start in range(len(name) - size + 1)
            if name[start : start + size] in vocabulary and not cuts_a_latin_word(name, start, start + size)
        )
    chosen: list[tuple[int, int]] = []
    for start, end in hits:  # already longest first, then leftmost
        if all(end <= s or start >= e for s, e in chosen):
            chosen.append((start, end))
    words = {name[start:end] for start, end in chosen}
    if not words:
        return None
    if len(words) > 1:
        return False
    return words.pop()


@dataclass(slots=True)
class ScopeOutcome:
    """Devices left by the scope and what it took to decide."""

    mask: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)


def rooms_of_a_kind(rooms: Sequence[Room]) -> dict[str, tuple[str, ...]]:
    """Return each kind of room several rooms are named by after a floor or another room, and those rooms.

    一楼卫生间, 二楼卫生间 and 主卫 (alias 主卧卫生间) are each a 卫生间: 所有卫生间的灯 is the
    lights of all three. A kind that is itself a room's name or alias is that room's.
    """
    words = {room.name: [compact(w) for w in (room.name, *room.aliases) if w] for room in rooms}
    said = {word for named in words.values() for word in named}
    kinds: dict[str, list[str]] = {}
    for room in rooms:
        before = {
            *map(compact, room.floor_names),
            *(w for name, ws in words.items() if name != room.name for w in ws),
        }
        for word in words[room.name]:
            for start in {len(p) for p in before if p and word.startswith(p)}:
                kind = word[start:]
                if (
                    len(kind) >= MIN_ROOM_WORD_CHARS
                    and kind not in said
                    and room.name not in kinds.get(kind, ())
                ):
                    kinds.setdefault(kind, []).append(room.name)
    return {kind: tuple(named) for kind, named in kinds.items() if len(named) > 1}


@dataclass(slots=True)
class RoomTable:
    """Per-device rooms, and rooms read from names, prepared once per device set."""

    room_index: dict[str, int]
    """Compacted room name or alias -> room id."""
    floor_index: dict[str, tuple[int, ...]]
    """Compacted floor name or alias -> ids of the rooms on that floor; a kind of room named after
    floors (卫生间 of 一楼卫生间, 二楼卫生间) -> the rooms of that kind."""
    room_ids: np.ndarray
    """Room id of each device (NO_ROOM when empty)."""
    name_room_ids: np.ndarray
    """Room id read from each name (NO_ROOM, AMBIGUOUS_ROOM or a room id)."""
    conflict: np.ndarray
    """Devices whose room is empty or contradicts the room word in their name (a word inside their
    own room's name does not: 三楼客厅's 客厅灯 is not in 客厅)."""
    names: list[str]
    """Compacted names, for rooms the home does not know."""
    vocabulary: frozenset[str]
    """Room words (names and aliases) worth looking for inside other text."""
    longest: int
    kinds: frozenset[str] = frozenset()
    """The words of ``floor_index`` that are kinds of room, not floors."""

    @classmethod
    def build(cls, rooms: Sequence[str], names: Sequence[str], known: Sequence[Room] = ()) -> RoomTable:
        """Index device rooms, the aliases and floors of ``known`` rooms, and room words in names."""
        compact_rooms = [compact(room) for room in rooms]
        room_index: dict[str, int] = {}
        for room in (*compact_rooms, *(compact(room.name) for room in known)):
            if room:
                room_index.setdefault(room, len(room_index))
        floor_rooms: dict[str, set[int]] = {}
        for room in known:
            room_id = room_index.get(compact(room.name))
            if room_id is None:
                continue
            for alias in map(compact, room.aliases):
                if alias:
                    room_index.setdefault(alias, room_id)
            for floor in map(compact, room.floor_names):
                if floor:
                    floor_rooms.setdefault(floor, set()).add(room_id)
        kinds = rooms_of_a_kind(known)
        for kind, named in kinds.items():
            floor_rooms.setdefault(kind, set()).update(room_index[compact(name)] for name in named)
        floor_index = {
            floor: tuple(sorted(ids)) for floor, ids in floor_rooms.items() if floor not in room_index
        }
        vocabulary = {room for room in room_index if len(room) >= MIN_ROOM_WORD_CHARS}
        longest = max(map(len, vocabulary), default=0)
        room_ids = np.array([room_index.get(room, NO_ROOM) for room in compact_rooms], dtype=np.int32)
        compact_names = [compact(name) for name in names]
        name_words = [extract_room_from_name(name, vocabulary, longest) for name in compact_names]
        name_room_ids = np.array([_room_id(word, room_index) for word in name_words], dtype=np.int32)
        conflict = (room_ids == NO_ROOM) | (
            (name_room_ids >= 0)
            & (name_room_ids != room_ids)
            & ~_inside_own_room(name_words, room_ids, room_index)
        )
        return cls(
            room_index,
            floor_index,
            room_ids,
            name_room_ids,
            conflict,
            compact_names,
            frozenset(vocabulary),
            longest,
            frozenset(kinds),
        )

    def without_rooms(self, text: str) -> str:
        """Return ``text`` with the room words it holds blanked out (longest first)."""
        for word in sorted((w for w in self.vocabulary if w in text), key=len, reverse=True):
            text = text.replace(word, " ")
        return text

    def rooms_said(self, word: str) -> tuple[int, ...]:
        """Return the rooms a compacted room or floor word says (a floor: every room on it), else none."""
        return self.floor_index.get(word) or ((self.room_index[word],) if word in self.room_index else ())

    def holds_whole(self, name: str, word: str) -> bool:
        """Return True when ``name`` holds ``word`` where no room word it holds runs across its edges.

        阳台灯 holds no 台灯: its 台 belongs to the room 阳台. Both compacted.
        """
        rooms = [(room, name.find(room)) for room in self.vocabulary if room in name and room != word]
        start = name.find(word)
        while start >= 0:
            end = start + len(word)
            if not any(at < edge < at + len(room) for room, at in rooms if at >= 0 for edge in (start, end)):
                return True
            start = name.find(word, start + 1)
        return False

    def room_starting(self, word: str) -> int | None:
        """Return the one room a room word of which starts with ``word`` (阿嬷 of 阿嬷房), else None."""
        word = compact(word)
        found = {room for said, room in self.room_index.items() if word and said.startswith(word)}
        return found.pop() if len(found) == 1 else None

    def knows(self, word: str) -> bool:
        """Return True when ``word`` names a room (or alias) or a floor of the home."""
        word = compact(word)
        return word in self.room_index or word in self.floor_index

    def room_in(self, text: str) -> str | None:
        """Return the one known room word inside ``text`` (compacted), None if none or two."""
        found = extract_room_from_name(compact(text), self.vocabulary, self.longest)
        return found if isinstance(found, str) else None

    def apply(self, include: Collection[str], exclude: Collection[str]) -> ScopeOutcome:
        """Return the devices in scope: exclude hard, include hard unless it empties the set."""
        size = len(self.room_ids)
        include_words = {compact(room) for room in include} - {"", "*"}
        exclude_words = {compact(room) for room in exclude} - {"", "*"}
        if not include_words and not exclude_words:
            return ScopeOutcome(np.ones(size, dtype=bool))
        unknown = sorted((include_words | exclude_words) - self.room_index.keys() - self.floor_index.keys())
        name_rooms, enabled = self._name_rooms(unknown)
        meta: dict[str, Any] = {
            "room_name_used": int(np.count_nonzero(enabled & (name_rooms >= 0))),
            "room_name_ambiguous": int(np.count_nonzero(enabled & (name_rooms == AMBIGUOUS_ROOM))),
            "room_unknown_terms": unknown,
        }
        ids = self._ids_with(unknown)
        excluded = self._in_rooms(exclude_words, ids, enabled, name_rooms)
        kept = ~excluded
        if include_words:
            included = kept & self._in_rooms(include_words, ids, enabled, name_rooms)
            if (kinds := include_words & self.kinds) and (places := include_words - kinds):
                # 一楼二楼卫生间: the rooms of that kind on those floors, not every room of either
                inside = self._in_rooms(kinds, ids, enabled, name_rooms)
                included = kept & inside & self._in_rooms(places, ids, enabled, name_rooms)
            elif (floors := include_words & self.floor_index.keys() - self.room_index.keys()) and (
                rooms := include_words & self.room_index.keys()
            ):
                # 楼上的客厅: the room on that floor, not every room upstairs
                inside = self._in_rooms(rooms, ids, enabled, name_rooms)
                on_floor = kept & inside & self._in_rooms(floors, ids, enabled, name_rooms)
                included = on_floor if on_floor.any() else included
            if included.any():
                kept = included
            else:
                meta["scope_include_fallback"] = 1
        return ScopeOutcome(kept, meta)

    def _ids_with(self, unknown: Sequence[str]) -> dict[str, int]:
        """Return the room ids of every known room word, plus new ids for unknown terms."""
        ids = dict(self.room_index)
        for term in unknown:
            ids.setdefault(term, len(ids))
        return ids

    def _in_rooms(
        self, words: set[str], ids: dict[str, int], enabled: np.ndarray, name_rooms: np.ndarray
    ) -> np.ndarray:
        """Return the devices in one of the rooms (or floors), by their own room or, where enabled, by name.

        A device whose name contradicts its room is in both: 主卧's 客厅老伙计 answers to
        主卧 (where it is registered) and to 客厅 (what its name says), and is excluded by
        either, so an exclusion never acts on a device the user may have meant.
        """
        targets = np.array(
            [
                room_id
                for word in words
                for room_id in ((ids[word],) if word in ids else self.floor_index[word])
            ],
            dtype=np.int32,
        )
        return np.isin(self.room_ids, targets) | (enabled & np.isin(name_rooms, targets))

    def _name_rooms(self, unknown: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Return the room read from each name and which devices may use it."""
        if not unknown:
            return self.name_room_ids, self.conflict
        ids = self._ids_with(unknown)
        vocabulary = {word for word in ids if len(word) >= MIN_ROOM_WORD_CHARS}
        longest = max(map(len, vocabulary), default=0)
        name_rooms = self.name_room_ids.copy()
        terms = [term for term in unknown if len(term) >= MIN_ROOM_WORD_CHARS]
        for position, name in enumerate(self.names):
            if any(term in name for term in terms):
                name_rooms[position] = _room_id(extract_room_from_name(name, vocabulary, longest), ids)
        return name_rooms, np.ones(len(name_rooms), dtype=bool)


def _inside_own_room(
    name_words: Sequence[str | None | bool], room_ids: np.ndarray, room_index: dict[str, int]
) -> np.ndarray:
    """Return the devices whose name's room word is inside a word of their own room (客厅 of 三楼客厅)."""
    room_words: dict[int, list[str]] = {}
    for word, room_id in room_index.items():
        room_words.setdefault(room_id, []).append(word)
    return np.array(
        [
            isinstance(word, str) and any(word in own for own in room_words.get(int(room_id), ()))
            for word, room_id in zip(name_words, room_ids, strict=True)
        ],
        dtype=bool,
    )


def _room_id(found: str | None | bool, ids: dict[str, int]) -> int:
    """Return the id of an extracted room word (NO_ROOM / AMBIGUOUS_ROOM otherwise)."""
    if found is None:
        return NO_ROOM
    if found is False:
        return AMBIGUOUS_ROOM
    return ids[str(found)]
