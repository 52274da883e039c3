"""The config, options and reconfigure flows, entered the way the UI enters them.

Endpoints answer through ``aioclient_mock``, which intercepts Home Assistant's shared
aiohttp session, so every check is a real OpenAI-protocol request and answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Generator
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock, patch

import aiohttp
import pytest
from homeassistant.config_entries import SOURCE_USER
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResult, FlowResultType, InvalidData
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from custom_components.context_retrieval.config_flow import (
    ENDPOINTS_SCHEMA,
    REAUTH_SCHEMA,
    SETTINGS_SCHEMA,
    FlowError,
)
from custom_components.context_retrieval.const import (
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_BACKEND,
    CONF_EMBEDDING_BASE_URL,
    CONF_EMBEDDING_MODEL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_SMARTTHINGS_LOCATION_ID,
    CONF_SMARTTHINGS_SPEC,
    CONF_SMARTTHINGS_TOKEN,
    CONF_TOP_K,
    DEFAULT_TOP_K,
    DOMAIN,
    EMBEDDING_BACKENDS,
)

from .clients.smartthings_server import SHARED_SMARTTHINGS

PACKAGE = Path(__file__).parents[1] / "custom_components" / DOMAIN
STRINGS = json.loads((PACKAGE / "strings.json").read_text(encoding="utf-8"))
EN = json.loads((PACKAGE / "translations" / "en.json").read_text(encoding="utf-8"))
ZH = json.loads((PACKAGE / "translations" / "zh-Hans.json").read_text(encoding="utf-8"))
ZH_HANT = json.loads((PACKAGE / "translations" / "zh-Hant.json").read_text(encoding="utf-8"))

LLM_URL = "https://dashscope.example.com/compatible-mode/v1"
CHAT_URL = f"{LLM_URL}/chat/completions"
EMBEDDING_URL = "http://ollama.example.com:11434/v1"
EMBEDDINGS_URL = f"{EMBEDDING_URL}/embeddings"

LLM_INPUT = {CONF_LLM_BASE_URL: LLM_URL, CONF_LLM_API_KEY: "sk-llm", CONF_LLM_MODEL: "qwen-flash"}
EMBEDDING_INPUT = {
    CONF_EMBEDDING_BACKEND: "openai",
    CONF_EMBEDDING_BASE_URL: EMBEDDING_URL,
    CONF_EMBEDDING_MODEL: "nomic-embed-text",
}
CHAT_OK = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"}}]}
EMBEDDINGS_OK = {"data": [{"index": 0, "embedding": [0.1, 0.2, 0.3]}]}


@pytest.fixture(autouse=True)
async def exposure_settings(hass: HomeAssistant) -> None:
    """Set up what the manifest's dependency, conversation, reads when a flow loads the integration."""
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
def mock_setup_entry() -> Generator[AsyncMock]:
    """Set the entry up without indexing a home (the flows are under test, not the set-up)."""
    with patch("custom_components.context_retrieval.async_setup_entry", return_value=True) as mock:
        yield mock


@pytest.fixture
def endpoints_ok(aioclient_mock: AiohttpClientMocker) -> AiohttpClientMocker:
    """Both endpoints answer as the protocol says."""
    aioclient_mock.post(CHAT_URL, json=CHAT_OK)
    aioclient_mock.post(EMBEDDINGS_URL, json=EMBEDDINGS_OK)
    return aioclient_mock


def suggested_values(result: FlowResult) -> dict[str, Any]:
    """Return the values a form shows pre-filled."""
    return {
        str(key): key.description["suggested_value"]
        for key in result["data_schema"].schema
        if key.description and "suggested_value" in key.description
    }


def requests_to(aioclient_mock: AiohttpClientMocker, url: str) -> list[tuple[Any, dict[str, str]]]:
    """Return the (JSON body, headers) of the requests sent to a URL."""
    return [(data, headers) for _, called, data, headers in aioclient_mock.mock_calls if str(called) == url]


async def start_user_flow(hass: HomeAssistant) -> FlowResult:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    assert result["errors"] == {}
    return result


# The user step


