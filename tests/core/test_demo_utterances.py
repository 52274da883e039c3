"""Offline retrieval on fresh, colloquial utterances for the bundled demo home.

``data/demo_utterances.jsonl`` holds hand-labelled utterances: the devices a careful
person would target (the full set for all/except) and the commands that carry the
request out (readable attributes for questions). Every case runs through
``retrieve`` with the offline parser and one shared vector index.

Every case must pass on its own: all expected devices found (groups expanded), the
top candidate right for ``q=one``, an expected command chosen, no ``UNKNOWN`` action.
``scripts/bench`` prints the same figures as a table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from custom_components.context_retrieval.core import (
    ConversationState,
    Device,
    RetrievalResult,
    build_vector_searcher,
    retrieve,
)
from custom_components.context_retrieval.core.models import UNKNOWN_ACTION
from custom_components.context_retrieval.demo_home import load_demo_home

if TYPE_CHECKING:
    from custom_components.context_retrieval.core.models import Candidate

CASES_FILE = Path(__file__).parent / "data" / "demo_utterances.jsonl"
QUANTIFIERS = frozenset({"one", "all", "except", "any"})
TOP_K = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one case fared."""

    recall: float
    hit_at_1: bool | None
    """None when the case is not ``q=one``."""
    capability_hit: bool
    unknown_action: bool


def _read_cases() -> list[dict]:
    lines = CASES_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = _read_cases()


@pytest.fixture(scope="module")
def demo_home() -> list[Device]:
    return load_demo_home()


@pytest.fixture(scope="module")
def searcher(demo_home: list[Device]) -> object:
    return build_vector_searcher(demo_home)


@pytest.fixture(scope="module")
def outcomes(demo_home: list[Device], searcher: object) -> dict[str, Outcome]:
    return {case["text"]: _evaluate(case, demo_home, searcher) for case in CASES}


def _members(result: RetrievalResult, candidate: Candidate) -> set[str]:
    if candidate.entity_kind == "group":
        return set(result.groups[candidate.entity_id].device_ids)
    return {candidate.entity_id}


def _evaluate(case: dict, devices: list[Device], searcher: object) -> Outcome:
    results = retrieve(
        case["text"], devices, None, ConversationState(), top_k=TOP_K, vector_searcher=searcher
    )
    expected = set(case["expected_device_ids"])
    capabilities = set(case["expected_capability_ids"])
    found = {device for result in results for c in result.candidates for device in _members(result, c)}
    if case["quantifier"] == "any":
        recall = float(bool(found & expected))
    else:
        recall = len(found & expected) / len(expected)
    capability_hit = bool(results) and all(
        any(_members(result, c) & expected and c.capability_id in capabilities for c in result.candidates)
        for result in results
    )
    hit_at_1 = None
    if case["quantifier"] == "one":
        hit_at_1 = all(
            result.candidates and _members(result, result.candidates[0]) & expected for result in results
        )
    return Outcome(
        recall=recall,
        hit_at_1=hit_at_1,
        capability_hit=capability_hit,
        unknown_action=any(result.command.a == UNKNOWN_ACTION for result in results),
    )


def test_cases_are_well_formed(demo_home: list[Device]) -> None:
    commands = {device.id: {command.id for command in device.commands} for device in demo_home}
    texts = [case["text"] for case in CASES]
    assert len(CASES) >= 80
    assert len(set(texts)) == len(texts)
    for case in CASES:
        assert case["quantifier"] in QUANTIFIERS, case["text"]
        assert case["tags"], case["text"]
        assert case["expected_device_ids"], case["text"]
        for device_id in case["expected_device_ids"]:
            assert device_id in commands, (case["text"], device_id)
            assert commands[device_id] & set(case["expected_capability_ids"]), (case["text"], device_id)


@pytest.mark.parametrize("case", CASES, ids=[case["text"] for case in CASES])
def test_case(case: dict, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case["text"]]

    assert not outcome.unknown_action
    assert outcome.recall == 1.0
    assert outcome.capability_hit
    assert outcome.hit_at_1 is not False
