"""Run the compatibility check on each Home Assistant given, print the table, return the exit code."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp

from compat.hass import Agents, HomeAssistantUnderTest
from compat.home import CONFIG, LAYOUT, Home, load_device_names
from compat.integration import DOMAIN
from compat.turns import Conversation, Setup, TurnRecord
from demo.api import DemoError
from demo.layout import LayoutError
from demo.report import display_width, emit
from tests.ollama_server import FakeOllama

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

LOG_TAIL_LINES = 40
EXIT_INTERRUPTED = 130
REQUESTS_FILE = "model-requests.json"
"""Every request the model received from one Home Assistant, next to its configuration."""
LOCAL_HOSTS = ("127.0.0.1", "localhost")
ERROR_LINE = re.compile(r"^\S+ \S+ (ERROR|CRITICAL) ")
DEPRECATION = re.compile(r"Detected (?:that )?(?:custom integration|code)")
"""Home Assistant's report of a blocking call or a deprecated use (logged as a warning)."""
COLUMNS = ("version", "setup", "turn", "model calls", "devices in context", "static prefix identical")


@dataclass(slots=True)
class VersionRun:
    """The check of one Home Assistant: its turns, and whatever failed outside them."""

    python: Path
    version: str = "?"
    records: list[TurnRecord] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def problems(self) -> list[str]:
        """Return every failure of this run, each naming its version, setup and turn."""
        found = [f"{self.version if self.version != '?' else self.python}: {error}" for error in self.errors]
        for record in self.records:
            where = f"{record.version} {record.setup} turn {record.number} ({record.text})"
            found.extend(f"{where}: {problem}" for problem in record.problems)
        return found


def logged_problems(log: str) -> tuple[list[str], list[str]]:
    """Return the errors Home Assistant logged about the integration, and its deprecation reports."""
    errors, deprecations = [], []
    for line in log.splitlines():
        if DOMAIN not in line:
            continue
        if ERROR_LINE.match(line):
            errors.append(line.strip())
        elif DEPRECATION.search(line):
            deprecations.append(line.strip())
    return errors, deprecations


