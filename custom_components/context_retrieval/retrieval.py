"""One retrieval request: parse (LLM, else offline), run the engine, shape the answer as JSON."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from .core import render_yaml_context, retrieve
from .core.parsing.offline import ACTION_QUERY
from .embeddings import EmbeddingUnavailable

if TYPE_CHECKING:
    from .core import Candidate, Device, Group, RetrievalResult
    from .data import ContextRetrievalData
    from .index import BuiltHome

FIELD_SEPARATOR = ":"
"""A command id is ``<service>`` or ``<service>:<field>`` (``light.turn_on:brightness_pct``)."""
SCORE_DIGITS = 4


@dataclass(frozen=True, slots=True)
class Retrieval:
    """The engine's results for one utterance, the build they came from, and the YAML context."""

    results: list[RetrievalResult]
    home: BuiltHome
    yaml: str
    previous: tuple[str, ...] = ()
    """The devices the conversation's memory pointed at before this utterance (its last turn's)."""
    asked_before: bool = False
    """True when the conversation's last command asked about those devices (哪些灯开着)."""

    def response(self) -> dict[str, Any]:
        """Return the service response (CONTRACT §4)."""
        return {
            "results": [_result_json(result, self.home) for result in self.results],
            "yaml": self.yaml,
        }

    def device_ids(self) -> list[str]:
        """Return the devices the results point at, group members included, first seen first."""
        found: dict[str, None] = {}
        for result in self.results:
            for candidate in result.candidates:
                group = result.groups.get(candidate.entity_id) if candidate.entity_kind == "group" else None
                found.update(dict.fromkeys(group.device_ids if group else [candidate.entity_id]))
        return list(found)


async def async_run_retrieval(  # noqa: PLR0913 - keyword-only options of one request
    data: ContextRetrievalData,
    text: str,
    *,
    top_k: int | None = None,
    conversation_id: str | None = None,
    offline: bool = False,
    language: str | None = None,
) -> Retrieval:
    """Parse (LLM, else offline) and retrieve for an utterance; ``offline`` skips the LLM parser.

    The YAML describes commands in ``language`` (default: Home Assistant's), see ``render_yaml_context``.
    """
    home = data.index.current
    llm, meta = None, {}
    if data.parser is not None and not offline:
        llm, meta = await data.parser.async_parse(home.index.system_prompt, text)
    state = data.conversations.get(conversation_id)
    previous = tuple(state.last_mentioned())
    last = state.last_command()
    asked_before = last is not None and last.a.startswith(ACTION_QUERY)
    run = partial(retrieve, text, home.devices, llm, state, top_k or data.settings.top_k)
    remote = data.embeddings
    if remote is None:
        results = run(home.index)
    elif home.remote_index is None or not remote.available():
        if home.remote_index is None and remote.available():
            data.index.async_schedule_rebuild()  # the endpoint may answer again: embed the commands
        results = run(home.index)
        meta |= {"embedding": "local", "embedding_fallback": "unavailable"}
    else:
        try:
            # The query vectors come from the endpoint: wait for them in a worker thread.
            results = await data.index.hass.async_add_executor_job(run, home.remote_index)
            meta |= {"embedding": remote.model}
        except EmbeddingUnavailable:
            results = run(home.index)
            meta |= {"embedding": "local", "embedding_fallback": "query_failed"}
    for result in results:
        result.meta.update(meta)
    yaml = render_yaml_context(
        results, list(home.devices), language=language or data.index.hass.config.language
    )
    return Retrieval(results, home, yaml, previous, asked_before)


def split_command_id(command_id: str | None) -> tuple[str | None, str | None]:
    """Return the service (or ``state``) and the field of a command id."""
    if command_id is None:
        return None, None
    service, _, field = command_id.partition(FIELD_SEPARATOR)
    return service, field or None


def _result_json(result: RetrievalResult, home: BuiltHome) -> dict[str, Any]:
    """Return one command's result as JSON."""
    return {
        "command": result.command.to_dict(),
        "candidates": [
            _candidate_json(candidate, result.groups, home.by_id) for candidate in result.candidates
        ],
        "hint": result.hint,
        "meta": result.meta,
    }


def _candidate_json(
    candidate: Candidate, groups: dict[str, Group], devices: dict[str, Device]
) -> dict[str, Any]:
    """Return a candidate with its name and room (a group's members and shared room)."""
    service, field = split_command_id(candidate.capability_id)
    found: dict[str, Any] = {
        "entity_id": candidate.entity_id,
        "kind": candidate.entity_kind,
        "capability_id": service,
    }
    if field is not None:
        found["field"] = field
    if candidate.entity_kind == "group":
        group = groups[candidate.entity_id]
        rooms = {devices[device_id].room for device_id in group.device_ids if device_id in devices}
        found |= {"name": group.name, "room": rooms.pop() if len(rooms) == 1 else None}
        found["device_ids"] = list(group.device_ids)
    else:
        device = devices.get(candidate.entity_id)
        found |= {"name": device.name if device else None, "room": (device.room or None) if device else None}
    found |= {
        "score": round(candidate.total_score, SCORE_DIGITS),
        "keyword_score": round(candidate.keyword_score, SCORE_DIGITS),
        "vector_score": round(candidate.vector_score, SCORE_DIGITS),
        "reasons": list(candidate.reasons),
    }
    return found
