"""A local server speaking Ollama's HTTP API (``/api/tags``, streamed ``/api/chat``), for agent tests.

Home Assistant's own Ollama integration talks to it through the real ``ollama`` client, so a
test runs a whole conversation turn: the system prompt and tools the agent sends, the tool
calls the "model" makes and what Home Assistant answers to them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer

CREATED_AT = "2026-11-23T12:00:00Z"


@dataclass(slots=True)
class ToolCall:
    """A function call the model makes."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ModelTurn:
    """What the model answers to one user message: tool calls one after another, then text."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    text: str = "好的。"


@dataclass(slots=True)
class FakeOllama:
    """Answers each user message by its script; after a tool result, the next call of the script."""

    scripts: dict[str, ModelTurn] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    server: TestServer | None = None
    down: bool = False
    """True: every chat request fails with HTTP 500, as a crashed model server would answer."""

    async def start(self) -> str:
        """Start serving and return the base URL."""
        app = web.Application()
        app.router.add_get("/api/tags", self._tags)
        app.router.add_post("/api/chat", self._chat)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return str(self.server.make_url("")).rstrip("/")

    async def close(self) -> None:
        """Stop serving."""
        if self.server is not None:
            await self.server.close()

    def system_prompt(self, request: int = -1) -> str:
        """Return the system prompt of a request (the last by default)."""
        return next(m["content"] for m in self.requests[request]["messages"] if m["role"] == "system")

    def tool_names(self, request: int = -1) -> list[str]:
        """Return the names of the tools a request offered."""
        return [tool["function"]["name"] for tool in self.requests[request].get("tools") or ()]

    def tool_results(self, request: int = -1) -> list[dict[str, Any]]:
        """Return the tool results a request carried (what Home Assistant answered the calls)."""
        return [json.loads(m["content"]) for m in self.requests[request]["messages"] if m["role"] == "tool"]

    async def _tags(self, request: web.Request) -> web.Response:  # noqa: ARG002 - aiohttp handler
        return web.json_response({"models": [{"model": "qwen3:4b", "name": "qwen3:4b", "size": 1}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        if self.down:
            return web.json_response({"error": "model runner has crashed"}, status=500)
        messages = body["messages"]
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        turn = self.scripts.get(user, ModelTurn())
        answered = 0
        for message in reversed(messages):
            if message["role"] == "user":
                break
            answered += message["role"] == "assistant"
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        if answered < len(turn.tool_calls):
            call = turn.tool_calls[answered]
            message = {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": call.name, "arguments": call.arguments}}],
            }
        else:
            message = {"role": "assistant", "content": turn.text}
        await self._send(response, {"message": message, "done": False})
        await self._send(
            response, {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
        )
        await response.write_eof()
        return response

    @staticmethod
    async def _send(response: web.StreamResponse, chunk: dict[str, Any]) -> None:
        line = {"model": "qwen3:4b", "created_at": CREATED_AT, **chunk}
        await response.write((json.dumps(line, ensure_ascii=False) + "\n").encode())
