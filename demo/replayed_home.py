"""A replayed SmartThings household for ``scripts/demo --smartthings-replay DIR``.

``DIR`` is a dump like ``tests/data/smartthings``: ``devices.jsonl`` and
``rooms.jsonl`` (served by ``demo.smartthings_replay``), optionally ``spec.jsonl`` (the
profiles' commands, copied into the configuration and given to the integration) and
labelled query files, from which sample utterances are picked when there is one.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from demo.smartthings_replay import LOCATION, TOKEN, SmartThingsReplay, read_jsonl

if TYPE_CHECKING:
    from pathlib import Path

SPEC_FILE = "spec.jsonl"
CONFIG_SPEC_FILE = "smartthings_spec.jsonl"
"""Where the spec is copied, relative to the configuration directory (the option's value)."""
LABELLED_FILES = (("pipeline_cases.jsonl", "query"), ("parse_cases.jsonl", "text"))
"""Labelled query files of a dump, in order of preference, and the field holding the utterance."""
MAX_SAMPLES = 8
UNCATEGORISED = "Others"


def _category(device: dict[str, Any]) -> str:
    """Return the first category of a device's components (its kind: Light, Blind...)."""
    for component in device.get("components") or ():
        for category in component.get("categories") or ():
            if category.get("name"):
                return str(category["name"])
    return UNCATEGORISED


def _spread(items: list[str], count: int) -> list[str]:
    """Return ``count`` items spread evenly over ``items`` (all of them when there are fewer)."""
    if len(items) <= count:
        return items
    return [items[index * len(items) // count] for index in range(count)]


def sample_utterances(
    directory: Path, devices: list[dict[str, Any]], rooms: list[dict[str, Any]]
) -> list[str]:
    """Return a few utterances: from a labelled file when the dump has one, else from device names."""
    for name, key in LABELLED_FILES:
        path = directory / name
        if path.is_file():
            cases = read_jsonl(path)
            texts = [case[key] for case in cases if isinstance(case, dict) and isinstance(case.get(key), str)]
            if texts:
                return _spread(texts, MAX_SAMPLES)
    return generated_utterances(devices, rooms)


def generated_utterances(devices: list[dict[str, Any]], rooms: list[dict[str, Any]]) -> list[str]:
    """Return 打开{room}的{label} for the first device of each category."""
    room_names = {room.get("roomId"): room.get("name") for room in rooms}
    seen: set[str] = set()
    texts = []
    for device in devices:
        category, label = _category(device), device.get("label") or device.get("name")
        if category in seen or not label:
            continue
        seen.add(category)
        room = room_names.get(device.get("roomId"))
        texts.append(f"打开{room}的{label}" if room else f"打开{label}")
    return texts[:MAX_SAMPLES]


@dataclass(slots=True)
class ReplayedHome:
    """A SmartThings dump: its replay server, its spec file and its sample utterances."""

    directory: Path
    replay: SmartThingsReplay
    samples: list[str]

    @classmethod
    def from_dump(cls, directory: Path) -> ReplayedHome:
        """Return the household of the dump in ``directory``; raise OSError or ValueError when unusable."""
        replay = SmartThingsReplay.from_dump(directory)
        samples = sample_utterances(directory, replay.devices, replay.rooms)
        if not samples:
            raise ValueError(f"{directory}: no labelled query and no named device to ask about")
        return cls(directory, replay, samples)

    @property
    def device_ids(self) -> frozenset[str]:
        """Return the SmartThings ids of the household's devices."""
        return frozenset(device["deviceId"] for device in self.replay.devices)

    def summary(self) -> str:
        """Return the counts of devices, rooms and devices per category."""
        categories = Counter(_category(device) for device in self.replay.devices)
        per_category = ", ".join(f"{name} {count}" for name, count in categories.most_common())
        devices, rooms = len(self.replay.devices), len(self.replay.rooms)
        return f"{devices} SmartThings devices in {rooms} rooms ({per_category})"

    def install_spec(self, config_dir: Path) -> str | None:
        """Copy the dump's spec into ``config_dir``; return the option's value (None: no spec)."""
        source = self.directory / SPEC_FILE
        if not source.is_file():
            return None
        shutil.copyfile(source, config_dir / CONFIG_SPEC_FILE)
        return CONFIG_SPEC_FILE

    def flow_settings(self, spec: str | None) -> dict[str, str]:
        """Return the config flow fields connecting the integration to the replayed account."""
        settings = {"smartthings_token": TOKEN, "smartthings_location_id": LOCATION}
        return settings | ({"smartthings_spec": spec} if spec else {})
