"""Fixtures of the parsing tests: the SmartThings development home and gold parses (tests/data)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

SMARTTHINGS = Path(__file__).resolve().parents[3] / "tests" / "data" / "smartthings"


@dataclass(frozen=True, slots=True)
class Home:
    rooms: list[str]
    device_names: list[str]
    categories: set[str]


def _read_jsonl(name: str) -> list[dict]:
    path = SMARTTHINGS / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def smartthings_home() -> Home:
    devices = _read_jsonl("devices.jsonl")
    return Home(
        rooms=[room["name"] for room in _read_jsonl("rooms.jsonl")],
        device_names=[device["label"] for device in devices],
        categories={
            category["name"]
            for device in devices
            for component in device["components"]
            for category in component["categories"]
        },
    )


@pytest.fixture(scope="session")
def parse_cases() -> list[dict]:
    return _read_jsonl("parse_cases.jsonl")


@pytest.fixture(scope="session")
def pipeline_gold() -> list[dict]:
    return _read_jsonl("pipeline_gold.jsonl")
