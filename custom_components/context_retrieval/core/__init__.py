"""The retrieval engine: pure Python (numpy, PyYAML), no Home Assistant import (CONTRACT §2)."""

from .embedding import Embedder, LocalNgramEmbedder, default_embedder
from .home_index import HomeIndex, with_embedder
from .injection import render_yaml_context
from .models import (
    Candidate,
    Command,
    CommandSpec,
    Device,
    Group,
    LLMClient,
    Quantifier,
    QueryIR,
    RetrievalResult,
    Room,
)
from .pipeline import DEFAULT_TOP_K, build_vector_searcher, retrieve
from .smartthings import devices_from_smartthings
from .spec import SpecIndex, load_spec
from .state import ConversationState

__all__ = [
    "DEFAULT_TOP_K",
    "Candidate",
    "Command",
    "CommandSpec",
    "ConversationState",
    "Device",
    "Embedder",
    "Group",
    "HomeIndex",
    "LLMClient",
    "LocalNgramEmbedder",
    "Quantifier",
    "QueryIR",
    "RetrievalResult",
    "Room",
    "SpecIndex",
    "build_vector_searcher",
    "default_embedder",
    "devices_from_smartthings",
    "load_spec",
    "render_yaml_context",
    "retrieve",
    "with_embedder",
]
