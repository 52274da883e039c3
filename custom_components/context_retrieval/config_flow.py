"""Config flow: the parsing LLM, the embedding backend, SmartThings and top_k, checked before saving."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

import voluptuous as vol
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry, ConfigFlow, ConfigFlowResult, OptionsFlowWithReload
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.selector import (
    ConversationAgentSelector,
    ConversationAgentSelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .clients import smartthings as smartthings_client
from .clients.json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointError,
    EndpointRateLimitError,
)
from .clients.openai_chat import OpenAICompatibleChat
from .clients.openai_embeddings import OpenAICompatibleEmbeddings
from .const import (
    CONF_DELEGATE_AGENT,
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
    DEFAULT_EMBEDDING_BACKEND,
    DEFAULT_TOP_K,
    DOMAIN,
    EMBEDDING_BACKEND_OPENAI,
    EMBEDDING_BACKENDS,
    MAX_TOP_K,
    MIN_TOP_K,
)
from .smartthings_source import SpecFileError, read_spec_file

if TYPE_CHECKING:
    from collections.abc import Awaitable, Mapping

_LOGGER = logging.getLogger(__name__)

TITLE: Final = "Context Retrieval"


class FlowError(StrEnum):
    """An error a form shows (a key of ``config.error`` and ``options.error`` in strings.json)."""

    BASE_URL_REQUIRED = "base_url_required"
    DELEGATE_IS_SELF = "delegate_is_self"
    UNKNOWN_AGENT = "unknown_agent"
    CANNOT_CONNECT = "cannot_connect"
    INVALID_AUTH = "invalid_auth"
    INVALID_RESPONSE = "invalid_response"
    INVALID_URL = "invalid_url"
    LOCATION_REQUIRED = "location_required"
    MODEL_REQUIRED = "model_required"
    TOKEN_REQUIRED = "token_required"  # noqa: S105 - an error key
    UNKNOWN_LOCATION = "unknown_location"
    UNREADABLE_SPEC = "unreadable_spec"
    RATE_LIMITED = "rate_limited"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """The setting keys of one OpenAI-compatible endpoint and the client that checks them."""

    base_url: str
    api_key: str
    model: str
    client: type[OpenAICompatibleChat | OpenAICompatibleEmbeddings]

    @property
    def keys(self) -> tuple[str, str, str]:
        """Return the endpoint's setting keys."""
        return (self.base_url, self.api_key, self.model)


LLM_ENDPOINT: Final = Endpoint(CONF_LLM_BASE_URL, CONF_LLM_API_KEY, CONF_LLM_MODEL, OpenAICompatibleChat)
EMBEDDING_ENDPOINT: Final = Endpoint(
    CONF_EMBEDDING_BASE_URL, CONF_EMBEDDING_API_KEY, CONF_EMBEDDING_MODEL, OpenAICompatibleEmbeddings
)

_URL = TextSelector(TextSelectorConfig(type=TextSelectorType.URL))
_SECRET = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))
_TEXT = TextSelector()

ENDPOINTS_SCHEMA: Final = vol.Schema(
    {
        vol.Optional(CONF_LLM_BASE_URL): _URL,
        vol.Optional(CONF_LLM_API_KEY): _SECRET,
        vol.Optional(CONF_LLM_MODEL): _TEXT,
        vol.Required(CONF_EMBEDDING_BACKEND, default=DEFAULT_EMBEDDING_BACKEND): SelectSelector(
            SelectSelectorConfig(
                options=list(EMBEDDING_BACKENDS),
                translation_key=CONF_EMBEDDING_BACKEND,
                mode=SelectSelectorMode.LIST,
            )
        ),
        vol.Optional(CONF_EMBEDDING_BASE_URL): _URL,
        vol.Optional(CONF_EMBEDDING_API_KEY): _SECRET,
        vol.Optional(CONF_EMBEDDING_MODEL): _TEXT,
        vol.Optional(CONF_SMARTTHINGS_TOKEN): _SECRET,
        vol.Optional(CONF_SMARTTHINGS_LOCATION_ID): _TEXT,
        vol.Optional(CONF_SMARTTHINGS_SPEC): _TEXT,
    }
)
"""The endpoint settings: the reconfigure step's form."""
REAUTH_SCHEMA: Final = vol.Schema({vol.Required(CONF_SMARTTHINGS_TOKEN): _SECRET})
"""A new SmartThings token: the re-authentication form."""
SMARTTHINGS_KEYS: Final = (CONF_SMARTTHINGS_TOKEN, CONF_SMARTTHINGS_LOCATION_ID)
SETTINGS_SCHEMA: Final = ENDPOINTS_SCHEMA.extend(
    {
        vol.Optional(CONF_DELEGATE_AGENT): ConversationAgentSelector(ConversationAgentSelectorConfig()),
        vol.Required(CONF_TOP_K, default=DEFAULT_TOP_K): vol.All(
            NumberSelector(
                NumberSelectorConfig(min=MIN_TOP_K, max=MAX_TOP_K, step=1, mode=NumberSelectorMode.BOX)
            ),
            vol.Coerce(int),
        ),
    }
)
"""Every setting: the user step's and the options' form."""


