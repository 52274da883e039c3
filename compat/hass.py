"""One Home Assistant version as a real process, set up for the check over its REST and websocket APIs.

The process and its configuration directory come from ``demo.server``, onboarding and the
API clients from ``demo.api``, areas and Assist exposure from ``demo.layout``; what is new
here is driving any config flow (entries, options, subentries) and the agents the check
converses with: Context Retrieval (offline), Home Assistant's Ollama integration pointed at
the local fake Ollama server with a conversation subentry that selects the Context
Retrieval API, and Context Retrieval's own agent delegating to it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat.integration import (
    API_ID,
    CONF_DELEGATE_AGENT,
    CONVERSATION_ENTITY,
    DOMAIN,
    SERVICE_RETRIEVE,
)
from demo.api import Credentials, DemoError, HomeAssistantApi
from demo.layout import async_apply_layout, load_layout
from demo.server import HomeAssistantProcess, free_port, prepare_config

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import aiohttp

START_TIMEOUT = 120.0
"""Seconds Home Assistant may take from launch to running."""
READY_TIMEOUT = 60.0
"""Seconds an entry may take from its flow to loaded and answering."""
POLL_INTERVAL = 0.2
MAX_FLOW_STEPS = 5
FLOW_PATH = "/api/config/config_entries/flow"
OPTIONS_FLOW_PATH = "/api/config/config_entries/options/flow"
SUBENTRY_FLOW_PATH = "/api/config/config_entries/subentries/flow"
ENTRIES_PATH = "/api/config/config_entries/entry"
CONVERSE_PATH = "/api/conversation/process"
FAILED_ENTRY_STATES = frozenset({"setup_error", "setup_retry", "migration_error", "failed_unload", "removed"})
OLLAMA = "ollama"
OLLAMA_MODEL = "qwen3:4b"
"""The model the fake Ollama server lists, so the subentry flow downloads nothing."""
OLLAMA_AGENT_NAME = "Ollama Conversation"
LANGUAGE = "zh-Hans"
READY_PROBE = "打开厨房的灯"
READY_CONVERSATION_ID = "compat-ready-check"
"""Conversation of the readiness probe, kept apart from the checked conversations."""
# A local account of a throw-away Home Assistant listening on 127.0.0.1 only.
CREDENTIALS = Credentials(name="Compat", username="compat", password="compat-password", language=LANGUAGE)  # noqa: S106


@dataclass(slots=True)
class Agents:
    """The conversation agents the check talks to."""

    ollama: str
    """Home Assistant's Ollama agent, with the Context Retrieval API (the direct setup)."""
    context_retrieval: str
    """Context Retrieval's agent, delegating to the Ollama agent (the recommended setup)."""


