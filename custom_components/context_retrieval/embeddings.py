"""The ``openai`` embedding backend: document vectors cached in storage, query vectors with a fallback.

Document vectors are computed during an index build (in the executor, never on the request
path) and cached in Home Assistant's storage by text hash, so a restart or a change of the
home re-embeds only new command texts. A query is embedded through the endpoint with a short
timeout; when that fails the request is answered with the local index (``meta`` says so),
the outage is logged once and the endpoint left alone for a while.

The engine's embedders are synchronous and run in worker threads (index builds and remote
retrievals); they reach the asynchronous client on the event loop with
``run_coroutine_threadsafe`` and wait for it there, never on the loop.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.storage import Store

from .clients.openai_embeddings import EmbeddingError, OpenAICompatibleEmbeddings
from .const import (
    DOMAIN,
    EMBEDDING_CACHE_SAVE_DELAY,
    EMBEDDING_DOCUMENT_TIMEOUT,
    EMBEDDING_OUTAGE_PAUSE,
    EMBEDDING_QUERY_TIMEOUT,
    LOGGER,
    MAX_CACHED_EMBEDDINGS,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Sequence

    from homeassistant.core import HomeAssistant

STORAGE_KEY = f"{DOMAIN}.embeddings"
THREAD_WAIT_MARGIN = 5.0
"""Seconds a worker thread waits beyond an embedding's own budget."""
STORAGE_VERSION = 1
BACKEND = "openai"


class EmbeddingUnavailable(Exception):  # noqa: N818 - a state, not a programming error
    """The endpoint gave no vectors (failing, paused or misshapen); the local index answers."""


