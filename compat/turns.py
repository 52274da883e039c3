"""The conversation in each setup, and what every model request of every turn must hold.

The scripted model (``tests.ollama_server.FakeOllama``) answers each utterance with the
tool calls of its script, one per request, then with text; each request it received is
recorded. Two setups are checked in one conversation each:

* recommended: Context Retrieval's agent retrieves the devices of the utterance and hands
  them to the Ollama agent as the extra system prompt, after ``REQUEST_CONTEXT_HEADER``.
  The model reads the live context, then answers: 2 model calls per turn.
* direct: the Ollama agent alone, with the Context Retrieval API. Its system prompt is
  static; the model asks ``REQUEST_CONTEXT_TOOL`` for the devices, reads the live context,
  then answers: 3 model calls per turn.

In both, the static part of the system prompt (all of it in the direct setup) and the
tools must be byte-identical between turns, so LLM providers can cache them, and name no
device; this turn's context and live context must hold this turn's devices and none that
only the previous turn needed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from compat.home import CONVERSATION, Home, Turn
from compat.integration import LIVE_CONTEXT_TOOL, REQUEST_CONTEXT_HEADER, REQUEST_CONTEXT_TOOL
from demo.api import DemoError
from tests.ollama_server import FakeOllama, ModelTurn, ToolCall

if TYPE_CHECKING:
    from compat.hass import Agents, HomeAssistantUnderTest

ANSWER = "好的。"
"""What the scripted model finally says; Home Assistant must hand it back as the agent's speech."""


class Setup(StrEnum):
    """How the agent reaches the retrieved devices."""

    RECOMMENDED = "recommended"
    DIRECT = "direct"


SCRIPTED_CALLS: dict[Setup, tuple[str, ...]] = {
    Setup.RECOMMENDED: (LIVE_CONTEXT_TOOL,),
    Setup.DIRECT: (REQUEST_CONTEXT_TOOL, LIVE_CONTEXT_TOOL),
}
"""The tools the scripted model calls in every turn, in order, before it answers."""


@dataclass(slots=True)
class TurnRecord:
    """What one turn's model requests held, and what was wrong with them."""

    version: str
    setup: Setup
    number: int
    text: str
    model_calls: int = 0
    devices: frozenset[str] = frozenset()
    """The devices of this turn's context (the extra system prompt, or the request-context tool's result)."""
    static_identical: bool | None = None
    """Whether the static system prompt and the tools equal the previous turn's (None: first turn)."""
    problems: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TurnRequests:
    """The model requests of one turn, read as the model saw them."""

    requests: list[dict[str, Any]]

    def system_prompts(self) -> list[str]:
        """Return the system prompt of each request."""
        return [
            next((m["content"] for m in request["messages"] if m["role"] == "system"), "")
            for request in self.requests
        ]

    def tools(self) -> list[str]:
        """Return each request's tools as sent (JSON), to compare byte for byte."""
        return [json.dumps(request.get("tools") or [], ensure_ascii=False) for request in self.requests]

    def tool_names(self) -> list[str]:
        """Return the names of the tools the first request offered."""
        return (
            [tool["function"]["name"] for tool in self.requests[0].get("tools") or ()]
            if self.requests
            else []
        )

    def tool_results(self) -> list[Any]:
        """Return the tool results of this turn (after its user message) in its last request, in order."""
        if not self.requests:
            return []
        results: list[Any] = []
        for message in reversed(self.requests[-1]["messages"]):
            if message["role"] == "user":
                break
            if message["role"] == "tool":
                results.append(json.loads(message["content"]))
        return results[::-1]


def model_script(setup: Setup) -> dict[str, ModelTurn]:
    """Return the scripted model's answers to every utterance of the conversation in ``setup``."""
    calls = [ToolCall(name) for name in SCRIPTED_CALLS[setup]]
    return {turn.text: ModelTurn(list(calls), ANSWER) for turn in CONVERSATION}


