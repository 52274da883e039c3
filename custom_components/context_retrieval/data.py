"""Typed runtime data of a loaded config entry, and its settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.util.hass_dict import HassKey

from .const import (
    CONF_DELEGATE_AGENT,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_BACKEND,
    CONF_EMBEDDING_BASE_URL,
    CONF_EMBEDDING_MODEL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_SMARTTHINGS_LOCATION_ID,
    CONF_SMARTTHINGS_SPEC,
    CONF_SMARTTHINGS_TOKEN,
    CONF_TOP_K,
    DEFAULT_EMBEDDING_BACKEND,
    DEFAULT_TOP_K,
    DOMAIN,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .conversation_states import ConversationMemory, ConversationStates, RequestContexts
    from .core.decision import Choice
    from .embeddings import RemoteEmbeddings
    from .index import HomeIndexManager
    from .parser import LLMParser
    from .smartthings_source import SmartThingsSource


@dataclass(frozen=True, slots=True)
class Settings:
    """What the entry is configured with (options override data)."""

    llm_base_url: str | None
    llm_api_key: str | None
    llm_model: str | None
    embedding_backend: str
    top_k: int
    embedding_base_url: str | None = None
    embedding_api_key: str | None = None
    embedding_model: str | None = None
    smartthings_token: str | None = None
    smartthings_location_id: str | None = None
    smartthings_spec: str | None = None
    delegate_agent: str | None = None
    """The agent the Context Retrieval agent hands requests to, with their devices; None: offline."""

    @classmethod
    def from_entry(cls, entry: ConfigEntry) -> Settings:
        """Return the settings of a config entry."""
        merged: Mapping[str, Any] = {**entry.data, **entry.options}
        return cls(
            llm_base_url=merged.get(CONF_LLM_BASE_URL) or None,
            llm_api_key=merged.get(CONF_LLM_API_KEY) or None,
            llm_model=merged.get(CONF_LLM_MODEL) or None,
            embedding_backend=merged.get(CONF_EMBEDDING_BACKEND, DEFAULT_EMBEDDING_BACKEND),
            top_k=int(merged.get(CONF_TOP_K, DEFAULT_TOP_K)),
            embedding_base_url=merged.get(CONF_EMBEDDING_BASE_URL) or None,
            embedding_api_key=merged.get(CONF_EMBEDDING_API_KEY) or None,
            embedding_model=merged.get(CONF_EMBEDDING_MODEL) or None,
            smartthings_token=merged.get(CONF_SMARTTHINGS_TOKEN) or None,
            smartthings_location_id=merged.get(CONF_SMARTTHINGS_LOCATION_ID) or None,
            smartthings_spec=merged.get(CONF_SMARTTHINGS_SPEC) or None,
            delegate_agent=merged.get(CONF_DELEGATE_AGENT) or None,
        )


@dataclass(slots=True)
class ConversationMemories:
    """What the conversations remember: Home Assistant's run holds it, so reloading the entry keeps it."""

    conversations: ConversationStates
    requests: RequestContexts
    choices: ConversationMemory[tuple[Choice, ...]]


DATA_MEMORY: HassKey[ConversationMemories] = HassKey(f"{DOMAIN}_memory")


@dataclass(slots=True)
class ContextRetrievalData:
    """Everything a loaded entry holds: the home's index, the parser and conversation memory."""

    settings: Settings
    index: HomeIndexManager
    parser: LLMParser | None
    """The LLM parser, None when no LLM is configured (the offline parser parses)."""
    conversations: ConversationStates
    smartthings: SmartThingsSource
    """The SmartThings account: the direct connection, else Home Assistant's SmartThings entry."""
    requests: RequestContexts
    """The current request of each conversation, for the LLM API's tools."""
    choices: ConversationMemory[tuple[Choice, ...]]
    """What the offline agent last asked each conversation to choose from."""
    embeddings: RemoteEmbeddings | None = None
    """The openai embedding backend, None with the local embedder."""


type ContextRetrievalConfigEntry = ConfigEntry[ContextRetrievalData]
