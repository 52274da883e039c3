"""OpenAI-compatible chat completions client (DashScope, OpenAI, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from http import HTTPStatus

import aiohttp

DEFAULT_TIMEOUT = 30.0
"""Seconds one parse may take before the offline parser takes over."""
MAX_OUTPUT_TOKENS = 512
"""The wire format is compact; a parse never needs more."""


class ChatError(Exception):
    """The chat endpoint could not produce an answer."""


class ChatAuthError(ChatError):
    """The endpoint rejected the API key (401/403)."""


class ChatConnectionError(ChatError):
    """The endpoint could not be reached or timed out."""


@dataclass(slots=True)
class OpenAICompatibleChat:
    """Ask an OpenAI-compatible ``/chat/completions`` endpoint for one answer."""

    session: aiohttp.ClientSession
    base_url: str
    api_key: str
    model: str
    timeout: float = DEFAULT_TIMEOUT

    async def async_complete(self, system_prompt: str, user_text: str) -> str:
        """Return the assistant message for a system prompt and a user utterance."""
        url = f"{self.base_url.rstrip('/')}/chat/completions"
        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system_prompt},
                {"role": "user", "content": user_text},
            ],
            "temperature": 0,
            "max_tokens": MAX_OUTPUT_TOKENS,
        }
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            async with asyncio.timeout(self.timeout):
                async with self.session.post(url, json=payload, headers=headers) as response:
                    if response.status in (HTTPStatus.UNAUTHORIZED, HTTPStatus.FORBIDDEN):
                        raise ChatAuthError(f"{url} rejected the API key ({response.status})")
                    if response.status >= HTTPStatus.BAD_REQUEST:
                        raise ChatError(f"{url} answered {response.status}: {(await response.text())[:200]}")
                    body = await response.json(content_type=None)
        except TimeoutError as err:
            raise ChatConnectionError(f"{url} did not answer within {self.timeout:g} s") from err
        except aiohttp.ClientError as err:
            raise ChatConnectionError(f"{url} could not be reached: {err}") from err
        except ValueError as err:
            raise ChatError(f"{url} did not answer JSON") from err
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as err:
            raise ChatError(f"{url} answered without choices[0].message.content") from err
        if not isinstance(content, str):
            raise ChatError(f"{url} answered a non-text message")
        return content


@dataclass(slots=True, frozen=True)
class PrefetchedAnswer:
    """An ``LLMClient`` that returns an answer already fetched asynchronously.

    ``retrieve`` is synchronous (it runs in an executor); the caller awaits the chat
    client first and hands the text, or the error it raised, over through this object.
    """

    answer: str = ""
    error: ChatError | None = None

    def complete(self, system_prompt: str, user_text: str) -> str:  # noqa: ARG002 - protocol signature
        """Return the prefetched answer, or raise the error fetching it raised."""
        if self.error is not None:
            raise self.error
        return self.answer
