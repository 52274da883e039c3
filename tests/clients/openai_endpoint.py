"""A local server speaking the OpenAI protocol (chat completions and embeddings) for the client tests."""

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
    json: Any = None
    """The JSON body, or a function of the request's JSON body returning it."""
    text: str | None = None
    """A raw body instead of ``json``."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False
    """Close the connection without answering."""


@dataclass(slots=True)
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    json: Any


class FakeOpenAIEndpoint:
    """``POST /v1/chat/completions`` and ``/v1/embeddings`` answering a queue of replies.

    Each request takes the next reply; the last one repeats.
    """

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.requests: list[Received] = []
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/v1/embeddings", self._handle)
        self.server = TestServer(app, host="127.0.0.1")

    @property
    def base_url(self) -> str:
        """The API root, ending in ``/v1``."""
        return str(self.server.make_url("/v1"))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(Received(request.path, dict(request.headers), body))
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        await asyncio.sleep(reply.delay)
        if reply.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if reply.text is not None:
            text = reply.text
        else:
            text = json.dumps(reply.json(body) if callable(reply.json) else reply.json)
        return web.Response(
            status=reply.status, text=text, content_type="application/json", headers=reply.headers
        )


def chat_answer(content: Any) -> dict[str, Any]:
    """Return a chat-completions body whose first message has ``content``."""
    message = {"role": "assistant", "content": content}
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def embeddings_answer(request: dict[str, Any]) -> dict[str, Any]:
    """Return an embeddings body for a request: text t becomes [len(t), ord(t[0]), 1.0]."""
    data = [
        {"object": "embedding", "index": index, "embedding": [float(len(text)), float(ord(text[0])), 1.0]}
        for index, text in enumerate(request["input"])
    ]
    return {"object": "list", "data": data, "model": request["model"]}
