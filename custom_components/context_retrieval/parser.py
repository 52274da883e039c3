"""The parsing LLM: one asynchronous request per utterance, outages logged once and paused."""

from __future__ import annotations

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
"""``llm_error`` of a request not sent because the endpoint failed moments ago."""


@dataclass(slots=True)
class LLMParser:
    """Ask the configured chat endpoint for the wire-format parse of an utterance.

    Any failure hands the utterance to the offline parser (the caller passes no LLM to
    the engine) and says why in ``meta``. After a failed request the endpoint is left
    alone for ``LLM_OUTAGE_PAUSE`` seconds, so an endpoint that hangs costs one timeout
    per pause, not one per request.
    """

    client: OpenAICompatibleChat
    failing: bool = False
    """True while the endpoint fails (or answers nonsense), so the outage is logged once."""
    paused_until: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    async def async_parse(
        self, system_prompt: str, text: str
    ) -> tuple[PrefetchedAnswer | None, dict[str, Any]]:
        """Return the model's answer for the engine, or None and the ``meta`` saying why not."""
        if self.clock() < self.paused_until:
            return None, {"llm_error": OUTAGE, "fallback": "offline_parser"}
        try:
            answer = await self.client.async_complete(system_prompt, text)
        except ChatError as err:
            self.report_failure(f"{type(err).__name__}: {err}")
            self.paused_until = self.clock() + LLM_OUTAGE_PAUSE
            return None, {"llm_error": type(err).__name__, "fallback": "offline_parser"}
        if parse_commands(answer).degraded:
            self.report_failure("its answer was not the command format")
            return None, {"llm_error": INVALID_ANSWER, "fallback": "offline_parser"}
        self.report_success()
        return PrefetchedAnswer(answer), {}

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
