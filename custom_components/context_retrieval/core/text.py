"""Light text normalisation shared by names, rooms and queries (seed 003 §2)."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

_BRACKETS = str.maketrans(
    {"【": "(", "】": ")", "「": "(", "」": ")", "〔": "(", "〕": ")", "[": "(", "]": ")", "{": "(", "}": ")"}
)
_DASHES = re.compile(r"[\u2010-\u2015\u2212\u30fc\ufe58\ufe63_]")
_SPACES = re.compile(r"\s+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_NOT_AFTER_LETTERS = r"(?<![a-z])" + "".join(rf"(?<![a-z]\d{{{n}}})" for n in range(1, 5))
_NOT_BEFORE_LETTERS = r"(?![a-z])(?!\d+[a-z])"
"""A Latin word is whole: not inside a word, nor a model number (SAF30AC holds no AC); a number
may touch it (26degrees)."""
_PLURAL = "(?:e?s)?"
"""An English word of the table is also said with a plural ending (plugs, switches)."""
_SHORTEST_PLURAL = 3
"""Letters a word has for its plural to be read as it: ones is no plural of on."""


def _latin_pattern(word: str) -> str:
    """Return the pattern of a Latin word said whole (and in its plural); 's is said right after a name."""
    after = _NOT_AFTER_LETTERS if word[0].isalpha() else ""  # Chloe's: 's follows the name
    whole_number = r"(?!\d)" if word[-1].isdigit() else ""  # speed 5 is not the start of speed 50
    return rf"{after}{re.escape(word)}{_plural_of(word)}{whole_number}{_NOT_BEFORE_LETTERS}"


def _plural_of(word: str) -> str:
    """Return the pattern of a Latin word's plural ending, or nothing for a short or unlettered end."""
    last = word.rsplit(" ", 1)[-1]
    return _PLURAL if len(last) >= _SHORTEST_PLURAL and last.isalpha() else ""


_INTEGRATION_PACKAGE = __name__.rsplit(".", 2)[0]
LINKING_WORD = "的"
"""The particle joining a modifier to what it narrows (卧室的窗帘, 外面的灯, 老人的房间)."""


def package_text(file: str) -> str:
    """Return a file of the integration's package data (``data/``), read as UTF-8."""
    return resources.files(_INTEGRATION_PACKAGE).joinpath("data", file).read_text(encoding="utf-8")


TRADITIONAL_TABLE = "traditional_characters.json"
"""Package data: Traditional (Taiwan, Hong Kong) characters → Simplified; tools/ builds it."""


@functools.cache
def _simplified() -> dict[int, str]:
    """Return the translation table folding Traditional characters to Simplified, read once."""
    characters: dict[str, str] = json.loads(package_text(TRADITIONAL_TABLE))["characters"]
    return str.maketrans(characters)


VARIANTS_FILE = "language_variants.yaml"
"""Package data: words of Cantonese, Taiwan Mandarin and English → the Mandarin words the engine reads."""


class VariantsError(ValueError):
    """The shipped language variants file is malformed."""


