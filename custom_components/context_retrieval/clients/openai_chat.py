"""OpenAI-compatible chat completions client (DashScope, OpenAI, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointError,
    EndpointRateLimitError,
    EndpointResponseError,
    ErrorClasses,
)
from .openai_compatible import OpenAICompatibleClient

MAX_OUTPUT_TOKENS: Final = 512
"""The wire format is compact; a parse never needs more."""
VALIDATION_SYSTEM_PROMPT: Final = "Answer with one word."
VALIDATION_USER_TEXT: Final = "Ping?"


class ChatError(EndpointError):
    """The chat endpoint gave no usable answer."""


class ChatAuthError(ChatError, EndpointAuthError):
    """The chat endpoint rejected the API key (401/403)."""


class ChatConnectionError(ChatError, EndpointConnectionError):
    """The chat endpoint could not be reached, timed out or failed (5xx)."""


class ChatRateLimitError(ChatError, EndpointRateLimitError):
    """The chat endpoint answered 429 for longer than a parse may wait."""


class ChatResponseError(ChatError, EndpointResponseError):
    """The chat endpoint answered, but not with ``choices[0].message.content`` text."""


@dataclass(slots=True)
class OpenAICompatibleChat(OpenAICompatibleClient):
    """Ask an OpenAI-compatible ``/chat/completions`` endpoint for one answer."""

    errors: ClassVar[ErrorClasses] = ErrorClasses(
        ChatAuthError, ChatConnectionError, ChatRateLimitError, ChatResponseError
    )

    async def async_complete(self, system_prompt: str, user_text: str) -> str:
        """Return the assistant message for a system prompt and a user utterance."""
        body = await self._async_post_json(
            "chat/completions",
            {
                "model": self.model,
                "messages": [
                    {"role": "system", "content": system_prompt},
                    {"role": "user", "content": user_text},
                ],
                "temperature": 0,
                "max_tokens": MAX_OUTPUT_TOKENS,
                "stream": False,
            },
        )
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as err:
            raise ChatResponseError(f"{self.base_url} answered without choices[0].message.content") from err
        if not isinstance(content, str):
            raise ChatResponseError(f"{self.base_url} answered a non-text message")
        return content

    async def async_validate(self) -> None:
        """Send one small completion, proving the URL, the key and the model work."""
        await self.async_complete(VALIDATION_SYSTEM_PROMPT, VALIDATION_USER_TEXT)


@dataclass(slots=True, frozen=True)
class PrefetchedAnswer:
    """An ``LLMClient`` that returns an answer already fetched asynchronously.

    ``retrieve`` is synchronous; the caller awaits the chat client first and hands the
    text, or the error it raised, over through this object.
    """

    answer: str = ""
    error: ChatError | None = None

    def complete(self, system_prompt: str, user_text: str) -> str:  # noqa: ARG002 - protocol signature
        """Return the prefetched answer, or raise the error fetching it raised."""
        if self.error is not None:
            raise self.error
        return self.answer
