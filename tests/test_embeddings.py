"""The ``openai`` embedding backend: an OpenAI-compatible endpoint, a cache in storage, a local fallback.

A local server speaks the embeddings protocol; its vectors are the engine's n-gram vectors
of 256 dimensions, so retrieval through it ranks like the local embedder.
"""

from __future__ import annotations

import base64
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.context_retrieval.const import EMBEDDING_CACHE_SAVE_DELAY, EMBEDDING_QUERY_TIMEOUT
from custom_components.context_retrieval.core import LocalNgramEmbedder
from custom_components.context_retrieval.embeddings import STORAGE_KEY, EmbeddingCache

from .clients.openai_endpoint import FakeOpenAIEndpoint, Reply, embeddings_answer
from .conftest import call_retrieve, settle
from .home import HomeEntity, add_entity

pytestmark = pytest.mark.usefixtures("socket_enabled")
MODEL = "bge-m3"
SERVER_EMBEDDER = LocalNgramEmbedder(dimensions=256)


def ngram_answer(request: dict[str, Any]) -> dict[str, Any]:
    """Answer an embeddings request with the n-gram vectors of its texts."""
    vectors = SERVER_EMBEDDER.embed(request["input"])
    data = [{"index": i, "embedding": [float(x) for x in row]} for i, row in enumerate(vectors)]
    return {"object": "list", "data": data, "model": request["model"]}


OK = Reply(json=ngram_answer)


@pytest.fixture
async def server():
    endpoint = FakeOpenAIEndpoint([OK])
    await endpoint.server.start_server()
    yield endpoint
    await endpoint.server.close()


@pytest.fixture
def entry_options(server: FakeOpenAIEndpoint) -> dict[str, Any]:
    return {"embedding_backend": "openai", "embedding_base_url": server.base_url, "embedding_model": MODEL}


def embedded_texts(server: FakeOpenAIEndpoint) -> list[str]:
    """Return every text the server was asked to embed, in order."""
    return [text for request in server.requests for text in request.json["input"]]


