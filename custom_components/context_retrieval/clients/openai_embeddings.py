"""OpenAI-compatible embeddings client (DashScope, OpenAI, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from .json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointError,
    EndpointRateLimitError,
    EndpointResponseError,
    ErrorClasses,
)
from .openai_compatible import OpenAICompatibleClient

if TYPE_CHECKING:
    from collections.abc import Sequence

EMBEDDING_BATCH_SIZE: Final = 10
"""Texts per request: DashScope's text-embedding-v3/v4 accept at most 10, others far more."""
VALIDATION_TEXT: Final = "打开客厅的灯"


class EmbeddingError(EndpointError):
    """The embeddings endpoint gave no usable answer."""


class EmbeddingAuthError(EmbeddingError, EndpointAuthError):
    """The embeddings endpoint rejected the API key (401/403)."""


class EmbeddingConnectionError(EmbeddingError, EndpointConnectionError):
    """The embeddings endpoint could not be reached, timed out or failed (5xx)."""


class EmbeddingRateLimitError(EmbeddingError, EndpointRateLimitError):
    """The embeddings endpoint answered 429 for longer than a request may wait."""


class EmbeddingResponseError(EmbeddingError, EndpointResponseError):
    """The embeddings endpoint answered, but not with one vector per text of one dimension."""


@dataclass(slots=True)
class OpenAICompatibleEmbeddings(OpenAICompatibleClient):
    """Embed texts with an OpenAI-compatible ``/embeddings`` endpoint.

    ``timeout`` and ``max_attempts`` apply to each request, that is to each batch.
    """

    errors: ClassVar[ErrorClasses] = ErrorClasses(
        EmbeddingAuthError, EmbeddingConnectionError, EmbeddingRateLimitError, EmbeddingResponseError
    )

    batch_size: int = EMBEDDING_BATCH_SIZE

    async def async_embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Return one vector per text, in the order of ``texts``, all of one dimension."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            body = await self._async_post_json(
                "embeddings", {"model": self.model, "input": batch, "encoding_format": "float"}
            )
            vectors.extend(self._vectors_from(body, len(batch)))
        if vectors and any(len(vector) != len(vectors[0]) for vector in vectors):
            raise EmbeddingResponseError(
                f"{self.base_url} answered vectors of dimensions {sorted({len(v) for v in vectors})}"
            )
        return vectors

    async def async_validate(self) -> None:
        """Embed one text, proving the URL, the key and the model work."""
        await self.async_embed([VALIDATION_TEXT])

    def _vectors_from(self, body: Any, count: int) -> list[list[float]]:
        """Return the ``count`` vectors of an answer, placed by their ``data[].index``."""
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or len(data) != count:
            raise EmbeddingResponseError(f"{self.base_url} did not answer {count} items in data[]")
        by_index: dict[int, list[float]] = {}
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise EmbeddingResponseError(f"{self.base_url} answered a data[] item that is no object")
            index = item.get("index", position)
            embedding = item.get("embedding")
            if (
                isinstance(index, bool)
                or not isinstance(index, int)
                or not 0 <= index < count
                or index in by_index
            ):
                raise EmbeddingResponseError(f"{self.base_url} answered a bad or repeated index {index!r}")
            if (
                not isinstance(embedding, list)
                or not embedding
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in embedding)
            ):
                raise EmbeddingResponseError(f"{self.base_url} answered an embedding that is not numbers")
            by_index[index] = [float(x) for x in embedding]
        return [by_index[index] for index in range(count)]