async def test_user_step_without_llm_creates_an_offline_entry(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, mock_setup_entry: AsyncMock
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Context Retrieval"
    assert result["data"] == {}
    assert result["options"] == {CONF_EMBEDDING_BACKEND: "local", CONF_TOP_K: DEFAULT_TOP_K}
    assert aioclient_mock.call_count == 0
    await hass.async_block_till_done()
    assert len(mock_setup_entry.mock_calls) == 1


async def test_user_step_checks_the_llm_and_stores_it(
    hass: HomeAssistant, endpoints_ok: AiohttpClientMocker, mock_setup_entry: AsyncMock
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {**LLM_INPUT, CONF_TOP_K: 8.0})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["options"] == {**LLM_INPUT, CONF_EMBEDDING_BACKEND: "local", CONF_TOP_K: 8}
    [(body, headers)] = requests_to(endpoints_ok, CHAT_URL)
    assert body["model"] == "qwen-flash"
    assert headers["Authorization"] == "Bearer sk-llm"
    assert endpoints_ok.call_count == 1


async def test_user_step_strips_text_and_leaves_empty_text_out(
    hass: HomeAssistant, endpoints_ok: AiohttpClientMocker, mock_setup_entry: AsyncMock
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_LLM_BASE_URL: f" {LLM_URL} ", CONF_LLM_API_KEY: "  ", CONF_LLM_MODEL: " qwen-flash\n"},
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["options"] == {
        CONF_LLM_BASE_URL: LLM_URL,
        CONF_LLM_MODEL: "qwen-flash",
        CONF_EMBEDDING_BACKEND: "local",
        CONF_TOP_K: DEFAULT_TOP_K,
    }
    [(_, headers)] = requests_to(endpoints_ok, CHAT_URL)
    assert "Authorization" not in headers


async def test_user_step_checks_an_openai_embedding_endpoint(
    hass: HomeAssistant, endpoints_ok: AiohttpClientMocker, mock_setup_entry: AsyncMock
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {**EMBEDDING_INPUT, CONF_EMBEDDING_API_KEY: "sk-emb"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["options"] == {
        **EMBEDDING_INPUT,
        CONF_EMBEDDING_API_KEY: "sk-emb",
        CONF_TOP_K: DEFAULT_TOP_K,
    }
    [(body, headers)] = requests_to(endpoints_ok, EMBEDDINGS_URL)
    assert body["model"] == "nomic-embed-text"
    assert len(body["input"]) == 1
    assert headers["Authorization"] == "Bearer sk-emb"
    assert endpoints_ok.call_count == 1


async def test_local_backend_ignores_embedding_endpoint_fields(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, mock_setup_entry: AsyncMock
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {**EMBEDDING_INPUT, CONF_EMBEDDING_BACKEND: "local"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["options"] == {CONF_EMBEDDING_BACKEND: "local", CONF_TOP_K: DEFAULT_TOP_K}
    assert aioclient_mock.call_count == 0


@pytest.mark.parametrize(
    ("user_input", "errors"),
    [
        ({CONF_LLM_BASE_URL: LLM_URL}, {CONF_LLM_MODEL: "model_required"}),
        ({CONF_LLM_MODEL: "qwen-flash"}, {CONF_LLM_BASE_URL: "base_url_required"}),
        (
            {CONF_LLM_API_KEY: "sk"},
            {CONF_LLM_BASE_URL: "base_url_required", CONF_LLM_MODEL: "model_required"},
        ),
        ({CONF_LLM_BASE_URL: "dashscope", CONF_LLM_MODEL: "qwen-flash"}, {CONF_LLM_BASE_URL: "invalid_url"}),
        ({CONF_LLM_BASE_URL: "ftp://llm/v1", CONF_LLM_MODEL: "m"}, {CONF_LLM_BASE_URL: "invalid_url"}),
        (
            {CONF_EMBEDDING_BACKEND: "openai"},
            {CONF_EMBEDDING_BASE_URL: "base_url_required", CONF_EMBEDDING_MODEL: "model_required"},
        ),
        ({**EMBEDDING_INPUT, CONF_EMBEDDING_MODEL: " "}, {CONF_EMBEDDING_MODEL: "model_required"}),
        (
            {**EMBEDDING_INPUT, CONF_EMBEDDING_BASE_URL: "ollama:11434"},
            {CONF_EMBEDDING_BASE_URL: "invalid_url"},
        ),
        (
            {
                CONF_LLM_MODEL: "qwen-flash",
                CONF_EMBEDDING_BACKEND: "openai",
                CONF_EMBEDDING_BASE_URL: EMBEDDING_URL,
            },
            {CONF_LLM_BASE_URL: "base_url_required", CONF_EMBEDDING_MODEL: "model_required"},
        ),
    ],
)
async def test_incomplete_endpoints_are_errors_on_their_fields(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, user_input, errors
):
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], user_input)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == errors
    assert aioclient_mock.call_count == 0


@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        (
            {"status": 401, "json": {"error": {"message": "Incorrect API key"}}},
            {CONF_LLM_API_KEY: "invalid_auth"},
        ),
        ({"status": 403, "text": "forbidden"}, {CONF_LLM_API_KEY: "invalid_auth"}),
        ({"exc": aiohttp.ClientError("refused")}, {CONF_LLM_BASE_URL: "cannot_connect"}),
        ({"exc": TimeoutError()}, {CONF_LLM_BASE_URL: "cannot_connect"}),
        ({"status": 429, "json": {}, "headers": {"Retry-After": "60"}}, {CONF_LLM_BASE_URL: "rate_limited"}),
        ({"status": 404, "text": "404 page not found"}, {CONF_LLM_BASE_URL: "invalid_response"}),
        ({"text": "<html>not json</html>"}, {CONF_LLM_BASE_URL: "invalid_response"}),
        ({"json": {"choices": []}}, {CONF_LLM_BASE_URL: "invalid_response"}),
        ({"exc": RuntimeError("bug")}, {"base": "unknown"}),
    ],
)
async def test_llm_errors_keep_the_input_and_the_flow_recovers(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, mock_setup_entry: AsyncMock, answer, errors
):
    aioclient_mock.post(CHAT_URL, **answer)
    user_input = {**LLM_INPUT, CONF_TOP_K: 3}
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], user_input)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    assert result["errors"] == errors
    assert suggested_values(result) == {**user_input, CONF_EMBEDDING_BACKEND: "local"}

    aioclient_mock.clear_requests()
    aioclient_mock.post(CHAT_URL, json=CHAT_OK)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], user_input)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["options"] == {**user_input, CONF_EMBEDDING_BACKEND: "local"}


