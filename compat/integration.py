"""The names of the integration the check relies on, imported from the integration itself.

The check runs in the project's environment (Home Assistant 2026.10), which can import the
integration; the Home Assistant under test loads the same files from its configuration folder.
"""

from custom_components.context_retrieval.const import CONF_DELEGATE_AGENT, DOMAIN, SERVICE_RETRIEVE
from custom_components.context_retrieval.llm_api import (
    API_ID,
    LIVE_CONTEXT_TOOL,
    REQUEST_CONTEXT_HEADER,
    REQUEST_CONTEXT_TOOL,
)

CONVERSATION_ENTITY = f"conversation.{DOMAIN}"
"""Context Retrieval's own conversation agent (one per config entry, named after the integration)."""

__all__ = [
    "API_ID",
    "CONF_DELEGATE_AGENT",
    "CONVERSATION_ENTITY",
    "DOMAIN",
    "LIVE_CONTEXT_TOOL",
    "REQUEST_CONTEXT_HEADER",
    "REQUEST_CONTEXT_TOOL",
    "SERVICE_RETRIEVE",
]