async def async_check_version(
    python: Path, work_dir: Path, session: aiohttp.ClientSession, ollama: FakeOllama, ollama_url: str
) -> VersionRun:
    """Start the Home Assistant of ``python``, hold both conversations, stop it; return what was found."""
    run = VersionRun(python)
    started = time.perf_counter()
    hass = HomeAssistantUnderTest(python, work_dir / "config", session)
    home = Home(load_device_names())
    try:
        await hass.async_start(CONFIG, LAYOUT)
        run.version = hass.version
        agents = await hass.async_set_up_agents(ollama_url)
        for setup in Setup:
            run.records += await Conversation(hass, ollama, home, setup).async_run(agents)
        offline = await async_check_offline_fallback(hass, ollama, agents)
        run.errors += offline
        if not offline:
            run.notes.append(
                f"{run.version}: with the model server down, Context Retrieval's agent carried out "
                f"{OFFLINE_TURN[0]} itself ({OFFLINE_TURN[1]} on)"
            )
    except (DemoError, LayoutError, OSError) as err:
        run.version = hass.version
        run.errors.append(f"{err} (Home Assistant of {python})")
        if hass.process is not None:
            tail = hass.log_tail(LOG_TAIL_LINES).rstrip()
            run.notes.append(f"--- last {LOG_TAIL_LINES} lines of the log of {python} ---\n{tail}")
    finally:
        # Never leave Home Assistant running behind, whatever happened.
        code = await hass.async_stop()
    (work_dir / REQUESTS_FILE).write_text(
        json.dumps(ollama.requests, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    if code not in (0, None):
        run.errors.append(f"Home Assistant exited with code {code}")
    if hass.process is not None:
        errors, deprecations = logged_problems(
            hass.process.log_path.read_text(encoding="utf-8", errors="replace")
        )
        run.errors += [f"logged: {line}" for line in errors]
        run.notes += [f"{run.version} logged: {line}" for line in deprecations]
    run.seconds = time.perf_counter() - started
    return run


OFFLINE_TURN = ("打开卧室的床头灯", "light.bedroom_bedside")
"""What Context Retrieval's agent must carry out itself while its delegate's model server is down."""


async def async_check_offline_fallback(
    hass: HomeAssistantUnderTest, ollama: FakeOllama, agents: Agents
) -> list[str]:
    """Return what went wrong when the model server is down: the agent must act on its own."""
    text, entity_id = OFFLINE_TURN
    before = await hass.api.request("GET", f"/api/states/{entity_id}")
    if before.get("state") == "on":
        return [f"offline fallback: {entity_id} is on before {text}, so the check would prove nothing"]
    ollama.down = True
    try:
        answer = await hass.async_converse(agents.context_retrieval, text, "compat-offline")
    finally:
        ollama.down = False
    state = await hass.api.request("GET", f"/api/states/{entity_id}")
    if state.get("state") != "on":
        speech = answer.get("response", {}).get("speech", {}).get("plain", {}).get("speech")
        return [f"offline fallback: {text} left {entity_id} {state.get('state')} (the agent said {speech!r})"]
    return []


def table(runs: Sequence[VersionRun], home: Home) -> list[str]:
    """Return the result table: one row per turn."""
    rows = [
        (
            record.version,
            str(record.setup),
            f"{record.number} {record.text}",
            str(record.model_calls),
            home.label(record.devices),
            {None: "-", True: "yes", False: "NO"}[record.static_identical],
        )
        for run in runs
        for record in run.records
    ]
    widths = [max(display_width(cell) for cell in column) for column in zip(COLUMNS, *rows, strict=False)]
    return [
        "  ".join(
            cell + " " * (width - display_width(cell)) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
        for row in (COLUMNS, *rows)
    ]


def _keep_local_traffic_direct() -> None:
    """Make Home Assistant's HTTP clients reach the local fake server directly, whatever proxy is set."""
    for variable in ("NO_PROXY", "no_proxy"):
        hosts = [host for host in os.environ.get(variable, "").split(",") if host]
        os.environ[variable] = ",".join([*hosts, *(host for host in LOCAL_HOSTS if host not in hosts)])


async def async_main(args: argparse.Namespace) -> int:
    """Check every Home Assistant in turn; print the table and the failures; return the exit code."""
    _keep_local_traffic_direct()
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="context-retrieval-compat-"))
    ollama = FakeOllama()
    runs: list[VersionRun] = []
    with _stopped_by_sigterm():
        ollama_url = await ollama.start()
        try:
            async with aiohttp.ClientSession() as session:
                for index, given in enumerate(args.python):
                    python = given.absolute()  # not resolved: a venv's python is a symlink
                    ollama.requests.clear()
                    run = await async_check_version(python, base / str(index), session, ollama, ollama_url)
                    runs.append(run)
                    emit(f"Home Assistant {run.version} ({python}): checked in {run.seconds:.1f} s")
        finally:
            await ollama.close()
    home = Home(load_device_names())
    emit()
    emit("\n".join(table(runs, home)))
    problems = [problem for run in runs for problem in run.problems()]
    notes = [note for run in runs for note in run.notes]
    if notes:
        emit("\n" + "\n".join(notes))
    emit(f"\ntotal {time.perf_counter() - started:.1f} s")
    if problems:
        emit(f"\ncompatibility check FAILED ({len(problems)}):")
        emit("\n".join(f"  - {problem}" for problem in problems))
        emit(f"configurations and logs kept in {base}")
        return 1
    if args.keep:
        emit(f"configurations and logs kept in {base}")
    else:
        shutil.rmtree(base, ignore_errors=True)
    emit("compatibility check passed")
    return 0


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """Turn SIGTERM into a cancellation of the check, as Ctrl-C is, so Home Assistant is stopped in order."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is not None:
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the check."""
    parser = argparse.ArgumentParser(prog="scripts/compat", description=__doc__)
    parser.add_argument(
        "python", nargs="+", type=Path, help="interpreter of an environment with Home Assistant installed"
    )
    parser.add_argument("--keep", action="store_true", help="keep the configurations and logs after a pass")
    args = parser.parse_args(argv)
    try:
        return asyncio.run(async_main(args))
    except (KeyboardInterrupt, asyncio.CancelledError):
        emit("compatibility check interrupted (Home Assistant stopped)")
        return EXIT_INTERRUPTED