async def test_an_unexpected_error_is_logged(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, caplog: pytest.LogCaptureFixture
):
    aioclient_mock.post(CHAT_URL, exc=RuntimeError("bug"))
    result = await start_user_flow(hass)
    await hass.config_entries.flow.async_configure(result["flow_id"], LLM_INPUT)
    assert f"Unexpected error checking {LLM_URL}" in caplog.text
    assert "RuntimeError: bug" in caplog.text


@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        ({"status": 401, "json": {"error": "bad key"}}, {CONF_EMBEDDING_API_KEY: "invalid_auth"}),
        ({"exc": aiohttp.ClientError("refused")}, {CONF_EMBEDDING_BASE_URL: "cannot_connect"}),
        (
            {"status": 429, "json": {}, "headers": {"Retry-After": "60"}},
            {CONF_EMBEDDING_BASE_URL: "rate_limited"},
        ),
        ({"json": {"data": []}}, {CONF_EMBEDDING_BASE_URL: "invalid_response"}),
        (
            {"json": {"data": [{"index": 0, "embedding": "AACAPw=="}]}},
            {CONF_EMBEDDING_BASE_URL: "invalid_response"},
        ),
    ],
)
async def test_embedding_endpoint_errors_keep_the_input(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker, answer, errors
):
    aioclient_mock.post(EMBEDDINGS_URL, **answer)
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], EMBEDDING_INPUT)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == errors
    assert suggested_values(result) == {**EMBEDDING_INPUT, CONF_TOP_K: DEFAULT_TOP_K}


