"""Light text normalisation shared by names, rooms and queries (seed 003 §2)."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

_BRACKETS = str.maketrans(
    {"【": "(", "】": ")", "「": "(", "」": ")", "〔": "(", "〕": ")", "[": "(", "]": ")", "{": "(", "}": ")"}
)
_DASHES = re.compile(r"[\u2010-\u2015\u2212\u30fc\ufe58\ufe63_]")
_SPACES = re.compile(r"\s+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_INTEGRATION_PACKAGE = __name__.rsplit(".", 2)[0]
TRADITIONAL_TABLE = "traditional_characters.json"
"""Package data: Traditional (Taiwan, Hong Kong) characters → Simplified; tools/ builds it."""


@functools.cache
def _simplified() -> dict[int, str]:
    """Return the translation table folding Traditional characters to Simplified, read once."""
    path = resources.files(_INTEGRATION_PACKAGE).joinpath("data", TRADITIONAL_TABLE)
    characters: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))["characters"]
    return str.maketrans(characters)


def normalize(text: str) -> str:
    """Return ``text`` with width, case, brackets, dashes, whitespace and Traditional characters unified."""
    text = unicodedata.normalize("NFKC", text).translate(_BRACKETS).translate(_simplified())
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text).strip().lower()


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
