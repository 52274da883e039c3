"""The parsing LLM: one request per utterance in flight, outages logged once and paused."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .clients.openai_chat import ChatError, OpenAICompatibleChat, PrefetchedAnswer
from .const import LLM_OUTAGE_PAUSE, LOGGER
from .core.parsing import parse_commands

if TYPE_CHECKING:
    from collections.abc import Callable

INVALID_ANSWER = "invalid_answer"
"""``llm_error`` of an answer that is not the command format."""
OUTAGE = "outage"
"""``llm_error`` of a request not sent, or not waited for, because the endpoint failed meanwhile."""


@dataclass(slots=True)
class LLMParser:
    """Ask the configured chat endpoint for the wire-format parse of an utterance.

    Any failure hands the utterance to the offline parser (the caller passes no LLM to
    the engine) and says why in ``meta``. Callers asking for the same utterance at once
    share one request and its outcome. When a request fails, every caller still waiting
    falls back at once, and the endpoint is left alone for ``LLM_OUTAGE_PAUSE`` seconds:
    an endpoint that hangs costs one timeout per pause, not one per request.
    """

    client: OpenAICompatibleChat
    failing: bool = False
    """True while the endpoint fails (or answers nonsense), so the outage is logged once."""
    paused_until: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    _in_flight: dict[tuple[str, str], asyncio.Task[str]] = field(default_factory=dict, repr=False)
    _outage: asyncio.Event | None = field(default=None, repr=False)
    """Set when a request fails: the callers waiting on other requests stop waiting."""

    async def async_parse(
        self, system_prompt: str, text: str
    ) -> tuple[PrefetchedAnswer | None, dict[str, Any]]:
        """Return the model's answer for the engine, or None and the ``meta`` saying why not."""
        if self.clock() < self.paused_until:
            return None, {"llm_error": OUTAGE, "fallback": "offline_parser"}
        if self._outage is None or (self._outage.is_set() and not self._in_flight):
            self._outage = asyncio.Event()  # a new try after the pause
        outage = self._outage
        request = self._request(system_prompt, text)
        stopped = asyncio.ensure_future(outage.wait())
        try:
            await asyncio.wait({request, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if not request.done():
            return None, {"llm_error": OUTAGE, "fallback": "offline_parser"}
        try:
            answer = request.result()
        except asyncio.CancelledError:
            return None, {"llm_error": OUTAGE, "fallback": "offline_parser"}
        except ChatError as err:
            self._fail(f"{type(err).__name__}: {err}")
            return None, {"llm_error": type(err).__name__, "fallback": "offline_parser"}
        if parse_commands(answer).degraded:
            self.report_failure("its answer was not the command format")
            return None, {"llm_error": INVALID_ANSWER, "fallback": "offline_parser"}
        self.report_success()
        return PrefetchedAnswer(answer), {}

    def _request(self, system_prompt: str, text: str) -> asyncio.Task[str]:
        """Return the request for the utterance in flight, sending it when none is."""
        key = (system_prompt, text)
        request = self._in_flight.get(key)
        if request is None:
            request = asyncio.ensure_future(self.client.async_complete(system_prompt, text))
            self._in_flight[key] = request
            request.add_done_callback(lambda done: self._finished(key, done))
        return request

    def _finished(self, key: tuple[str, str], request: asyncio.Task[str]) -> None:
        """Forget a request once it is done (its exception is read by its callers or here)."""
        if self._in_flight.get(key) is request:
            del self._in_flight[key]
        if not request.cancelled():
            request.exception()  # read, so a failure no caller waited for is not logged as lost

    def _fail(self, reason: str) -> None:
        """Start the pause, stop every caller waiting, and cancel the requests still in flight."""
        self.report_failure(reason)
        self.paused_until = self.clock() + LLM_OUTAGE_PAUSE
        if self._outage is not None:
            self._outage.set()
        for request in list(self._in_flight.values()):
            request.cancel()

    def report_failure(self, reason: str) -> None:
        """Log the start of an outage once; later failures stay quiet until it recovers."""
        if not self.failing:
            LOGGER.warning("The parsing LLM failed (%s); the offline parser parses until it recovers", reason)
        self.failing = True

    def report_success(self) -> None:
        """Log the end of an outage."""
        if self.failing:
            LOGGER.info("The parsing LLM answers again")
        self.failing = False