def text_key(text: str) -> str:
    """Return the cache key of a text."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """Return the vectors as float32 rows of length one (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def _decoded(stored: dict[str, Any]) -> tuple[int, dict[str, np.ndarray]]:
    """Return the dimension and vectors of a stored cache; raise ``ValueError`` on a damaged one."""
    dimensions = int(stored["dimensions"])
    vectors = {}
    for key, encoded in stored["vectors"].items():
        vector = np.frombuffer(base64.b64decode(encoded), dtype=np.float32)
        if vector.shape != (dimensions,):
            raise ValueError(f"a vector of {vector.size} dimensions, not {dimensions}")
        vectors[str(key)] = vector
    return dimensions, vectors


@dataclass(slots=True)
class EmbeddingCache:
    """Unit vectors by text hash for one endpoint and model, bounded, least recently used dropped.

    ``identity`` (backend, URL, model) and the vectors' dimension are stored with them; a file
    of another identity or dimension is discarded, and so is a file that cannot be read.
    """

    hass: HomeAssistant
    identity: dict[str, str]
    max_entries: int = MAX_CACHED_EMBEDDINGS
    dimensions: int | None = None
    vectors: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)
    store: Store[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        """Open the storage file."""
        self.store = Store(self.hass, STORAGE_VERSION, STORAGE_KEY, private=True)

    async def async_load(self) -> None:
        """Read the cached vectors; an unreadable file or one of another model starts empty."""
        try:
            stored = await self.store.async_load()
        except (HomeAssistantError, ValueError, TypeError, KeyError) as err:
            LOGGER.warning("The embedding cache could not be read (%s); it is rebuilt", err)
            return
        if not isinstance(stored, dict) or stored.get("identity") != self.identity:
            return
        try:
            dimensions, vectors = _decoded(stored)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            LOGGER.warning("The embedding cache is damaged (%s); it is rebuilt", err)
            return
        self.dimensions = dimensions
        self.vectors.update(vectors)
        self._bound()

    def get(self, text: str) -> np.ndarray | None:
        """Return the cached vector of a text (and mark it recently used)."""
        key = text_key(text)
        vector = self.vectors.get(key)
        if vector is not None:
            self.vectors.move_to_end(key)
        return vector

    def put(self, texts: Sequence[str], rows: np.ndarray) -> None:
        """Cache unit rows for texts; rows of another dimension replace the whole cache."""
        if self.dimensions != rows.shape[1]:
            if self.vectors:
                LOGGER.info("The embeddings now have %d dimensions; the cache starts again", rows.shape[1])
            self.vectors.clear()
            self.dimensions = int(rows.shape[1])
        for text, row in zip(texts, rows, strict=True):
            self.vectors[text_key(text)] = np.array(row, dtype=np.float32)
        self._bound()
        self.store.async_delay_save(self._data, EMBEDDING_CACHE_SAVE_DELAY)

    def _bound(self) -> None:
        while len(self.vectors) > self.max_entries:
            self.vectors.popitem(last=False)

    def _data(self) -> dict[str, Any]:
        return {
            "identity": self.identity,
            "dimensions": self.dimensions,
            "vectors": {key: base64.b64encode(row.tobytes()).decode() for key, row in self.vectors.items()},
        }


@dataclass(slots=True)
class RemoteEmbeddings:
    """The endpoint, its cache and its outage state, shared by the index and the requests."""

    hass: HomeAssistant
    documents: OpenAICompatibleEmbeddings
    """Client for document batches (long timeout, retries)."""
    queries: OpenAICompatibleEmbeddings
    """Client for one query (short timeout, no retry)."""
    cache: EmbeddingCache
    failing: bool = False
    paused_until: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    @property
    def model(self) -> str:
        """Return the embedding model."""
        return self.documents.model

    def available(self) -> bool:
        """Return False while the endpoint is left alone after a failure."""
        return self.clock() >= self.paused_until

    async def async_rows(self, texts: Sequence[str], *, documents: bool) -> np.ndarray:
        """Return unit rows for documents or queries, within their time budget.

        Running out of time is a failure like any other: logged once, the endpoint paused.
        """
        budget = EMBEDDING_DOCUMENT_TIMEOUT if documents else EMBEDDING_QUERY_TIMEOUT
        try:
            async with asyncio.timeout(budget):
                if documents:
                    return await self.async_document_rows(texts)
                return await self.async_query_rows(texts)
        except TimeoutError as err:
            self._fail(f"no answer within {budget:g} s")
            raise EmbeddingUnavailable("no answer in time") from err

    async def async_document_rows(self, texts: Sequence[str]) -> np.ndarray:
        """Return unit rows for documents: cached ones, the rest embedded and cached."""
        missing = list(dict.fromkeys(text for text in texts if self.cache.get(text) is None))
        if missing:
            LOGGER.debug("Embedding %d of %d command texts through %s", len(missing), len(texts), self.model)
            rows = _unit_rows(await self._async_call(self.documents.async_embed(missing)))
            self.cache.put(missing, rows)
        vectors = [self.cache.get(text) for text in texts]
        if any(vector is None for vector in vectors):
            # The new vectors have another dimension (the cache started again) or the bound is
            # smaller than the home: embed every text, so all rows share one space.
            rows = _unit_rows(await self._async_call(self.documents.async_embed(list(texts))))
            self.cache.put(texts, rows)
            return rows
        return np.vstack(vectors) if vectors else np.zeros((0, self.cache.dimensions or 1), np.float32)

    async def async_query_rows(self, texts: Sequence[str]) -> np.ndarray:
        """Return unit rows for query texts (not cached: they change with every utterance)."""
        if not self.available():
            raise EmbeddingUnavailable("paused after a failure")
        rows = _unit_rows(await self._async_call(self.queries.async_embed(list(texts))))
        if rows.shape[1] != self.cache.dimensions:
            self._fail(f"query vectors of {rows.shape[1]} dimensions, documents of {self.cache.dimensions}")
            raise EmbeddingUnavailable("dimensions changed")
        return rows

    async def _async_call(self, call: Coroutine[Any, Any, list[list[float]]]) -> list[list[float]]:
        """Await a client call; turn its failure into ``EmbeddingUnavailable`` (logged once, paused)."""
        try:
            vectors = await call
        except EmbeddingError as err:
            self._fail(f"{type(err).__name__}: {err}")
            raise EmbeddingUnavailable(str(err)) from err
        if self.failing:
            LOGGER.info("The embedding endpoint answers again")
        self.failing = False
        return vectors

    def _fail(self, reason: str) -> None:
        """Log the start of an outage once and leave the endpoint alone for a while."""
        if not self.failing:
            LOGGER.warning(
                "The embedding endpoint failed (%s); the local embedder ranks commands until it recovers",
                reason,
            )
        self.failing = True
        self.paused_until = self.clock() + EMBEDDING_OUTAGE_PAUSE


@dataclass(slots=True)
class ThreadEmbedder:
    """An engine ``Embedder`` for worker threads: asks ``RemoteEmbeddings`` on the event loop."""

    remote: RemoteEmbeddings
    documents: bool
    """Document batches (cached, long timeout) or query texts (short timeout)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return unit rows for texts; raise ``EmbeddingUnavailable`` when the endpoint gives none."""
        if not texts:
            return np.zeros((0, self.remote.cache.dimensions or 1), dtype=np.float32)
        call = self.remote.async_rows(list(texts), documents=self.documents)
        future = asyncio.run_coroutine_threadsafe(call, self.remote.hass.loop)
        try:
            # The call keeps its own budget on the loop; this wait only guards a loop that stopped.
            return future.result(EMBEDDING_DOCUMENT_TIMEOUT + THREAD_WAIT_MARGIN)
        except TimeoutError as err:
            future.cancel()
            raise EmbeddingUnavailable("the event loop did not answer") from err
