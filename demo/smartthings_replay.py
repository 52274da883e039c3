"""A local server replaying SmartThings' REST API from a dump like ``tests/data/smartthings``.

``GET /v1/devices?locationId=`` in pages with ``_links.next``, ``GET /v1/locations/{id}/rooms``,
``POST /v1/devices/{id}/commands``; errors can be queued (401, 429 with Retry-After, 5xx, a
malformed body) and every request is recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.test_utils import TestServer

if TYPE_CHECKING:
    from pathlib import Path

LOCATION = "location-1"
TOKEN = "pat-token"  # noqa: S105 - the replayed account's token


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSON Lines file (or one JSON array)."""
    text = path.read_text(encoding="utf-8").strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@dataclass(slots=True)
class Failure:
    """An error answer queued for the next request."""

    status: int
    body: str = '{"error": {"code": "Failure"}}'
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class SmartThingsReplay:
    """The replayed account: its devices, rooms, queued failures and the requests seen."""

    devices: list[dict[str, Any]]
    rooms: list[dict[str, Any]]
    page_size: int = 7
    failures: list[Failure] = field(default_factory=list)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    """(method, path with query, JSON body) of each request."""
    commands: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)
    server: TestServer | None = None

    @classmethod
    def from_dump(cls, directory: Path, **kwargs: Any) -> SmartThingsReplay:
        """Return a replay of the ``devices.jsonl`` and ``rooms.jsonl`` in ``directory``."""
        return cls(read_jsonl(directory / "devices.jsonl"), read_jsonl(directory / "rooms.jsonl"), **kwargs)

    async def start(self) -> str:
        """Start serving; return the API root (ending in /v1)."""
        app = web.Application()
        app.router.add_get("/v1/devices", self._devices)
        app.router.add_get("/v1/locations/{location}/rooms", self._rooms)
        app.router.add_post("/v1/devices/{device}/commands", self._command)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self.base_url

    @property
    def base_url(self) -> str:
        """Return the API root of the running server (ending in /v1)."""
        if self.server is None:
            raise RuntimeError("the replay is not serving")
        return str(self.server.make_url("/v1"))

    async def close(self) -> None:
        """Stop serving."""
        if self.server is not None:
            await self.server.close()

    async def _answer(self, request: web.Request, body: Any) -> web.Response:
        payload = await request.json() if request.can_read_body else None
        self.requests.append((request.method, request.path_qs, payload))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"error": {"code": "UnauthorizedError"}}, status=401)
        if self.failures:
            failure = self.failures.pop(0)
            return web.Response(
                status=failure.status,
                text=failure.body,
                headers=failure.headers,
                content_type="application/json",
            )
        return web.json_response(body)

    async def _devices(self, request: web.Request) -> web.Response:
        if request.query.get("locationId") != LOCATION:
            return await self._answer(request, {"items": []})
        page = int(request.query.get("page", "0"))
        start = page * self.page_size
        body: dict[str, Any] = {"items": self.devices[start : start + self.page_size], "_links": {}}
        if start + self.page_size < len(self.devices):
            href = f"{self.base_url}/devices?locationId={LOCATION}&page={page + 1}"
            body["_links"] = {"next": {"href": href}}
        return await self._answer(request, body)

    async def _rooms(self, request: web.Request) -> web.Response:
        rooms = self.rooms if request.match_info["location"] == LOCATION else []
        return await self._answer(request, {"items": rooms})

    async def _command(self, request: web.Request) -> web.Response:
        device = request.match_info["device"]
        known = any(item["deviceId"] == device for item in self.devices)
        if known and request.headers.get("Authorization") == f"Bearer {TOKEN}" and not self.failures:
            self.commands.append((device, (await request.json())["commands"]))
        body = {"results": [{"id": "result-1", "status": "ACCEPTED"}]}
        if not known:
            self.failures.insert(0, Failure(404, '{"error": {"code": "NotFoundError"}}'))
        return await self._answer(request, body)
