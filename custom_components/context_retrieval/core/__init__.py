"""The retrieval engine: pure Python (numpy, PyYAML), no Home Assistant import (CONTRACT §2)."""

from .embedding import Embedder, LocalNgramEmbedder
from .home_index import HomeIndex
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
    "SpecIndex",
    "build_vector_searcher",
    "devices_from_smartthings",
    "load_spec",
    "render_yaml_context",
    "retrieve",
]
