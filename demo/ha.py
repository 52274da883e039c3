"""``scripts/demo``: Context Retrieval in a real Home Assistant, on the bundled Chinese demo home.

Starts Home Assistant from the project's environment on a copy of ``demo/config``,
onboards it, writes the floors, areas, aliases and Assist exposure of
``demo/layout.yaml``, adds the integration through its config flow (offline, or with
the LLM of ``LLM_BASE_URL``/``LLM_API_KEY``/``LLM_MODEL``), waits for its index, then
asks ``context_retrieval.retrieve`` about each utterance, in one conversation (so 它
refers back), and stops Home Assistant. ``--serve`` keeps it running instead, with its
state under ``.demo/``, until Ctrl-C. ``--smartthings-replay DIR`` serves a SmartThings dump
locally (``demo.replayed_home``) and asks about that household instead: the integration
reads it through its SmartThings direct connection, and the bundled home's entities stay
unexposed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from demo.api import Credentials, DemoError, HomeAssistantApi, WebSocketApi
from demo.layout import (
    EMPTY_LAYOUT,
    Layout,
    LayoutError,
    async_apply_layout,
    async_set_initial_states,
    load_layout,
)
from demo.replayed_home import ReplayedHome
from demo.report import (
    changed_states,
    emit,
    format_agent_reply,
    format_answer,
    format_delegate_prompt,
    format_prompt,
)
from demo.server import (
    REPOSITORY,
    HomeAssistantProcess,
    free_port,
    port_is_free,
    prepare_config,
    stored_http_port,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

DOMAIN = "context_retrieval"
SERVICE_PATH = f"/api/services/{DOMAIN}/retrieve?return_response"
ENTRIES_PATH = f"/api/config/config_entries/entry?domain={DOMAIN}"
FLOW_PATH = "/api/config/config_entries/flow"
CONVERSE_PATH = "/api/conversation/process"
ONLINE_ONLY_DOMAINS = ("google_translate",)
FAILED_ENTRY_STATES = frozenset({"setup_error", "migration_error", "failed_unload", "removed"})
DEFAULT_UTTERANCES = (
    "打开客厅的灯",
    "把它们调到50%",
    "起居室的空调开一下",
    "一楼的灯都关掉",
    "除了卧室都关掉",
    "客厅温度多少",
    "打开那个灯",
    "客厅的",
    "打开老伙计",
    "把车库门关上",
)
"""One conversation: a room, 它, an area alias, a floor, except, a question, one the agent asks back
about (which light? three are in 客厅) and its answer, a custom name, a garage door."""
CONVERSATION_ID = "demo"
AGENT_CONVERSATION_ID = "demo-agent"
AGENT_PROMPT = "context_retrieval/agent_prompt"
ASSIST_AGENT = "conversation.context_retrieval"
"""The entry's conversation agent, which the preferred Assist pipeline (the UI's Assist dialog) talks to."""
ASSIST_LANGUAGE = "zh-Hans"
HTTP_CONFIG = "http/config"
HTTP_CONFIG_PROMOTE = "http/config/promote"
ENTITY_GET = "config/entity_registry/get"
PIPELINE_LIST = "assist_pipeline/pipeline/list"
PIPELINE_UPDATE = "assist_pipeline/pipeline/update"
READY_CONVERSATION_ID = "demo-ready-check"
"""Conversation of the readiness probe, kept apart so it leaves nothing for 它 to refer to."""
# A local demo account, printed for the user to log in with (Home Assistant listens on 127.0.0.1 only).
CREDENTIALS = Credentials(name="Demo", username="demo", password="demo-password", language="zh-Hans")  # noqa: S106
SERVE_DIR = REPOSITORY / ".demo"
SMARTTHINGS_SERVE_DIR = SERVE_DIR / "smartthings"
SERVE_PORT = 8123
LLM_SETTINGS = {"llm_base_url": "LLM_BASE_URL", "llm_api_key": "LLM_API_KEY", "llm_model": "LLM_MODEL"}
"""Config flow field for each environment variable."""
START_TIMEOUT = 120.0
"""Seconds Home Assistant may take from launch to running."""
READY_TIMEOUT = 60.0
"""Seconds the integration may take from being added to answering with candidates."""
POLL_INTERVAL = 0.2
MAX_FLOW_STEPS = 5
LOG_TAIL_LINES = 40
EXIT_INTERRUPTED = 130


@dataclass(slots=True)
class Phase:
    """A timed step; ``detail`` is printed after its duration."""

    name: str
    detail: str = ""


@dataclass(slots=True)
class Phases:
    """The steps of one run and how long each took."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextlib.contextmanager
    def run(self, name: str) -> Iterator[Phase]:
        """Time one step and print it when it ends (marked as failed when it raises)."""
        phase = Phase(name)
        started = time.perf_counter()
        try:
            yield phase
        except BaseException:
            emit(f"[{time.perf_counter() - started:6.2f} s] {name}: FAILED")
            raise
        self.seconds[name] = elapsed = time.perf_counter() - started
        emit(f"[{elapsed:6.2f} s] {name}" + (f": {phase.detail}" if phase.detail else ""))


