"""Hybrid scoring and capability consistency (seed 001 混合召回, seed 004 命令一致性校验)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import has_han, has_latin

if TYPE_CHECKING:
    import numpy as np

    from .models import CommandSpec, QueryIR
    from .vector import CommandVectorIndex

_LOGGER = logging.getLogger(__name__)

GATED_WEIGHTS = (1.0, 0.5)
"""Keyword and vector weights when a category gate applies."""
UNGATED_WEIGHTS = (1.5, 0.2)
"""Keyword and vector weights when the names carry the signal (no usable type hint)."""
ROOM_BONUS = 0.2
TYPE_BONUS = 0.2
CAPABILITY_MIN_SIMILARITY = 0.12
"""Below this cosine a command is not what the action asks for."""
QUERY_WORDS = ("查询", "多少", "状态", "是否", "几度", "查看", "看看", "有没有", "是不是", "读取", "当前")
"""Words that make an action a question about state, answered by readable attributes."""


@dataclass(slots=True, frozen=True)
class VectorQuery:
    """The text embedded for one command and why it was chosen."""

    text: str
    fallback_reason: str | None = None
    is_question: bool = False


def vector_query_for(ir: QueryIR) -> VectorQuery:
    """Return the Chinese action as the embedding query, or the raw utterance (seed 004).

    ``设置亮度=50%`` embeds ``设置亮度``; a Chinese value is kept (``设置风模式=自然风``
    embeds ``设置风模式 自然风``). An English or empty action falls back to the raw text.
    """
    action = (ir.action or "").strip()
    if not action:
        _LOGGER.debug("No action parsed; embedding the raw query %r instead", ir.raw)
        return VectorQuery(ir.raw, "empty_action", _is_question(ir.raw))
    key, _, value = action.partition("=")
    text = f"{key} {value}".strip() if has_han(value) else key.strip()
    if has_latin(text) or not has_han(text):
        _LOGGER.debug("Action %r is not a Chinese phrase; embedding the raw query %r instead", action, ir.raw)
        return VectorQuery(ir.raw, "non_chinese_action", _is_question(ir.raw))
    return VectorQuery(text, None, _is_question(text))


def _is_question(text: str) -> bool:
    """Return True when the text asks about state rather than commanding."""
    return any(word in text for word in QUERY_WORDS)


@dataclass(slots=True, frozen=True)
class CapabilityChoice:
    """The command chosen for a device and its similarity to the action."""

    command: CommandSpec | None
    similarity: float


def choose_capability(
    vectors: CommandVectorIndex,
    position: int,
    doc_scores: np.ndarray,
    *,
    question: bool,
) -> CapabilityChoice:
    """Return the device's command most similar to the action.

    Questions prefer readable attributes, commands never answer with one. The
    similarity is that of the best entry (0 for a device without command specs).
    """
    entries = vectors.device_entries[position]
    best: CapabilityChoice | None = None
    fallback: CapabilityChoice | None = None
    for entry in entries:
        command = vectors.entry_command[entry]
        score = float(doc_scores[vectors.entry_doc[entry]])
        if command is None:  # name/room fallback document: similarity only, no command
            return CapabilityChoice(None, score)
        if command.readable == question:
            if best is None or score > best.similarity:
                best = CapabilityChoice(command, score)
        elif question and (fallback is None or score > fallback.similarity):
            fallback = CapabilityChoice(command, score)
    if best is not None and (best.similarity >= CAPABILITY_MIN_SIMILARITY or fallback is None):
        return best
    return fallback or CapabilityChoice(None, 0.0)


def is_capable(choice: CapabilityChoice, *, enforce: bool) -> bool:
    """Return True when the chosen command carries out the action (always, unless enforced).

    The check is enforced only when the query is the parsed Chinese action; a raw
    utterance is too noisy to reject commands by.
    """
    if not enforce:
        return True
    return choice.command is not None and choice.similarity >= CAPABILITY_MIN_SIMILARITY
