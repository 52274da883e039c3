"""Diagnostics: the entry's options and the index's figures, secrets redacted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.config_entries import ConfigEntryState

from .const import CONF_EMBEDDING_API_KEY, CONF_LLM_API_KEY, CONF_SMARTTHINGS_TOKEN

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .data import ContextRetrievalConfigEntry

TO_REDACT = {CONF_LLM_API_KEY, CONF_EMBEDDING_API_KEY, CONF_SMARTTHINGS_TOKEN}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant,  # noqa: ARG001 - HA signature
    entry: ContextRetrievalConfigEntry,
) -> dict[str, Any]:
    """Return the options (keys redacted), the index statistics, the parser's and the agent's state."""
    settings = {
        "data": async_redact_data(dict(entry.data), TO_REDACT),
        "options": async_redact_data(dict(entry.options), TO_REDACT),
    }
    if entry.state is not ConfigEntryState.LOADED:
        return settings | {"state": entry.state.value}  # no index or parser to report
    data = entry.runtime_data
    return settings | {
        "index": data.index.current.stats() | {"rebuilds": data.index.rebuilds},
        "parser": {
            "llm": data.parser is not None,
            "failing": data.parser.failing if data.parser else False,
        },
        "conversations": len(data.conversations),
        "agent": {
            "delegate": data.settings.delegate_agent,
            "requests_in_memory": len(data.requests),
            "questions_open": len(data.choices),
        },
        "smartthings": data.smartthings.diagnostics(),
    }