def llm_settings() -> dict[str, str]:
    """Return the config flow's LLM fields set in the environment (none: offline parsing)."""
    settings = {key: os.environ.get(variable, "").strip() for key, variable in LLM_SETTINGS.items()}
    return {key: value for key, value in settings.items() if value}


class Demo:
    """One run of the demo: a Home Assistant, its set-up, the questions and the stop."""

    def __init__(self, args: argparse.Namespace, layout: Layout, home: ReplayedHome | None = None) -> None:
        """Prepare a run for the parsed command line (on ``home`` rather than ``layout`` when given)."""
        self.args = args
        self.layout = EMPTY_LAYOUT if home else layout
        self.home = home
        samples = home.samples if home else list(DEFAULT_UTTERANCES)
        self.utterances: list[str] = list(args.utterances) or samples
        # Asked until the index answers: a sample, since the user's utterances may find nothing.
        self.probe = samples[0]
        self.phases = Phases()
        self.hass: HomeAssistantProcess | None = None
        summary = home.summary() if home else layout.summary()
        self.report: dict[str, Any] = {"layout": summary, "answers": []}
        self.failures = 0
        self.agent_conversation_id: str | None = None
        self.exit_code: int | None = None
        if args.serve:
            self.config_dir = args.state / "config"
            self.temporary = False
        else:
            self.config_dir = Path(tempfile.mkdtemp(prefix="context-retrieval-demo-")) / "config"
            self.temporary = True

    def _port(self) -> int:
        """Return the port to serve on: the one asked for, 8123 when kept and free, else any free one.

        A kept state that Home Assistant has served before keeps its port (Home Assistant
        stores its HTTP settings and ignores the YAML's afterwards).
        """
        stored = stored_http_port(self.config_dir) if self.args.serve else None
        if stored is not None:
            if self.args.port and self.args.port != stored:
                raise DemoError(
                    f"{self.args.state} serves on port {stored} (Home Assistant keeps its HTTP settings): "
                    f"leave out --port, or delete {self.args.state} to start afresh on {self.args.port}"
                )
            if not port_is_free(stored):
                raise DemoError(f"port {stored}, where {self.args.state} serves, is in use")
            return stored
        if self.args.port:
            return self.args.port
        if self.args.serve and port_is_free(SERVE_PORT):
            return SERVE_PORT
        return free_port()

    async def async_run(self) -> None:
        """Set everything up, then ask the utterances or serve; raise DemoError on failure."""
        flow_settings = llm_settings()
        with self.phases.run("prepare configuration") as phase:
            prepare_config(self.config_dir)
            phase.detail = f"{self.config_dir}; {self.report['layout']}"
        smartthings_root = None
        if self.home is not None:
            with self.phases.run("replay SmartThings") as phase:
                smartthings_root = await self.home.replay.start()
                self.report["smartthings"] = {"api_root": smartthings_root}
                try:
                    spec = self.home.install_spec(self.config_dir)
                except OSError as err:
                    raise DemoError(f"cannot copy the dump's spec: {err}") from err
                flow_settings |= self.home.flow_settings(spec)
                self.report["smartthings"]["spec"] = spec
                phase.detail = f"{self.home.directory} served at {smartthings_root}" + (
                    f"; spec copied to {spec}" if spec else "; no spec.jsonl: the capability table"
                )
        async with aiohttp.ClientSession() as session:
            port = self._port()
            api = HomeAssistantApi(session, f"http://127.0.0.1:{port}")
            self.report["url"] = api.base_url
            created = await self._async_start(api, port, smartthings_root)
            with self.phases.run("floors, areas, aliases, exposure, states") as phase:
                async with api.websocket() as ws:
                    applied = await async_apply_layout(ws, self.layout)
                    # A kept home keeps the states its user left it in.
                    initialised = await async_set_initial_states(ws, self.layout) if created else 0
                phase.detail = (
                    f"{applied.floors_created} floors and {applied.areas_created} areas created, "
                    f"{applied.entities_placed} entities placed and exposed, "
                    f"{applied.unexposed} others unexposed"
                    + (f", {initialised} initial states set" if initialised else "")
                )
            with self.phases.run("add Context Retrieval") as phase:
                phase.detail = await self._async_add_integration(api, flow_settings)
            with self.phases.run("wait for the index") as phase:
                phase.detail = await self._async_wait_until_answering(api)
            with self.phases.run("tidy up onboarding") as phase:
                phase.detail = await async_remove_online_only_entries(api)
            if self.home is None:
                with self.phases.run("Assist pipeline") as phase:
                    async with api.websocket() as ws:
                        phase.detail = await async_converse_through_agent(ws, ASSIST_AGENT)
            if self.args.serve:
                await self._async_serve(api)
                return
            with self.phases.run("utterances") as phase:
                await self._async_ask(api, self.utterances)
                phase.detail = f"{len(self.report['answers'])} answered, {self.failures} failed"

    async def _async_start(self, api: HomeAssistantApi, port: int, smartthings_root: str | None) -> bool:
        """Start Home Assistant, onboard or log in, wait for it and confirm its HTTP settings.

        Return True if the owner was created now (a fresh home).
        """
        with self.phases.run("start Home Assistant") as phase:
            self.hass = await HomeAssistantProcess.async_start(self.config_dir, port, smartthings_root)
            await self._async_wait_until_up(api)
            phase.detail = f"HTTP answering on {api.base_url}"
        with self.phases.run("onboard") as phase:
            created = await api.async_onboard(CREDENTIALS)
            how = "created" if created else "logged in as"
            phase.detail = f"{how} {CREDENTIALS.username!r}, all steps done"
        with self.phases.run("finish start-up") as phase:
            version = await self._async_wait_until_running(api)
            self.report["ha_version"] = version
            phase.detail = f"Home Assistant {version} running"
        with self.phases.run("confirm HTTP settings") as phase:
            async with api.websocket() as ws:
                phase.detail = await async_confirm_http_settings(ws)
        return created

    async def _async_wait_until_up(self, api: HomeAssistantApi) -> None:
        """Wait until the HTTP server answers; fail if Home Assistant exits or takes too long."""
        assert self.hass is not None  # noqa: S101 - set just before
        deadline = time.monotonic() + START_TIMEOUT
        while not await api.async_is_up():
            if self.hass.exited:
                code = self.hass.process.returncode
                raise DemoError(f"Home Assistant exited during start-up (code {code})")
            if time.monotonic() > deadline:
                raise DemoError(f"Home Assistant did not answer within {START_TIMEOUT:.0f} s")
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_wait_until_running(self, api: HomeAssistantApi) -> str:
        """Wait until every integration has been set up (core state RUNNING); return the version."""
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            config = await api.request("GET", "/api/config")
            if config.get("state") == "RUNNING":
                return str(config.get("version"))
            if time.monotonic() > deadline:
                raise DemoError(f"Home Assistant still {config.get('state')} after {START_TIMEOUT:.0f} s")
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_add_integration(self, api: HomeAssistantApi, settings: dict[str, str]) -> str:
        """Add the integration through its config flow unless it is there already; wait until it is loaded."""
        entries = await api.request("GET", ENTRIES_PATH)
        parser = "offline parser"
        if any(key in settings for key in LLM_SETTINGS):
            parser = f"LLM {settings.get('llm_model', '?')} at {settings.get('llm_base_url', '?')}"
        if self.home is not None:
            parser += ", SmartThings replay"
        if entries:
            entry_id = entries[0]["entry_id"]
            how = "kept the entry added before (its settings stay: change them in its options)"
        else:
            entry_id = await self._async_run_config_flow(api, settings)
            how = f"added through the config flow ({parser})"
        self.report["entry_id"] = entry_id
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            entries = await api.request("GET", ENTRIES_PATH)
            entry = next((entry for entry in entries if entry["entry_id"] == entry_id), None)
            state = entry["state"] if entry else "removed"
            if state == "loaded":
                return f"{how}; entry {entry_id} loaded"
            if state in FAILED_ENTRY_STATES or time.monotonic() > deadline:
                reason = entry.get("reason") if entry else None
                raise DemoError(f"the Context Retrieval entry is {state}" + (f": {reason}" if reason else ""))
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_run_config_flow(self, api: HomeAssistantApi, settings: dict[str, str]) -> str:
        """Run the config flow over REST, answering its first form with ``settings``; return the entry id."""
        step = await api.request("POST", FLOW_PATH, json={"handler": DOMAIN, "show_advanced_options": False})
        user_input: dict[str, str] = settings
        for _ in range(MAX_FLOW_STEPS):
            if step.get("type") == "create_entry":
                return step["result"]["entry_id"]
            if step.get("type") != "form":
                raise DemoError(f"the config flow ended with {step.get('type')}: {step.get('reason')}")
            if step.get("errors"):
                raise DemoError(f"the config flow refused step {step.get('step_id')}: {step['errors']}")
            step = await api.request("POST", f"{FLOW_PATH}/{step['flow_id']}", json=user_input)
            user_input = {}
        raise DemoError(f"the config flow did not finish within {MAX_FLOW_STEPS} steps")

    async def _async_retrieve(self, api: HomeAssistantApi, text: str, conversation_id: str) -> dict[str, Any]:
        """Return the service's answer about ``text``."""
        answer = await api.request(
            "POST", SERVICE_PATH, json={"text": text, "conversation_id": conversation_id}
        )
        return answer["service_response"]

    async def _async_wait_until_answering(self, api: HomeAssistantApi) -> str:
        """Ask until the service answers with candidates (the index is built off the loop).

        On a replayed household, until a candidate is one of its devices: the integration
        reads SmartThings in the background once its entry is loaded.
        """
        deadline = time.monotonic() + READY_TIMEOUT
        probe = self.probe
        attempts = 0
        while True:
            attempts += 1
            try:
                answer = await self._async_retrieve(api, probe, READY_CONVERSATION_ID)
            except DemoError as err:
                problem = str(err)
            else:
                ids = {
                    candidate["entity_id"]
                    for result in answer.get("results", [])
                    for candidate in result.get("candidates") or ()
                }
                if ids and (self.home is None or ids & self.home.device_ids):
                    return f"the service answers ({attempts} {'try' if attempts == 1 else 'tries'})"
                problem = f"no candidates for {probe}" + (" from SmartThings" if ids else "")
            if time.monotonic() > deadline:
                raise DemoError(f"no candidates from the service within {READY_TIMEOUT:.0f} s: {problem}")
            await asyncio.sleep(POLL_INTERVAL)

    async def _async_ask(self, api: HomeAssistantApi, utterances: Sequence[str]) -> None:
        """Take each utterance through one conversation and print, per turn, what happened.

        Per turn: the retrieve service's answer; on the demo home, what the integration's
        conversation agent answered and which states it changed (a conversation of its
        own); and the prompt an LLM agent would receive through the Context Retrieval API
        for the same turn (a conversation of its own too), with its size next to Assist's.
        On a replayed SmartThings household the agent is left out (it would send commands
        to the replay) and the prompt is shown whole.
        """
        emit()
        if self.home is not None:
            emit(
                "Candidates are SmartThings device ids (not Home Assistant entity ids) with a command of "
                "their profile, which an agent runs with context_retrieval__SmartThingsCommand."
            )
            emit()
        async with api.websocket() as websocket:
            for text in utterances:
                try:
                    lines = await self._async_turn(api, websocket, text)
                except DemoError as err:
                    self.failures += 1
                    self.report["answers"].append({"text": text, "error": str(err)})
                    emit(f"» {text}\n  error: {err}")
                    continue
                for line in lines:
                    emit(line)
                emit()

    async def _async_turn(self, api: HomeAssistantApi, websocket: WebSocketApi, text: str) -> list[str]:
        """Take one utterance through the service, the agent (demo home) and the prompt; return its lines."""
        started = time.perf_counter()
        answer = await self._async_retrieve(api, text, CONVERSATION_ID)
        lines = format_answer(text, answer, time.perf_counter() - started)
        turn: dict[str, Any] = {"text": text, "response": answer}
        if self.home is None:
            before = await self._async_states(api)
            started = time.perf_counter()
            reply = await self._async_converse(api, text)
            seconds = time.perf_counter() - started
            changes = changed_states(before, await self._async_states(api))
            turn["agent"] = {"result": reply, "changes": changes}
            lines += format_agent_reply(ASSIST_AGENT, reply, changes, seconds)
        agent = await websocket.call(AGENT_PROMPT, text=text, conversation_id=AGENT_CONVERSATION_ID)
        turn["agent_prompt"] = agent
        self.report["answers"].append(turn)
        if self.home is None:
            return lines + format_delegate_prompt(agent)
        return lines + format_prompt(agent, compare_with_assist=False)

    async def _async_converse(self, api: HomeAssistantApi, text: str) -> dict[str, Any]:
        """Return the integration's agent's answer to ``text``, in the demo's conversation with it."""
        body = {"text": text, "agent_id": ASSIST_AGENT, "language": ASSIST_LANGUAGE}
        if self.agent_conversation_id:
            body["conversation_id"] = self.agent_conversation_id
        result = await api.request("POST", CONVERSE_PATH, json=body)
        self.agent_conversation_id = result.get("conversation_id")
        return result

    async def _async_states(self, api: HomeAssistantApi) -> dict[str, dict[str, Any]]:
        """Return every entity's state, by entity id."""
        return {state["entity_id"]: state for state in await api.request("GET", "/api/states")}

    async def _async_serve(self, api: HomeAssistantApi) -> None:
        """Print how to reach Home Assistant, answer any utterances given, then wait for Ctrl-C."""
        assert self.hass is not None  # noqa: S101 - started before
        if self.args.utterances:
            await self._async_ask(api, self.args.utterances)
        emit()
        emit(f"Home Assistant is running at {api.base_url}")
        emit(f"  log in as {CREDENTIALS.username} / {CREDENTIALS.password}")
        emit(f"  state kept in {self.config_dir} (delete {self.args.state} to start afresh)")
        emit("  try it: Assist (the speech bubble at the top, or the key a): 打开客厅的灯, 把它们调到50%")
        emit("          Developer tools → Actions → Context Retrieval: Retrieve; Settings → Areas")
        emit("Ctrl-C stops it.")
        await self.hass.process.wait()
        raise DemoError(f"Home Assistant exited by itself (code {self.hass.process.returncode})")

    async def async_stop(self) -> int | None:
        """Stop Home Assistant if it was started, then the replay; return Home Assistant's exit code."""
        code = None
        if self.hass is not None:
            with self.phases.run("stop Home Assistant") as phase:
                code = await self.hass.async_stop()
                phase.detail = f"exit code {code}"
            self.report["ha_exit_code"] = code
        if self.home is not None and self.home.replay.server is not None:
            await self.home.replay.close()
            requests = [f"{method} {path}" for method, path, _ in self.home.replay.requests]
            self.report["smartthings"] |= {"requests": requests, "commands": self.home.replay.commands}
            commands = len(self.home.replay.commands)
            emit(f"SmartThings replay: {len(requests)} requests answered, {commands} commands")
        return code

    def print_log_tail(self) -> None:
        """Print the end of Home Assistant's output, to show why something failed."""
        if self.hass is None:
            return
        emit(f"--- last {LOG_TAIL_LINES} lines of {self.hass.log_path} ---")
        emit(self.hass.log_tail(LOG_TAIL_LINES).rstrip())
        emit("---")

    async def async_run_and_stop(self) -> str | None:
        """Run, then stop Home Assistant whatever happened; return what failed (None: nothing)."""
        error: str | None = None
        try:
            await self.async_run()
        except (DemoError, LayoutError) as err:
            error = str(err)
            emit(f"error: {error}")
            self.print_log_tail()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                raise
            task.uncancel()  # interrupted by the user: stop in order below
            emit("\nstopping")
        finally:
            # Whatever went wrong, never leave Home Assistant running behind.
            self.exit_code = await self.async_stop()
        return error

    def finish(self, *, error: str | None, interrupted: bool) -> int:
        """Write the report, clean up and return the demo's exit code."""
        stopped_cleanly = self.exit_code in (0, None)
        succeeded = error is None and self.failures == 0 and stopped_cleanly and not interrupted
        self.report |= {"phases": self.phases.seconds, "error": error, "succeeded": succeeded}
        if self.args.json:
            Path(self.args.json).write_text(
                json.dumps(self.report, ensure_ascii=False, indent=2), encoding="utf-8"
            )
        # Ctrl-C is how a served demo ends.
        served = self.args.serve and interrupted and error is None and stopped_cleanly
        self.clean_up(succeeded=succeeded or served)
        if served or succeeded:
            return 0
        return EXIT_INTERRUPTED if interrupted else 1

    def clean_up(self, *, succeeded: bool) -> None:
        """Delete a temporary configuration after a successful run (kept for a look otherwise)."""
        if not self.temporary:
            return
        if succeeded and not self.args.keep:
            shutil.rmtree(self.config_dir.parent, ignore_errors=True)
        else:
            emit(f"configuration kept in {self.config_dir}")


