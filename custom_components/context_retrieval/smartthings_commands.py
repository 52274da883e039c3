"""Run a retrieved SmartThings command for a device only SmartThings has (the LLM API's tool).

Home Assistant's intent tools act on its entities; a device read through the SmartThings
direct connection has none, so the agent runs the command the context lists for it
(``main-switchLevel-setLevel`` with ``value: 50``). The command must be one of the device's,
its value must fit the command's ``value_range`` or ``value_list``; SmartThings' own errors
come back to the model as data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, override

import voluptuous as vol
from homeassistant.helpers import llm

from .clients.smartthings import SmartThingsError
from .const import DOMAIN

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .core import CommandSpec, Device
    from .smartthings_source import SmartThingsSource

SMARTTHINGS_COMMAND_TOOL = f"{DOMAIN}__SmartThingsCommand"


class InvalidCommandError(ValueError):
    """The command or its value does not fit the device."""


def smartthings_command(spec: CommandSpec, value: Any) -> dict[str, Any]:
    """Return the API's command object for a command id ``{component}-{capability}-{command}``."""
    parts = spec.id.split("-")
    if spec.readable or len(parts) < 3:  # component, capability, command
        raise InvalidCommandError(f"{spec.id} is not a command")
    return {
        "component": parts[0],
        "capability": parts[1],
        "command": "-".join(parts[2:]),
        "arguments": _arguments(spec, value),
    }


def _arguments(spec: CommandSpec, value: Any) -> list[Any]:
    """Return the command's arguments: none, or the value checked against its range or list."""
    if spec.value_list:
        allowed = [item.get("value") for item in spec.value_list]
        if value not in allowed:
            raise InvalidCommandError(f"{spec.id} takes one of {allowed}, not {value!r}")
        return [value]
    if spec.value_range:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidCommandError(f"{spec.id} takes a number")
        low, high = spec.value_range.get("minimum"), spec.value_range.get("maximum")
        if (isinstance(low, (int, float)) and value < low) or (
            isinstance(high, (int, float)) and value > high
        ):
            raise InvalidCommandError(f"{spec.id} takes a number from {low} to {high}, not {value}")
        return [value]
    if value is not None:
        raise InvalidCommandError(f"{spec.id} takes no value")
    return []


class SmartThingsCommandTool(llm.Tool):
    """Send one listed command to a device of the turn that only SmartThings has."""

    name = SMARTTHINGS_COMMAND_TOOL
    title = "Run a SmartThings command"
    description = (
        "Runs a command listed in the context for a SmartThings device (an id without a dot, which "
        "the intent tools cannot reach): give the device id, the command id as listed, and its value "
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

    def __init__(self, source: SmartThingsSource, devices: dict[str, Device], scope: set[str]) -> None:
        """Run commands through ``source`` for the devices of ``scope``."""
        self.source = source
        self.devices = devices
        self.scope = scope

    @override
    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        """Validate the command and send it; every failure is data for the model."""
        try:
            arguments = self.parameters(tool_input.tool_args)
        except vol.Invalid as err:
            return _error(f"Invalid arguments: {err}")
        device = self.devices.get(arguments["device_id"])
        if device is None or device.id not in self.scope or device.id not in self.source.device_ids():
            return _error(f"{arguments['device_id']} is no SmartThings device in this turn's context")
        spec = next((c for c in device.commands if c.id == arguments["command_id"]), None)
        if spec is None:
            return _error(f"{device.name} has no command {arguments['command_id']}")
        try:
            command = smartthings_command(spec, arguments.get("value"))
            answer = await self.source.client.async_execute(device.id, [command])
        except InvalidCommandError as err:
            return _error(str(err))
        except SmartThingsError as err:
            return _error(f"SmartThings refused it: {err}")
        return llm.ToolResult(
            data={"success": True, "device": device.name, "command": spec.id, "answer": answer}
        )


def _error(message: str) -> llm.ToolResult:
    return llm.ToolResult(data={"error": message}, error=True)
