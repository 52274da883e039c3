"""Paraphrase test of embedders: does an utterance land on the command description it means?

Each item of ``paraphrase.jsonl`` pairs an utterance with four command descriptions of one
device kind and the index of the one it means. An embedder ranks the four by cosine; we
report top-1 (chance 0.25), mean reciprocal rank, and top-1 on the items that share no
character with the right description (where only meaning can help). Ties count as a
random pick among the tied choices, so an embedder that scores all four alike is at chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import TYPE_CHECKING, Any

import numpy as np

from .data import read_records

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from custom_components.context_retrieval.core import Embedder


@dataclass(frozen=True, slots=True)
class ParaphraseItem:
    """An utterance, four descriptions and the one it means."""

    id: str
    text: str
    choices: tuple[str, ...]
    answer: int

    @property
    def shares_a_character(self) -> bool:
        """Return whether the utterance shares a character with the right description."""
        return bool(set(self.text) & set(self.choices[self.answer]))


@dataclass(frozen=True, slots=True)
class ParaphraseScore:
    """How one embedder did."""

    top1: float
    mrr: float
    top1_disjoint: float
    items: int
    disjoint: int


def load_paraphrases(path: Path) -> list[ParaphraseItem]:
    """Read the items of a paraphrase file."""
    return [_item(record) for record in read_records(path)]


def _item(record: dict[str, Any]) -> ParaphraseItem:
    return ParaphraseItem(record["id"], record["text"], tuple(record["choices"]), int(record["answer"]))


def score_embedder(embedder: Embedder, items: Sequence[ParaphraseItem]) -> ParaphraseScore:
    """Return the embedder's top-1, MRR and top-1 without shared characters."""
    top1: list[float] = []
    reciprocal: list[float] = []
    for item in items:
        vectors = embedder.embed([item.text, *item.choices])
        similarity = vectors[1:] @ vectors[0]
        above = int(np.sum(similarity > similarity[item.answer]))
        tied = int(np.sum(similarity == similarity[item.answer])) - 1
        # Ties are broken at random: an embedder that scores every choice 0 is at chance.
        top1.append(1 / (tied + 1) if above == 0 else 0.0)
        reciprocal.append(fmean(1 / (above + 1 + k) for k in range(tied + 1)))
    disjoint = [score for score, item in zip(top1, items, strict=True) if not item.shares_a_character]
    return ParaphraseScore(
        top1=fmean(top1),
        mrr=fmean(reciprocal),
        top1_disjoint=fmean(disjoint) if disjoint else float("nan"),
        items=len(items),
        disjoint=len(disjoint),
    )


def paraphrase_section(set_names: Sequence[str]) -> str:
    """Return the paraphrase test of the default embedder on each set, as Markdown."""
    from custom_components.context_retrieval.core import default_embedder

    from .labelled_homes import DATA

    lines = [
        "## Paraphrase test of the default embedder",
        "",
        "Utterance vs four command descriptions of one device kind (chance 0.25).",
        "",
        "| set | items | top-1 | MRR | top-1, no shared character |",
        "|---|---|---|---|---|",
    ]
    for name in set_names:
        items = load_paraphrases(DATA / name / "paraphrase.jsonl")
        score = score_embedder(default_embedder(), items)
        lines.append(
            f"| {name} | {score.items} | {score.top1:.3f} | {score.mrr:.3f} | "
            f"{score.top1_disjoint:.3f} ({score.disjoint}) |"
        )
    return "\n".join(lines)