async def async_confirm_http_settings(ws: WebSocketApi) -> str:
    """Confirm the HTTP settings Home Assistant is trying out; return what was done.

    Home Assistant 2026.10 imports the YAML ``http:`` block (the demo's port and
    127.0.0.1) as pending settings on trial: unless confirmed, it reverts them after
    5 minutes and restarts (exit code 100) on its defaults. The UI asks the user;
    the demo confirms, as the user would.
    """
    settings = await ws.call(HTTP_CONFIG)
    pending = settings.get("pending")
    if settings.get("active_config_type") != "pending" or not pending:
        return "nothing on trial (the stored settings serve)"
    await ws.call(HTTP_CONFIG_PROMOTE)
    hosts = ", ".join(pending.get("server_host") or ["all interfaces"])
    return f"{hosts} port {pending.get('server_port')} confirmed (else reverted after 5 minutes)"


async def async_remove_online_only_entries(api: HomeAssistantApi) -> str:
    """Remove the entries onboarding adds that cannot work offline; return what was removed.

    Onboarding adds Google Translate's text-to-speech, which needs the internet and a
    library the demo does not install: left alone, it shows as failed in Settings.
    """
    removed = []
    for domain in ONLINE_ONLY_DOMAINS:
        for entry in await api.request("GET", f"/api/config/config_entries/entry?domain={domain}"):
            await api.request("DELETE", f"/api/config/config_entries/entry/{entry['entry_id']}")
            removed.append(entry["title"])
    return f"removed {', '.join(removed)} (online only)" if removed else "nothing to remove"


