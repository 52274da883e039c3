"""The OpenAI-compatible embeddings client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import time

import aiohttp
import pytest

from custom_components.context_retrieval.clients.json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointRateLimitError,
    EndpointResponseError,
)
from custom_components.context_retrieval.clients.openai_embeddings import (
    EMBEDDING_BATCH_SIZE,
    EmbeddingAuthError,
    EmbeddingConnectionError,
    EmbeddingError,
    EmbeddingRateLimitError,
    EmbeddingResponseError,
    OpenAICompatibleEmbeddings,
)
from custom_components.context_retrieval.const import LLM_MAX_ATTEMPTS

from .openai_endpoint import FakeOpenAIEndpoint, Reply, embeddings_answer

pytestmark = pytest.mark.usefixtures("socket_enabled")

OK = Reply(json=embeddings_answer)


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


def embeddings(session, server, **kwargs) -> OpenAICompatibleEmbeddings:
    """Return a client of the fake endpoint that retries without waiting unless told."""
    kwargs.setdefault("retry_delay", 0.0)
    return OpenAICompatibleEmbeddings(session, server.base_url, "sk-test", "text-embedding-v4", **kwargs)


async def test_embedding_sends_the_protocol_and_returns_vectors(endpoint, session):
    server = await endpoint(OK)
    client = OpenAICompatibleEmbeddings(session, server.base_url + "/", "sk-test", "text-embedding-v4")
    assert await client.async_embed(["客厅灯", "空调"]) == [
        [3.0, float(ord("客")), 1.0],
        [2.0, float(ord("空")), 1.0],
    ]
    [request] = server.requests
    assert request.path == "/v1/embeddings"
    assert request.headers["Authorization"] == "Bearer sk-test"
    assert request.json == {
        "model": "text-embedding-v4",
        "input": ["客厅灯", "空调"],
        "encoding_format": "float",
    }


async def test_no_api_key_sends_no_authorization(endpoint, session):
    server = await endpoint(OK)
    await OpenAICompatibleEmbeddings(session, server.base_url, None, "nomic-embed-text").async_embed(["灯"])
    assert "Authorization" not in server.requests[0].headers


async def test_texts_are_sent_in_batches_and_returned_in_order(endpoint, session):
    server = await endpoint(OK)
    texts = [f"{chr(0x4E00 + number)}{'x' * number}" for number in range(2 * EMBEDDING_BATCH_SIZE + 3)]
    vectors = await embeddings(session, server).async_embed(texts)
    assert [request.json["input"] for request in server.requests] == [
        texts[:EMBEDDING_BATCH_SIZE],
        texts[EMBEDDING_BATCH_SIZE : 2 * EMBEDDING_BATCH_SIZE],
        texts[2 * EMBEDDING_BATCH_SIZE :],
    ]
    assert vectors == [[float(len(text)), float(ord(text[0])), 1.0] for text in texts]


async def test_the_batch_size_is_configurable(endpoint, session):
    server = await endpoint(OK)
    await embeddings(session, server, batch_size=2).async_embed(["a", "b", "c"])
    assert [len(request.json["input"]) for request in server.requests] == [2, 1]


async def test_no_texts_send_no_request(endpoint, session):
    server = await endpoint(OK)
    assert await embeddings(session, server).async_embed([]) == []
    assert server.requests == []


async def test_data_is_placed_by_its_index(endpoint, session):
    def reversed_answer(request):
        return {"data": list(reversed(embeddings_answer(request)["data"]))}

    server = await endpoint(Reply(json=reversed_answer))
    assert await embeddings(session, server).async_embed(["a", "bb", "ccc"]) == [
        [1.0, 97.0, 1.0],
        [2.0, 98.0, 1.0],
        [3.0, 99.0, 1.0],
    ]


async def test_data_without_index_keeps_its_order(endpoint, session):
    server = await endpoint(Reply(json={"data": [{"embedding": [1, 0]}, {"embedding": [0, 1]}]}))
    assert await embeddings(session, server).async_embed(["a", "b"]) == [[1.0, 0.0], [0.0, 1.0]]


async def test_validate_embeds_one_text(endpoint, session):
    server = await endpoint(OK)
    await embeddings(session, server).async_validate()
    [request] = server.requests
    assert len(request.json["input"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[]",
        "{}",
        '{"data": {}}',
        '{"data": [{"index": 0, "embedding": [1.0]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 2, "embedding": [1.0]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": true, "embedding": [1.0]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": "1", "embedding": [1.0]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": []}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": ["1"]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [true]}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": "AACAPw=="}]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, 3]}',
        '{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]}',
    ],
)
async def test_malformed_or_misshapen_answers_are_response_errors(endpoint, session, body):
    server = await endpoint(Reply(text=body))
    with pytest.raises(EmbeddingResponseError) as caught:
        await embeddings(session, server).async_embed(["a", "b"])
    assert isinstance(caught.value, EndpointResponseError)
    assert len(server.requests) == 1


async def test_dimensions_must_agree_across_batches(endpoint, session):
    server = await endpoint(
        Reply(json={"data": [{"index": 0, "embedding": [1.0, 0.0]}]}),
        Reply(json={"data": [{"index": 0, "embedding": [1.0]}]}),
    )
    with pytest.raises(EmbeddingResponseError, match="dimensions"):
        await embeddings(session, server, batch_size=1).async_embed(["a", "b"])


@pytest.mark.parametrize(
    ("replies", "error", "shared", "requests"),
    [
        ([Reply(401, {"error": "bad key"}), OK], EmbeddingAuthError, EndpointAuthError, 1),
        ([Reply(403, {"error": "forbidden"}), OK], EmbeddingAuthError, EndpointAuthError, 1),
        ([Reply(404, {"error": "no such model"}), OK], EmbeddingResponseError, EndpointResponseError, 1),
        (
            [Reply(429, {}, headers={"Retry-After": "60"}), OK],
            EmbeddingRateLimitError,
            EndpointRateLimitError,
            1,
        ),
        ([Reply(429, {}, headers={"Retry-After": "0"})], EmbeddingRateLimitError, EndpointRateLimitError, 2),
        ([Reply(500, {}), Reply(500, {}), OK], EmbeddingConnectionError, EndpointConnectionError, 2),
        ([Reply(drop=True)], EmbeddingConnectionError, EndpointConnectionError, 2),
    ],
)
async def test_failures_raise_typed_errors(endpoint, session, replies, error, shared, requests):
    server = await endpoint(*replies)
    with pytest.raises(error) as caught:
        await embeddings(session, server).async_embed(["a"])
    assert isinstance(caught.value, shared)
    assert isinstance(caught.value, EmbeddingError)
    assert len(server.requests) == requests <= LLM_MAX_ATTEMPTS


@pytest.mark.parametrize(
    "first",
    [
        Reply(429, {}, headers={"Retry-After": "0.1"}),
        Reply(500, {}),
        Reply(502, text="bad gateway"),
        Reply(drop=True),
    ],
)
async def test_transient_failures_are_retried(endpoint, session, first):
    server = await endpoint(first, OK)
    assert await embeddings(session, server).async_embed(["a"]) == [[1.0, 97.0, 1.0]]
    assert len(server.requests) == 2


async def test_slow_endpoint_times_out(endpoint, session):
    server = await endpoint(Reply(json=embeddings_answer, delay=1.0))
    started = time.monotonic()
    with pytest.raises(EmbeddingConnectionError, match="did not answer within 0.2 s"):
        await embeddings(session, server, timeout=0.2).async_embed(["a"])
    assert time.monotonic() - started < 0.8


async def test_unreachable_endpoint_is_a_connection_error(endpoint, session):
    server = await endpoint(OK)
    url = server.base_url
    await server.server.close()
    with pytest.raises(EmbeddingConnectionError, match="could not be reached"):
        await OpenAICompatibleEmbeddings(session, url, "k", "m").async_embed(["a"])
