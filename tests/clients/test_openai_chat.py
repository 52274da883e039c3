"""The OpenAI-compatible chat client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from custom_components.context_retrieval import demo
from custom_components.context_retrieval.clients.openai_chat import (
    ChatAuthError,
    ChatConnectionError,
    ChatError,
    OpenAICompatibleChat,
    PrefetchedAnswer,
)

# A real loopback server: pytest-socket (loaded by the HA test plugin) blocks sockets by default.
pytestmark = pytest.mark.usefixtures("socket_enabled")

WIRE_ANSWER = '[{"a":"打开","s":"客厅","n":"老伙计","t":"Fan","q":"one"}]'


class FakeChatServer:
    """A local /v1/chat/completions endpoint recording what it was sent."""

    def __init__(self, *, status: int = 200, body: object | None = None, delay: float = 0.0) -> None:
        self.status = status
        self.body = (
            body
            if body is not None
            else {"choices": [{"message": {"role": "assistant", "content": WIRE_ANSWER}}]}
        )
        self.delay = delay
        self.requests: list[tuple[str, dict, dict]] = []
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.handle)
        self.server = TestServer(app, host="127.0.0.1")

    async def handle(self, request: web.Request) -> web.Response:
        self.requests.append((request.path, dict(request.headers), await request.json()))
        await asyncio.sleep(self.delay)
        text = self.body if isinstance(self.body, str) else json.dumps(self.body)
        return web.Response(status=self.status, text=text, content_type="application/json")

    @property
    def base_url(self) -> str:
        return str(self.server.make_url("/v1"))


@pytest.fixture
async def chat_server():
    servers: list[FakeChatServer] = []

    async def start(**kwargs) -> FakeChatServer:
        server = FakeChatServer(**kwargs)
        await server.server.start_server()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.server.close()


async def test_completion_sends_the_protocol_and_returns_the_message(chat_server):
    server = await chat_server()
    async with aiohttp.ClientSession() as session:
        chat = OpenAICompatibleChat(session, server.base_url + "/", "sk-test", "qwen-flash")
        answer = await chat.async_complete("系统提示", "打开老伙计")
    assert answer == WIRE_ANSWER
    path, headers, payload = server.requests[0]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test"
    assert payload["model"] == "qwen-flash"
    assert payload["messages"] == [
        {"role": "system", "content": "系统提示"},
        {"role": "user", "content": "打开老伙计"},
    ]
    assert payload["temperature"] == 0


async def test_no_api_key_sends_no_authorization(chat_server):
    server = await chat_server()
    async with aiohttp.ClientSession() as session:
        await OpenAICompatibleChat(session, server.base_url, "", "llama3").async_complete("s", "u")
    assert "Authorization" not in server.requests[0][1]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"status": 401, "body": {"error": "bad key"}}, ChatAuthError),
        ({"status": 403, "body": {"error": "forbidden"}}, ChatAuthError),
        ({"status": 500, "body": {"error": "boom"}}, ChatError),
        ({"body": "not json"}, ChatError),
        ({"body": {"choices": []}}, ChatError),
        ({"body": {"choices": [{"message": {"content": None}}]}}, ChatError),
    ],
)
async def test_failures_raise_typed_errors(chat_server, kwargs, error):
    server = await chat_server(**kwargs)
    async with aiohttp.ClientSession() as session:
        with pytest.raises(error):
            await OpenAICompatibleChat(session, server.base_url, "k", "m").async_complete("s", "u")


async def test_slow_endpoint_times_out(chat_server):
    server = await chat_server(delay=1.0)
    async with aiohttp.ClientSession() as session:
        chat = OpenAICompatibleChat(session, server.base_url, "k", "m", timeout=0.05)
        with pytest.raises(ChatConnectionError, match="did not answer"):
            await chat.async_complete("s", "u")


async def test_unreachable_endpoint_is_a_connection_error(chat_server):
    server = await chat_server()
    url = server.base_url
    await server.server.close()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(ChatConnectionError):
            await OpenAICompatibleChat(session, url, "k", "m").async_complete("s", "u")


def test_prefetched_answer_replays_the_answer_or_the_error():
    assert PrefetchedAnswer(WIRE_ANSWER).complete("s", "u") == WIRE_ANSWER
    with pytest.raises(ChatAuthError):
        PrefetchedAnswer(error=ChatAuthError("no")).complete("s", "u")


async def test_demo_parses_with_the_configured_endpoint(chat_server, monkeypatch, capsys):
    server = await chat_server()
    monkeypatch.setenv("LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("LLM_MODEL", "qwen-flash")
    await asyncio.get_running_loop().run_in_executor(None, demo.main, ["打开老伙计"])
    output = capsys.readouterr().out
    assert "parse: llm" in output
    assert "客厅/老伙计" in output
    assert "room_hit" in output
    system_prompt = server.requests[0][2]["messages"][0]["content"]
    assert "主卧" in system_prompt


async def test_demo_falls_back_to_offline_when_the_endpoint_fails(chat_server, monkeypatch, capsys):
    server = await chat_server(status=500, body={"error": "down"})
    monkeypatch.setenv("LLM_BASE_URL", server.base_url)
    await asyncio.get_running_loop().run_in_executor(None, demo.main, ["打开老伙计"])
    output = capsys.readouterr().out
    assert "parse: offline" in output
    assert "老伙计" in output