async def async_converse_through_agent(ws: WebSocketApi, agent_id: str) -> str:
    """Make ``agent_id`` the conversation agent of the preferred Assist pipeline, in Chinese; return how.

    The UI's Assist dialog runs the preferred pipeline. Home Assistant's own intents
    are not tried first (``prefer_local_intents``), so every sentence reaches the agent.
    """
    # The entry's agent must exist: a pipeline would take a missing one and fail on every sentence.
    await ws.call(ENTITY_GET, entity_id=agent_id)
    listed = await ws.call(PIPELINE_LIST)
    preferred = listed["preferred_pipeline"]
    pipeline = next(item for item in listed["pipelines"] if item["id"] == preferred)
    wanted = {
        "conversation_engine": agent_id,
        "conversation_language": ASSIST_LANGUAGE,
        "language": ASSIST_LANGUAGE,
        "prefer_local_intents": False,
    }
    how = f"preferred pipeline {pipeline['name']!r} converses through {agent_id} in {ASSIST_LANGUAGE}"
    if all(pipeline.get(key) == value for key, value in wanted.items()):
        return how + " (already)"
    fields = {key: value for key, value in pipeline.items() if key != "id"}
    await ws.call(PIPELINE_UPDATE, pipeline_id=preferred, **(fields | wanted))
    return how


