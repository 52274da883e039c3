"""A Home Assistant process on the demo configuration: prepare, start, stop, read its log."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
BUNDLED_CONFIG = Path(__file__).with_name("config")
INTEGRATION = REPOSITORY / "custom_components" / "context_retrieval"
PORT_VARIABLE = "CONTEXT_RETRIEVAL_DEMO_PORT"
"""Environment variable configuration.yaml reads its HTTP port from."""
CONSOLE_LOG = "home-assistant.console.log"
"""Home Assistant's standard output and error, in the configuration directory."""
STOP_TIMEOUT = 60.0
"""Seconds Home Assistant may take to stop after SIGTERM before it is killed."""
HTTP_STORE = Path(".storage") / "http"
"""Home Assistant's stored HTTP settings, in the configuration directory (2026.10 and later)."""


def prepare_config(config_dir: Path, bundled: Path = BUNDLED_CONFIG) -> None:
    """Copy the bundled configuration (or ``bundled``) into ``config_dir`` and link the integration into it.

    Files Home Assistant keeps (``.storage``: login, registries) are left alone, so a
    kept demo directory is brought up to date without losing them.
    """
    config_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(bundled, config_dir, dirs_exist_ok=True)
    link = config_dir / "custom_components" / INTEGRATION.name
    link.parent.mkdir(exist_ok=True)
    if link.is_symlink() or link.exists():
        if link.is_symlink() and link.resolve() == INTEGRATION:
            return
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        else:
            link.unlink()
    link.symlink_to(INTEGRATION, target_is_directory=True)


def stored_http_port(config_dir: Path) -> int | None:
    """Return the port Home Assistant will serve a kept configuration on (None: nothing stored).

    Since 2026.10, Home Assistant imports the YAML ``http:`` block once, into its storage;
    later starts use the stored settings (the pending ones while on trial, else the
    confirmed ones) and ignore the YAML, so the port given to the YAML no longer counts.
    """
    try:
        data = json.loads((config_dir / HTTP_STORE).read_text(encoding="utf-8"))["data"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    pending = data.get("pending")
    settings = pending if pending and pending.get("error") is None else data.get("stable") or {}
    port = settings.get("server_port")
    return port if isinstance(port, int) else None


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_free(port: int) -> bool:
    """Return True if ``port`` on 127.0.0.1 can be listened on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass(slots=True)
class HomeAssistantProcess:
    """A running ``python -m homeassistant`` on a configuration directory."""

    config_dir: Path
    port: int
    process: asyncio.subprocess.Process

    @property
    def url(self) -> str:
        """Return the base URL of its HTTP server."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        """Return the file holding its console output."""
        return self.config_dir / CONSOLE_LOG

    @classmethod
    async def async_start(
        cls,
        config_dir: Path,
        port: int,
        smartthings_root: str | None = None,
        python: str | Path = sys.executable,
    ) -> HomeAssistantProcess:
        """Start Home Assistant without installing anything (``--skip-pip``), in its own session.

        Its own session keeps a Ctrl-C in the terminal away from it: the demo stops it
        with SIGTERM, in order. With ``smartthings_root``, it starts through
        ``demo.hass_launcher``, which points the integration's SmartThings client there.
        ``python`` is the interpreter whose Home Assistant runs (the compatibility check
        starts another environment's).
        """
        launcher = ["homeassistant"]
        if smartthings_root is not None:
            launcher = ["demo.hass_launcher", "--smartthings-root", smartthings_root]
        with (config_dir / CONSOLE_LOG).open("ab") as console:
            process = await asyncio.create_subprocess_exec(
                str(python),
                "-m",
                *launcher,
                "--config",
                str(config_dir.resolve()),
                "--skip-pip",
                "--log-no-color",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=console,
                stderr=asyncio.subprocess.STDOUT,
                env={**os.environ, PORT_VARIABLE: str(port)},
                cwd=REPOSITORY,
                start_new_session=True,
            )
        return cls(config_dir, port, process)

    @property
    def exited(self) -> bool:
        """Return True once the process has ended."""
        return self.process.returncode is not None

    async def async_stop(self) -> int:
        """Stop Home Assistant with SIGTERM (SIGKILL after STOP_TIMEOUT); return its exit code."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(STOP_TIMEOUT):
                    await self.process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()
        return self.process.returncode

    def log_tail(self, lines: int = 40) -> str:
        """Return the last ``lines`` lines of its console output."""
        try:
            with self.log_path.open(encoding="utf-8", errors="replace") as log:
                return "".join(deque(log, maxlen=lines))
        except FileNotFoundError:
            return "(no output)\n"
