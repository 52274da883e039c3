"""Load the demo home shipped with the integration, for trying retrieval without a real home."""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING

from .core.smartthings import devices_from_smartthings
from .core.spec import SpecIndex

if TYPE_CHECKING:
    from .core.models import Device

DEMO_HOME_FILE = "demo_home.json"
"""Package data file with SmartThings-shaped ``rooms`` and ``devices`` lists."""


def load_demo_home() -> list[Device]:
    """Return the devices of the demo home (commands from the shipped capability table)."""
    path = resources.files(__name__.rpartition(".")[0]).joinpath("data", DEMO_HOME_FILE)
    data = json.loads(path.read_text(encoding="utf-8"))
    return devices_from_smartthings(data["devices"], data["rooms"], SpecIndex())
