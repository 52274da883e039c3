"""Constants of the Context Retrieval integration (config keys per CONTRACT §4)."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "context_retrieval"
LOGGER = logging.getLogger(__package__)

# Config entry keys (the flows write them to options; data is read too, options win).
CONF_LLM_BASE_URL: Final = "llm_base_url"
CONF_LLM_API_KEY: Final = "llm_api_key"
CONF_LLM_MODEL: Final = "llm_model"
CONF_EMBEDDING_BACKEND: Final = "embedding_backend"
CONF_EMBEDDING_BASE_URL: Final = "embedding_base_url"
CONF_EMBEDDING_API_KEY: Final = "embedding_api_key"
CONF_EMBEDDING_MODEL: Final = "embedding_model"
CONF_TOP_K: Final = "top_k"
CONF_SMARTTHINGS_TOKEN: Final = "smartthings_token"  # noqa: S105 - a config key, not a secret
CONF_SMARTTHINGS_LOCATION_ID: Final = "smartthings_location_id"
CONF_DELEGATE_AGENT: Final = "delegate_agent"
"""The conversation agent the Context Retrieval agent hands each request to (none: it acts offline)."""
CONF_SMARTTHINGS_SPEC: Final = "smartthings_spec"
"""Path of a spec.jsonl (JSON array or JSON Lines), relative to the configuration directory or absolute."""

EMBEDDING_BACKEND_LOCAL: Final = "local"
EMBEDDING_BACKEND_OPENAI: Final = "openai"
EMBEDDING_BACKENDS: Final = (EMBEDDING_BACKEND_LOCAL, EMBEDDING_BACKEND_OPENAI)

DEFAULT_EMBEDDING_BACKEND: Final = EMBEDDING_BACKEND_LOCAL
DEFAULT_TOP_K: Final = 5
MIN_TOP_K: Final = 1
MAX_TOP_K: Final = 50

# The retrieve service.
SERVICE_RETRIEVE: Final = "retrieve"
SERVICE_REFRESH: Final = "refresh"
ATTR_TEXT: Final = "text"
ATTR_TOP_K: Final = "top_k"
ATTR_CONVERSATION_ID: Final = "conversation_id"
MAX_TEXT_LENGTH: Final = 500
"""Characters an utterance may have; a spoken command is far shorter."""
MAX_CONVERSATION_ID_LENGTH: Final = 200
MAX_CONVERSATIONS: Final = 500
PENDING_CHOICE_TTL: Final = 120.0
RELOAD_WAIT: Final = 60.0
"""Seconds a call arriving while the entry reloads (an options save) waits for it to load again."""
"""Seconds an answer (主卧的) may take to pick one of the devices the agent asked about."""
"""Conversation states kept at once; the least recently used is dropped first."""

# The parsing LLM.
LLM_TIMEOUT: Final = 10.0
"""Seconds one parse may take, retries included, before the offline parser takes over."""
LLM_MAX_ATTEMPTS: Final = 2
"""Requests per parse: one retry on 429, 5xx or a dropped connection."""
LLM_OUTAGE_PAUSE: Final = 30.0
"""Seconds the offline parser parses alone after a failed request, before the LLM is tried again."""
MAX_RETRY_AFTER: Final = 5.0
"""Longest Retry-After (seconds) honoured inside one parse."""

# The openai embedding backend.
EMBEDDING_QUERY_TIMEOUT: Final = 2.0
"""Seconds one query's embedding may take on the request path before the local index answers."""
EMBEDDING_REQUEST_TIMEOUT: Final = 30.0
"""Seconds one batch of document texts may take, retries included."""
EMBEDDING_DOCUMENT_TIMEOUT: Final = 600.0
"""Seconds all of a build's new document texts may take before the build goes on without them."""
EMBEDDING_DOCUMENT_ATTEMPTS: Final = 3
EMBEDDING_OUTAGE_PAUSE: Final = 30.0
"""Seconds the local index answers alone after the endpoint failed."""
MAX_CACHED_EMBEDDINGS: Final = 20_000
"""Command texts whose vectors are kept in storage (a 1,000-entity home has a few hundred)."""
EMBEDDING_CACHE_SAVE_DELAY: Final = 10.0

# The SmartThings direct connection.
SMARTTHINGS_REFRESH_INTERVAL: Final = 600.0
"""Seconds between two reads of the SmartThings account (devices and rooms)."""

# The index.
REBUILD_COOLDOWN: Final = 1.0
"""Seconds of quiet after a registry or exposure change before the index is rebuilt."""
