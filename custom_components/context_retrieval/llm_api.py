"""The "Context Retrieval" LLM API: Assist's prompt and tools, with the home cut to what the request needs.

A conversation agent that selects this API instead of Assist gets, each turn, what Assist's
tool platforms give (intent tools and their prompts), except the ``homeassistant`` platform's
part: its overview of every exposed entity is replaced by the YAML context of the devices
retrieved for the user's utterance, and its live-context tool by one that reads only those
devices. A search tool finds any other device by words, so a retrieval miss never forces the
whole home back into the prompt. The overview is never built, so the instance costs our
retrieval and the other platforms' work only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, override

import voluptuous as vol
from homeassistant.components.conversation.chat_log import current_chat_log
from homeassistant.components.homeassistant.llm import async_get_exposed_entities
from homeassistant.components.llm import DATA_PLATFORMS
from homeassistant.helpers import llm
from homeassistant.util import yaml as yaml_util

from .const import DOMAIN, LOGGER
from .repairs import async_check_agents
from .retrieval import async_retrieve, retrieved_device_ids
from .smartthings_commands import SmartThingsCommandTool

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .data import ContextRetrievalConfigEntry

API_ID = DOMAIN
API_NAME = "Context Retrieval"
OVERVIEW_PLATFORM = "homeassistant"
"""The tool platform whose prompt is the overview of every exposed entity (and its live-context tool)."""
SEARCH_TOOL = f"{DOMAIN}__SearchDevices"
LIVE_CONTEXT_TOOL = f"{DOMAIN}__GetLiveContext"
MAX_SEARCH_RESULTS = 20

CONTEXT_PROMPT = (
    "The devices this request needs (not the whole home); use names or ids as listed. "
    f"Current state: {LIVE_CONTEXT_TOOL}. Other devices: {SEARCH_TOOL}. If a request has a hint, "
    "ask the user.\n"
)
NO_REQUEST_PROMPT = f"No request to choose devices for: find devices with {SEARCH_TOOL}.\n"


@dataclass(slots=True, kw_only=True)
class ContextRetrievalAPI(llm.API):
    """The LLM API of a loaded entry (CONTRACT §4: id ``context_retrieval``)."""

    entry: ContextRetrievalConfigEntry

    @override
    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Return Assist's tools and prompts, with the retrieved context for the overview."""
        async_check_agents(self.hass, self.id)
        text, conversation_id = current_request()
        return await self.async_instance_for(llm_context, text, conversation_id)

    async def async_instance_for(
        self, llm_context: llm.LLMContext, text: str | None, conversation_id: str | None
    ) -> llm.APIInstance:
        """Return the instance for an utterance (None: no request) in a conversation."""
        scope = Scope()
        if text:
            response = await async_retrieve(self.entry.runtime_data, text, conversation_id=conversation_id)
            scope.device_ids.update(retrieved_device_ids(response))
            context = f"{CONTEXT_PROMPT}{response['yaml']}".rstrip("\n")
        else:
            context = NO_REQUEST_PROMPT.rstrip("\n")
        own: list[llm.Tool] = [LiveContextTool(scope), SearchDevicesTool(self.entry, scope)]
        data = self.entry.runtime_data
        if data.smartthings is not None:
            own.append(SmartThingsCommandTool(data.smartthings, data.index.current.by_id, scope.device_ids))
        prompts, tools = await _async_assist_parts(self.hass, llm_context, context, own)
        return llm.APIInstance(
            api=self,
            api_prompt="\n".join(prompts),
            llm_context=llm_context,
            tools=tools,
            custom_serializer=llm.selector_serializer,
        )


async def _async_assist_parts(
    hass: HomeAssistant, llm_context: llm.LLMContext, context: str, own: list[llm.Tool]
) -> tuple[list[str], list[llm.Tool]]:
    """Return the prompts and tools Assist's platforms give, ours in the overview platform's place.

    The platforms are asked in domain order, as Assist asks them; one that fails is logged
    and skipped, as Assist does.
    """
    platforms = await hass.data[DATA_PLATFORMS].async_get_platforms()
    prompts: list[str] = []
    tools: list[llm.Tool] = []
    for domain, platform in sorted({**platforms, OVERVIEW_PLATFORM: None}.items()):
        if domain == OVERVIEW_PLATFORM:
            prompts.append(context)
            tools.extend(own)
            continue
        try:
            result = platform.async_get_tools(hass, llm_context, llm.LLM_API_ASSIST)
        except Exception:  # noqa: BLE001 - one platform's bug must not break the turn (Assist skips it too)
            LOGGER.exception("Error getting tools from the LLM platform of %s", domain)
            continue
        if result is not None:
            tools.extend(result.tools)
            if result.prompt:
                prompts.append(result.prompt)
    return prompts, tools


