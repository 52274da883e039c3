"""Text embeddings: a small protocol and the local, offline default.

The local vectorizer is a hashed bag of character n-grams (1 to 3 characters within
punctuation/whitespace segments, whole Latin words), sublinear TF, L2-normalised.
It needs no model weights, works for Chinese and runs in microseconds per query.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .text import normalize

if TYPE_CHECKING:
    from collections.abc import Sequence

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


def default_embedder() -> Embedder:
    """Return the built-in local embedder (offline, nothing downloaded)."""
    return LocalNgramEmbedder()
