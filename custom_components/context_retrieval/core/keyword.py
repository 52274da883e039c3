"""Keyword recall: an inverted character index over device names and aliases, fuzzy scores."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import char_ngrams, compact

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

EXACT_NAME_SCORE = 1.0
CONTAINED_BASE_SCORE = 0.6
FUZZY_SCALE = 0.7
MIN_NAME_SCORE = 0.2
"""Below this a name is not considered a keyword hit."""
MIN_SHARED_CHARACTERS = 2
"""A name said in part shares at least this many characters in a row with the text."""
CHARACTER_SCALE = 0.5
"""Share of the fuzzy score left to names that share characters but no two in a row."""
MAX_INDEXED_ENDING = 6
"""Longest name ending indexed (a kind word: 灯, 空调, 扫地机器人); longer words are scanned for."""


def name_similarity(hint: str, name: str) -> float:
    """Return how well a (compacted) name hint matches a (compacted) device name, 0 to 1.

    Exact match scores 1; one containing the other scores by the covered share;
    otherwise the Dice overlap of character bigrams (unigrams for one-character
    strings) scaled down, so containment always beats fuzziness; names sharing
    characters but no bigram (柜子灯 and 鞋柜灯) get half of their unigram overlap.
    """
    if not hint or not name:
        return 0.0
    if hint == name:
        return EXACT_NAME_SCORE
    if hint in name:
        return CONTAINED_BASE_SCORE + (1 - CONTAINED_BASE_SCORE) * len(hint) / len(name)
    if name in hint:
        return CONTAINED_BASE_SCORE + (0.9 - CONTAINED_BASE_SCORE) * len(name) / len(hint)
    size = 2 if min(len(hint), len(name)) >= 2 else 1
    bigram = _dice(char_ngrams(hint, size), char_ngrams(name, size))
    if bigram or size == 1:
        return FUZZY_SCALE * bigram
    return CHARACTER_SCALE * FUZZY_SCALE * _dice(hint, name)


def _longest_common_substring(first: str, second: str) -> str:
    """Return the longest run of characters two strings share (the first found on a tie)."""
    best = ""
    for start in range(len(first)):
        for end in range(start + len(best) + 1, len(first) + 1):
            if first[start:end] not in second:
                break
            best = first[start:end]
    return best


def _dice(left: Iterable[str], right: Iterable[str]) -> float:
    """Return the Dice overlap of two sets of strings."""
    first, second = set(left), set(right)
    return 2 * len(first & second) / (len(first) + len(second)) if first or second else 0.0


@dataclass(slots=True)
class KeywordIndex:
    """Character postings from every name and alias to the devices carrying it."""

    names: list[tuple[str, ...]]
    """Compacted name and aliases of each device, name first."""
    postings: dict[str, list[int]]
    by_name: dict[str, list[int]]
    """Compacted name or alias -> the devices called exactly that."""
    bigrams: dict[str, list[int]]
    """Two characters in a row -> the devices with a name or alias holding them."""
    endings: dict[str, frozenset[int]]
    """The last 1 to MAX_INDEXED_ENDING characters of a name or alias -> the devices so named."""

    @classmethod
    def build(cls, names: Iterable[Sequence[str]]) -> KeywordIndex:
        """Index the compacted names of each device by character."""
        compacted: list[tuple[str, ...]] = []
        postings: dict[str, set[int]] = defaultdict(set)
        bigrams: dict[str, set[int]] = defaultdict(set)
        by_name: dict[str, list[int]] = defaultdict(list)
        endings: dict[str, set[int]] = defaultdict(set)
        for position, device_names in enumerate(names):
            entry = tuple(dict.fromkeys(compact(name) for name in device_names if name and compact(name)))
            compacted.append(entry)
            for name in entry:
                by_name[name].append(position)
                for char in name:
                    postings[char].add(position)
                for pair in char_ngrams(name, MIN_SHARED_CHARACTERS):
                    bigrams[pair].add(position)
                for size in range(1, min(len(name), MAX_INDEXED_ENDING) + 1):
                    endings[name[-size:]].add(position)
        return cls(
            compacted,
            {char: sorted(ids) for char, ids in postings.items()},
            dict(by_name),
            {pair: sorted(ids) for pair, ids in bigrams.items()},
            {ending: frozenset(ids) for ending, ids in endings.items()},
        )

    def said_share(self, text: str) -> dict[int, float]:
        """Return, per device whose name shares a character pair with ``text``, the share of it covered.

        The best over its name and aliases: in 洗衣机启动, the button called 洗衣机启动 covers all
        of it, a select called 洗衣程序 (alias 洗衣机) half.
        """
        said = set(char_ngrams(text, MIN_SHARED_CHARACTERS))
        shares: dict[int, float] = {}
        for position in {p for pair in said for p in self.bigrams.get(pair, ())}:
            for name in self.names[position]:
                share = len(set(char_ngrams(name, MIN_SHARED_CHARACTERS)) & said) / len(said)
                shares[position] = max(shares.get(position, 0.0), share)
        return shares

    def ending_in(self, word: str) -> set[int]:
        """Return the devices with a name or alias that ends with ``word`` (阳台灯 for 灯)."""
        if not word:
            return set()
        if len(word) <= MAX_INDEXED_ENDING:
            return set(self.endings.get(word, ()))
        return {
            position
            for position in self.endings.get(word[-MAX_INDEXED_ENDING:], ())
            if any(name.endswith(word) for name in self.names[position])
        }

    def knows_part(self, hint: str) -> bool:
        """Return True when some name or alias contains the hint or is contained in it."""
        if not hint:
            return False
        sharing = set(self.postings.get(hint[0], ()))
        for char in hint[1:]:
            sharing.intersection_update(self.postings.get(char, ()))
        if any(hint in name for position in sharing for name in self.names[position]):
            return True
        return any(
            hint[start:end] in self.by_name
            for start in range(len(hint))
            for end in range(start + 1, len(hint) + 1)
        )

    def candidates(self, hint: str) -> set[int]:
        """Return the devices sharing at least one character with the hint."""
        found: set[int] = set()
        for char in set(hint):
            found.update(self.postings.get(char, ()))
        return found

    def score(self, position: int, hint: str) -> tuple[float, bool]:
        """Return the best name/alias score of a device and whether an alias gave it.

        A hint made of two of the device's names is its name too: 先锋油汀, its alias 先锋 (a brand) and
        its name 油汀.
        """
        best, via_alias = 0.0, False
        for rank, name in enumerate(self.names[position]):
            score = name_similarity(hint, name)
            if score > best:
                best, via_alias = score, rank > 0
        if best < EXACT_NAME_SCORE and self._called_in_two(position, hint):
            return EXACT_NAME_SCORE, True
        return best, via_alias

    def _called_in_two(self, position: int, hint: str) -> bool:
        """Return True when ``hint`` is two of the device's names or aliases, one after the other."""
        names = self.names[position]
        return any(hint[:cut] in names and hint[cut:] in names for cut in range(1, len(hint)))

    def sharing(self, text: str, allowed: Collection[int]) -> dict[int, float]:
        """Return the ``allowed`` devices with a name sharing two characters or more in a row with ``text``.

        Scored by the share of the name said, below a contained hint (旺财 of 旺财喂食器).
        """
        positions = {
            position
            for pair in char_ngrams(text, MIN_SHARED_CHARACTERS)
            for position in self.bigrams.get(pair, ())
            if position in allowed
        }
        hits: dict[int, float] = {}
        for position in positions:
            for name in self.names[position]:
                shared = _longest_common_substring(text, name)
                if len(shared) < MIN_SHARED_CHARACTERS:
                    continue
                score = CONTAINED_BASE_SCORE * len(shared) / len(name)
                hits[position] = max(hits.get(position, 0.0), score)
        return {position: score for position, score in hits.items() if score >= MIN_NAME_SCORE}

    def contained_in(self, text: str, positions: Iterable[int]) -> dict[int, float]:
        """Return the devices whose name or alias occurs in ``text``, scored by coverage."""
        hits: dict[int, float] = {}
        for position in positions:
            best = max(
                (name_similarity(text, name) for name in self.names[position] if name in text),
                default=0.0,
            )
            if best:
                hits[position] = best
        return hits