@dataclass(frozen=True, slots=True)
class WordFolding:
    """Words replaced by others in a text: the longest first, Latin words only whole."""

    pattern: re.Pattern[str] | None
    words: dict[str, str]

    @classmethod
    def from_sections(cls, raw: object, where: str = VARIANTS_FILE) -> WordFolding:
        """Return the folding of ``{section: {word: mandarin}}``; raise VariantsError when malformed."""
        if not isinstance(raw, dict):
            raise VariantsError(f"{where}: expected sections of words")
        words: dict[str, str] = {}
        for section, entries in raw.items():
            if not isinstance(entries, dict):
                raise VariantsError(f"{where}: {section} must map words to words")
            for word, mandarin in entries.items():
                if not isinstance(word, str) or not word.strip() or word != word.lower():
                    raise VariantsError(f"{where}: {section}: {word!r} is not a lower-case word")
                if not isinstance(mandarin, str):
                    raise VariantsError(f"{where}: {section}: {word!r} must map to text")
                words[word.translate(_simplified())] = mandarin
        if not words:
            return cls(None, {})
        alternatives = [
            _latin_pattern(word) if _LATIN.search(word) else re.escape(word)
            for word in sorted(words, key=len, reverse=True)
        ]
        return cls(re.compile("|".join(alternatives)), words)

    def fold(self, text: str) -> str:
        """Return ``text`` with every word of the table replaced (an English plural as its singular)."""
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda match: self._meaning(match.group(0)), text)

    def _meaning(self, said: str) -> str:
        """Return what a word found in a text folds to: its own entry, else its singular's (plugs)."""
        for word in (said, said.removesuffix("s"), said.removesuffix("es")):
            if word in self.words:
                return self.words[word]
        return said

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Return where the words of the table are in ``text`` (leftmost, longest)."""
        return [] if self.pattern is None else [match.span() for match in self.pattern.finditer(text)]


@functools.cache
def _variants() -> WordFolding:
    """Return the word folding of the shipped variants file, read and checked once."""
    return WordFolding.from_sections(yaml.safe_load(package_text(VARIANTS_FILE)) or {})


MARKERS_FILE = "language_markers.yaml"
"""Package data: the characters only Cantonese uses, which mark an utterance as Cantonese."""


class MarkersError(ValueError):
    """The shipped language markers file is malformed."""


def parse_markers(raw: object, where: str = MARKERS_FILE) -> frozenset[str]:
    """Return the Cantonese characters of the markers file, or raise MarkersError."""
    chars = raw.get("cantonese") if isinstance(raw, dict) else None
    if not isinstance(chars, list) or not chars or not all(isinstance(c, str) and len(c) == 1 for c in chars):
        raise MarkersError(f"{where}: expected cantonese, a list of single characters")
    return frozenset(chars)


def load_language_files() -> None:
    """Read the language files now (where blocking is allowed), not at the first utterance."""
    _simplified()
    _variants()
    _cantonese_markers()
    _number_words()


@functools.cache
def _cantonese_markers() -> frozenset[str]:
    """Return the Cantonese characters of the shipped markers file, read and checked once."""
    return parse_markers(yaml.safe_load(package_text(MARKERS_FILE)))


def says_cantonese(text: str) -> bool:
    """Return True when ``text`` holds a character only Cantonese uses (咗, 啲, 闩): said in Cantonese."""
    return not _cantonese_markers().isdisjoint(unified(text))


def variant_words() -> frozenset[str]:
    """Return the words of other varieties and languages the engine folds (熄, 啲, turn on)."""
    return frozenset(_variants().words)


def is_variant_word(word: str) -> bool:
    """Return True for a word the variants file folds (an English command word such as turn or light)."""
    return word in _variants().words


NUMBER_WORDS_FILE = "number_words.yaml"
"""Package data: numbers said in words of other languages (twenty-five), read as digits."""


@dataclass(frozen=True, slots=True)
class NumberWords:
    """Numbers said in words (twenty-five, thirty, one hundred) → digits; Latin words only whole."""

    pattern: re.Pattern[str] | None
    values: dict[str, int]

    @classmethod
    def from_sections(cls, raw: object, where: str = NUMBER_WORDS_FILE) -> NumberWords:
        """Return the number words of ``{language: {units, after_tens_only, tens, hundreds}}``.

        A language may leave sections out; raise VariantsError when the file is malformed.
        """
        if not isinstance(raw, dict):
            raise VariantsError(f"{where}: expected languages")
        values: dict[str, int] = {}
        kinds: dict[str, list[str]] = {"units": [], "after_tens_only": [], "tens": [], "hundreds": []}
        for language, sections in raw.items():
            if not isinstance(sections, dict) or not set(sections) <= set(kinds):
                raise VariantsError(f"{where}: {language} may have sections {sorted(kinds)} only")
            for kind, words in sections.items():
                if not isinstance(words, dict) or not all(
                    isinstance(w, str) and w == w.lower() and isinstance(v, int) and not isinstance(v, bool)
                    for w, v in words.items()
                ):
                    raise VariantsError(f"{where}: {language}.{kind} must map lower-case words to integers")
                values |= words
                kinds[kind] += list(words)
        if not values:
            return cls(None, {})

        def alternatives(words: list[str]) -> str:
            return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))

        after_tens = alternatives(kinds["units"] + kinds["after_tens_only"])
        numbers = [rf"(?:{alternatives(kinds['tens'])})(?:[ -](?:{after_tens}))?"] if kinds["tens"] else []
        numbers += [alternatives(kinds[kind]) for kind in ("hundreds", "units") if kinds[kind]]
        return cls(re.compile(rf"(?<![a-z])(?:{'|'.join(numbers)})(?![a-z])"), values)

    def digits(self, text: str) -> str:
        """Return ``text`` (lower case) with every number said in words written in digits."""
        if self.pattern is None or not _LATIN.search(text):
            return text
        return self.pattern.sub(lambda match: str(self._value(match.group(0))), text)

    def _value(self, said: str) -> int:
        if said in self.values:
            return self.values[said]
        tens, unit = re.split(r"[ -]", said, maxsplit=1)
        return self.values[tens] + self.values[unit]


@functools.cache
def _number_words() -> NumberWords:
    """Return the shipped number words, read and checked once."""
    return NumberWords.from_sections(yaml.safe_load(package_text(NUMBER_WORDS_FILE)) or {})


def unified(text: str) -> str:
    """Return ``text`` with width, case, brackets, dashes, whitespace and Traditional characters unified."""
    text = unicodedata.normalize("NFKC", text).translate(_BRACKETS).translate(_simplified())
    return _SPACES.sub(" ", _DASHES.sub("-", text)).strip().lower()


NORMALIZED_CACHE = 8192
"""Texts whose normal form is kept: names, values and words are normalised again and again."""


@functools.lru_cache(maxsize=NORMALIZED_CACHE)
def normalize(text: str) -> str:
    """Return ``text`` unified, with the words of other varieties and languages folded.

    Traditional characters become Simplified, numbers said in words digits, and the words of
    other varieties and languages (熄, 冷气, living room) the Mandarin words the engine reads.
    """
    return _SPACES.sub(" ", _variants().fold(_number_words().digits(unified(text)))).strip()


MIN_HOME_WORD = 2
"""Characters a home word needs to be kept whole (灯 alone is no name)."""


_SPLIT_WORD = re.compile(r"([\u4e00-\u9fff])((?:一下|下|一点|点|啲|一会儿|一会){1,2})([\u4e00-\u9fff])")
"""A verb and its object said apart (浇一下花, 淋下啲花): what may come between them."""
_OF_THOSE = "啲"
"""Cantonese 啲 alone between two words makes a noun phrase (厅啲灯), no verb said apart from its object."""


@dataclass(frozen=True, slots=True)
class HomeWords:
    """The words a home calls its rooms and devices: no variant word is folded across their edges.

    开细路房抽湿机 holds Cantonese 开细 (turn down) over the start of the room 细路房; folded, the
    room would be lost. ``separate`` puts a space at such an edge, which every later fold
    respects (no variant word holds a space there) and ``compact`` removes.
    """

    words: frozenset[str]
    lengths: tuple[int, ...]
    """The distinct lengths of ``words``, longest first: a text is read by dict lookups, not a scan."""

    @classmethod
    def build(cls, words: Iterable[str]) -> HomeWords:
        """Return the home words of ``words`` (names, aliases, rooms, floors; one character is no word)."""
        keys = frozenset(key for key in map(unified, words) if len(key.replace(" ", "")) >= MIN_HOME_WORD)
        return cls(keys, tuple(sorted({len(key) for key in keys}, reverse=True)))

    def separate(self, text: str) -> str:
        """Return ``text`` unified, with a space where a variant word would cut a home word."""
        text = unified(text)
        for _ in range(len(text)):
            variants = _variants().spans(text)
            cut = self._first_cut(text, variants) if variants and self.words else None
            if cut is None:
                break
            text = f"{text[:cut]} {text[cut:]}"
        return text

    def rejoined(self, text: str) -> tuple[str, dict[str, str]]:
        """Return ``text`` with a verb and its object said apart joined into the home word they make.

        浇一下花 is 浇花 in a home with a script (or a pump) called so: a verb-object word is split
        in speech by 一下, 下, 一点 or 啲 (淋下啲花). Also returns what was joined, as said.
        """
        joined: dict[str, str] = {}

        def join(match: re.Match[str]) -> str:
            word = match.group(1) + match.group(3)
            if word not in self.words or match.group(2) == _OF_THOSE:
                return match.group(0)  # 厅啲灯: the room's lights (啲 before a noun), no 厅灯 said apart
            joined[match.group(0)] = word
            return word

        return _SPLIT_WORD.sub(join, text), joined

    def _first_cut(self, text: str, variants: list[tuple[int, int]]) -> int | None:
        """Return the edge of a home word that a variant word crosses, or None."""
        homes = self._spans(text)
        for start, end in variants:
            for home_start, home_end in homes:
                if start < home_start < end < home_end:
                    return home_start
                if home_start < start < home_end < end:
                    return home_end
        return None

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Return where the home words are in ``text`` (leftmost, longest; Latin words only whole)."""
        spans: list[tuple[int, int]] = []
        position = 0
        while position < len(text):
            end = next((position + n for n in self.lengths if self._word_at(text, position, n)), None)
            if end is None:
                position += 1
            else:
                spans.append((position, end))
                position = end
        return spans

    def _word_at(self, text: str, position: int, length: int) -> bool:
        word = text[position : position + length]
        if len(word) < length or word not in self.words:
            return False
        if not _LATIN.search(word):
            return True
        before = text[position - 1] if position else " "
        after = text[position + length] if position + length < len(text) else " "
        return not (before.isascii() and before.isalpha()) and not (after.isascii() and after.isalpha())