def approximate_tokens(text: str) -> int:
    """Return a rough token count: a CJK character is about one token, other text four characters."""
    cjk = sum(1 for char in text if "\u3400" <= char <= "\u9fff")
    return cjk + (len(text) - cjk + 3) // 4


def current_request() -> tuple[str | None, str | None]:
    """Return the utterance of the turn being prepared and its conversation id.

    The agent has just added the user's message to its chat log; a turn with no new
    message (an AI task, a timer) has none.
    """
    chat_log = current_chat_log.get()
    if chat_log is None or not chat_log.content:
        return None, None
    last = chat_log.content[-1]
    if last.role != "user" or not isinstance(last.content, str) or not last.content.strip():
        return None, chat_log.conversation_id
    return last.content.strip(), chat_log.conversation_id


@dataclass(slots=True)
class Scope:
    """The devices one turn may read: those retrieved, and those its searches found."""

    device_ids: set[str] = field(default_factory=set)


class LiveContextTool(llm.Tool):
    """Assist's live context, for the devices of this turn only."""

    name = LIVE_CONTEXT_TOOL
    title = "Get live context of the devices in context"
    description = (
        "Provides real-time information about the CURRENT state, value or mode of the devices in the "
        f"static context and those found with {SEARCH_TOOL} in this conversation turn. Use it to answer "
        "questions about current conditions (is the light on, how warm is the bedroom) and as the first "
        "step of conditional actions."
    )
    annotations = llm.ToolAnnotations(read_only=True, open_world=False)
    integration = DOMAIN

    def __init__(self, scope: Scope) -> None:
        """Read the devices of ``scope``."""
        self.scope = scope

    @override
    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        """Return the state and interesting attributes of the devices in scope."""
        exposed = async_get_exposed_entities(hass, llm_context.assistant)
        entities = [info for entity_id, info in exposed.items() if entity_id in self.scope.device_ids]
        if not entities:
            return llm.ToolResult(
                data={"error": f"No device is in context; find one with {SEARCH_TOOL} first."}, error=True
            )
        overview = "Live Context: the devices in context and their current state:"
        return llm.ToolResult(data={"result": f"{overview}\n{yaml_util.dump(entities)}"})


class SearchDevicesTool(llm.Tool):
    """Find devices of the home by words, when the static context lacks the one meant."""

    name = SEARCH_TOOL
    title = "Search devices"
    description = (
        "Searches all the devices of this smart home by words: a name, a room, a kind of device and "
        "what to do with it, in Chinese or English (卧室 空调, 客厅的灯调亮, garage door). Returns the "
        "best matches with their id, name, room, aliases and matching commands, as YAML."
    )
    parameters = vol.Schema(
        {
            vol.Required("query", description="Words that describe the device and what to do."): str,
            vol.Optional("limit", description="Most devices to return (1-20)."): vol.All(
                vol.Coerce(int), vol.Range(min=1, max=MAX_SEARCH_RESULTS)
            ),
        }
    )
    annotations = llm.ToolAnnotations(read_only=True, open_world=False)
    integration = DOMAIN

    def __init__(self, entry: ContextRetrievalConfigEntry, scope: Scope) -> None:
        """Search the home of ``entry``; what is found joins ``scope``."""
        self.entry = entry
        self.scope = scope

    @override
    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        """Return the devices that match the words (the offline parser reads them: no LLM call)."""
        try:
            arguments: dict[str, Any] = self.parameters(tool_input.tool_args)
        except vol.Invalid as err:
            return llm.ToolResult(data={"error": f"Invalid arguments: {err}"}, error=True)
        query = arguments["query"].strip()
        if not query:
            return llm.ToolResult(data={"error": "The query is empty."}, error=True)
        response = await async_retrieve(
            self.entry.runtime_data, query, top_k=arguments.get("limit"), offline=True
        )
        found = retrieved_device_ids(response)
        if not found:
            LOGGER.debug("Search for %r found no device", query)
            return llm.ToolResult(data={"error": f"No device matches {query!r}."}, error=True)
        self.scope.device_ids.update(found)
        return llm.ToolResult(data={"result": response["yaml"]})