class HomeAssistantUnderTest:
    """A Home Assistant of one environment, started on a fresh configuration and always stopped."""

    def __init__(self, python: Path, config_dir: Path, session: aiohttp.ClientSession) -> None:
        """Prepare to run the Home Assistant of the interpreter ``python`` on ``config_dir``."""
        self.python = python
        self.config_dir = config_dir
        self.port = free_port()
        self.api = HomeAssistantApi(session, f"http://127.0.0.1:{self.port}")
        self.process: HomeAssistantProcess | None = None
        self.version = "?"

    async def async_start(self, bundled: Path, layout: Path) -> None:
        """Start on a copy of ``bundled``, onboard, and write the areas and exposure of ``layout``."""
        prepare_config(self.config_dir, bundled)
        self.process = await HomeAssistantProcess.async_start(self.config_dir, self.port, python=self.python)
        await self._async_wait_until_up()
        await self.api.async_onboard(CREDENTIALS)
        self.version = await self._async_wait_until_running()
        async with self.api.websocket() as ws:
            await async_apply_layout(ws, load_layout(layout))

    async def async_stop(self) -> int | None:
        """Stop Home Assistant if it was started; return its exit code."""
        if self.process is None:
            return None
        return await self.process.async_stop()

    def log_tail(self, lines: int) -> str:
        """Return the end of Home Assistant's console output."""
        return self.process.log_tail(lines) if self.process else "(not started)\n"

    async def _async_wait_until_up(self) -> None:
        """Wait until the HTTP server answers; fail if Home Assistant exits or takes too long."""
        assert self.process is not None  # noqa: S101 - started just before
        deadline = time.monotonic() + START_TIMEOUT
        while not await self.api.async_is_up():
            if self.process.exited:
                raise DemoError(
                    f"Home Assistant exited during start-up (code {self.process.process.returncode})"
                )
            if time.monotonic() > deadline:
                raise DemoError(f"Home Assistant did not answer within {START_TIMEOUT:.0f} s")
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_wait_until_running(self) -> str:
        """Wait until every integration has been set up (core state RUNNING); return the version."""
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            config = await self.api.request("GET", "/api/config")
            if config.get("state") == "RUNNING":
                return str(config.get("version"))
            if time.monotonic() > deadline:
                raise DemoError(f"Home Assistant still {config.get('state')} after {START_TIMEOUT:.0f} s")
            await asyncio.sleep(POLL_INTERVAL)

    async def async_set_up_agents(self, ollama_url: str) -> Agents:
        """Add Context Retrieval, the Ollama agent with its API, and make it Context Retrieval's delegate."""
        entry_id = await self._async_run_flow(FLOW_PATH, {"handler": DOMAIN}, {})
        await self._async_wait_until_loaded(entry_id)
        await self._async_wait_until_answering()
        ollama_entry = await self._async_run_flow(FLOW_PATH, {"handler": OLLAMA}, {"url": ollama_url})
        await self._async_wait_until_loaded(ollama_entry)
        subentry = {"name": OLLAMA_AGENT_NAME, "model": OLLAMA_MODEL, "llm_hass_api": [API_ID]}
        await self._async_run_flow(SUBENTRY_FLOW_PATH, {"handler": [ollama_entry, "conversation"]}, subentry)
        ollama_agent = await self._async_wait_for_agent(lambda entity: entity["platform"] == OLLAMA)
        await self._async_run_flow(
            OPTIONS_FLOW_PATH, {"handler": entry_id}, {CONF_DELEGATE_AGENT: ollama_agent}
        )
        # The flow only schedules the entry's reload; this one waits for that reload's lock,
        # then reloads again and answers once done, so the delegate is surely in effect.
        await self.api.request("POST", f"{ENTRIES_PATH}/{entry_id}/reload")
        await self._async_wait_until_loaded(entry_id)
        await self._async_wait_until_answering()
        own = await self._async_wait_for_agent(lambda entity: entity["entity_id"] == CONVERSATION_ENTITY)
        return Agents(ollama=ollama_agent, context_retrieval=own)

    async def _async_run_flow(self, path: str, start: dict[str, Any], answer: dict[str, Any]) -> str:
        """Run a flow over REST, answering its first form with ``answer``; return the entry id it made.

        A subentry or options flow returns the entry id it was started for.
        """
        step = await self.api.request("POST", path, json={**start, "show_advanced_options": False})
        user_input = answer
        for _ in range(MAX_FLOW_STEPS):
            if step.get("type") == "create_entry":
                result = step.get("result")
                if isinstance(result, dict):
                    return result["entry_id"]
                handler = start["handler"]
                return handler if isinstance(handler, str) else handler[0]
            if step.get("type") != "form":
                raise DemoError(
                    f"{path} ({start['handler']}) ended with {step.get('type')}: {step.get('reason')}"
                )
            if step.get("errors"):
                raise DemoError(
                    f"{path} ({start['handler']}) refused step {step.get('step_id')}: {step['errors']}"
                )
            step = await self.api.request("POST", f"{path}/{step['flow_id']}", json=user_input)
            user_input = {}
        raise DemoError(f"{path} ({start['handler']}) did not finish within {MAX_FLOW_STEPS} steps")

    async def _async_wait_until_loaded(self, entry_id: str) -> None:
        """Wait until the config entry ``entry_id`` is loaded."""
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            entries = await self.api.request("GET", ENTRIES_PATH)
            entry = next((entry for entry in entries if entry["entry_id"] == entry_id), None)
            state = entry["state"] if entry else "removed"
            if state == "loaded":
                return
            if state in FAILED_ENTRY_STATES or time.monotonic() > deadline:
                domain = entry["domain"] if entry else entry_id
                reason = entry.get("reason") if entry else None
                raise DemoError(f"the {domain} entry is {state}" + (f": {reason}" if reason else ""))
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_wait_until_answering(self) -> None:
        """Ask the retrieve service until it answers with candidates (the index is built off the loop)."""
        path = f"/api/services/{DOMAIN}/{SERVICE_RETRIEVE}?return_response"
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                answer = await self.api.request(
                    "POST", path, json={"text": READY_PROBE, "conversation_id": READY_CONVERSATION_ID}
                )
            except DemoError as err:
                problem = str(err)
            else:
                results = answer["service_response"].get("results", [])
                if any(result.get("candidates") for result in results):
                    return
                problem = f"no candidates for {READY_PROBE}"
            if time.monotonic() > deadline:
                raise DemoError(f"Context Retrieval did not answer within {READY_TIMEOUT:.0f} s: {problem}")
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_wait_for_agent(self, wanted: Callable[[dict[str, Any]], bool]) -> str:
        """Return the conversation entity that the registry predicate ``wanted`` picks, once available."""
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            async with self.api.websocket() as ws:
                registry = await ws.call("config/entity_registry/list")
                states = {state["entity_id"]: state["state"] for state in await ws.call("get_states")}
            agents = [
                entity["entity_id"]
                for entity in registry
                if entity["entity_id"].startswith("conversation.") and wanted(entity)
            ]
            ready = [agent for agent in agents if states.get(agent, "unavailable") != "unavailable"]
            if len(ready) == 1:
                return ready[0]
            if time.monotonic() > deadline:
                raise DemoError(f"no single available conversation agent of that kind (found {agents})")
            await asyncio.sleep(POLL_INTERVAL)

    async def async_converse(self, agent_id: str, text: str, conversation_id: str) -> dict[str, Any]:
        """Return Home Assistant's answer to one utterance sent to ``agent_id`` in a conversation."""
        return await self.api.request(
            "POST",
            CONVERSE_PATH,
            json={
                "text": text,
                "agent_id": agent_id,
                "conversation_id": conversation_id,
                "language": LANGUAGE,
            },
        )
