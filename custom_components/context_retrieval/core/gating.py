"""Category gating: map a type hint to a SmartThings category (seed 001 decision 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml

from .text import compact, package_text, unified

if TYPE_CHECKING:
    from collections.abc import Iterable

CATEGORIES: frozenset[str] = frozenset(
    {
        "Light",
        "Switch",
        "SmartPlug",
        "Blind",
        "AirConditioner",
        "Fan",
        "Television",
        "NetworkAudio",
        "Washer",
        "Dryer",
        "Charger",
        "Hub",
        "SmartLock",
        "RobotCleaner",
        "Valve",
        "Thermostat",
        "Sensor",
        "GarageDoor",
        "Scene",
        "Camera",
        "AirPurifier",
        "Humidifier",
        "Dehumidifier",
        "Refrigerator",
        "Dishwasher",
        "Oven",
        "Doorbell",
    }
)
"""The closed category set of CONTRACT §3 (``Unknown`` is not a category)."""

DEVICE_WORDS_FILE = "device_words.yaml"
"""Package data: the words of each category, its kinds, what its words leave apart, its tasks, and
what of it rolls up."""
_KEYS = frozenset({"words", "kinds", "apart", "tasks", "rolled"})


class DeviceWordsError(ValueError):
    """The shipped device words file is malformed."""


@dataclass(frozen=True, slots=True)
class CategoryWords:
    """What people call the devices of one category."""

    words: tuple[str, ...]
    """Words naming the whole category, the usual one first."""
    kinds: tuple[str, ...] = ()
    """Words naming a kind of it (台灯)."""
    apart: tuple[str, ...] = ()
    """Things of the category its words do not mean (the range hood for 风扇)."""
    tasks: tuple[str, ...] = ()
    """Tasks its devices do, said alone for them (扫地: 扫下地 is the vacuum's)."""
    rolled: tuple[str, ...] = ()
    """Things of it that roll or fold upwards (卷帘): pulled up (拉起来), they open."""


def parse_device_words(raw: object, where: str = DEVICE_WORDS_FILE) -> dict[str, CategoryWords]:
    """Return the categories' words; raise DeviceWordsError when malformed."""
    if not isinstance(raw, dict):
        raise DeviceWordsError(f"{where}: expected categories")
    parsed: dict[str, CategoryWords] = {}
    seen: dict[str, str] = {}
    for category, entry in raw.items():
        if category not in CATEGORIES:
            raise DeviceWordsError(f"{where}: {category!r} is not a category")
        if not isinstance(entry, dict) or not set(entry) <= _KEYS or not entry.get("words"):
            raise DeviceWordsError(f"{where}: {category}: expected words, and kinds, apart, tasks or rolled")
        lists: dict[str, tuple[str, ...]] = {}
        for key in _KEYS:
            values = entry.get(key) or []
            if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
                raise DeviceWordsError(f"{where}: {category}: {key} must be a list of words")
            lists[key] = tuple(values)
        for word in (*lists["words"], *lists["kinds"]):
            if seen.setdefault(word, category) != category:
                raise DeviceWordsError(f"{where}: {word} is in {seen[word]} and {category}")
        parsed[category] = CategoryWords(
            lists["words"], lists["kinds"], lists["apart"], lists["tasks"], lists["rolled"]
        )
    return parsed


def _read_device_words() -> dict[str, CategoryWords]:
    return parse_device_words(yaml.safe_load(package_text(DEVICE_WORDS_FILE)))


DEVICE_WORDS: dict[str, CategoryWords] = _read_device_words()
"""The words of each category, read and checked once at import."""

GENERIC_TYPE_WORDS: dict[str, str] = {
    word: category for category, entry in DEVICE_WORDS.items() for word in entry.words
}
"""Words that name a whole category: 所有灯 means every Light."""

CATEGORY_WORDS: dict[str, str] = {category: entry.words[0] for category, entry in DEVICE_WORDS.items()}
"""The first (most common) Chinese word of each category: Light -> 灯."""

TYPE_WORDS: dict[str, str] = {
    **GENERIC_TYPE_WORDS,
    **{word: category for category, entry in DEVICE_WORDS.items() for word in entry.kinds},
}
"""Generic words plus kinds of a category (台灯 is a Light, but 所有台灯 is not every Light)."""

_BY_LOWER = {category.lower(): category for category in CATEGORIES}


def in_category(device_category: str, category: str) -> bool:
    """Return True when a device category is the category or a kind of it (ContactSensor is a Sensor).

    The parser's categories are a closed set (CONTRACT §3); vendors name finer ones by
    prefixing the kind, as SmartThings does (ContactSensor, MotionSensor).
    """
    return device_category == category or device_category.endswith(category)


def category_for_type_hint(type_hint: str | None) -> str | None:
    """Return the category a type hint gates on, or None to skip gating.

    ``Unknown``, None, empty and anything outside the closed set skip gating
    (seed 004, 类型映射失败/Unknown/为空). Accepts category names in any case and
    Chinese type words.
    """
    if not type_hint:
        return None
    hint = type_hint.strip()
    return _BY_LOWER.get(hint.lower()) or TYPE_WORDS.get(compact(hint))


def is_borrowed_type_word(name: str) -> bool:
    """Return True for a name that is a category's word only in another language or variety (lamp, blind).

    An alias written so names the device's kind, not the device: 灯 said is no more that lamp
    than any other light.
    """
    folded = compact(name)
    return folded in GENERIC_TYPE_WORDS and unified(name).replace(" ", "") != folded


def is_type_word(name_hint: str | None) -> bool:
    """Return True when a name hint is a bare type word (灯, 空调) rather than a name."""
    return bool(name_hint) and compact(name_hint) in GENERIC_TYPE_WORDS


def category_named(name: str) -> str | None:
    """Return the category of the longest type word a name ends with (台灯, 书桌台灯: Light), or None.

    A name in the home's spelling is read as said (電扇 is 风扇).
    """
    said = compact(name)
    ending = max((word for word in TYPE_WORDS if said.endswith(word)), key=len, default=None)
    return TYPE_WORDS[ending] if ending is not None else None


EVERYTHING_WORDS = frozenset({"东西", "电器", "家电", "设备"})
"""Words naming every device, whatever its kind: 工作室的东西全部关掉 switches off all that switches."""

APART_WORDS = frozenset(word for entry in DEVICE_WORDS.values() for word in entry.apart)
"""Words naming things a category's words set apart (排气扇, 油烟机, 晾衣架): kinds of things too."""


ROLLED_WORDS = frozenset(word for entry in DEVICE_WORDS.values() for word in entry.rolled)
"""Words naming things that roll or fold upwards (卷帘, 百叶窗): 拉起来 opens them, not a curtain."""


def is_kind_word(word: str) -> bool:
    """Return True when a word (compacted) only says a kind of device (灯, 电视, 台灯, 吊扇), no name."""
    return is_type_word(word) or word in TYPE_WORDS


def is_apart(word: str, category: str, names: Iterable[str], kind: str = "") -> bool:
    """Return True when a device of ``category`` called ``names`` (compacted) is not what ``word`` means.

    所有风扇 is not the 油烟机 nor the 排风扇, but 所有遮阳 takes the 遮阳篷: the word said must not
    lead the thing set apart. A device whose class is called by the word (a skylight of class 窗户
    for 所有窗户), or one of whose names holds the word (a Dyson purifier also called Dyson风扇
    for 所有风扇), is always meant.
    """
    entry = DEVICE_WORDS.get(category)
    said, kind = compact(word), compact(kind)
    called = [name for name in (*names, kind) if name]
    if (
        entry is None
        or (kind and said in kind)
        or any(said in _without(name, entry.apart) for name in called)
    ):
        return False
    # 所有遮阳 takes the 遮阳篷 (the word said leads the thing's name); 风扇 is not the 排风扇.
    return any(thing in name and not thing.startswith(said) for thing in entry.apart for name in called)


def says_a_thing(word: str) -> bool:
    """Return True when a word only says what a device is (台灯, 排气扇), no one device's own name."""
    said = compact(word)
    return is_kind_word(said) or said in APART_WORDS


def names_a_thing_apart(word: str, category: str) -> bool:
    """Return True when a word names a thing of the category its other words do not mean (窗户, Blind)."""
    entry = DEVICE_WORDS.get(category)
    return entry is not None and compact(word) in entry.apart


def _without(name: str, things: Iterable[str]) -> str:
    """Return a name without the things set apart in it (洗衣房排风扇: 洗衣房)."""
    for thing in things:
        name = name.replace(thing, " ")
    return name