def clean_settings(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Return the settings to store: text stripped, empty text and unused embedding settings left out."""
    settings: dict[str, Any] = {}
    for key, value in user_input.items():
        text = value.strip() if isinstance(value, str) else value
        if text != "":
            settings[key] = text
    if settings.get(CONF_EMBEDDING_BACKEND) != EMBEDDING_BACKEND_OPENAI:
        for key in EMBEDDING_ENDPOINT.keys:
            settings.pop(key, None)
    return settings


def endpoints_in_use(settings: Mapping[str, Any]) -> list[Endpoint]:
    """Return the endpoints the settings configure: the LLM when any of its fields is set."""
    endpoints = []
    if any(key in settings for key in LLM_ENDPOINT.keys):
        endpoints.append(LLM_ENDPOINT)
    if settings.get(CONF_EMBEDDING_BACKEND) == EMBEDDING_BACKEND_OPENAI:
        endpoints.append(EMBEDDING_ENDPOINT)
    return endpoints


def field_errors(endpoint: Endpoint, settings: Mapping[str, Any]) -> dict[str, str]:
    """Return the errors of an endpoint's fields: a valid base URL and a model are required."""
    errors: dict[str, str] = {}
    if endpoint.base_url not in settings:
        errors[endpoint.base_url] = FlowError.BASE_URL_REQUIRED
    else:
        try:
            cv.url(settings[endpoint.base_url])
        except vol.Invalid:
            errors[endpoint.base_url] = FlowError.INVALID_URL
    if endpoint.model not in settings:
        errors[endpoint.model] = FlowError.MODEL_REQUIRED
    return errors


@dataclass(frozen=True, slots=True)
class CheckFields:
    """Where a check's failures are shown: the field each kind of error belongs to."""

    auth: str
    rate_limit: str
    connection: str
    response: str
    response_error: FlowError


async def async_check(what: str, request: Awaitable[Any], fields: CheckFields) -> dict[str, str]:
    """Await one real request; return the errors to show on their fields, empty when it answered."""
    try:
        await request
    except EndpointError as err:
        _LOGGER.warning("Checking %s failed: %s", what, err)
        if isinstance(err, EndpointAuthError):
            return {fields.auth: FlowError.INVALID_AUTH}
        if isinstance(err, EndpointRateLimitError):
            return {fields.rate_limit: FlowError.RATE_LIMITED}
        if isinstance(err, EndpointConnectionError):
            return {fields.connection: FlowError.CANNOT_CONNECT}
        return {fields.response: fields.response_error}
    except Exception:  # the flow's one guard: show "unknown" and log, never a broken form
        _LOGGER.exception("Unexpected error checking %s", what)
        return {"base": FlowError.UNKNOWN}
    return {}


async def async_check_endpoint(
    hass: HomeAssistant, endpoint: Endpoint, settings: Mapping[str, Any]
) -> dict[str, str]:
    """Send one real request to an endpoint; return the errors to show, empty when it answered."""
    url = settings[endpoint.base_url]
    client = endpoint.client(
        async_get_clientsession(hass), url, settings.get(endpoint.api_key), settings[endpoint.model]
    )
    fields = CheckFields(
        endpoint.api_key, endpoint.base_url, endpoint.base_url, endpoint.base_url, FlowError.INVALID_RESPONSE
    )
    return await async_check(url, client.async_validate(), fields)


async def async_validate_settings(
    hass: HomeAssistant, user_input: Mapping[str, Any], current: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """Return the settings to store and the errors to show.

    An endpoint is checked with a real request unless its URL, key and model are the ones
    ``current`` already holds, so changing only top_k works while an endpoint is down.
    """
    settings = clean_settings(user_input)
    errors: dict[str, str] = {}
    for endpoint in endpoints_in_use(settings):
        if endpoint_errors := field_errors(endpoint, settings):
            errors.update(endpoint_errors)
        elif any(settings.get(key) != current.get(key) for key in endpoint.keys):
            errors.update(await async_check_endpoint(hass, endpoint, settings))
    if any(key in settings for key in SMARTTHINGS_KEYS):
        if smartthings_errors := smartthings_field_errors(settings):
            errors.update(smartthings_errors)
        elif any(settings.get(key) != current.get(key) for key in SMARTTHINGS_KEYS):
            errors.update(await async_check_smartthings(hass, settings))
    if (delegate := settings.get(CONF_DELEGATE_AGENT)) is not None:
        errors.update(delegate_errors(hass, delegate))
    spec = settings.get(CONF_SMARTTHINGS_SPEC)
    if spec is not None and spec != current.get(CONF_SMARTTHINGS_SPEC):
        try:
            await hass.async_add_executor_job(read_spec_file, hass, spec)
        except SpecFileError as err:
            _LOGGER.warning("Checking the SmartThings spec file failed: %s", err)
            errors[CONF_SMARTTHINGS_SPEC] = FlowError.UNREADABLE_SPEC
    return settings, errors


def delegate_errors(hass: HomeAssistant, delegate: str) -> dict[str, str]:
    """Return the error of the delegate agent's field: it must exist and not be this integration's agent."""
    agent = conversation.async_get_agent(hass, delegate)
    if agent is None:
        return {CONF_DELEGATE_AGENT: FlowError.UNKNOWN_AGENT}
    platform = getattr(agent, "platform", None)
    if platform is not None and platform.platform_name == DOMAIN:
        return {CONF_DELEGATE_AGENT: FlowError.DELEGATE_IS_SELF}
    return {}


def smartthings_field_errors(settings: Mapping[str, Any]) -> dict[str, str]:
    """Return the errors of the SmartThings fields: a token and a location go together."""
    errors: dict[str, str] = {}
    if CONF_SMARTTHINGS_TOKEN not in settings:
        errors[CONF_SMARTTHINGS_TOKEN] = FlowError.TOKEN_REQUIRED
    if CONF_SMARTTHINGS_LOCATION_ID not in settings:
        errors[CONF_SMARTTHINGS_LOCATION_ID] = FlowError.LOCATION_REQUIRED
    return errors


SMARTTHINGS_CHECK_FIELDS: Final = CheckFields(
    CONF_SMARTTHINGS_TOKEN, "base", "base", CONF_SMARTTHINGS_LOCATION_ID, FlowError.UNKNOWN_LOCATION
)


async def async_check_smartthings(hass: HomeAssistant, settings: Mapping[str, Any]) -> dict[str, str]:
    """Read the location's rooms with the token; return the errors to show, empty when it answered."""
    client = smartthings_client.SmartThingsClient(
        async_get_clientsession(hass), settings[CONF_SMARTTHINGS_TOKEN], smartthings_client.API_ROOT
    )
    rooms = client.async_rooms(settings[CONF_SMARTTHINGS_LOCATION_ID])
    return await async_check("SmartThings", rooms, SMARTTHINGS_CHECK_FIELDS)


def replace_settings(
    current: Mapping[str, Any], settings: Mapping[str, Any], schema: vol.Schema
) -> dict[str, Any]:
    """Return ``current`` with the keys the form shows replaced by ``settings``."""
    shown = {str(key) for key in schema.schema}
    return {**{key: value for key, value in current.items() if key not in shown}, **settings}


class ContextRetrievalConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up the single Context Retrieval entry; its settings live in the options."""

    VERSION = 1

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for the endpoints and top_k; check each endpoint given."""
        errors: dict[str, str] = {}
        if user_input is not None:
            settings, errors = await async_validate_settings(self.hass, user_input, {})
            if not errors:
                return self.async_create_entry(title=TITLE, data={}, options=settings)
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(SETTINGS_SCHEMA, user_input),
            errors=errors,
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Change the endpoints; check each endpoint that changed, then reload."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            settings, errors = await async_validate_settings(self.hass, user_input, entry.options)
            if not errors:
                return self.async_update_reload_and_abort(
                    entry, options=replace_settings(entry.options, settings, ENDPOINTS_SCHEMA)
                )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(ENDPOINTS_SCHEMA, user_input or entry.options),
            errors=errors,
        )

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:  # noqa: ARG002 - HA signature
        """SmartThings refused the direct connection's token: ask for a new one."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Check the new token on the entry's location, then store it and reload."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            settings = {**entry.options, **clean_settings(user_input)}
            errors = smartthings_field_errors(settings) or await async_check_smartthings(self.hass, settings)
            if not errors:
                return self.async_update_reload_and_abort(entry, options=settings)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=REAUTH_SCHEMA,
            errors=errors,
            description_placeholders={"location": entry.options.get(CONF_SMARTTHINGS_LOCATION_ID, "")},
        )

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> ContextRetrievalOptionsFlow:  # noqa: ARG004 - HA signature
        """Return the options flow."""
        return ContextRetrievalOptionsFlow()


class ContextRetrievalOptionsFlow(OptionsFlowWithReload):
    """Change any setting; the entry reloads with the new options."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show the settings pre-filled; check each endpoint that changed."""
        current = self.config_entry.options
        errors: dict[str, str] = {}
        if user_input is not None:
            settings, errors = await async_validate_settings(self.hass, user_input, current)
            if not errors:
                return self.async_create_entry(data=replace_settings(current, settings, SETTINGS_SCHEMA))
        return self.async_show_form(
            step_id="init",
            data_schema=self.add_suggested_values_to_schema(SETTINGS_SCHEMA, user_input or current),
            errors=errors,
        )
