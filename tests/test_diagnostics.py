"""Diagnostics: options and index figures, with the API keys redacted."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.diagnostics import async_get_config_entry_diagnostics

# The embedding endpoint configured here refuses connections: the local embedder ranks commands.
pytestmark = pytest.mark.usefixtures("socket_enabled")


@pytest.fixture
def entry_options():
    return {
        "llm_base_url": "http://127.0.0.1:9/v1",
        "llm_api_key": "sk-secret",
        "llm_model": "qwen-flash",
        "embedding_backend": "openai",
        "embedding_base_url": "http://127.0.0.1:9/v1",
        "embedding_api_key": "emb-secret",
        "embedding_model": "text-embedding-v3",
        "top_k": 7,
    }


async def test_diagnostics_redact_keys_and_report_the_index(loaded_entry, home):
    diagnostics = await async_get_config_entry_diagnostics(home, loaded_entry)
    assert diagnostics["options"]["llm_api_key"] == "**REDACTED**"
    assert diagnostics["options"]["embedding_api_key"] == "**REDACTED**"
    assert diagnostics["options"]["llm_model"] == "qwen-flash"
    assert diagnostics["options"]["top_k"] == 7
    assert "sk-secret" not in repr(diagnostics)
    assert "emb-secret" not in repr(diagnostics)
    index = diagnostics["index"]
    assert index["devices"] == 9
    assert index["rooms"] == 4
    assert index["commands"] > 8
    assert "Light" in index["categories"]
    assert index["rebuilds"] == 0
    assert diagnostics["parser"] == {"llm": True, "failing": False}
    assert diagnostics["agent"] == {"delegate": None, "requests_in_memory": 0, "questions_open": 0}


async def test_diagnostics_of_an_entry_that_is_not_loaded(loaded_entry, home):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    diagnostics = await async_get_config_entry_diagnostics(home, loaded_entry)
    assert diagnostics["state"] == "not_loaded"
    assert diagnostics["options"]["llm_api_key"] == "**REDACTED**"
    assert "index" not in diagnostics
