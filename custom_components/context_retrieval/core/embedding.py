"""Text embeddings: a small protocol, the semantic default and a lexical fallback.

The default, ``StaticEmbedder``, holds word vectors distilled from multilingual-e5-small
(model2vec's idea; ``tools/build_static_embedder.py`` rebuilds the table shipped in the
integration's ``data/``): a text is segmented over its vocabulary by the most probable
split (word frequencies from jieba's dictionary) and embedded as the mean of its words'
vectors weighted by smooth inverse frequency (Arora et al., 2017), so that 灭掉 lands
near 关闭 and 凉快 near 制冷. numpy only, no model at run time, tens of microseconds
per text.

``LocalNgramEmbedder`` is a hashed bag of character n-grams (1 to 3 characters within
punctuation/whitespace segments, whole Latin words), sublinear TF, L2-normalised: no
data at all, lexical only.
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .text import normalize

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

DEFAULT_LOCAL_DIMENSIONS = 2048
_NGRAM_WEIGHTS = {1: 0.5, 2: 1.0, 3: 0.7}
_SEGMENTS = re.compile(r"[a-z0-9]+|[^\sa-z0-9!-/:-@\[-`{-~，。、；：！？（）“”‘’《》【】…]+")


class Embedder(Protocol):
    """Anything that maps texts to an (n, d) float32 matrix of L2-normalised rows."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one unit-length row per text (all-zero for an empty text)."""


def _features(text: str) -> Counter[str]:
    """Return weighted n-gram counts of ``text``."""
    counts: Counter[str] = Counter()
    for segment in _SEGMENTS.findall(normalize(text)):
        if segment.isascii():
            counts[segment] += 1.0
            continue
        for n, weight in _NGRAM_WEIGHTS.items():
            for i in range(len(segment) - n + 1):
                counts[segment[i : i + n]] += weight
    return counts


def _bucket(feature: str, dimensions: int) -> tuple[int, float]:
    """Return the hashed column and sign of a feature (stable across runs)."""
    digest = zlib.crc32(feature.encode())
    return digest % dimensions, (1.0 if digest & 0x80000000 else -1.0)


@dataclass(frozen=True, slots=True)
class LocalNgramEmbedder:
    """Hashed character n-gram vectors: offline, dependency-free, good at Chinese."""

    dimensions: int = DEFAULT_LOCAL_DIMENSIONS

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised row per text."""
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, count in _features(text).items():
                column, sign = _bucket(feature, self.dimensions)
                matrix[row, column] += sign * (1.0 + math.log(count) if count > 1 else count)
            norm = float(np.linalg.norm(matrix[row]))
            if norm > 0:
                matrix[row] /= norm
        return matrix


STATIC_TABLE = "static_embedder.npz"
"""The distilled word table, in the integration's ``data/`` (``tools/build_static_embedder.py``)."""
_INTEGRATION_PACKAGE = __package__.rpartition(".")[0]
SIF_WEIGHT = 1e-3
"""Smooth inverse frequency ``a``: a word of probability p weighs a / (a + p)."""
MAX_WORD = 4
"""Longest vocabulary entry, in characters."""
_RUNS = re.compile(r"[a-z]+|[0-9]+|[\u3400-\u9fff]+")


@dataclass(frozen=True, slots=True)
class StaticEmbedder:
    """Word vectors distilled from a sentence model; a text is their weighted mean."""

    vocabulary: dict[str, int]
    rows: np.ndarray
    """(words, dimensions) int8."""
    scales: np.ndarray
    """float32 scale of each row."""
    log_probability: np.ndarray
    """float32 log frequency share of each word (for segmentation)."""
    weights: np.ndarray
    """float32 smooth-inverse-frequency weight of each word."""

    @classmethod
    def from_table(cls, table: Mapping[str, np.ndarray]) -> StaticEmbedder:
        """Return the embedder of a loaded table (``vocab``, ``frequencies``, ``rows``, ``scales``)."""
        words = str(table["vocab"]).split("\n")
        frequencies = np.asarray(table["frequencies"], dtype=np.float64)
        probability = frequencies / frequencies.sum()
        return cls(
            vocabulary={word: row for row, word in enumerate(words)},
            rows=np.asarray(table["rows"], dtype=np.int8),
            scales=np.asarray(table["scales"], dtype=np.float32),
            log_probability=np.log(probability).astype(np.float32),
            weights=(SIF_WEIGHT / (SIF_WEIGHT + probability)).astype(np.float32),
        )

    @property
    def dimensions(self) -> int:
        """Return the length of a vector."""
        return int(self.rows.shape[1])

    def segment(self, text: str) -> list[int]:
        """Return the vocabulary rows of the most probable split of ``text`` (unknown parts dropped)."""
        rows: list[int] = []
        for run in _RUNS.findall(normalize(text)):
            if not run[0] >= "\u3400":
                if (row := self.vocabulary.get(run)) is not None:
                    rows.append(row)
                continue
            rows.extend(self._segment_han(run))
        return rows

    def _segment_han(self, run: str) -> list[int]:
        """Split a run of Han characters by dynamic programming over word log-probabilities."""
        unknown = float(self.log_probability.min()) - 5.0
        best = [0.0] + [-math.inf] * len(run)
        back: list[tuple[int, int]] = [(0, -1)] * (len(run) + 1)
        for end in range(1, len(run) + 1):
            for length in range(1, min(MAX_WORD, end) + 1):
                row = self.vocabulary.get(run[end - length : end], -1)
                if row < 0 and length > 1:
                    continue
                score = best[end - length] + (float(self.log_probability[row]) if row >= 0 else unknown)
                if score > best[end]:
                    best[end], back[end] = score, (end - length, row)
        rows: list[int] = []
        end = len(run)
        while end > 0:
            start, row = back[end]
            if row >= 0:
                rows.append(row)
            end = start
        return rows[::-1]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised row per text (all-zero when no word is known)."""
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for position, text in enumerate(texts):
            rows = self.segment(text)
            if not rows:
                continue
            weights = self.weights[rows] * self.scales[rows]
            vector = weights @ self.rows[rows].astype(np.float32)
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                matrix[position] = vector / norm
        return matrix


@functools.cache
def load_static_embedder() -> StaticEmbedder:
    """Return the embedder of the table shipped with the integration (read once per process)."""
    path = resources.files(_INTEGRATION_PACKAGE).joinpath("data", STATIC_TABLE)
    with path.open("rb") as handle, np.load(handle) as table:
        return StaticEmbedder.from_table({key: table[key] for key in table.files})


def default_embedder() -> Embedder:
    """Return the built-in local embedder: semantic, offline, nothing downloaded."""
    return LocalNgramEmbedder()