async def test_both_endpoints_are_checked_and_both_errors_shown(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker
):
    aioclient_mock.post(CHAT_URL, status=401, json={})
    aioclient_mock.post(EMBEDDINGS_URL, exc=aiohttp.ClientError("refused"))
    result = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {**LLM_INPUT, **EMBEDDING_INPUT}
    )
    assert result["errors"] == {CONF_LLM_API_KEY: "invalid_auth", CONF_EMBEDDING_BASE_URL: "cannot_connect"}


async def test_a_second_entry_is_not_allowed(hass: HomeAssistant):
    MockConfigEntry(domain=DOMAIN, title="Context Retrieval").add_to_hass(hass)
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "single_instance_allowed"


# The options flow

CURRENT_OPTIONS = {**LLM_INPUT, **EMBEDDING_INPUT, CONF_EMBEDDING_API_KEY: "sk-emb", CONF_TOP_K: 7}


@pytest.fixture
async def entry(hass: HomeAssistant) -> AsyncGenerator[MockConfigEntry]:
    """An entry configured with both endpoints, and a setting no form shows."""
    config_entry = MockConfigEntry(
        domain=DOMAIN,
        title="Context Retrieval",
        data={},
        options={**CURRENT_OPTIONS, "future_setting": "kept"},
    )
    config_entry.add_to_hass(hass)
    yield config_entry
    await hass.async_block_till_done()  # the reload a saved options form starts


async def test_options_are_prefilled_and_saved(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "init"
    assert suggested_values(result) == CURRENT_OPTIONS  # secrets too, behind password fields

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**CURRENT_OPTIONS, CONF_TOP_K: 12}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options == {**CURRENT_OPTIONS, CONF_TOP_K: 12, "future_setting": "kept"}
    assert aioclient_mock.call_count == 0  # unchanged endpoints are not asked again


async def test_options_check_a_changed_endpoint(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    aioclient_mock.post(CHAT_URL, status=404, text="model not found")
    result = await hass.config_entries.options.async_init(entry.entry_id)
    changed = {**CURRENT_OPTIONS, CONF_LLM_MODEL: "qwen-plus"}
    result = await hass.config_entries.options.async_configure(result["flow_id"], changed)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_LLM_BASE_URL: "invalid_response"}
    assert suggested_values(result) == changed
    assert len(requests_to(aioclient_mock, CHAT_URL)) == 1
    assert requests_to(aioclient_mock, EMBEDDINGS_URL) == []

    aioclient_mock.clear_requests()
    aioclient_mock.post(CHAT_URL, json=CHAT_OK)
    result = await hass.config_entries.options.async_configure(result["flow_id"], changed)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options[CONF_LLM_MODEL] == "qwen-plus"


