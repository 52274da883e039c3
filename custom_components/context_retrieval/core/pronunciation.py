"""Words that sound alike: speech recognition writes 握室 for 卧室 and 空条 for 空调.

Voice input reaches the engine through speech recognition, which picks characters by
sound. A span of what was heard is read as a home word (a room, a floor, a device name
or alias, a type word, a value its commands take) when both have the same toneless pinyin,
every reading of a heteronym counting (调 reads tiao or diao), or the same toneless Cantonese
reading (冷戏 for 冷气, both laang hei; 浪衫架 for 晾衫架). Readings come from pypinyin's and
ToJyutping's dictionaries, not from a table of our own. Failing that, a span is read as the one home word
whose readings differ only by sounds often confused (``data/sound_likeness.yaml``: 苏房 for
书房, 南色 for 蓝色), when the two share a character in the same place. Such a match ranks
below an exact one (``pinyin_hit``).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

import yaml
from pypinyin import Style, lazy_pinyin, pinyin

from .text import LINKING_WORD, compact, has_han, is_variant_word, package_text, unified

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from types import ModuleType

MIN_SOUND_WORD = 2
"""Single characters share sounds with too much to be matched by sound."""
MAX_READINGS = 32
"""Most reading combinations considered for one span (heteronyms multiply)."""
MAX_CHARACTER_READINGS = 2
"""Readings of a heteronym that count: pypinyin lists the usual ones first (调: diao, tiao), the
rare ones after (台: tai, yi, si), which would make 室灯 sound like 台灯."""
MIN_LATIN_NAME = 4
"""Letters a Latin name needs to be matched by likeness (a short one is like too many words)."""
LATIN_LIKENESS = 0.8
"""How alike (difflib's ratio of the letters) a Latin span must be to a home name to be read as it."""
LATIN_MARGIN = 0.05
"""How much more alike than the next name it must be."""
MAX_LATIN_SPAN = 3
"""Words of a Latin span compared with a name (pan a sonic for Panasonic)."""
_LATIN_RUN = re.compile(r"[a-z]+(?: [a-z]+)*")
_LATIN_WORD = re.compile(r"[a-z]+")


type SoundKey = tuple[str, ...]


@functools.lru_cache(maxsize=16384)
def readings(char: str) -> frozenset[str]:
    """Return the toneless pinyin readings of one character (itself when it is not Han)."""
    if not has_han(char):
        return frozenset({char})
    said = pinyin(char, style=Style.NORMAL, heteronym=True, errors="default")[0]
    return frozenset(said[:MAX_CHARACTER_READINGS])


CANTONESE_MARK = "~"
"""Marks a Cantonese syllable (~hei), so that no Cantonese reading equals a Mandarin one by spelling."""
_TONE = re.compile(r"[1-6]$")


@functools.cache
def _jyutping() -> ModuleType:
    """Return ToJyutping, imported on first use: it builds its dictionary (about a second) then."""
    import ToJyutping  # deferred: the index is built off the event loop; imports are not

    return ToJyutping


@functools.lru_cache(maxsize=16384)
def cantonese_readings(char: str) -> frozenset[str]:
    """Return the marked toneless Cantonese readings of one character (none when it is not Han)."""
    if not has_han(char):
        return frozenset()
    ((_, said),) = _jyutping().get_jyutping_candidates(char) or ((char, []),)
    return frozenset(CANTONESE_MARK + _TONE.sub("", reading) for reading in said[:MAX_CHARACTER_READINGS])


def sound_keys(word: str, *, cantonese: bool = False) -> set[SoundKey]:
    """Return every toneless reading of a word (at most MAX_READINGS); with ``cantonese``, Cantonese too."""
    mandarin = [sorted(readings(char)) for char in word]
    keys = set(itertools.islice(itertools.product(*mandarin), MAX_READINGS))
    said = [sorted(cantonese_readings(char)) for char in word] if cantonese else []
    if said and all(said):
        keys |= set(itertools.islice(itertools.product(*said), MAX_READINGS))
    return keys


LIKENESS_FILE = "sound_likeness.yaml"
"""Package data: the sounds speech recognition and regional speakers confuse (z/zh, n/l, an/ang)."""


class LikenessError(ValueError):
    """The shipped sound likeness file is malformed."""


@dataclass(frozen=True, slots=True)
class SoundFolding:
    """Toneless syllables folded to one spelling per group of sounds people confuse (zhang → zan)."""

    initials: tuple[tuple[str, str], ...]
    finals: tuple[tuple[str, str], ...]
    syllables: tuple[tuple[str, str], ...] = ()
    """Whole syllables respelled before their initial and final fold (hua → fa: 发园 for 花园)."""

    @classmethod
    def from_data(cls, raw: object, where: str = LIKENESS_FILE) -> SoundFolding:
        """Return the folding of ``{initials: {zh: z}, finals: {ang: an}, syllables: {hua: fa}}``.

        Raise LikenessError when malformed.
        """
        if not isinstance(raw, dict) or set(raw) != {"initials", "finals", "syllables"}:
            raise LikenessError(f"{where}: expected the sections initials, finals and syllables")
        parts: list[tuple[tuple[str, str], ...]] = []
        for section in ("initials", "finals", "syllables"):
            pairs = raw[section]
            if not isinstance(pairs, dict):
                raise LikenessError(f"{where}: {section} must map Latin spellings to Latin spellings")
            spelled = [
                (heard, read)
                for heard, said in pairs.items()
                for read in (said if isinstance(said, list) and section == "syllables" else [said])
            ]
            if not all(
                isinstance(k, str) and isinstance(v, str) and k.isascii() and k.isalpha() and v.isalpha()
                for k, v in spelled
            ):
                raise LikenessError(f"{where}: {section} must map Latin spellings to Latin spellings")
            parts.append(tuple(sorted(spelled, key=lambda pair: -len(pair[0]))))
        return cls(*parts)

    def folds(self, syllable: str) -> frozenset[str]:
        """Return the syllable folded as it is and as each whole respelling (chuang: cuan; can, fan)."""
        respelled = [read for heard, read in self.syllables if heard == syllable]
        return frozenset({self.fold(syllable), *map(self.fold, respelled)})

    def fold(self, syllable: str) -> str:
        """Return the syllable with its initial and its final folded (shang → san)."""
        for heard, read in self.initials:
            if syllable.startswith(heard) and len(syllable) > len(heard):
                syllable = read + syllable[len(heard) :]
                break
        for heard, read in self.finals:
            if syllable.endswith(heard):
                return syllable[: -len(heard)] + read
        return syllable


@functools.cache
def _folding() -> SoundFolding:
    """Return the folding of the shipped likeness file, read and checked once."""
    return SoundFolding.from_data(yaml.safe_load(package_text(LIKENESS_FILE)))


@functools.lru_cache(maxsize=16384)
def folded_readings(char: str) -> frozenset[str]:
    """Return the folded toneless readings of one character (itself when it is not Han)."""
    if not has_han(char):
        return frozenset({char})
    return frozenset(folded for reading in readings(char) for folded in _folding().folds(reading))


@functools.lru_cache(maxsize=16384)
def _folded_usual(char: str) -> frozenset[str]:
    """Return a character's usual reading (pypinyin's first), folded; itself when it is not Han."""
    return _folding().folds(lazy_pinyin(char, errors="default")[0]) if has_han(char) else frozenset({char})


def folded_keys(word: str) -> set[SoundKey]:
    """Return a word's usual reading, folded each way it folds.

    Likeness stacked on a rare reading would be too loose.
    """
    return set(
        itertools.islice(itertools.product(*(sorted(_folded_usual(char)) for char in word)), MAX_READINGS)
    )


@dataclass(slots=True)
class SoundIndex:
    """Home words by their sound, to respell what speech recognition misheard."""

    words: frozenset[str]
    by_sound: dict[SoundKey, tuple[str, str]]
    """A reading -> the home word with that reading and its spelling read (the first word wins a tie)."""
    by_likeness: dict[SoundKey, frozenset[tuple[str, str]]] = field(default_factory=dict)
    """A folded reading -> the home words with that folded reading, each with its spelling read."""
    longest: int = field(default=0)
    first_sounds: frozenset[str] = frozenset()
    """The readings and folded readings a home word can start with: a span starting otherwise is not tried."""
    kept: frozenset[str] = frozenset()
    """Everyday words said as they are: a span made of them is never respelled (设定 is not the
    home's 射灯, 开它 not a scene called 开台)."""
    shared: frozenset[str] = frozenset()
    """Words read for a span only when it has one of their characters in the same place: the
    type words and values, which everyday words sound like (这样 is no 遮阳, but 垫扇 is 电扇)."""
    longest_kept: int = 0
    """The length of the longest ``kept`` word."""
    parts: frozenset[str] = frozenset()
    """Spans of MIN_SOUND_WORD characters or more inside the home words: what the home itself says
    is never respelled (防台 of 客厅防台卷帘 is no 方太 misheard)."""

    @classmethod
    def build(cls, words: Iterable[str], kept: Iterable[str] = (), shared: Iterable[str] = ()) -> SoundIndex:
        """Index the compacted words of MIN_SOUND_WORD Han characters or more; ``kept`` words stay as said.

        ``shared`` words are indexed too, each read only for a span sharing one of its characters.
        """
        shared = list(shared)
        spellings = {(compact(word), unified(word).replace(" ", "")) for word in [*words, *shared]}
        spellings = {
            (word, said)
            for word, said in spellings
            if len(word) >= MIN_SOUND_WORD and all(map(has_han, word))
        }
        known = sorted({word for word, _ in spellings})
        by_sound: dict[SoundKey, tuple[str, str]] = {}
        by_likeness: dict[SoundKey, set[tuple[str, str]]] = {}
        # The word as written is heard too (电扇, which the engine reads as 风扇, heard as 垫扇).
        for word, said in sorted(spellings):
            for spelling in {word, said} if all(map(has_han, said)) else {word}:
                for key in sound_keys(spelling, cantonese=True):  # heard in either language
                    by_sound.setdefault(key, (word, spelling))
                for key in folded_keys(spelling):
                    by_likeness.setdefault(key, set()).add((word, spelling))
        first = frozenset(key[0] for key in by_likeness) | frozenset(key[0] for key in by_sound)
        everyday = frozenset(word for word in kept if word and word not in known)
        home = {compact(word) for word in words}
        parts = {
            word[start:end]
            for word in known
            if word in home
            for start in range(len(word))
            for end in range(start + MIN_SOUND_WORD, len(word) + 1)
        }
        return cls(
            frozenset(known),
            by_sound,
            {key: frozenset(words) for key, words in by_likeness.items()},
            max((len(spelling) for pair in spellings for spelling in pair), default=0),
            first,
            everyday,
            frozenset(map(compact, shared)) - frozenset(map(compact, words)),
            max(map(len, everyday), default=0),
            frozenset(parts),
        )

    def word_like(self, text: str, *, cantonese: bool = False) -> str | None:
        """Return the home word that ``text`` sounds like (None if none, or if it is one).

        With ``cantonese`` (said in Cantonese), Cantonese readings count too.
        """
        return self._like(compact(text), cantonese=cantonese)

    def _like(self, text: str, *, cantonese: bool = False) -> str | None:
        """Return the home word the compacted ``text`` sounds like (see ``word_like``)."""
        if text in self.words or len(text) < MIN_SOUND_WORD:
            return None
        # Sorted: a set of readings iterates in an order that changes between runs (str hashing).
        # A shared word is compared with the spelling heard: 能气 is 冷气 (read as 空调), sharing 气.
        same = next(
            (
                word
                for key in sorted(sound_keys(text, cantonese=cantonese))
                if (found := self.by_sound.get(key))
                for word, spelling in [found]
                if word not in self.shared or _in_common(text, spelling)
            ),
            None,
        )
        if same is not None:
            return same
        alike = {
            word
            for key in folded_keys(text)
            for word, spelling in self.by_likeness.get(key, ())
            if _in_common(text, spelling)
        }
        return next(iter(alike)) if len(alike) == 1 else None

    def respell_whole(self, text: str) -> tuple[str, dict[str, str]]:
        """Return a parsed slot respelled, only when it then reads as home words alone.

        握室的床帘 becomes 卧室的窗帘 (卧室, 的, 窗帘); 就这样 stays, since 就遮阳 is not.
        """
        respelled, replaced = self.respell(text)
        return (respelled, replaced) if replaced and self.covers(respelled) else (text, {})

    def covers(self, text: str) -> bool:
        """Return True when ``text`` is a sequence of home words (and 的 between them)."""
        position = 0
        while position < len(text):
            if text[position] == LINKING_WORD:
                position += 1
                continue
            for size in range(min(self.longest, len(text) - position), MIN_SOUND_WORD - 1, -1):
                if text[position : position + size] in self.words:
                    position += size
                    break
            else:
                return False
        return True

    def _everyday_word_at(self, text: str, position: int) -> str:
        """Return the longest everyday word of two characters or more starting at ``position``, or ''."""
        for size in range(min(self.longest_kept, len(text) - position), MIN_SOUND_WORD - 1, -1):
            if text[position : position + size] in self.kept:
                return text[position : position + size]
        return ""

    def _first_everyday_word(self, span: str) -> int:
        """Return the length of the first word when the span is everyday words end to end, else 0.

        设定 and 开它 are as said, not misheard (射灯, 开台); only their first word is kept as it
        is, so that 那个除思机 keeps 那个 and still reads 除思机 as the home's 除湿机.
        """
        whole = {len(span)}
        for start in range(len(span) - 1, -1, -1):
            if any(span[start:end] in self.kept for end in whole):
                whole.add(start)
        if 0 not in whole:
            return 0
        return max(end for end in whole if end and span[:end] in self.kept)

    def _heard_at(self, text: str, *, cantonese: bool = False) -> tuple[str, str]:
        """Return the longest start of ``text`` read as one word, and that word (said, or as heard).

        A home word is kept, the first of everyday words too; a span sounding like a home word
        (and not said inside one) is read as it; else the first character stands alone.
        """
        for size in range(len(text), MIN_SOUND_WORD - 1, -1):
            span = text[:size]
            if span in self.words:
                return span, span
            if everyday := self._first_everyday_word(span):
                return span[:everyday], span[:everyday]
            word = self._like(span, cantonese=cantonese) if all(map(has_han, span)) else None
            if word is not None and span not in self.parts:
                return span, word
        return text[:1], text[:1]

    def _cuts_a_word(self, text: str, position: int, size: int) -> bool:
        """Return True when a home or kind word starting inside the span runs on past its end."""
        end = position + size
        return any(
            text[start : start + length] in self.words
            for start in range(position + 1, end)
            for length in range(end - start + 1, min(self.longest, len(text) - start) + 1)
        )

    def respell(
        self, text: str, said: Sequence[tuple[int, int]] = (), *, cantonese: bool = False
    ) -> tuple[str, dict[str, str]]:
        """Return ``text`` with spans that sound like home words replaced by them, and the replacements.

        Longest spans first, left to right; exact home words in the text are kept as they are,
        and so are the ``said`` spans (numbers: 三成 is no 三层, 百分之十 holds no 除湿). Cantonese
        readings count for text said in Cantonese (``cantonese``): in Mandarin, 多少度 holds no 小度.
        """
        if not self.by_sound:
            return text, {}
        kept = [False] * len(text)
        for start, end in said:
            kept[start:end] = [True] * (end - start)
        out: list[str] = []
        replaced: dict[str, str] = {}
        position = 0
        while position < len(text):
            if (
                kept[position]
                or not (
                    readings(text[position])
                    | folded_readings(text[position])
                    | (cantonese_readings(text[position]) if cantonese else frozenset())
                )
                & self.first_sounds
            ):
                # no home word starts here; an everyday word that does is said whole (多少度: no 少度
                # heard inside it as the home's 小度)
                word = "" if kept[position] else self._everyday_word_at(text, position)
                out.append(word or text[position])
                position += len(word) or 1
                continue
            free = next((end for end in range(position, len(text)) if kept[end]), len(text)) - position
            said, heard = self._heard_at(
                text[position : position + min(self.longest, free)], cantonese=cantonese
            )
            if heard != said and self._cuts_a_word(text, position, len(said)):
                said = heard = text[position]  # 的暖气, 关电视: 暖气, 电视 said whole (no 地暖, 关店)
            out.append(heard)
            if heard != said:
                replaced[said] = heard
            position += len(said)
        return "".join(out), replaced


def _in_common(heard: str, word: str) -> bool:
    """Return True when two words of one length have a character in the same place (垫扇, 电扇)."""
    return len(heard) == len(word) and any(a == b for a, b in zip(heard, word, strict=True))


@dataclass(frozen=True, slots=True)
class LatinNames:
    """The home's names written in Latin letters, to read English names speech recognition misheard.

    Speech recognition writes what it hears: home pot for HomePod, sam song for Samsung, pan a
    sonic for Panasonic. A span of Latin words is read as the home's name whose letters are
    alike enough (and clearly more alike than any other's); a span of English words the engine
    knows (turn, light, mode) is left alone.
    """

    names: dict[str, str]
    """The letters of each Latin name or alias (no spaces) -> the name as the text writes it."""
    known: frozenset[str]
    """Latin words of the home's names and rooms: a span of them is said right (hall of Hall TV)."""

    @classmethod
    def build(cls, words: Iterable[str], rooms: Iterable[str] = ()) -> LatinNames:
        """Index the Latin names of MIN_LATIN_NAME letters or more, and the Latin words of names and rooms."""
        names: dict[str, str] = {}
        known: set[str] = set()
        for word in map(unified, words):
            letters = word.replace(" ", "")
            if len(letters) >= MIN_LATIN_NAME and letters.isascii() and letters.isalpha():
                names.setdefault(letters, word)
            known.update(_LATIN_WORD.findall(word))
        for room in map(unified, rooms):
            known.update(_LATIN_WORD.findall(room))
        return cls(names, frozenset(known))

    def respell(self, text: str) -> tuple[str, dict[str, str]]:
        """Return ``text`` (unified) with misheard Latin names replaced, and the replacements."""
        if not self.names:
            return text, {}
        replaced: dict[str, str] = {}
        out: list[str] = []
        position = 0
        for run in _LATIN_RUN.finditer(text):
            out.append(text[position : run.start()])
            out.append(self._respell_run(run.group(0), replaced))
            position = run.end()
        out.append(text[position:])
        return "".join(out), replaced

    def _respell_run(self, run: str, replaced: dict[str, str]) -> str:
        words = run.split(" ")
        out: list[str] = []
        index = 0
        while index < len(words):
            for size in range(min(MAX_LATIN_SPAN, len(words) - index), 0, -1):
                span = words[index : index + size]
                name = self._name_like(span)
                if name is not None:
                    if name != " ".join(span):
                        replaced[" ".join(span)] = name
                    out.append(name)
                    index += size
                    break
            else:
                out.append(words[index])
                index += 1
        return " ".join(out)

    def _name_like(self, span: list[str]) -> str | None:
        """Return the home name the span is or sounds like; None for known English or when unclear."""
        letters = "".join(span)
        if letters in self.names:
            return self.names[letters]  # said as written, or with its letters spaced (pan a sonic)
        if len(letters) < MIN_LATIN_NAME or all(is_variant_word(w) or w in self.known for w in span):
            return None
        scored = sorted((_likeness(letters, key), key) for key in self.names)[::-1]
        best = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        if best[0] < LATIN_LIKENESS or best[0] - runner_up < LATIN_MARGIN:
            return None
        if len(span) > 1 and "".join(span[:-1]) in self.names:
            return None  # kitchen lights a (bit): the name said right, and a word after it (read next)
        return self.names[best[1]]


def _likeness(letters: str, name: str) -> float:
    """Return difflib's ratio of two words' letters, or 0 when its cheap upper bounds are below a match."""
    matcher = SequenceMatcher(None, letters, name)
    if (
        matcher.real_quick_ratio() < LATIN_LIKENESS - LATIN_MARGIN
        or matcher.quick_ratio() < LATIN_LIKENESS - LATIN_MARGIN
    ):
        return 0.0
    return matcher.ratio()
