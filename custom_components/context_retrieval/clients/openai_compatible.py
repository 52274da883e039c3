"""The base of the OpenAI-compatible clients: ``POST {base_url}/<path>`` with a bearer key.

The chat and the embeddings clients talk to the same kind of server (DashScope compatible
mode, OpenAI, Ollama, vLLM, llama.cpp server); the request itself is ``http``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from custom_components.context_retrieval.const import LLM_MAX_ATTEMPTS, LLM_TIMEOUT

from .json_http import RETRY_DELAY, ErrorClasses, RetryPolicy, async_request_json

if TYPE_CHECKING:
    from collections.abc import Mapping

    import aiohttp


@dataclass(slots=True)
class OpenAICompatibleClient:
    """One OpenAI-compatible endpoint and model, reached through an injected aiohttp session."""

    errors: ClassVar[ErrorClasses]
    """The error classes this client raises; each subclass names its own."""

    session: aiohttp.ClientSession
    """Home Assistant's shared session (``async_get_clientsession(hass)``)."""
    base_url: str
    """The API root, e.g. ``https://dashscope.aliyuncs.com/compatible-mode/v1``."""
    api_key: str | None
    """Sent as a bearer token; None or empty sends no ``Authorization`` header."""
    model: str
    timeout: float = LLM_TIMEOUT
    """Seconds one request may take, retries and waits included."""
    max_attempts: int = LLM_MAX_ATTEMPTS
    retry_delay: float = RETRY_DELAY

    async def _async_post_json(self, path: str, payload: Mapping[str, Any]) -> Any:
        """POST ``payload`` to ``{base_url}/{path}`` and return the decoded JSON answer."""
        return await async_request_json(
            self.session,
            self.errors,
            "POST",
            f"{self.base_url.rstrip('/')}/{path}",
            payload=payload,
            headers={"Authorization": f"Bearer {self.api_key}"} if self.api_key else {},
            policy=RetryPolicy(self.timeout, self.max_attempts, self.retry_delay),
        )
