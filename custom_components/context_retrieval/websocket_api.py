"""Websocket command ``context_retrieval/agent_prompt``: what an LLM agent would receive for an utterance.

For trying the integration out (``scripts/demo`` prints it) and for checking an agent's
set-up: what a delegate of the Context Retrieval agent receives for the utterance (the API's
static prompt, then the request's devices as the extra system prompt) and its tools, next to
the size of what Assist would give for the same turn.
"""

from __future__ import annotations

from typing import Any

import voluptuous as vol
from homeassistant.components import websocket_api
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import llm

from .const import ATTR_CONVERSATION_ID, ATTR_TEXT, DOMAIN, MAX_CONVERSATION_ID_LENGTH, MAX_TEXT_LENGTH
from .llm_api import API_ID, API_NAME, ContextRetrievalAPI, approximate_tokens, request_context_prompt
from .retrieval import async_run_retrieval
from .services import async_loaded_entry

AGENT_PROMPT = f"{DOMAIN}/agent_prompt"


@callback
def async_setup_websocket_api(hass: HomeAssistant) -> None:
    """Register the integration's websocket commands."""
    websocket_api.async_register_command(hass, websocket_agent_prompt)


@websocket_api.require_admin
@websocket_api.websocket_command(
    {
        vol.Required("type"): AGENT_PROMPT,
        vol.Required(ATTR_TEXT): vol.All(str, vol.Length(min=1, max=MAX_TEXT_LENGTH)),
        vol.Optional(ATTR_CONVERSATION_ID): vol.All(str, vol.Length(min=1, max=MAX_CONVERSATION_ID_LENGTH)),
    }
)
@websocket_api.async_response
async def websocket_agent_prompt(
    hass: HomeAssistant, connection: websocket_api.ActiveConnection, msg: dict[str, Any]
) -> None:
    """Answer with the prompt and tools of the turn, and the prompt sizes through both APIs."""
    try:
        entry = await async_loaded_entry(hass)
    except ServiceValidationError:
        connection.send_error(msg["id"], "not_loaded", "Context Retrieval is not loaded")
        return
    llm_context = llm.LLMContext(
        platform=DOMAIN,
        context=Context(user_id=connection.user.id),
        language=hass.config.language,
        assistant="conversation",
        device_id=None,
    )
    api = ContextRetrievalAPI(hass=hass, id=API_ID, name=API_NAME, entry=entry)
    retrieval = await async_run_retrieval(
        entry.runtime_data,
        msg[ATTR_TEXT].strip(),
        conversation_id=msg.get(ATTR_CONVERSATION_ID),
        language=hass.config.language,
    )
    ours = await api.async_instance(llm_context, in_prompt=True)
    request = request_context_prompt(retrieval.yaml)
    prompt = f"{ours.api_prompt}\n{request}"
    assist = await llm.async_get_api(hass, llm.LLM_API_ASSIST, llm_context)
    connection.send_result(
        msg["id"],
        {
            "prompt": prompt,
            "static_prompt": ours.api_prompt,
            "request_prompt": request,
            "tools": [tool.name for tool in ours.tools],
            "size": _size(prompt),
            "assist_size": _size(assist.api_prompt),
        },
    )


def _size(prompt: str) -> dict[str, int]:
    """Return a prompt's characters and approximate tokens."""
    return {"characters": len(prompt), "tokens": approximate_tokens(prompt)}