def as_heard(text: str, heard: Mapping[str, str]) -> str:
    """Return ``text`` with the words heard as the home's replaced by them (倒台 as 岛台)."""
    for said, home_word in heard.items():
        text = text.replace(said, home_word)
    return text


def encodable(text: str) -> str:
    """Return ``text`` without what UTF-8 cannot encode (lone surrogates a JSON escape can make).

    Nothing later (hashing, YAML, Home Assistant's responses) could write them.
    """
    return text.encode("utf-8", "ignore").decode("utf-8")


def without_remarks(text: str, remarks: Iterable[str]) -> str:
    """Return ``text`` without the clauses that say why (鱼也要困觉的), compacted, or as it is.

    ``remarks`` are as the offline parser read them: compacted and folded (鱼也要睡觉的), so the
    text is compacted to find them. A text without remarks is returned unchanged.
    """
    remarks = [remark for remark in remarks if remark]
    if not remarks:
        return text
    said = compact(text)
    for remark in remarks:
        said = said.replace(remark, "")
    return said


def compact(text: str) -> str:
    """Return the normalised text without any whitespace (for substring matching)."""
    return normalize(text).replace(" ", "")


def char_ngrams(text: str, n: int) -> list[str]:
    """Return the overlapping character n-grams of ``text`` (the text itself if shorter)."""
    if len(text) <= n:
        return [text] if text else []
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def has_han(text: str) -> bool:
    """Return True when ``text`` contains a CJK ideograph."""
    return _HAN.search(text) is not None


def has_latin(text: str) -> bool:
    """Return True when ``text`` contains a Latin letter."""
    return _LATIN.search(text) is not None


def cuts_a_latin_word(text: str, start: int, end: int) -> bool:
    """Return True when ``text[start:end]`` starts or ends inside a run of Latin letters (marshall: hall)."""
    return any(
        0 < edge < len(text) and has_latin(text[edge - 1]) and has_latin(text[edge]) for edge in (start, end)
    )