@dataclass(slots=True)
class Conversation:
    """One conversation in one setup of one Home Assistant, checked turn by turn."""

    hass: HomeAssistantUnderTest
    ollama: FakeOllama
    home: Home
    setup: Setup
    records: list[TurnRecord] = field(default_factory=list)
    _static: tuple[str, str] | None = None
    """The previous turn's static system prompt and tools."""

    async def async_run(self, agents: Agents) -> list[TurnRecord]:
        """Hold the conversation through the setup's agent and return a checked record of each turn."""
        agent = agents.context_retrieval if self.setup is Setup.RECOMMENDED else agents.ollama
        self.ollama.scripts = model_script(self.setup)
        conversation_id = f"compat-{self.setup}"
        previous: Turn | None = None
        for number, turn in enumerate(CONVERSATION, 1):
            record = TurnRecord(self.hass.version, self.setup, number, turn.text)
            self.records.append(record)
            first = len(self.ollama.requests)
            try:
                answer = await self.hass.async_converse(agent, turn.text, conversation_id)
            except DemoError as err:
                record.problems.append(str(err))
            else:
                self._check_answer(record, answer, conversation_id)
            requests = TurnRequests(self.ollama.requests[first:])
            record.model_calls = len(requests.requests)
            self._check_requests(record, turn, previous, requests)
            previous = turn
        return self.records

    def _check_answer(self, record: TurnRecord, answer: dict[str, Any], conversation_id: str) -> None:
        """Check that the agent's speech is the model's answer, in the same conversation."""
        speech = answer.get("response", {}).get("speech", {}).get("plain", {}).get("speech")
        if speech != ANSWER:
            record.problems.append(f"the agent answered {speech!r}, not the model's {ANSWER!r}: {answer}")
        if answer.get("conversation_id") != conversation_id:
            record.problems.append(f"the conversation id changed to {answer.get('conversation_id')!r}")

    def _check_requests(
        self, record: TurnRecord, turn: Turn, previous: Turn | None, requests: TurnRequests
    ) -> None:
        """Check one turn's model requests: calls, static prompt and tools, context, live context."""
        expected_calls = len(SCRIPTED_CALLS[self.setup]) + 1
        if record.model_calls != expected_calls:
            record.problems.append(f"{record.model_calls} model calls, expected {expected_calls}")
        if not requests.requests:
            return
        if missing := set(SCRIPTED_CALLS[self.setup]) - set(requests.tool_names()):
            record.problems.append(f"tools not offered: {sorted(missing)}")
        prompts, tools = requests.system_prompts(), requests.tools()
        if len(set(prompts)) > 1 or len(set(tools)) > 1:
            record.problems.append("the system prompt or the tools changed between the calls of one turn")
        static, context = self._split_prompt(record, prompts[0])
        self._check_static(record, static, tools[0])
        results = requests.tool_results()
        if self.setup is Setup.DIRECT:
            context = self._tool_result_text(record, results, 0, REQUEST_CONTEXT_TOOL)
        record.devices = self.home.devices_in(context, by_name=False)
        self._check_devices(record, turn, previous, record.devices, "the context")
        live = self._tool_result_text(record, results, len(SCRIPTED_CALLS[self.setup]) - 1, LIVE_CONTEXT_TOOL)
        self._check_devices(
            record, turn, previous, self.home.devices_in(live), f"{LIVE_CONTEXT_TOOL}'s result"
        )

    def _check_static(self, record: TurnRecord, static: str, tools: str) -> None:
        """Check that the static system prompt names no device and, with the tools, equals the last turn's."""
        if named := self.home.devices_in(static):
            record.problems.append(f"the static system prompt names devices: {self.home.label(named)}")
        if self._static is not None:
            record.static_identical = self._static == (static, tools)
            if not record.static_identical:
                what = "system prompt" if self._static[0] != static else "tools"
                record.problems.append(f"the static {what} differs from the previous turn's")
        self._static = (static, tools)

    def _split_prompt(self, record: TurnRecord, prompt: str) -> tuple[str, str]:
        """Return the static part of a system prompt and the retrieved context after the header."""
        static, header, context = prompt.partition(REQUEST_CONTEXT_HEADER)
        if self.setup is Setup.RECOMMENDED and not header:
            record.problems.append(f"the system prompt has no {REQUEST_CONTEXT_HEADER!r}")
        if self.setup is Setup.DIRECT and header:
            record.problems.append(f"the direct setup's system prompt holds {REQUEST_CONTEXT_HEADER!r}")
        return static, context

    @staticmethod
    def _tool_result_text(record: TurnRecord, results: list[Any], index: int, tool: str) -> str:
        """Return the text of the ``index``-th tool result of the turn (the call of ``tool``)."""
        if index >= len(results):
            record.problems.append(f"no result of {tool} reached the model")
            return ""
        result = results[index]
        if isinstance(result, dict) and set(result) == {"data", "error"}:
            result = result["data"]  # an llm.ToolResult, as Home Assistant's Ollama agent sends it
        if not isinstance(result, dict) or not isinstance(result.get("result"), str):
            record.problems.append(f"{tool} answered {result!r}, not {{'result': ...}}")
            return json.dumps(result, ensure_ascii=False)
        return result["result"]

    def _check_devices(
        self, record: TurnRecord, turn: Turn, previous: Turn | None, found: frozenset[str], where: str
    ) -> None:
        """Check that ``found`` holds this turn's devices and none that only the previous turn needed."""
        if missing := turn.devices - found:
            record.problems.append(f"{where} lacks this turn's {self.home.label(missing)}")
        stale = (previous.devices - turn.devices) & found if previous else frozenset()
        if stale:
            record.problems.append(f"{where} still holds the previous turn's {self.home.label(stale)}")
