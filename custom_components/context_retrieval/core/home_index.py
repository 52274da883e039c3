"""Everything retrieval precomputes once per device set: partitions, keyword and vector indexes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .embedding import Embedder, default_embedder
from .fusion import listed_words
from .gating import CATEGORIES, DEVICE_WORDS, GENERIC_TYPE_WORDS, TYPE_WORDS, in_category
from .keyword import KeywordIndex
from .models import ANY_ROOM, Room
from .parsing import OfflineParser, build_system_prompt
from .parsing.offline import ATTRIBUTE_WORDS, LEXICON_WORDS, DeviceCalls
from .pronunciation import LatinNames, SoundIndex
from .scope import RoomTable, rooms_of_a_kind, with_owner_words
from .spec import SpecIndex, build_command_document, build_fallback_document
from .text import HomeWords, compact, encodable, has_han, load_language_files, variant_words
from .value_order import load_value_order
from .vector import CommandVectorIndex

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from .models import CommandSpec, Device


@dataclass(slots=True)
class HomeIndex:
    """A reusable index of one home, passed to ``retrieve`` as ``vector_searcher``."""

    devices: tuple[Device, ...]
    device_ids: tuple[str, ...]
    positions: dict[str, int]
    commands: list[list[CommandSpec]]
    """Effective commands of each device (its own, else its profile's in the spec)."""
    category_masks: dict[str, np.ndarray]
    readable_mask: np.ndarray
    """Devices with a readable attribute or state (they can answer a question)."""
    kinds: tuple[str, ...]
    """What each device's class is called, compacted (窗户, 窗户是否开着; empty without one)."""
    rooms: RoomTable
    keywords: KeywordIndex
    vectors: CommandVectorIndex
    room_names: list[str]
    device_names: list[str]
    system_prompt: str
    offline_parser: OfflineParser
    """The offline parser of this home's rooms, device names and categories."""
    room_sounds: SoundIndex
    """Room, alias and floor words by sound (握室 heard for 卧室)."""
    word_sounds: SoundIndex
    """Rooms, device names and aliases, the home's type words and the values its commands take, by
    sound, for a whole utterance (垫扇 heard for 电扇, 南色 for 蓝色)."""
    slot_sounds: SoundIndex
    """Those and the type words of the home's categories, for a parsed room or name."""
    home_words: HomeWords
    """Rooms and device names and aliases, which no variant word is folded across (开细路房)."""
    latin_names: LatinNames
    """Device names and aliases written in Latin letters, for English names misheard (home pot)."""
    listed_by: Mapping[str, tuple[int, ...]]
    """Each value a device's commands list (compacted, by its description or itself), and the
    positions of the devices listing it (ViuTV: the televisions with it among their sources)."""

    def room_inside(self, room: str, scope: str) -> bool:
        """Return True when a room word is the room or floor ``scope`` says, or a room on it (楼梯, 一楼)."""
        word, wider = compact(room), compact(scope)
        if word == wider:
            return True
        room_id = self.rooms.room_index.get(word)
        return room_id is not None and room_id in self.rooms.rooms_said(wider)

    def calls_in_room(self, room: str, name: str) -> int:
        """Return how many devices in ``room`` (a room or floor word, or anywhere) are called ``name``.

        By a name holding it or, for a type word, by their category (空调: the study's 书房奥克斯).
        """
        word, wanted = compact(room), compact(name)
        anywhere = room == ANY_ROOM
        ids = self.rooms.rooms_said(word)
        category = GENERIC_TYPE_WORDS.get(wanted)
        return sum(
            (anywhere or int(room_id) in ids)
            and (
                any(wanted in name for name in names)
                or (category is not None and in_category(device.category, category))
            )
            for names, room_id, device in zip(
                self.keywords.names, self.rooms.room_ids, self.devices, strict=True
            )
        )

    def covers(self, devices: Sequence[Device]) -> bool:
        """Return True when this index was built for exactly these device ids, in order."""
        if len(devices) != len(self.device_ids):
            return False
        return all(device.id == known for device, known in zip(devices, self.device_ids, strict=True))


def with_embedder(index: HomeIndex, embedder: Embedder, query_embedder: Embedder | None = None) -> HomeIndex:
    """Return the index with its command documents embedded by ``embedder`` (the rest is shared).

    Queries are embedded by ``query_embedder`` (by default the same one), which must give
    vectors of the same space. An integration that embeds through a remote endpoint keeps
    the local index too, and retrieves with this one while the endpoint answers.
    """
    vectors = CommandVectorIndex.build(
        index.devices, index.commands, embedder, build_command_document, build_fallback_document
    )
    return replace(index, vectors=replace(vectors, embedder=query_embedder or embedder))


def _room_words(devices: Sequence[Device], rooms: Sequence[Room]) -> tuple[str, ...]:
    """Return every word saying a room: the devices' rooms, the rooms' names, aliases and floors.

    And the kinds of rooms named after their floors (卫生间 of 一楼卫生间 and 二楼卫生间).
    """
    return (
        *(device.room for device in devices),
        *(word for room in rooms for word in (room.name, *room.aliases, *room.floor_names)),
        *rooms_of_a_kind(rooms),
    )


MIN_NAME_WORDS = 2
"""A name of this many words or more (石头 Roborock G20S) is also called by each of its Chinese words."""


def _words_of_name(name: str, rooms: Sequence[str]) -> list[str]:
    """Return the Chinese words of a name of several (石头 of 石头 Roborock G20S): each calls the device.

    A word saying a kind (空调 of 格力 空调, 的风扇), holding a room (客厅部) or held by one (爷爷 of 爷爷
    小爱 音箱, with a room 爷爷房间) says no more than the whole name.
    """
    words = name.split()
    if len(words) < MIN_NAME_WORDS:
        return []
    return [
        word
        for word in words
        if has_han(word)
        and len(word) > 1
        and not any(kind in compact(word) for kind in TYPE_WORDS)
        and not any(room in compact(word) or compact(word) in room for room in rooms)
    ]


def _encodable_device(device: Device) -> Device:
    """Return the device with its name, aliases and room as UTF-8 can write them (see ``encodable``)."""
    said = (device.name, device.room, *device.aliases)
    if all(encodable(word) == word for word in said):
        return device
    return replace(
        device,
        name=encodable(device.name),
        room=encodable(device.room),
        aliases=list(map(encodable, device.aliases)),
    )


def build_home_index(
    devices: Sequence[Device],
    spec: SpecIndex | None = None,
    embedder: Embedder | None = None,
    rooms: Sequence[Room] = (),
) -> HomeIndex:
    """Build the index of a home once; reuse it across calls and commands.

    ``rooms`` adds what the devices' room names cannot say: room aliases and floors
    (each a word the parser and the scope know). The package's language files are read here, with
    the index, never on the request path (Home Assistant's event loop).
    """
    load_language_files()
    load_value_order()
    devices = tuple(map(_encodable_device, devices))
    rooms = [
        replace(room, name=encodable(room.name), aliases=tuple(map(encodable, room.aliases)))
        for room in rooms
    ]
    known = {room.name for room in rooms}
    # a room only the devices name is a room too: its other words (主人房 for 主卧) are found alike
    rooms += [Room(name) for name in dict.fromkeys(d.room for d in devices) if name and name not in known]
    whole_names = list(
        dict.fromkeys(name for device in devices for name in (device.name, *device.aliases) if name)
    )
    room_words = tuple({compact(word) for word in _room_words(devices, rooms) if word})
    device_names = list(
        dict.fromkeys(
            name for called in whole_names for name in (called, *_words_of_name(called, room_words))
        )
    )
    rooms = with_owner_words(rooms, whole_names)
    commands = [
        list(device.commands) or (spec.commands_for(device.profile_id) if spec and device.profile_id else [])
        for device in devices
    ]
    values = _value_words(commands)
    present = sorted({device.category for device in devices} & CATEGORIES)
    room_names = list(dict.fromkeys(word.strip() for word in _room_words(devices, rooms) if word.strip()))
    type_words = [word for word, category in TYPE_WORDS.items() if category in present]
    return HomeIndex(
        devices=devices,
        device_ids=tuple(device.id for device in devices),
        positions={device.id: position for position, device in enumerate(devices)},
        commands=commands,
        category_masks=_category_masks(devices),
        readable_mask=np.array([any(c.readable for c in cmds) for cmds in commands], dtype=bool),
        kinds=tuple(compact(device.kind) for device in devices),
        rooms=RoomTable.build(
            [device.room for device in devices], [device.name for device in devices], rooms
        ),
        keywords=KeywordIndex.build((device.name, *device.aliases) for device in devices),
        vectors=CommandVectorIndex.build(
            devices,
            commands,
            embedder or default_embedder(),
            build_command_document,
            build_fallback_document,
        ),
        room_names=room_names,
        device_names=device_names,
        system_prompt=build_system_prompt(room_names, present),
        offline_parser=OfflineParser.build(
            room_names,
            device_names,
            categories=present,
            calls=DeviceCalls.of(devices, rooms, values),
        ),
        room_sounds=SoundIndex.build(room_names),
        word_sounds=SoundIndex.build(
            [*room_names, *device_names],
            # 灯关 is 灯 and 关, no 灯光 misheard; Cantonese 啲风扇 is 啲 and 风扇, no 低风
            kept=LEXICON_WORDS | TYPE_WORDS.keys() | variant_words(),
            # what a command reads or sets, heard wrong too (英量 for 音量), and things of a
            # category its words leave apart (范气扇 for 换气扇)
            shared=[
                *type_words,
                *values,
                *ATTRIBUTE_WORDS,
                *_apart_words(present, type_words),
            ],
        ),
        home_words=HomeWords.build([*room_names, *device_names, *values]),
        latin_names=LatinNames.build(device_names, room_names),
        listed_by=_listed_by(commands),
        slot_sounds=SoundIndex.build([*room_names, *device_names, *type_words]),
    )


def _apart_words(present: Collection[str], type_words: Collection[str]) -> list[str]:
    """Return what the home's categories call things their words leave apart (排气扇, 晾衣架).

    Not one that begins with a type word (卷帘门): 卷帘放下来 is the 卷帘 said, not 卷帘窗 misheard.
    """
    return [
        word
        for category in present
        if (entry := DEVICE_WORDS.get(category))
        for word in entry.apart
        if not any(word.startswith(kind) for kind in type_words)
    ]


def _listed_by(commands: Sequence[Sequence[CommandSpec]]) -> dict[str, tuple[int, ...]]:
    """Return each value the commands list and the positions of the devices listing it (``listed_by``)."""
    listers: dict[str, set[int]] = {}
    for position, specs in enumerate(commands):
        for spec in specs:
            if spec.readable:
                continue
            for item in spec.value_list or ():
                for word in listed_words(item):
                    listers.setdefault(word, set()).add(position)
    return {word: tuple(sorted(positions)) for word, positions in listers.items()}


def _value_words(commands: Sequence[Sequence[CommandSpec]]) -> set[str]:
    """Return the words the home's commands take as values (蓝色, 睡眠, 暖光), not the states they read."""
    return {
        word
        for specs in commands
        for spec in specs
        if not spec.readable
        for word in (
            *(str(option.get("description") or "") for option in spec.value_list or ()),
            *(spec.named_values or {}),
        )
        if word
    }


def _category_masks(devices: Sequence[Device]) -> dict[str, np.ndarray]:
    """Return, per category, the devices of it or of a kind of it (a ContactSensor is a Sensor)."""
    masks = {}
    for category in CATEGORIES:
        mask = np.array([in_category(device.category, category) for device in devices], dtype=bool)
        if mask.any():
            masks[category] = mask
    return masks