async def test_options_can_go_offline_and_local(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    result = await hass.config_entries.options.async_init(entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {CONF_EMBEDDING_BACKEND: "local", CONF_TOP_K: 7}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options == {
        CONF_EMBEDDING_BACKEND: "local",
        CONF_TOP_K: 7,
        "future_setting": "kept",
    }
    assert aioclient_mock.call_count == 0


@pytest.mark.parametrize("top_k", [0, 51])
async def test_options_reject_top_k_out_of_bounds(hass: HomeAssistant, entry: MockConfigEntry, top_k):
    result = await hass.config_entries.options.async_init(entry.entry_id)
    with pytest.raises(InvalidData, match="top_k"):
        await hass.config_entries.options.async_configure(
            result["flow_id"], {**CURRENT_OPTIONS, CONF_TOP_K: top_k}
        )


# The reconfigure step


async def test_reconfigure_changes_the_endpoints_and_reloads(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    endpoints_ok: AiohttpClientMocker,
    mock_setup_entry: AsyncMock,
):
    result = await entry.start_reconfigure_flow(hass)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "reconfigure"
    endpoint_keys = {str(key) for key in ENDPOINTS_SCHEMA.schema}
    assert suggested_values(result) == {
        key: CURRENT_OPTIONS[key] for key in endpoint_keys & set(CURRENT_OPTIONS)
    }

    new_llm = {CONF_LLM_BASE_URL: LLM_URL, CONF_LLM_MODEL: "qwen-plus"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {**new_llm, **EMBEDDING_INPUT})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert entry.options == {
        **new_llm,
        **EMBEDDING_INPUT,
        CONF_TOP_K: 7,
        "future_setting": "kept",
    }
    # Both changed (the keys were cleared), so both were checked, without a key.
    for url in (CHAT_URL, EMBEDDINGS_URL):
        [(_, headers)] = requests_to(endpoints_ok, url)
        assert "Authorization" not in headers
    assert len(mock_setup_entry.mock_calls) == 1


async def test_reconfigure_errors_keep_the_input_and_recover(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    aioclient_mock: AiohttpClientMocker,
    mock_setup_entry: AsyncMock,
):
    aioclient_mock.post(EMBEDDINGS_URL, status=401, json={})
    result = await entry.start_reconfigure_flow(hass)
    user_input = {**EMBEDDING_INPUT, CONF_EMBEDDING_API_KEY: "sk-wrong"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], user_input)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_EMBEDDING_API_KEY: "invalid_auth"}
    assert suggested_values(result) == user_input

    aioclient_mock.clear_requests()
    aioclient_mock.post(EMBEDDINGS_URL, json=EMBEDDINGS_OK)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {**user_input, CONF_EMBEDDING_API_KEY: "sk-right"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert entry.options == {
        **user_input,
        CONF_EMBEDDING_API_KEY: "sk-right",
        CONF_TOP_K: 7,
        "future_setting": "kept",
    }


# SmartThings


ROOMS_URL = "https://api.smartthings.com/v1/locations/loc-1/rooms"
DEVICES_URL = "https://api.smartthings.com/v1/devices?locationId=loc-1"
SMARTTHINGS_INPUT = {CONF_SMARTTHINGS_TOKEN: "pat", CONF_SMARTTHINGS_LOCATION_ID: "loc-1"}


async def test_smartthings_is_checked_by_reading_the_location(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    aioclient_mock.get(ROOMS_URL, json={"items": [{"roomId": "r1", "name": "客厅"}]})
    aioclient_mock.get(DEVICES_URL, json={"items": []})  # read by the reloaded entry
    result = await hass.config_entries.options.async_init(entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**CURRENT_OPTIONS, **SMARTTHINGS_INPUT}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options[CONF_SMARTTHINGS_LOCATION_ID] == "loc-1"
    await hass.async_block_till_done(wait_background_tasks=True)
    [(_, headers), *_] = requests_to(aioclient_mock, ROOMS_URL)
    assert headers["Authorization"] == "Bearer pat"


@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        ({"status": 401, "json": {}}, {CONF_SMARTTHINGS_TOKEN: "invalid_auth"}),
        ({"status": 404, "json": {}}, {CONF_SMARTTHINGS_LOCATION_ID: "unknown_location"}),
        ({"status": 500, "json": {}}, {"base": "cannot_connect"}),
        ({"status": 429, "json": {}, "headers": {"Retry-After": "600"}}, {"base": "rate_limited"}),
    ],
)
async def test_smartthings_errors_are_shown_on_their_field(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker, answer, errors
):
    aioclient_mock.get(ROOMS_URL, **answer)
    result = await hass.config_entries.options.async_init(entry.entry_id)
    user_input = {**CURRENT_OPTIONS, **SMARTTHINGS_INPUT}
    result = await hass.config_entries.options.async_configure(result["flow_id"], user_input)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == errors
    assert suggested_values(result) == user_input


async def test_a_smartthings_token_needs_a_location(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    result = await hass.config_entries.options.async_init(entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**CURRENT_OPTIONS, CONF_SMARTTHINGS_TOKEN: "pat"}
    )
    assert result["errors"] == {CONF_SMARTTHINGS_LOCATION_ID: "location_required"}
    assert aioclient_mock.call_count == 0