async def async_main(args: argparse.Namespace) -> int:
    """Run the demo; stop Home Assistant whatever happens; return the exit code."""
    try:
        layout = load_layout()
    except (LayoutError, OSError, KeyError, TypeError) as err:
        emit(f"error: demo/layout.yaml: {err}")
        return 1
    home = None
    if args.smartthings_replay is not None:
        try:
            home = ReplayedHome.from_dump(args.smartthings_replay)
        except (OSError, ValueError, KeyError, TypeError) as err:
            emit(f"error: --smartthings-replay {args.smartthings_replay}: {err}")
            return 1
    demo = Demo(args, layout, home)
    started = time.perf_counter()
    with _interruptible() as interrupted:
        error = await demo.async_run_and_stop()
    emit(f"total {time.perf_counter() - started:.1f} s")
    return demo.finish(error=error, interrupted=interrupted.is_set())


@contextlib.contextmanager
def _interruptible() -> Iterator[asyncio.Event]:
    """Turn the first SIGINT or SIGTERM into a cancellation of the current task; yield whether it came."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    interrupted = asyncio.Event()

    def interrupt() -> None:
        """Cancel the demo the first time; Home Assistant is then stopped in order."""
        if interrupted.is_set():
            emit("still stopping Home Assistant, please wait")
            return
        interrupted.set()
        if task is not None:
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, interrupt)
    try:
        yield interrupted
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the demo."""
    parser = argparse.ArgumentParser(prog="scripts/demo", description=__doc__.split("\n\n")[1])
    parser.add_argument("utterances", nargs="*", help="utterances of one conversation (default: samples)")
    parser.add_argument("--serve", action="store_true", help="keep Home Assistant running (state in .demo/)")
    parser.add_argument(
        "--state",
        type=Path,
        metavar="DIR",
        help="where --serve keeps its state (default .demo/; .demo/smartthings/ with --smartthings-replay)",
    )
    parser.add_argument(
        "--smartthings-replay",
        type=Path,
        metavar="DIR",
        help="serve the SmartThings dump in DIR (devices.jsonl, rooms.jsonl, optional spec.jsonl) locally, "
        "connect the integration to it and ask about that household (samples from DIR's labelled queries "
        "or its device names); the bundled home's entities stay unexposed, so only DIR's devices are indexed",
    )
    parser.add_argument("--port", type=int, help="HTTP port (default: a free one; 8123 with --serve if free)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary configuration directory")
    parser.add_argument("--json", metavar="PATH", help="also write a machine-readable report to PATH")
    args = parser.parse_args(argv)
    if args.state is None:
        args.state = SERVE_DIR if args.smartthings_replay is None else SMARTTHINGS_SERVE_DIR
    return asyncio.run(async_main(args))
