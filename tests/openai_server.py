"""A local server speaking the OpenAI chat-completions protocol, for the integration tests."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer


@dataclass(slots=True)
class Reply:
    """What the server answers to one request."""

    status: int = 200
    content: str | None = None
    """The assistant message (wrapped in the chat-completions shape)."""
    body: str | None = None
    """A raw body instead of the chat-completions shape."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(slots=True)
class FakeOpenAI:
    """``POST /v1/chat/completions`` answering from a queue of replies (the last one repeats)."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    by_utterance: dict[str, str] = field(default_factory=dict)
    """Content answered to a request whose user message is this utterance (overrides ``content``)."""
    server: TestServer | None = None
    received: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a request has arrived."""

    async def start(self) -> str:
        """Start serving and return the base URL (ending in /v1)."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return str(self.server.make_url("/v1"))

    async def close(self) -> None:
        """Stop serving."""
        if self.server is not None:
            await self.server.close()

    def answer(self, *replies: Reply) -> None:
        """Answer the next requests with these replies."""
        self.replies = list(replies)

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.received.set()
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.body is not None:
            text = reply.body
        else:
            content = self.by_utterance.get(body["messages"][-1]["content"], reply.content)
            message = {"role": "assistant", "content": content}
            text = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
        return web.Response(
            status=reply.status, text=text, content_type="application/json", headers=reply.headers
        )
