"""The "Context Retrieval" LLM API: Assist's prompt and tools, with the home cut to what the request needs.

A conversation agent that selects this API instead of Assist gets, each turn, what Assist's
tool platforms give (intent tools and their prompts), except the ``homeassistant`` platform's
part: its overview of every exposed entity is replaced by the YAML context of the devices
retrieved for the user's utterance, and its live-context tool by one that reads only those
devices. A search tool finds any other device by words, so a retrieval miss never forces the
whole home back into the prompt. With the SmartThings direct connection, a last tool runs
the commands listed for devices only SmartThings has (Home Assistant's intent tools cannot
reach them). Every expected failure comes back to the model as data. The overview is never
built, so the instance costs our retrieval and the other platforms' work only.
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

from .clients.smartthings import SmartThingsError
from .const import DOMAIN, LOGGER
from .core.smartthings import InvalidCommandError, smartthings_command
from .repairs import async_check_agents
from .retrieval import async_retrieve, retrieved_device_ids

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .data import ContextRetrievalConfigEntry
    from .index import BuiltHome
    from .smartthings_source import SmartThingsSource

API_ID = DOMAIN
API_NAME = "Context Retrieval"
OVERVIEW_PLATFORM = "homeassistant"
"""The tool platform whose prompt is the overview of every exposed entity (and its live-context tool)."""
SEARCH_TOOL = f"{DOMAIN}__SearchDevices"
LIVE_CONTEXT_TOOL = f"{DOMAIN}__GetLiveContext"
SMARTTHINGS_COMMAND_TOOL = f"{DOMAIN}__SmartThingsCommand"
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
            response = await async_retrieve(
                self.entry.runtime_data, text, conversation_id=conversation_id, language=llm_context.language
            )
            scope.device_ids.update(retrieved_device_ids(response))
            context = f"{CONTEXT_PROMPT}{response['yaml']}".rstrip("\n")
        else:
            context = NO_REQUEST_PROMPT.rstrip("\n")
        own: list[llm.Tool] = [LiveContextTool(scope), SearchDevicesTool(self.entry, scope)]
        data = self.entry.runtime_data
        if data.index.current.smartthings_ids:
            own.append(SmartThingsCommandTool(data.smartthings, data.index.current, scope.device_ids))
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
            return _tool_error(f"No device is in context; find one with {SEARCH_TOOL} first.")
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
            return _tool_error(f"Invalid arguments: {err}")
        query = arguments["query"].strip()
        if not query:
            return _tool_error("The query is empty.")
        response = await async_retrieve(
            self.entry.runtime_data,
            query,
            top_k=arguments.get("limit"),
            offline=True,
            language=llm_context.language,
        )
        found = retrieved_device_ids(response)
        if not found:
            LOGGER.debug("Search for %r found no device", query)
            return _tool_error(f"No device matches {query!r}.")
        self.scope.device_ids.update(found)
        return llm.ToolResult(data={"result": response["yaml"]})


class SmartThingsCommandTool(llm.Tool):
    """Send one listed SmartThings command to a device of the turn."""

    name = SMARTTHINGS_COMMAND_TOOL
    title = "Run a SmartThings command"
    description = (
        "Runs a SmartThings command listed in the context (an id like main-switch-on): for a device "
        "only SmartThings has (an id without a dot, which the intent tools cannot reach) or a "
        "command the intent tools lack. Give the device id, the command id as listed, and its value "
        "when the command lists a value_range or value_list."
    )
    parameters = vol.Schema(
        {
            vol.Required("device_id", description="The device's id as listed."): str,
            vol.Required("command_id", description="The command's id as listed."): str,
            vol.Optional("value", description="The command's value, when it takes one."): vol.Any(
                int, float, str
            ),
        }
    )
    annotations = llm.ToolAnnotations(idempotent=True, open_world=True)
    integration = DOMAIN

    def __init__(self, source: SmartThingsSource, built: BuiltHome, scope: set[str]) -> None:
        """Run commands through ``source``'s account for the SmartThings devices of ``scope``."""
        self.source = source
        self.built = built
        self.scope = scope

    @override
    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        """Validate the command and send it; every failure is data for the model."""
        try:
            arguments = self.parameters(tool_input.tool_args)
        except vol.Invalid as err:
            return _tool_error(f"Invalid arguments: {err}")
        device = self.built.by_id.get(arguments["device_id"])
        smartthings_id = self.built.smartthings_ids.get(arguments["device_id"])
        if device is None or smartthings_id is None or device.id not in self.scope:
            return _tool_error(f"{arguments['device_id']} is no SmartThings device in this turn's context")
        spec = next((c for c in device.commands if c.id == arguments["command_id"]), None)
        if spec is None:
            return _tool_error(f"{device.name} has no command {arguments['command_id']}")
        try:
            command = smartthings_command(spec, arguments.get("value"))
            answer = await self.source.account.async_execute(smartthings_id, command)
        except InvalidCommandError as err:
            return _tool_error(str(err))
        except SmartThingsError as err:
            return _tool_error(f"SmartThings refused it: {err}")
        return llm.ToolResult(
            data={"success": True, "device": device.name, "command": spec.id, "answer": answer}
        )


def _tool_error(message: str) -> llm.ToolResult:
    """Return an expected failure as data for the model."""
    return llm.ToolResult(data={"error": message}, error=True)
