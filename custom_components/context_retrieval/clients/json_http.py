"""What every HTTP client of the integration shares: its errors and one retried JSON request.

Each client (OpenAI-compatible chat and embeddings, SmartThings) raises its own error
classes (``ChatAuthError``, ``EmbeddingAuthError``, ...), which also derive from the shared
ones here, so callers handle them with one set of ``except`` clauses. 429, 5xx and dropped
connections are retried within one time budget, honouring ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import aiohttp

from custom_components.context_retrieval.const import LLM_MAX_ATTEMPTS, LLM_TIMEOUT, MAX_RETRY_AFTER

if TYPE_CHECKING:
    from collections.abc import Mapping

RETRY_DELAY: Final = 0.5
"""Seconds before retrying a 5xx, a dropped connection or a 429 without ``Retry-After``."""
MAX_ERROR_TEXT: Final = 200
"""Characters of an error body quoted in the exception message."""


class EndpointError(Exception):
    """An endpoint gave no usable answer."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        """Store the message and, for transient failures, when the request may be retried."""
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds after which the same request may succeed; None when retrying cannot help."""


class EndpointAuthError(EndpointError):
    """The endpoint rejected the key or token (401 or 403)."""


class EndpointConnectionError(EndpointError):
    """The endpoint could not be reached, dropped the connection, timed out or failed (5xx)."""


class EndpointRateLimitError(EndpointError):
    """The endpoint answered 429 for longer than the request may wait."""


class EndpointResponseError(EndpointError):
    """The endpoint answered, but not as the protocol says (another 4xx, malformed JSON, wrong shape)."""


class ErrorClasses(NamedTuple):
    """The error classes one client raises, one per kind of failure."""

    auth: type[EndpointAuthError]
    connection: type[EndpointConnectionError]
    rate_limit: type[EndpointRateLimitError]
    response: type[EndpointResponseError]


def parse_retry_after(value: str | None) -> float | None:
    """Return the seconds a ``Retry-After`` header asks for, None when absent or not a number.

    Only the delta-seconds form is read: the servers we talk to send it, and an HTTP date
    would need a clock shared with the server.
    """
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return None if math.isnan(seconds) else max(seconds, 0.0)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long one request may take and how often it is tried."""

    timeout: float = LLM_TIMEOUT
    """Seconds one request may take, retries and waits included."""
    max_attempts: int = LLM_MAX_ATTEMPTS
    retry_delay: float = RETRY_DELAY
    """Seconds before retrying a 5xx, a dropped connection or a 429 without ``Retry-After``."""


DEFAULT_POLICY = RetryPolicy()


async def async_request_json(  # noqa: PLR0913 - one request, fully described
    session: aiohttp.ClientSession,
    errors: ErrorClasses,
    method: str,
    url: str,
    *,
    payload: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Any:
    """Send a request and return the decoded JSON answer, raising ``errors`` on failure.

    429, 5xx and dropped connections are retried up to ``max_attempts`` requests, all
    within one ``timeout``. A wait that would pass ``MAX_RETRY_AFTER`` or the time left
    fails at once with the error that asked for it.
    """
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(policy.timeout) as budget:
            attempt = 1
            while True:
                try:
                    return await _async_send_once(
                        session, errors, method, url, payload, headers or {}, policy.retry_delay
                    )
                except EndpointError as err:
                    delay = err.retry_after
                    deadline = budget.when()
                    if (
                        delay is None
                        or attempt >= policy.max_attempts
                        or delay > MAX_RETRY_AFTER
                        or (deadline is not None and loop.time() + delay >= deadline)
                    ):
                        raise
                await asyncio.sleep(delay)
                attempt += 1
    except TimeoutError as err:
        raise errors.connection(f"{url} did not answer within {policy.timeout:g} s") from err


async def _async_send_once(  # noqa: PLR0913
    session: aiohttp.ClientSession,
    errors: ErrorClasses,
    method: str,
    url: str,
    payload: Mapping[str, Any] | None,
    headers: Mapping[str, str],
    retry_delay: float,
) -> Any:
    """Send one request; raise the client's error, with ``retry_after`` when a retry may help."""
    try:
        async with session.request(method, url, json=payload, headers=headers) as response:
            if response.status == HTTPStatus.OK:
                try:
                    return await response.json(content_type=None)
                except ValueError as err:
                    raise errors.response(f"{url} did not answer JSON") from err
            text = await response.text(errors="replace")
            detail = f"{url} answered {response.status}: {text[:MAX_ERROR_TEXT]}"
            if response.status == HTTPStatus.TOO_MANY_REQUESTS:
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                raise errors.rate_limit(
                    detail, retry_after=retry_delay if retry_after is None else retry_after
                )
            if response.status in (HTTPStatus.UNAUTHORIZED, HTTPStatus.FORBIDDEN):
                raise errors.auth(detail)
            if response.status >= HTTPStatus.INTERNAL_SERVER_ERROR:
                raise errors.connection(detail, retry_after=retry_delay)
            raise errors.response(detail)
    except aiohttp.ClientConnectorError as err:
        raise errors.connection(f"{url} could not be reached: {err}") from err
    except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as err:
        raise errors.connection(f"{url} dropped the connection: {err}", retry_after=retry_delay) from err
    except aiohttp.ClientError as err:
        raise errors.connection(f"{url} could not be asked: {err}") from err