async def save_cache(hass: HomeAssistant) -> None:
    """Let the cache's delayed save happen."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=EMBEDDING_CACHE_SAVE_DELAY + 1))
    await hass.async_block_till_done()


async def test_commands_and_queries_are_embedded_through_the_endpoint(loaded_entry, home, server):
    documents = embedded_texts(server)
    assert any("打开灯" in text for text in documents)  # the lights' command documents
    assert loaded_entry.runtime_data.index.current.remote_index is not None
    response = await call_retrieve(home, "打开厨房灯")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.kitchen"
    assert result["meta"]["embedding"] == MODEL
    assert embedded_texts(server)[len(documents) :] == [result["meta"]["vector_query"]]


async def test_a_restart_embeds_only_new_command_texts(loaded_entry, home, server, hass_storage):
    first = len(embedded_texts(server))
    await save_cache(home)
    assert hass_storage[STORAGE_KEY]["data"]["identity"]["model"] == MODEL
    server.requests.clear()
    assert await home.config_entries.async_reload(loaded_entry.entry_id)
    await home.async_block_till_done()
    assert embedded_texts(server) == []
    assert loaded_entry.runtime_data.index.current.remote_index is not None
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    fan = {"percentage": 30, "supported_features": 1 | 16 | 32}
    add_entity(home, HomeEntity("fan.bedroom", "卧室风扇", "on", fan, area="卧室"), owner)
    await settle(home)
    new = embedded_texts(server)
    assert new
    assert len(new) < first
    assert all("风扇" in text or "风速" in text for text in new)


async def test_a_damaged_cache_is_rebuilt(home, config_entry, server, hass_storage, caplog):
    hass_storage[STORAGE_KEY] = {
        "version": 1,
        "key": STORAGE_KEY,
        "data": {
            "identity": {"backend": "openai", "base_url": server.base_url, "model": MODEL},
            "dimensions": 256,
            "vectors": {"abc": "not base64 at all"},
        },
    }
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await home.async_block_till_done()
    assert "The embedding cache is damaged" in caplog.text
    assert embedded_texts(server)
    assert config_entry.runtime_data.index.current.remote_index is not None


async def test_another_model_does_not_use_the_cache(home, config_entry, server, hass_storage):
    vector = np.ones(256, dtype=np.float32).tobytes()
    hass_storage[STORAGE_KEY] = {
        "version": 1,
        "key": STORAGE_KEY,
        "data": {
            "identity": {"backend": "openai", "base_url": server.base_url, "model": "an-older-model"},
            "dimensions": 256,
            "vectors": {"0" * 32: base64.b64encode(vector).decode()},
        },
    }
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await home.async_block_till_done()
    assert len(config_entry.runtime_data.embeddings.cache.vectors) == len(set(embedded_texts(server)))


async def test_when_queries_fail_the_local_index_answers(loaded_entry, home, server, caplog):
    server.replies = [Reply(status=500, json={"error": {"message": "down"}})]
    response = await call_retrieve(home, "打开厨房灯")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.kitchen"
    assert result["meta"]["embedding"] == "local"
    assert result["meta"]["embedding_fallback"] == "query_failed"
    asked = len(server.requests)
    response = await call_retrieve(home, "关掉床头灯")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.bedside"
    assert result["meta"]["embedding_fallback"] == "unavailable"
    assert len(server.requests) == asked  # left alone during the pause
    assert caplog.text.count("The embedding endpoint failed") == 1


async def test_query_vectors_of_another_dimension_fall_back(loaded_entry, home, server, caplog):
    server.replies = [Reply(json=embeddings_answer)]  # three dimensions instead of 256
    response = await call_retrieve(home, "打开厨房灯")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.kitchen"
    assert result["meta"]["embedding_fallback"] == "query_failed"
    assert "query vectors of 3 dimensions, documents of 256" in caplog.text


async def test_document_vectors_of_a_new_dimension_replace_the_cache(loaded_entry, home, server):
    def wider(request: dict[str, Any]) -> dict[str, Any]:
        answer = ngram_answer(request)
        for item in answer["data"]:
            item["embedding"] = [*item["embedding"], 0.0]
        return answer

    server.replies = [Reply(json=wider)]  # the model behind the URL changed: 257 dimensions
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    fan = {"percentage": 30, "supported_features": 1 | 16 | 32}
    add_entity(home, HomeEntity("fan.bedroom", "卧室风扇", "on", fan, area="卧室"), owner)
    await settle(home)
    cache = loaded_entry.runtime_data.embeddings.cache
    assert cache.dimensions == 257
    assert all(vector.shape == (257,) for vector in cache.vectors.values())
    assert loaded_entry.runtime_data.index.current.remote_index.vectors.doc_matrix.shape[1] == 257
    response = await call_retrieve(home, "打开卧室风扇")
    assert response["results"][0]["candidates"][0]["entity_id"] == "fan.bedroom"
    assert response["results"][0]["meta"]["embedding"] == MODEL


async def test_an_endpoint_down_at_start_is_tried_again_later(home, config_entry, server):
    server.replies = [Reply(status=500, json={})]
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await home.async_block_till_done()
    data = config_entry.runtime_data
    assert data.index.current.remote_index is None
    response = await call_retrieve(home, "打开厨房灯")
    assert response["results"][0]["candidates"][0]["entity_id"] == "light.kitchen"
    assert response["results"][0]["meta"]["embedding_fallback"] == "unavailable"
    server.replies = [OK]
    data.embeddings.paused_until = 0.0  # the pause is over
    await call_retrieve(home, "打开厨房灯")  # answered locally; schedules a build with the endpoint
    await settle(home)
    assert data.index.current.remote_index is not None
    response = await call_retrieve(home, "打开厨房灯")
    assert response["results"][0]["meta"]["embedding"] == MODEL


async def test_the_cache_keeps_the_most_recently_used_vectors(hass: HomeAssistant):
    cache = EmbeddingCache(hass, {"backend": "openai", "base_url": "u", "model": "m"}, max_entries=3)
    rows = np.eye(5, dtype=np.float32)
    cache.put(["a", "b", "c"], rows[:3])
    assert cache.get("a") is not None  # a is now the most recent
    cache.put(["d", "e"], rows[3:])
    assert [text for text in "abcde" if cache.get(text) is not None] == ["a", "d", "e"]
    await hass.async_block_till_done()


async def test_a_query_out_of_time_pauses_the_endpoint(loaded_entry, home, server, caplog):
    server.replies = [Reply(json=ngram_answer, delay=EMBEDDING_QUERY_TIMEOUT + 1)]
    response = await call_retrieve(home, "打开厨房灯")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.kitchen"
    assert result["meta"]["embedding_fallback"] == "query_failed"
    asked = len(server.requests)
    response = await call_retrieve(home, "打开厨房灯")
    assert response["results"][0]["meta"]["embedding_fallback"] == "unavailable"
    assert len(server.requests) == asked
    assert caplog.text.count("The embedding endpoint failed") == 1
