"""The replayed SmartThings account of the tests: ``tests/data/smartthings``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from demo.smartthings_replay import SmartThingsReplay

SHARED_SMARTTHINGS = Path(__file__).resolve().parents[2] / "tests" / "data" / "smartthings"


def shared_account(**kwargs: Any) -> SmartThingsReplay:
    """Return a replay of the shared SmartThings account (30 devices, 5 rooms)."""
    return SmartThingsReplay.from_dump(SHARED_SMARTTHINGS, **kwargs)