async def test_a_spec_file_is_checked_when_it_changes(
    hass: HomeAssistant, entry: MockConfigEntry, aioclient_mock: AiohttpClientMocker
):
    result = await hass.config_entries.options.async_init(entry.entry_id)
    user_input = {**CURRENT_OPTIONS, CONF_SMARTTHINGS_SPEC: "no/such/spec.jsonl"}
    result = await hass.config_entries.options.async_configure(result["flow_id"], user_input)
    assert result["errors"] == {CONF_SMARTTHINGS_SPEC: "unreadable_spec"}
    spec = str(SHARED_SMARTTHINGS / "spec.jsonl")
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {**CURRENT_OPTIONS, CONF_SMARTTHINGS_SPEC: spec}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options[CONF_SMARTTHINGS_SPEC] == spec


# Translations


def key_tree(node: Any) -> Any:
    """Return the nested keys of a translation file, without the texts."""
    return {key: key_tree(value) for key, value in node.items()} if isinstance(node, dict) else None


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def leaves(node: Any, path: tuple[str, ...] = ()) -> Generator[tuple[tuple[str, ...], str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    else:
        yield path, node


HASSFEST_URL = re.compile(
    r"(((ftp|ftps|scp|http|https|mqtt|mqtts|socket|socks5):\/\/|www\.)"
    r"[a-z0-9]+([\-\.]{1}[a-z0-9]+)*\.[a-z]{2,5}(:[0-9]{1,5})?(\/.*)?)",
    re.IGNORECASE,
)
"""hassfest's ``RE_URL`` (script/hassfest/translations.py): such URLs must be placeholders."""


def test_strings_and_english_translation_are_identical():
    assert STRINGS == EN


@pytest.mark.parametrize("translation", [ZH, ZH_HANT], ids=["zh-Hans", "zh-Hant"])
def test_chinese_has_the_same_keys_and_placeholders(translation):
    assert key_tree(translation) == key_tree(EN)
    chinese = dict(leaves(translation))
    for path, text in leaves(EN):
        assert placeholders(chinese[path]) == placeholders(text), path
        assert chinese[path].strip(), path


@pytest.mark.parametrize("translation", [EN, ZH, ZH_HANT], ids=["en", "zh-Hans", "zh-Hant"])
def test_texts_pass_the_hassfest_checks(translation):
    for path, text in leaves(translation):
        assert not HASSFEST_URL.search(text), path
        assert text == text.strip(), path
        assert "<" not in text, path
        assert not re.search(r"'\{\w+\}'", text), path


@pytest.mark.parametrize("translation", [EN, ZH, ZH_HANT], ids=["en", "zh-Hans", "zh-Hant"])
def test_every_error_abort_field_and_option_is_translated(translation):
    for flow in ("config", "options"):
        assert set(translation[flow]["error"]) == set(FlowError)
    assert set(translation["config"]["abort"]) == {
        "single_instance_allowed",
        "reconfigure_successful",
        "reauth_successful",
    }
    steps = {
        ("config", "user"): SETTINGS_SCHEMA,
        ("config", "reconfigure"): ENDPOINTS_SCHEMA,
        ("config", "reauth_confirm"): REAUTH_SCHEMA,
        ("options", "init"): SETTINGS_SCHEMA,
    }
    for (flow, step_id), schema in steps.items():
        step = translation[flow]["step"][step_id]
        fields = {str(key) for key in schema.schema}
        assert set(step["data"]) == fields
        assert set(step["data_description"]) == fields
        assert step["title"]
        assert step["description"]
    assert set(translation["selector"][CONF_EMBEDDING_BACKEND]["options"]) == set(EMBEDDING_BACKENDS)


def test_service_texts_are_translated():
    for translation in (EN, ZH, ZH_HANT):
        service = translation["services"]["retrieve"]
        assert set(service["fields"]) == {"text", "top_k", "conversation_id"}
        assert {
            "no_loaded_entry",
            "invalid_text",
            "invalid_top_k",
            "invalid_conversation_id",
            "unknown_field",
        } <= set(translation["exceptions"])
    assert placeholders(EN["exceptions"]["invalid_top_k"]["message"]) == {"minimum", "maximum"}
    assert placeholders(EN["exceptions"]["invalid_text"]["message"]) == {"max_length"}
    assert placeholders(EN["exceptions"]["invalid_conversation_id"]["message"]) == {"max_length"}
    assert placeholders(EN["exceptions"]["unknown_field"]["message"]) == {"field"}
