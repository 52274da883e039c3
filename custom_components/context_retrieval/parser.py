"""The parsing LLM: one asynchronous request per utterance, outages logged once."""

from __future__ import annotations

from dataclasses import dataclass

from .clients.openai_chat import ChatError, OpenAICompatibleChat
from .const import LOGGER


@dataclass(frozen=True, slots=True)
class LLMAnswer:
    """An answer already fetched, handed to the synchronous engine as its ``llm``."""

    text: str

    def complete(self, system_prompt: str, user_text: str) -> str:  # noqa: ARG002 - engine protocol
        """Return the fetched answer."""
        return self.text


@dataclass(slots=True)
class LLMParser:
    """Ask the configured chat endpoint for the wire-format parse of an utterance."""

    client: OpenAICompatibleChat
    failing: bool = False
    """True while the endpoint fails (or answers nonsense), so the outage is logged once."""

    async def async_parse(self, system_prompt: str, text: str) -> LLMAnswer | ChatError:
        """Return the model's answer, or the error that makes the offline parser take over."""
        try:
            answer = await self.client.async_complete(system_prompt, text)
        except ChatError as err:
            self.report_failure(f"{type(err).__name__}: {err}")
            return err
        return LLMAnswer(answer)

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
