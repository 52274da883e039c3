"""The words that order a list's values from least to most (低, 中, 高), read once from package data."""

from __future__ import annotations

import functools

import yaml

from .text import package_text

VALUE_ORDER_FILE = "value_order.yaml"
"""Package data: the words that order a list's values from least to most (低, 中, 高)."""


class ValueOrderError(ValueError):
    """The shipped value order file is malformed."""


def parse_value_order(raw: object, where: str = VALUE_ORDER_FILE) -> tuple[str, ...]:
    """Return the ``ascending`` words of the value order file, or raise ValueOrderError."""
    words = raw.get("ascending") if isinstance(raw, dict) else None
    if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
        raise ValueOrderError(f"{where}: expected ascending, a list of words")
    return tuple(words)


def parse_outside_order(raw: object, where: str = VALUE_ORDER_FILE) -> tuple[str, ...]:
    """Return the ``outside`` words of the value order file (none when absent), or raise ValueOrderError."""
    words = raw.get("outside", []) if isinstance(raw, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
        raise ValueOrderError(f"{where}: outside must be a list of words")
    return tuple(words)


@functools.cache
def _value_order() -> object:
    """Return the shipped value order file as read, once."""
    return yaml.safe_load(package_text(VALUE_ORDER_FILE))


@functools.cache
def ascending_words() -> tuple[str, ...]:
    """Return the words ranking values from least to most (静音, 低, 中, 高, 最大)."""
    return parse_value_order(_value_order())


@functools.cache
def outside_words() -> tuple[str, ...]:
    """Return the words of values outside that order (自动, 智能)."""
    return parse_outside_order(_value_order())


def load_value_order() -> None:
    """Read the value order file now (where blocking is allowed), not at the first value read."""
    ascending_words()
    outside_words()
