"""Words that sound alike: speech recognition writes 握室 for 卧室 and 空条 for 空调.

Voice input reaches the engine through speech recognition, which picks characters by
sound. A span of what was heard is read as a home word (a room, a floor, a device name
or alias, a type word) when both have the same toneless pinyin, every reading of a
heteronym counting (调 reads tiao or diao). Readings come from pypinyin's dictionary,
not from a table of our own. Such a match ranks below an exact one (``pinyin_hit``).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from pypinyin import Style, pinyin

from .text import compact, has_han, is_variant_word, unified

if TYPE_CHECKING:
    from collections.abc import Iterable

MIN_SOUND_WORD = 2
"""Single characters share sounds with too much to be matched by sound."""
MAX_READINGS = 32
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
"""Most reading combinations considered for one span (heteronyms multiply)."""

LINKING_WORD = "的"
"""The particle between words of a name (卧室的窗帘)."""

type SoundKey = tuple[str, ...]


@functools.lru_cache(maxsize=16384)
def readings(char: str) -> frozenset[str]:
    """Return the toneless pinyin readings of one character (itself when it is not Han)."""
    if not has_han(char):
        return frozenset({char})
    return frozenset(pinyin(char, style=Style.NORMAL, heteronym=True, errors="default")[0])


def sound_keys(word: str) -> set[SoundKey]:
    """Return every toneless reading of a word, at most MAX_READINGS of them."""
    per_char = [sorted(readings(char)) for char in word]
    return set(itertools.islice(itertools.product(*per_char), MAX_READINGS))


@dataclass(slots=True)
class SoundIndex:
    """Home words by their sound, to respell what speech recognition misheard."""

    words: frozenset[str]
    by_sound: dict[SoundKey, str]
    """A reading -> the home word with that reading (the first word wins a tie)."""
    longest: int = field(default=0)
    first_sounds: frozenset[str] = frozenset()
    """The readings a home word can start with: a span starting otherwise is not tried."""
    kept: frozenset[str] = frozenset()
    """Everyday words said as they are: a span made of them is never respelled (设定 is not the
    home's 射灯, 开它 not a scene called 开台)."""

    @classmethod
    def build(cls, words: Iterable[str], kept: Iterable[str] = ()) -> SoundIndex:
        """Index the compacted words of MIN_SOUND_WORD Han characters or more; ``kept`` words stay as said."""
        known = sorted({w for w in map(compact, words) if len(w) >= MIN_SOUND_WORD and all(map(has_han, w))})
        by_sound: dict[SoundKey, str] = {}
        for word in known:
            for key in sound_keys(word):
                by_sound.setdefault(key, word)
        first = frozenset(key[0] for key in by_sound)
        everyday = frozenset(word for word in kept if word and word not in known)
        return cls(frozenset(known), by_sound, max(map(len, known), default=0), first, everyday)

    def word_like(self, text: str) -> str | None:
        """Return the home word that ``text`` sounds like (None if none, or if it is one)."""
        text = compact(text)
        if text in self.words or len(text) < MIN_SOUND_WORD:
            return None
        # Sorted: a set of readings iterates in an order that changes between runs (str hashing).
        return next((word for key in sorted(sound_keys(text)) if (word := self.by_sound.get(key))), None)

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

    def _said_in_everyday_words(self, span: str) -> bool:
        """Return True when the span is everyday words end to end (设定, 开它): as said, not misheard."""
        ends = {0}
        for end in range(1, len(span) + 1):
            if any(start in ends and span[start:end] in self.kept for start in range(end)):
                ends.add(end)
        return len(span) in ends

    def respell(self, text: str) -> tuple[str, dict[str, str]]:
        """Return ``text`` with spans that sound like home words replaced by them, and the replacements.

        Longest spans first, left to right; exact home words in the text are kept as they are.
        """
        if not self.by_sound:
            return text, {}
        out: list[str] = []
        replaced: dict[str, str] = {}
        position = 0
        while position < len(text):
            if not readings(text[position]) & self.first_sounds:
                out.append(text[position])
                position += 1
                continue
            for size in range(min(self.longest, len(text) - position), MIN_SOUND_WORD - 1, -1):
                span = text[position : position + size]
                if span in self.words or self._said_in_everyday_words(span):
                    out.append(span)
                    break
                word = self.word_like(span) if all(map(has_han, span)) else None
                if word is not None:
                    out.append(word)
                    replaced[span] = word
                    break
            else:
                out.append(text[position])
                size = 1
            position += size
        return "".join(out), replaced


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
