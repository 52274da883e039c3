"""Load the shared SmartThings data set, the gold parses and synthetic homes.

The data lives next to the repository (``../shared/data/smartthings``); the
``CONTEXT_RETRIEVAL_DATA`` environment variable points elsewhere. Synthetic homes
copy the 30 original devices: copy 0 is the original home (so the labelled cases
keep their targets), copy ``k >= 1`` gets ids ``<id>-k``, names ``<name><k+1>号``,
rooms ``<room><k+1>`` (客厅2, 客厅3, ...) and the same profiles.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from custom_components.context_retrieval.core import devices_from_smartthings, load_spec

if TYPE_CHECKING:
    from custom_components.context_retrieval.core import Device

DATA_ENV = "CONTEXT_RETRIEVAL_DATA"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO_ROOT / "tests" / "data" / "smartthings"
GARBAGE_ANSWER = "sorry, I cannot help"


def data_dir() -> Path:
    """Return the directory of the SmartThings data set."""
    override = os.environ.get(DATA_ENV)
    return Path(override) if override else DEFAULT_DATA_DIR


def read_records(path: Path) -> list[dict[str, Any]]:
    """Read a file holding either one JSON array or one JSON object per line."""
    text = path.read_text(encoding="utf-8").strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@dataclass(frozen=True, slots=True)
class PipelineCase:
    """One labelled utterance of ``pipeline_cases.jsonl`` with its gold parse."""

    id: str
    query: str
    complexity: str
    expected_device_ids: tuple[str, ...]
    expected_capability_ids: tuple[str, ...]
    gold: tuple[dict[str, Any], ...]
    """The command array a correct parse returns (wire format)."""


@dataclass(frozen=True, slots=True)
class ParseCase:
    """One utterance with the exact command array a correct parse returns."""

    id: str
    text: str
    gold: tuple[dict[str, Any], ...]
    tags: tuple[str, ...]


@dataclass(slots=True)
class Dataset:
    """Everything the benchmarks read from the shared data directory."""

    items: list[dict[str, Any]]
    """``GET /v1/devices`` items of the 30-device home."""
    rooms: list[dict[str, Any]]
    spec: Any
    """The ``SpecIndex`` of ``spec.jsonl``."""
    devices: list[Device]
    pipeline_cases: list[PipelineCase]
    parse_cases: list[ParseCase]

    def gold_texts(self) -> dict[str, list[dict[str, Any]]]:
        """Return every utterance with a gold parse, mapped to its command array."""
        gold = {case.text: list(case.gold) for case in self.parse_cases}
        gold.update({case.query: list(case.gold) for case in self.pipeline_cases})
        return gold


def load_pipeline_cases(directory: Path) -> list[PipelineCase]:
    """Join ``pipeline_cases.jsonl`` with ``pipeline_gold.jsonl`` by id."""
    gold = {record["id"]: record for record in read_records(directory / "pipeline_gold.jsonl")}
    cases = []
    for record in read_records(directory / "pipeline_cases.jsonl"):
        gold_record = gold[record["id"]]
        if gold_record["text"] != record["query"]:
            raise ValueError(f"gold text differs from the query of {record['id']}")
        cases.append(
            PipelineCase(
                id=record["id"],
                query=record["query"],
                complexity=record.get("complexity", ""),
                expected_device_ids=tuple(record["expected_device_ids"]),
                expected_capability_ids=tuple(record["expected_capability_ids"]),
                gold=tuple(gold_record["gold_commands"]),
            )
        )
    return cases


def load_parse_cases(directory: Path) -> list[ParseCase]:
    """Read ``parse_cases.jsonl``; cases are numbered ``p-01``, ``p-02``, ... in file order."""
    return [
        ParseCase(
            id=f"p-{number:02d}",
            text=record["text"],
            gold=tuple(record["gold_commands"]),
            tags=tuple(record.get("tags", ())),
        )
        for number, record in enumerate(read_records(directory / "parse_cases.jsonl"), start=1)
    ]


def load_dataset(directory: Path | None = None) -> Dataset:
    """Load devices, spec and labelled cases of the shared data set."""
    directory = directory or data_dir()
    if not directory.is_dir():
        raise FileNotFoundError(f"data directory {directory} not found (set {DATA_ENV})")
    items = read_records(directory / "devices.jsonl")
    rooms = read_records(directory / "rooms.jsonl")
    spec = load_spec(directory / "spec.jsonl")
    return Dataset(
        items=items,
        rooms=rooms,
        spec=spec,
        devices=devices_from_smartthings(items, rooms, spec),
        pipeline_cases=load_pipeline_cases(directory),
        parse_cases=load_parse_cases(directory),
    )


def copy_room(room: dict[str, Any], copy: int) -> dict[str, Any]:
    """Return room ``room`` of synthetic copy ``copy`` (copy 0 is the original)."""
    if copy == 0:
        return room
    return {**room, "roomId": f"{room['roomId']}-{copy}", "name": f"{room['name']}{copy + 1}"}


def copy_item(item: dict[str, Any], copy: int, room_names: dict[str, str], tag: str = "") -> dict[str, Any]:
    """Return device item ``item`` of synthetic copy ``copy`` (same profile and components).

    A non-empty ``tag`` is appended to every device id (copy 0 included), so a home with
    the same names and rooms still differs from every other home built before it.
    """
    if copy == 0:
        return {**item, "deviceId": f"{item['deviceId']}{tag}"} if tag else item
    name = f"{item.get('label') or item.get('name') or item['deviceId']}{copy + 1}号"
    room_id = f"{item['roomId']}-{copy}"
    copied = {**item, "deviceId": f"{item['deviceId']}-{copy}{tag}", "label": name, "name": name}
    copied["roomId"] = room_id
    if isinstance(item.get("virtual"), dict):
        copied["virtual"] = {**item["virtual"], "name": f"{room_names.get(room_id, '')}{name}"}
    return copied


def synthetic_smartthings(
    items: list[dict[str, Any]], rooms: list[dict[str, Any]], size: int, tag: str = ""
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return ``size`` device items and their rooms, replicating the home as needed."""
    copies = -(-size // len(items))
    all_rooms = [copy_room(room, copy) for copy in range(copies) for room in rooms]
    room_names = {room["roomId"]: room["name"] for room in all_rooms}
    all_items = [copy_item(item, copy, room_names, tag) for copy in range(copies) for item in items][:size]
    used = {item["roomId"] for item in all_items}
    return all_items, [room for room in all_rooms if room["roomId"] in used]


def build_home(dataset: Dataset, size: int, tag: str = "") -> list[Device]:
    """Return a fresh synthetic home of exactly ``size`` devices (new objects each call).

    ``tag`` suffixes every device id (see ``copy_item``); the expected ids of the
    labelled cases only hold without it.
    """
    items, rooms = synthetic_smartthings(dataset.items, dataset.rooms, size, tag)
    return devices_from_smartthings(items, rooms, dataset.spec)


class GoldLLM:
    """A fake LLM that answers each known utterance with its gold command array."""

    def __init__(self, gold: dict[str, list[dict[str, Any]]]) -> None:
        """Store the gold answers as serialised JSON, keyed by utterance."""
        self._answers = {text: json.dumps(commands, ensure_ascii=False) for text, commands in gold.items()}
        self._by_length = sorted(self._answers, key=len, reverse=True)
        self.calls = 0
        self.misses: list[str] = []

    def complete(self, system_prompt: str, user_text: str) -> str:  # noqa: ARG002 - protocol signature
        """Return the gold array of ``user_text`` (or of the longest known utterance inside it)."""
        self.calls += 1
        answer = self._answers.get(user_text.strip())
        if answer is not None:
            return answer
        for text in self._by_length:
            if text in user_text:
                return self._answers[text]
        self.misses.append(user_text)
        return "[]"


class GarbageLLM:
    """A fake LLM whose answer is never a command array (tests the raw-text fallback)."""

    def __init__(self) -> None:
        """Start counting calls."""
        self.calls = 0

    def complete(self, system_prompt: str, user_text: str) -> str:  # noqa: ARG002 - protocol signature
        """Return prose instead of JSON."""
        self.calls += 1
        return GARBAGE_ANSWER
