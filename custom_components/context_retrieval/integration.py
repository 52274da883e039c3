"""Set-up of the integration: the service; per entry the index, parser, memory, LLM API and agent."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from homeassistant.config_entries import (
    SIGNAL_CONFIG_ENTRY_CHANGED,
    ConfigEntry,
    ConfigEntryChange,
    ConfigEntryState,
)
from homeassistant.const import Platform
from homeassistant.core import callback
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.helpers.start import async_at_started

from .clients import smartthings as smartthings_client
from .clients.openai_chat import OpenAICompatibleChat
from .clients.openai_embeddings import OpenAICompatibleEmbeddings
from .clients.smartthings import SmartThingsClient
from .const import (
    DOMAIN,
    EMBEDDING_BACKEND_OPENAI,
    EMBEDDING_DOCUMENT_ATTEMPTS,
    EMBEDDING_QUERY_TIMEOUT,
    EMBEDDING_REQUEST_TIMEOUT,
    LOGGER,
    PENDING_CHOICE_TTL,
    SMARTTHINGS_REFRESH_INTERVAL,
)
from .conversation_states import ConversationMemory, ConversationStates, RequestContexts
from .core import SpecIndex
from .data import (
    DATA_MEMORY,
    ContextRetrievalConfigEntry,
    ContextRetrievalData,
    ConversationMemories,
    Settings,
)
from .embeddings import EmbeddingCache, RemoteEmbeddings
from .index import HomeIndexManager
from .llm_api import API_ID, API_NAME, ContextRetrievalAPI
from .parser import LLMParser
from .repairs import async_check_agents, async_report_spec_file
from .services import async_setup_services
from .smartthings_entry import HomeAssistantAccount
from .smartthings_source import (
    SMARTTHINGS_DOMAIN,
    DirectAccount,
    SmartThingsAccount,
    SmartThingsSource,
    SpecFileError,
    async_refresh_account,
    read_spec_file,
)
from .websocket_api import async_setup_websocket_api

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.typing import ConfigType

CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)
PLATFORMS: Final = [Platform.CONVERSATION]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:  # noqa: ARG001 - HA signature
    """Register the service; it answers once an entry is loaded."""
    async_setup_services(hass)
    async_setup_websocket_api(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ContextRetrievalConfigEntry) -> bool:
    """Index the exposed entities, follow their changes and keep the parser ready."""
    settings = Settings.from_entry(entry)
    parser = None
    if settings.llm_base_url and settings.llm_model:
        client = OpenAICompatibleChat(
            async_get_clientsession(hass),
            settings.llm_base_url,
            settings.llm_api_key or "",
            settings.llm_model,
        )
        parser = LLMParser(client)
    embeddings = await _async_remote_embeddings(hass, settings)
    smartthings = await _async_smartthings_source(hass, settings)
    index = await HomeIndexManager.async_create(hass, embeddings, smartthings)
    entry.async_on_unload(index.async_stop)
    memory = _memory(hass)
    entry.runtime_data = ContextRetrievalData(
        settings,
        index,
        parser,
        memory.conversations,
        smartthings,
        memory.requests,
        memory.choices,
        embeddings,
    )
    _async_follow_smartthings(hass, entry, smartthings)
    api = ContextRetrievalAPI(hass=hass, id=API_ID, name=API_NAME, entry=entry)
    entry.async_on_unload(llm.async_register_api(hass, api))
    async_check_agents(hass, API_ID)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True


def _memory(hass: HomeAssistant) -> ConversationMemories:
    """Return the conversations' memory, made once per run of Home Assistant (an options save keeps it)."""
    if DATA_MEMORY not in hass.data:
        hass.data[DATA_MEMORY] = ConversationMemories(
            ConversationStates(), RequestContexts(), ConversationMemory(ttl=PENDING_CHOICE_TTL)
        )
    return hass.data[DATA_MEMORY]


async def _async_remote_embeddings(hass: HomeAssistant, settings: Settings) -> RemoteEmbeddings | None:
    """Return the embedding endpoint with its cache loaded, when the openai backend is configured."""
    if not (
        settings.embedding_backend == EMBEDDING_BACKEND_OPENAI
        and settings.embedding_base_url
        and settings.embedding_model
    ):
        return None
    session = async_get_clientsession(hass)
    url, key, model = settings.embedding_base_url, settings.embedding_api_key or "", settings.embedding_model
    cache = EmbeddingCache(hass, {"backend": EMBEDDING_BACKEND_OPENAI, "base_url": url, "model": model})
    await cache.async_load()
    return RemoteEmbeddings(
        hass,
        documents=OpenAICompatibleEmbeddings(
            session,
            url,
            key,
            model,
            timeout=EMBEDDING_REQUEST_TIMEOUT,
            max_attempts=EMBEDDING_DOCUMENT_ATTEMPTS,
        ),
        queries=OpenAICompatibleEmbeddings(
            session, url, key, model, timeout=EMBEDDING_QUERY_TIMEOUT, max_attempts=1
        ),
        cache=cache,
    )


async def _async_smartthings_source(hass: HomeAssistant, settings: Settings) -> SmartThingsSource:
    """Return the SmartThings account: the direct connection when configured, else Home Assistant's.

    A user spec file that cannot be read is a repair issue (and an error line); the
    account then works from the shipped capability table alone.
    """
    spec = SpecIndex()
    if settings.smartthings_spec:
        try:
            spec = await hass.async_add_executor_job(read_spec_file, hass, settings.smartthings_spec)
        except SpecFileError as err:
            LOGGER.error("The SmartThings spec file cannot be used (%s); the capability table is used", err)
            async_report_spec_file(hass, str(err))
        else:
            async_report_spec_file(hass, None)
    account: SmartThingsAccount = HomeAssistantAccount(hass)
    if settings.smartthings_token and settings.smartthings_location_id:
        client = SmartThingsClient(
            async_get_clientsession(hass), settings.smartthings_token, smartthings_client.API_ROOT
        )
        account = DirectAccount(client, settings.smartthings_location_id)
    return SmartThingsSource(account, spec)


def _async_follow_smartthings(
    hass: HomeAssistant,
    entry: ContextRetrievalConfigEntry,
    source: SmartThingsSource,
) -> None:
    """Read the account once Home Assistant has started, on a timer, and when its entry changes.

    The index is rebuilt when the device list changed.
    """

    async def async_refresh(*_: Any) -> None:
        if await async_refresh_account(hass, entry):
            entry.runtime_data.index.async_schedule_rebuild()

    @callback
    def async_refresh_in_background(*_: Any) -> None:
        entry.async_create_background_task(hass, async_refresh(), f"{DOMAIN} SmartThings refresh")

    @callback
    def async_entry_changed(change: ConfigEntryChange, changed: ConfigEntry) -> None:
        if changed.domain == SMARTTHINGS_DOMAIN and (
            change is ConfigEntryChange.REMOVED or changed.state is ConfigEntryState.LOADED
        ):
            async_refresh_in_background()

    entry.async_on_unload(async_at_started(hass, async_refresh_in_background))
    entry.async_on_unload(
        async_track_time_interval(
            hass, async_refresh_in_background, timedelta(seconds=SMARTTHINGS_REFRESH_INTERVAL)
        )
    )
    if isinstance(source.account, HomeAssistantAccount):
        entry.async_on_unload(
            async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, async_entry_changed)
        )


async def async_unload_entry(hass: HomeAssistant, entry: ContextRetrievalConfigEntry) -> bool:
    """Unload an entry's agent (its listeners go with ``async_on_unload``)."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
