"""The ``context_retrieval.retrieve`` service (CONTRACT §4) and ``context_retrieval.refresh``."""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import voluptuous as vol
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import ServiceValidationError

from .const import (
    ATTR_CONVERSATION_ID,
    ATTR_TEXT,
    ATTR_TOP_K,
    DOMAIN,
    MAX_CONVERSATION_ID_LENGTH,
    MAX_TEXT_LENGTH,
    MAX_TOP_K,
    MIN_TOP_K,
    RELOAD_WAIT,
    SERVICE_REFRESH,
    SERVICE_RETRIEVE,
)
from .retrieval import async_run_retrieval
from .smartthings_source import async_refresh_account

if TYPE_CHECKING:
    from .data import ContextRetrievalConfigEntry


def _text(value: Any) -> str:
    """Return the utterance, stripped; reject anything else than non-empty, bounded text.

    Text of invisible characters alone (zero-width spaces, U+3000) is empty.
    """
    if not isinstance(value, str) or len(value) > MAX_TEXT_LENGTH or not _visible(value):
        raise vol.Invalid("invalid text")
    return value.strip()


def _visible(text: str) -> bool:
    """Return True when the text holds a character that is neither white space nor a format character."""
    return any(not char.isspace() and unicodedata.category(char) != "Cf" for char in text)


def _top_k(value: Any) -> int:
    """Return a whole number of candidates within the bounds (5, 5.0 and "5" are the same)."""
    if isinstance(value, bool):
        raise vol.Invalid("invalid top_k")
    try:
        number = float(value)
    except (TypeError, ValueError) as err:
        raise vol.Invalid("invalid top_k") from err
    if not number.is_integer() or not MIN_TOP_K <= number <= MAX_TOP_K:
        raise vol.Invalid("invalid top_k")
    return int(number)


def _conversation_id(value: Any) -> str:
    """Return a bounded conversation id (text, or a number given as one)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise vol.Invalid("invalid conversation_id")
    text = str(value).strip()
    if not text or len(text) > MAX_CONVERSATION_ID_LENGTH:
        raise vol.Invalid("invalid conversation_id")
    return text


RETRIEVE_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_TEXT): _text,
        vol.Optional(ATTR_TOP_K): _top_k,
        vol.Optional(ATTR_CONVERSATION_ID): _conversation_id,
    }
)
FIELD_ERRORS: dict[str, tuple[str, dict[str, str]]] = {
    ATTR_TEXT: ("invalid_text", {"max_length": str(MAX_TEXT_LENGTH)}),
    ATTR_TOP_K: ("invalid_top_k", {"minimum": str(MIN_TOP_K), "maximum": str(MAX_TOP_K)}),
    ATTR_CONVERSATION_ID: ("invalid_conversation_id", {"max_length": str(MAX_CONVERSATION_ID_LENGTH)}),
}
"""Translation key and placeholders of the error for each field."""


def validate_request(data: Any) -> dict[str, Any]:
    """Return the validated request; raise a translated error naming the first bad field.

    Registered as the service's schema: Home Assistant answers a bad call (a body that is no
    object, 42 or "打开客厅的灯") with this error, 400 over its REST API.
    """
    if not isinstance(data, Mapping):
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key=FIELD_ERRORS[ATTR_TEXT][0],
            translation_placeholders=FIELD_ERRORS[ATTR_TEXT][1],
        )
    try:
        return RETRIEVE_SCHEMA(dict(data))
    except vol.Invalid as err:
        errors = err.errors if isinstance(err, vol.MultipleInvalid) else [err]
        field = str(errors[0].path[0]) if errors[0].path else ATTR_TEXT
        if field not in FIELD_ERRORS:
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="unknown_field",
                translation_placeholders={"field": field},
            ) from err
        key, placeholders = FIELD_ERRORS[field]
        raise ServiceValidationError(
            translation_domain=DOMAIN, translation_key=key, translation_placeholders=placeholders
        ) from err


def validate_refresh(data: Any) -> dict[str, Any]:
    """Return the refresh request, which takes no field; raise a translated error otherwise."""
    if isinstance(data, Mapping) and not data:
        return {}
    field = next(iter(data), "") if isinstance(data, Mapping) else str(type(data).__name__)
    raise ServiceValidationError(
        translation_domain=DOMAIN,
        translation_key="unknown_field",
        translation_placeholders={"field": str(field)},
    )


async def async_loaded_entry(hass: HomeAssistant) -> ContextRetrievalConfigEntry:
    """Return the loaded config entry, or raise a translated error.

    A call arriving while the entry reloads (its options saved) waits for it to load again,
    at most ``RELOAD_WAIT`` seconds.
    """
    entries: list[ContextRetrievalConfigEntry] = hass.config_entries.async_loaded_entries(DOMAIN)
    if not entries:
        reloading = [e for e in hass.config_entries.async_entries(DOMAIN) if e.setup_lock.locked()]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(RELOAD_WAIT):
                for entry in reloading:
                    async with entry.setup_lock:
                        pass  # held by Home Assistant while it unloads and sets the entry up again
        entries = hass.config_entries.async_loaded_entries(DOMAIN)
    if not entries:
        raise ServiceValidationError(translation_domain=DOMAIN, translation_key="no_loaded_entry")
    return entries[0]


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the services (once, for whichever entry is loaded)."""

    async def async_handle_retrieve(call: ServiceCall) -> ServiceResponse:
        """Return the devices and commands the utterance needs."""
        request = call.data  # validated by the schema the service is registered with
        entry = await async_loaded_entry(hass)
        retrieval = await async_run_retrieval(
            entry.runtime_data,
            request[ATTR_TEXT],
            top_k=request.get(ATTR_TOP_K),
            conversation_id=request.get(ATTR_CONVERSATION_ID),
        )
        return retrieval.response()

    hass.services.async_register(
        DOMAIN,
        SERVICE_RETRIEVE,
        async_handle_retrieve,
        schema=validate_request,
        supports_response=SupportsResponse.ONLY,
    )

    async def async_handle_refresh(call: ServiceCall) -> ServiceResponse:  # noqa: ARG001 - HA signature
        """Read the SmartThings account again and rebuild the index now; return what it holds."""
        entry = await async_loaded_entry(hass)
        data = entry.runtime_data
        await async_refresh_account(hass, entry)
        await data.index.async_rebuild()
        return {"devices": len(data.index.current.devices), "smartthings": data.smartthings.diagnostics()}

    hass.services.async_register(
        DOMAIN,
        SERVICE_REFRESH,
        async_handle_refresh,
        schema=validate_refresh,
        supports_response=SupportsResponse.OPTIONAL,
    )
