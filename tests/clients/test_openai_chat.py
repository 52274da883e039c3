"""The OpenAI-compatible chat client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import time

import aiohttp
import pytest

from custom_components.context_retrieval.clients.json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointRateLimitError,
    EndpointResponseError,
    parse_retry_after,
)
from custom_components.context_retrieval.clients.openai_chat import (
    MAX_OUTPUT_TOKENS,
    ChatAuthError,
    ChatConnectionError,
    ChatError,
    ChatRateLimitError,
    ChatResponseError,
    OpenAICompatibleChat,
    PrefetchedAnswer,
)
from custom_components.context_retrieval.const import LLM_MAX_ATTEMPTS, LLM_TIMEOUT, MAX_RETRY_AFTER

from .openai_endpoint import FakeOpenAIEndpoint, Reply, chat_answer

# A real loopback server: pytest-socket (loaded by the HA test plugin) blocks sockets by default.
pytestmark = pytest.mark.usefixtures("socket_enabled")

WIRE_ANSWER = '[{"a":"打开","s":"客厅","n":"老伙计","t":"Fan","q":"one"}]'
OK = Reply(json=chat_answer(WIRE_ANSWER))


@pytest.fixture
async def endpoint():
    """Start a fake endpoint answering the given replies in turn."""
    started: list[FakeOpenAIEndpoint] = []

    async def start(*replies: Reply) -> FakeOpenAIEndpoint:
        server = FakeOpenAIEndpoint(list(replies))
        await server.server.start_server()
        started.append(server)
        return server

    yield start
    for server in started:
        await server.server.close()


@pytest.fixture
async def session():
    async with aiohttp.ClientSession() as client_session:
        yield client_session


def chat(session, server, **kwargs) -> OpenAICompatibleChat:
    """Return a client of the fake endpoint that retries without waiting unless told."""
    kwargs.setdefault("retry_delay", 0.0)
    return OpenAICompatibleChat(session, server.base_url, "sk-test", "qwen-flash", **kwargs)


async def test_completion_sends_the_protocol_and_returns_the_message(endpoint, session):
    server = await endpoint(OK)
    client = OpenAICompatibleChat(session, server.base_url + "/", "sk-test", "qwen-flash")
    assert (client.timeout, client.max_attempts) == (LLM_TIMEOUT, LLM_MAX_ATTEMPTS)
    assert await client.async_complete("系统提示", "打开老伙计") == WIRE_ANSWER
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test"
    assert request.headers["Content-Type"] == "application/json"
    assert request.json == {
        "model": "qwen-flash",
        "messages": [
            {"role": "system", "content": "系统提示"},
            {"role": "user", "content": "打开老伙计"},
        ],
        "temperature": 0,
        "max_tokens": MAX_OUTPUT_TOKENS,
        "stream": False,
    }


@pytest.mark.parametrize("api_key", ["", None])
async def test_no_api_key_sends_no_authorization(endpoint, session, api_key):
    server = await endpoint(OK)
    await OpenAICompatibleChat(session, server.base_url, api_key, "llama3").async_complete("s", "u")
    assert "Authorization" not in server.requests[0].headers


async def test_validate_sends_one_small_completion(endpoint, session):
    server = await endpoint(Reply(json=chat_answer("OK")))
    await chat(session, server).async_validate()
    [request] = server.requests
    assert request.json["model"] == "qwen-flash"
    assert [message["role"] for message in request.json["messages"]] == ["system", "user"]


@pytest.mark.parametrize(
    ("reply", "error", "shared"),
    [
        (Reply(401, {"error": {"message": "Incorrect API key"}}), ChatAuthError, EndpointAuthError),
        (Reply(403, {"error": {"message": "forbidden"}}), ChatAuthError, EndpointAuthError),
        (Reply(400, {"error": {"message": "model not exist"}}), ChatResponseError, EndpointResponseError),
        (Reply(404, text="404 page not found"), ChatResponseError, EndpointResponseError),
    ],
)
async def test_client_errors_are_typed_and_not_retried(endpoint, session, reply, error, shared):
    server = await endpoint(reply, OK)
    with pytest.raises(error, match=str(reply.status)) as caught:
        await chat(session, server).async_complete("s", "u")
    assert isinstance(caught.value, shared)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1, 2",
        "[]",
        '"text"',
        '{"choices": []}',
        '{"choices": [{"message": {}}]}',
        '{"choices": [{"message": {"content": null, "tool_calls": []}}]}',
        '{"choices": [{"message": {"content": [{"type": "text", "text": "hi"}]}}]}',
    ],
)
async def test_malformed_or_misshapen_answers_are_response_errors(endpoint, session, body):
    server = await endpoint(Reply(text=body))
    with pytest.raises(ChatResponseError):
        await chat(session, server).async_complete("s", "u")
    assert len(server.requests) == 1


async def test_rate_limit_waits_retry_after_then_succeeds(endpoint, session):
    server = await endpoint(Reply(429, {"error": "slow down"}, headers={"Retry-After": "0.3"}), OK)
    started = time.monotonic()
    assert await chat(session, server).async_complete("s", "u") == WIRE_ANSWER
    assert time.monotonic() - started >= 0.3
    assert len(server.requests) == 2


async def test_rate_limit_without_retry_after_waits_the_retry_delay(endpoint, session):
    server = await endpoint(Reply(429, {"error": "slow down"}), OK)
    started = time.monotonic()
    assert await chat(session, server, retry_delay=0.2).async_complete("s", "u") == WIRE_ANSWER
    assert time.monotonic() - started >= 0.2
    assert len(server.requests) == 2


async def test_rate_limit_longer_than_the_cap_fails_at_once(endpoint, session):
    server = await endpoint(
        Reply(429, {"error": "quota"}, headers={"Retry-After": str(MAX_RETRY_AFTER + 55)}), OK
    )
    started = time.monotonic()
    with pytest.raises(ChatRateLimitError) as caught:
        await chat(session, server).async_complete("s", "u")
    assert isinstance(caught.value, EndpointRateLimitError)
    assert caught.value.retry_after == MAX_RETRY_AFTER + 55
    assert time.monotonic() - started < 1
    assert len(server.requests) == 1


async def test_rate_limit_longer_than_the_time_left_fails_at_once(endpoint, session):
    server = await endpoint(Reply(429, {"error": "quota"}, headers={"Retry-After": "2"}), OK)
    started = time.monotonic()
    with pytest.raises(ChatRateLimitError):
        await chat(session, server, timeout=0.5).async_complete("s", "u")
    assert time.monotonic() - started < 0.5
    assert len(server.requests) == 1


async def test_rate_limit_on_every_attempt_is_a_rate_limit_error(endpoint, session):
    server = await endpoint(Reply(429, {"error": "quota"}, headers={"Retry-After": "0"}))
    with pytest.raises(ChatRateLimitError):
        await chat(session, server).async_complete("s", "u")
    assert len(server.requests) == LLM_MAX_ATTEMPTS


async def test_server_error_then_success_is_retried(endpoint, session):
    server = await endpoint(Reply(500, {"error": "boom"}), OK)
    assert await chat(session, server).async_complete("s", "u") == WIRE_ANSWER
    assert len(server.requests) == 2


async def test_server_error_twice_is_a_connection_error(endpoint, session):
    server = await endpoint(Reply(500, {"error": "boom"}), Reply(503, text="unavailable"), OK)
    with pytest.raises(ChatConnectionError, match="503") as caught:
        await chat(session, server).async_complete("s", "u")
    assert isinstance(caught.value, EndpointConnectionError)
    assert len(server.requests) == LLM_MAX_ATTEMPTS == 2


async def test_a_single_attempt_does_not_retry(endpoint, session):
    server = await endpoint(Reply(502, text="bad gateway"), OK)
    with pytest.raises(ChatConnectionError):
        await chat(session, server, max_attempts=1).async_complete("s", "u")
    assert len(server.requests) == 1


async def test_dropped_connection_then_success_is_retried(endpoint, session):
    server = await endpoint(Reply(drop=True), OK)
    assert await chat(session, server).async_complete("s", "u") == WIRE_ANSWER
    assert len(server.requests) == 2


async def test_dropped_connection_twice_is_a_connection_error(endpoint, session):
    server = await endpoint(Reply(drop=True))
    with pytest.raises(ChatConnectionError, match="dropped"):
        await chat(session, server).async_complete("s", "u")
    assert len(server.requests) == 2


async def test_slow_endpoint_times_out(endpoint, session):
    server = await endpoint(Reply(json=chat_answer(WIRE_ANSWER), delay=1.0))
    started = time.monotonic()
    with pytest.raises(ChatConnectionError, match="did not answer within 0.2 s"):
        await chat(session, server, timeout=0.2).async_complete("s", "u")
    assert time.monotonic() - started < 0.8


async def test_a_retry_that_would_pass_the_timeout_fails_at_once(endpoint, session):
    server = await endpoint(Reply(500, {"error": "boom"}, delay=0.15), OK)
    with pytest.raises(ChatConnectionError, match="500"):
        await chat(session, server, timeout=0.2, retry_delay=0.1).async_complete("s", "u")
    assert len(server.requests) == 1


async def test_the_timeout_covers_the_retry(endpoint, session):
    server = await endpoint(Reply(500, {"error": "boom"}), Reply(json=chat_answer(WIRE_ANSWER), delay=1.0))
    with pytest.raises(ChatConnectionError, match="did not answer within"):
        await chat(session, server, timeout=0.2).async_complete("s", "u")
    assert len(server.requests) == 2


async def test_unreachable_endpoint_is_a_connection_error_without_retry(endpoint, session):
    server = await endpoint(OK)
    url = server.base_url
    await server.server.close()
    client = OpenAICompatibleChat(session, url, "k", "m", retry_delay=5.0)
    started = time.monotonic()
    with pytest.raises(ChatConnectionError, match="could not be reached"):
        await client.async_complete("s", "u")
    assert time.monotonic() - started < 1


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("2", 2.0),
        ("0.5", 0.5),
        ("-3", 0.0),
        ("inf", float("inf")),
        ("nan", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None),
    ],
)
def test_retry_after_is_read_in_seconds(header, seconds):
    assert parse_retry_after(header) == seconds


def test_every_chat_error_is_a_chat_error():
    for error in (ChatAuthError, ChatConnectionError, ChatRateLimitError, ChatResponseError):
        assert issubclass(error, ChatError)


def test_prefetched_answer_replays_the_answer_or_the_error():
    assert PrefetchedAnswer(WIRE_ANSWER).complete("s", "u") == WIRE_ANSWER
    with pytest.raises(ChatAuthError):
        PrefetchedAnswer(error=ChatAuthError("no")).complete("s", "u")
