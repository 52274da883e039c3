"""The check's home (``compat/config``, ``compat/layout.yaml``) and the conversation it holds there.

Every device name is unique in the home and no name is part of another, so the devices a
text names are found by their entity ids (the retrieved context lists them) or their names
(Assist's live context lists only names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

COMPAT = Path(__file__).resolve().parent
CONFIG = COMPAT / "config"
"""The configuration copied into each Home Assistant's fresh configuration directory."""
LAYOUT = COMPAT / "layout.yaml"
TEMPLATES = CONFIG / "templates.yaml"


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance of the conversation and the devices its context must hold."""

    text: str
    devices: frozenset[str]


CONVERSATION = (
    Turn("打开厨房的灯", frozenset({"light.kitchen_ceiling"})),
    Turn("把卧室空调调到26度", frozenset({"climate.bedroom_ac"})),
    Turn("关上车库门", frozenset({"cover.garage_door"})),
    Turn("把它打开", frozenset({"cover.garage_door"})),
)
"""Several commands in one conversation, each about other devices, and a follow-up with 它 (it)."""


def load_device_names(path: Path = TEMPLATES) -> dict[str, str]:
    """Return the name of each template entity of the home, by entity id."""
    names: dict[str, str] = {}
    for block in yaml.safe_load(path.read_text(encoding="utf-8")):
        for entities in block.values():
            entity: dict[str, Any]
            for entity in entities:
                names[entity["default_entity_id"]] = entity["name"]
    return names


@dataclass(frozen=True, slots=True)
class Home:
    """The devices of the home, to tell which of them a text names."""

    names: dict[str, str]

    def devices_in(self, text: str, *, by_name: bool = True) -> frozenset[str]:
        """Return the devices ``text`` names by id, or by name too (``light.kitchen_ceiling``, 厨房灯)."""
        return frozenset(
            entity_id
            for entity_id, name in self.names.items()
            if (by_name and name in text) or re.search(rf"(?<![\w.]){re.escape(entity_id)}(?!\w)", text)
        )

    def label(self, devices: frozenset[str]) -> str:
        """Return devices as their names, sorted (厨房灯, 车库门), or a dash for none."""
        return ", ".join(sorted(self.names[device] for device in devices)) or "-"
