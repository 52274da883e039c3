"""What the Context Retrieval agent does without an LLM: act, answer from live state, ask back, or hand on.

The engine decides (``core.decision``); this module carries the decision out in Home
Assistant: commands through its services (or SmartThings for devices only SmartThings has),
answers from the state machine, and replies from the integration's translations in the
user's language. An utterance the engine cannot place goes to Home Assistant's own agent;
before asking back, Home Assistant's exact-wording intents get their chance, so nothing the
default agent understands gets worse.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from homeassistant.components import conversation
from homeassistant.components.cover import CoverState
from homeassistant.components.lock import LockState
from homeassistant.const import (
    ATTR_ENTITY_ID,
    ATTR_UNIT_OF_MEASUREMENT,
    STATE_OFF,
    STATE_ON,
    STATE_UNAVAILABLE,
)
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent
from homeassistant.helpers.translation import async_get_translations

from .clients.smartthings import SmartThingsError
from .const import DOMAIN, LOGGER
from .core.decision import (
    Action,
    AskReason,
    Choice,
    Decision,
    Outcome,
    Reading,
    decide,
    decide_choice,
    device_label,
)
from .core.models import ANY_NAME, LAST_MENTIONED, UNKNOWN_ACTION
from .core.smartthings import InvalidCommandError, smartthings_command
from .entity_commands import current_value, turns_on_first
from .retrieval import split_command_id

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import HomeAssistant

    from .core import CommandSpec, Device
    from .data import ContextRetrievalData
    from .retrieval import Retrieval

_PREFIX = f"component.{DOMAIN}.exceptions."
STATE_AFTER = {
    "turn_on": STATE_ON,
    "turn_off": STATE_OFF,
    "open_cover": CoverState.OPEN,
    "close_cover": CoverState.CLOSED,
    "open_valve": CoverState.OPEN,  # a valve's states are a cover's words
    "close_valve": CoverState.CLOSED,
    "lock": LockState.LOCKED,
    "unlock": LockState.UNLOCKED,
}
"""The state a service without a value leaves an entity in (a set's members already there are left alone)."""
RUNNING_DOMAINS = frozenset(
    {
        "light",
        "switch",
        "fan",
        "climate",
        "media_player",
        "humidifier",
        "water_heater",
        "vacuum",
        "input_boolean",
    }
)
"""Domains whose state says whether the device runs (a cover's or a lock's says where it is)."""
RESTING_STATES = frozenset({"off", "standby", "docked", "idle"})
"""States of a device that is not running (a player idle, a vacuum docked)."""
UNKNOWN_STATES = frozenset({"unavailable", "unknown"})
PLAYING_STATES = frozenset({"playing", "cleaning", "mowing"})
"""States of a device doing what a pause stops (a player playing, a vacuum cleaning)."""
MAX_SINGLE_READINGS = 2
"""Readings of one fact said device by device; more are said grouped by value (开：A、B；关：C)."""
_ASK_KEYS = {
    AskReason.WHICH_DEVICE: "agent_ask_which",
    AskReason.WHICH_ROOM: "agent_ask_room",
    AskReason.TOO_MANY: "agent_too_many",
    AskReason.NOT_FOUND: "agent_not_found",
    AskReason.NO_TARGET: "agent_no_target",
    AskReason.NO_COMMAND: "agent_no_command",
    AskReason.MISSING_VALUE: "agent_missing_value",
    AskReason.OUT_OF_RANGE: "agent_out_of_range",
    AskReason.OFF_STEP: "agent_off_step",
    AskReason.AT_END: "agent_at_end",
    AskReason.UNKNOWN_VALUE: "agent_unknown_value",
    AskReason.UNEXPECTED_VALUE: "agent_unexpected_value",
    AskReason.UNREAD_WORDS: "agent_unread_words",
}


class Replies:
    """The agent's replies in one language, from the integration's translations (English when missing)."""

    def __init__(self, texts: Mapping[str, str], *, english: bool) -> None:
        """Use ``texts`` (flattened translation keys); ``english``: the commands' English descriptions."""
        self.texts = texts
        self.english = english

    @classmethod
    async def async_load(cls, hass: HomeAssistant, language: str) -> Replies:
        """Return the replies in ``language``."""
        texts = await async_get_translations(hass, language, "exceptions", [DOMAIN])
        return cls(texts, english=not language.lower().startswith("zh"))

    def say(self, key: str, **placeholders: str) -> str:
        """Return the reply ``key`` with its placeholders filled."""
        template = self.texts.get(f"{_PREFIX}{key}.message", key)
        return template.format(**placeholders)

    def join(self, items: list[str], key: str = "agent_list") -> str:
        """Return items as a spoken list (A、B、C), joined by the template ``key`` ({list}、{item})."""
        spoken = items[0] if items else ""
        for item in items[1:]:
            spoken = self.say(key, list=spoken, item=item)
        return spoken

    def command(self, command: CommandSpec) -> str:
        """Return what a command does, in the reply's language."""
        english = command.description_en if self.english else None
        return english or command.description or command.id


KNOWN_CHOICES = frozenset({AskReason.WHICH_DEVICE, AskReason.WHICH_ROOM})
"""Questions among devices the engine found: Home Assistant's own sentences, which read 主卧床头灯打开
as every light of 主卧, are not asked to settle them."""


async def async_act(
    hass: HomeAssistant,
    data: ContextRetrievalData,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    retrieval: Retrieval,
) -> conversation.ConversationResult:
    """Carry out the engine's decision for the utterance; return the reply."""
    devices = retrieval.home.by_id
    decision = _decision(hass, data, user_input.text, chat_log.conversation_id, retrieval)
    if decision.outcome is Outcome.HAND_OFF:
        return await _async_hand_off(hass, user_input, chat_log)
    if (
        decision.outcome is Outcome.ASK
        and decision.reason not in KNOWN_CHOICES
        and (local := await _async_exact_intent(hass, user_input, chat_log))
    ):
        return _result(user_input, chat_log, local, agent_id=conversation.HOME_ASSISTANT_AGENT)
    language = user_input.language or hass.config.language
    replies = await Replies.async_load(hass, language)
    response = intent.IntentResponse(language=language)
    if decision.outcome is Outcome.ASK:
        if decision.choices:
            data.choices.remember(chat_log.conversation_id, decision.choices)
        response.async_set_speech(_ask(decision, devices, replies))
        return _result(user_input, chat_log, response, continue_conversation=True)
    return await _async_carry_out(hass, data, user_input, chat_log, retrieval, decision, replies)


async def _async_carry_out(  # noqa: PLR0913 - the turn, its retrieval, and what was decided
    hass: HomeAssistant,
    data: ContextRetrievalData,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    retrieval: Retrieval,
    decision: Decision,
    replies: Replies,
) -> conversation.ConversationResult:
    """Run the decision's actions and read its readings; return the reply saying what was done."""
    devices = retrieval.home.by_id
    response = intent.IntentResponse(language=user_input.language or hass.config.language)
    parts: list[str] = []
    decision, offline = _without_offline(hass, decision)
    if offline:
        # 阁楼电暖器开一下 with the heater unavailable: say so rather than call it
        parts.append(
            replies.say("agent_offline", devices=replies.join([device_label(devices[d]) for d in offline]))
        )
    if decision.actions:
        if any(result.command.n == LAST_MENTIONED for result in retrieval.results) or (
            retrieval.asked_before
            and all(set(action.device_ids) <= set(retrieval.previous) for action in decision.actions)
        ):
            # 把它们都关了, 除了过道的都关了 after 哪些灯开着: the lights that are on, as the answer said.
            decision = replace(decision, actions=tuple(_still_to_change(hass, a) for a in decision.actions))
        failure = await _async_run(hass, data, user_input, decision.actions, retrieval)
        if failure is not None:
            response.async_set_error(
                intent.IntentResponseErrorCode.FAILED_TO_HANDLE, replies.say("agent_failed", error=failure)
            )
            return _result(user_input, chat_log, response)
        parts.append(replies.say("agent_done", actions=_done(decision.actions, devices, replies)))
        # 它 next means what was acted on, not every close match the engine remembered.
        state = data.conversations.get(chat_log.conversation_id)
        state.remember([d for action in decision.actions for d in action.device_ids], state.last_command())
    if decision.readings:
        parts.append(replies.say("agent_answer", readings=_answer(hass, decision.readings, devices, replies)))
        if not decision.actions:
            response.response_type = intent.IntentResponseType.QUERY_ANSWER
    response.async_set_speech(" ".join(parts))
    return _result(user_input, chat_log, response)


def _decision(
    hass: HomeAssistant, data: ContextRetrievalData, text: str, conversation_id: str, retrieval: Retrieval
) -> Decision:
    """Return the engine's decision, or the one an answer to the last question (主卧的) makes.

    A single command asking which room or device is settled by the room of the last turn's
    devices when one device is the choice there (主卧温度多少, then 那把空调开到24度; not 打开那个灯
    with three lights in the room), else by which of them runs.
    """

    def current(device_id: str, command: CommandSpec) -> float | str | None:
        return current_value(hass.states.get(device_id), command.id)

    def running(device_id: str) -> bool | None:
        state = hass.states.get(device_id)
        if state is None or state.domain not in RUNNING_DOMAINS or state.state in UNKNOWN_STATES:
            return None
        return state.state not in RESTING_STATES

    def playing(device_id: str) -> bool | None:
        state = hass.states.get(device_id)
        return None if state is None else state.state in PLAYING_STATES

    def done(device_id: str, command_id: str) -> bool | None:
        state = hass.states.get(device_id)
        after = _state_after(command_id)
        if state is None or state.state in UNKNOWN_STATES or after is None:
            return None
        return state.state == after

    devices = retrieval.home.by_id
    text = retrieval.home.index.home_words.separate(text)  # as retrieval read it (开细路房: 开 细路房)
    decision = decide(
        retrieval.results, devices, text, current, running, which_by_running=False, playing=playing
    )
    asked = data.choices.get(conversation_id)
    data.choices.forget(conversation_id)
    said = {result.command.a for result in retrieval.results} - {UNKNOWN_ACTION}
    if asked and decision.outcome in {Outcome.ASK, Outcome.HAND_OFF} and said <= {asked[0].action}:
        # An answer says which (主卧的), perhaps with the same action, never another one (关了).
        names = [r.command.n for r in retrieval.results if r.command.n not in {ANY_NAME, LAST_MENTIONED}]
        return decide_choice(_with_room_aliases(asked, retrieval), devices, text, current, names) or decision
    rooms = {devices[device_id].room for device_id in retrieval.previous if device_id in devices}
    which = decision.reason in {AskReason.WHICH_ROOM, AskReason.WHICH_DEVICE}
    if which and len(rooms) == 1 and len(retrieval.results) == 1:
        (room,) = rooms
        single = [choice for choice in decision.choices if len(choice.device_ids) == 1]
        if settled := decide_choice(single, devices, room, current):
            return settled
    # Which one, when the conversation says nothing of it: the one that runs (冷气调到24度; 风扇开大
    # 一点 with six fans, two of which cannot step, and one running).
    rerun = which or decision.reason is AskReason.NOT_FOUND
    return decide(retrieval.results, devices, text, current, running, done=done) if rerun else decision


def _with_room_aliases(choices: tuple[Choice, ...], retrieval: Retrieval) -> list[Choice]:
    """Return the choices with their rooms' aliases among their words (主浴 for 主卧浴室)."""
    aliases = {room.name: room.aliases for room in retrieval.home.rooms}
    return [
        replace(choice, words=(*choice.words, *(a for word in choice.words for a in aliases.get(word, ()))))
        for choice in choices
    ]


async def _async_exact_intent(
    hass: HomeAssistant, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
) -> intent.IntentResponse | None:
    """Return Home Assistant's answer when its exact-wording intents match the utterance, else None."""
    try:
        return await conversation.async_handle_intents(hass, user_input, chat_log)
    except HomeAssistantError as err:  # an intent without a handler, a target it refused
        LOGGER.debug("Home Assistant's intents could not handle %r: %s", user_input.text, err)
        return None


async def _async_hand_off(
    hass: HomeAssistant, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
) -> conversation.ConversationResult:
    """Return Home Assistant's own agent's answer, in the same conversation."""
    return await conversation.async_converse(
        hass,
        user_input.text,
        chat_log.conversation_id,
        user_input.context,
        language=user_input.language,
        agent_id=conversation.HOME_ASSISTANT_AGENT,
        device_id=user_input.device_id,
        satellite_id=user_input.satellite_id,
    )


def _result(
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    response: intent.IntentResponse,
    *,
    agent_id: str | None = None,
    continue_conversation: bool = False,
) -> conversation.ConversationResult:
    """Record the reply in the conversation and return it."""
    speech = response.speech.get("plain", {}).get("speech", "")
    chat_log.async_add_assistant_content_without_tools(
        conversation.AssistantContent(agent_id=agent_id or user_input.agent_id or DOMAIN, content=speech)
    )
    return conversation.ConversationResult(
        response=response,
        conversation_id=chat_log.conversation_id,
        continue_conversation=continue_conversation,
    )


def _state_after(command_id: str) -> str | None:
    """Return the state a command without a value leaves an entity in (locked for lock.lock), or None."""
    service, field = split_command_id(command_id)
    return None if field is not None else STATE_AFTER.get((service or "").partition(".")[2])


def _without_offline(hass: HomeAssistant, decision: Decision) -> tuple[Decision, list[str]]:
    """Return the decision without its actions' unavailable targets, and the targets to say are offline.

    A set keeps its members that are not (and says nothing of the others); an action left with no
    target is dropped, and its targets are said to be offline.
    """
    actions: list[Action] = []
    offline: list[str] = []
    for action in decision.actions:
        up = tuple(
            d
            for d in action.device_ids
            if (state := hass.states.get(d)) is None or state.state != STATE_UNAVAILABLE
        )
        if up:
            actions.append(replace(action, device_ids=up))
        else:
            offline += [d for d in action.device_ids if d not in offline]
    if [a.device_ids for a in actions] == [a.device_ids for a in decision.actions]:
        return decision, []
    return replace(decision, actions=tuple(actions)), offline


def _still_to_change(hass: HomeAssistant, action: Action) -> Action:
    """Return a set's switching action on the members not already in the state it leaves them in.

    One device, a value, or a set already all there, is left as it is.
    """
    after = _state_after(action.command.id)
    if after is None or len(action.device_ids) == 1:
        return action
    to_change = tuple(
        device_id
        for device_id in action.device_ids
        if (state := hass.states.get(device_id)) is None or state.state != after
    )
    return replace(action, device_ids=to_change) if to_change else action


async def _async_run(
    hass: HomeAssistant,
    data: ContextRetrievalData,
    user_input: conversation.ConversationInput,
    actions: tuple[Action, ...],
    retrieval: Retrieval,
) -> str | None:
    """Run the actions (Home Assistant services, SmartThings commands); return the first failure, if any."""
    smartthings_ids = retrieval.home.smartthings_ids
    for action in actions:
        entities = [device_id for device_id in action.device_ids if "." in device_id]
        try:
            if entities:
                service, field = split_command_id(action.command.id)
                domain, _, name = (service or "").partition(".")
                service_data: dict[str, Any] = {ATTR_ENTITY_ID: entities}
                if field is not None:
                    service_data[field] = action.value
                    await _async_turn_on_first(hass, action, entities, retrieval, user_input)
                await hass.services.async_call(
                    domain, name, service_data, blocking=True, context=user_input.context
                )
            for device_id in action.device_ids:
                if "." in device_id or device_id not in smartthings_ids:
                    continue
                command = smartthings_command(action.command, action.value)
                await data.smartthings.account.async_execute(smartthings_ids[device_id], command)
        except (HomeAssistantError, SmartThingsError, InvalidCommandError) as err:
            LOGGER.info("The agent could not run %s on %s: %s", action.command.id, action.device_ids, err)
            return str(err) or type(err).__name__
    return None


async def _async_turn_on_first(
    hass: HomeAssistant,
    action: Action,
    entities: list[str],
    retrieval: Retrieval,
    user_input: conversation.ConversationInput,
) -> None:
    """Turn on the entities that are off before a setting that would leave them off.

    除湿机湿度调到45 with the dehumidifier off: Home Assistant sets its target and it stays off.
    Only entities that can be turned on are.
    """
    if not turns_on_first(action.command.id):
        return
    domain = action.command.id.partition(".")[0]
    turn_on = f"{domain}.turn_on"
    off = [
        entity_id
        for entity_id in entities
        if (state := hass.states.get(entity_id)) is not None
        and state.state == STATE_OFF
        and (device := retrieval.home.by_id.get(entity_id)) is not None
        and any(command.id == turn_on for command in device.commands)
    ]
    if off:
        await hass.services.async_call(
            domain, "turn_on", {ATTR_ENTITY_ID: off}, blocking=True, context=user_input.context
        )


def _done(actions: tuple[Action, ...], devices: Mapping[str, Device], replies: Replies) -> str:
    """Return what was done, one phrase per action."""
    phrases = []
    for action in actions:
        targets = replies.join([device_label(devices[d]) for d in action.device_ids if d in devices])
        value = "" if action.value is None else f" {_value_text(action.command, action.value)}"
        phrases.append(
            replies.say("agent_action", command=replies.command(action.command) + value, targets=targets)
        )
    return replies.join(phrases)


def _answer(
    hass: HomeAssistant, readings: tuple[Reading, ...], devices: Mapping[str, Device], replies: Replies
) -> str:
    """Return the facts read from live state: one phrase per device, or per value for a set (哪些灯开着)."""
    read = [
        (devices[r.device_id], r, _reading_value(hass, r, replies))
        for r in readings
        if r.device_id in devices
    ]
    if len(read) <= MAX_SINGLE_READINGS or len({reading.fact.id for _, reading, _ in read}) > 1:
        return replies.join(
            [
                replies.say(
                    "agent_reading",
                    device=device_label(device),
                    fact=replies.command(reading.fact),
                    value=value,
                )
                for device, reading, value in read
            ]
        )
    by_value: dict[str, list[str]] = {}
    for device, _, value in read:
        by_value.setdefault(value, []).append(device_label(device))
    groups = [
        replies.say("agent_reading_group", value=value, devices=replies.join(names))
        for value, names in by_value.items()
    ]
    return replies.say(
        "agent_readings", fact=replies.command(read[0][1].fact), groups=replies.join(groups, "agent_groups")
    )


def _reading_value(hass: HomeAssistant, reading: Reading, replies: Replies) -> str:
    """Return the fact's current value as said: a listed value by its description, a number with its unit."""
    state = hass.states.get(reading.device_id)
    if state is None:
        return replies.say("agent_unknown_state")
    _, attribute = split_command_id(reading.fact.id)
    if attribute is None:
        raw: Any = state.state
        unit = state.attributes.get(ATTR_UNIT_OF_MEASUREMENT)
    else:
        raw = state.attributes.get(attribute)
        unit = (reading.fact.value_range or {}).get("unit")
    if raw is None or raw in ("unknown", "unavailable"):
        return replies.say("agent_unknown_state")
    text = _value_text(reading.fact, raw)
    return f"{text} {unit}" if unit and text == str(raw) else text


def _value_text(command: CommandSpec, value: Any) -> str:
    """Return a value as said: a listed value by its description, a number as it is (26.0 as 26).

    A level from 0 to 1 (a volume) is said in per cent (0.25 as 25%).
    """
    for item in command.value_list or ():
        if item.get("value") == value or str(item.get("value")) == str(value):
            return str(item.get("description") or value)
    span = command.value_range or {}
    if (span.get("minimum"), span.get("maximum"), span.get("unit")) == (0, 1, None) and _is_level(value):
        return f"{round(value * 100)}%"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_level(value: Any) -> bool:
    """Return True for a number (not a boolean) a level from 0 to 1 can be."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


def _ask(decision: Decision, devices: Mapping[str, Device], replies: Replies) -> str:
    """Return the question to ask back."""
    key = _ASK_KEYS[decision.reason or AskReason.WHICH_DEVICE]
    device = devices.get(decision.subject[0]) if decision.subject else None
    command = decision.command
    value_range = (command.value_range if command else None) or {}
    listed = (
        [str(item.get("description") or item.get("value")) for item in (command.value_list or ())]
        if command
        else []
    )
    if key == _ASK_KEYS[AskReason.UNKNOWN_VALUE] and not (decision.options or listed) and value_range:
        key = _ASK_KEYS[AskReason.OUT_OF_RANGE]  # 7档 of a fan of five speeds: its range, not an empty list
    return replies.say(
        key,
        options=replies.join(list(decision.options) or listed),
        device=device_label(device) if device else "",
        command=replies.command(command) if command else "",
        minimum=_number(value_range.get("minimum")),
        maximum=_number(value_range.get("maximum")),
        step=_number(value_range.get("step")),
        unit=str(value_range.get("unit") or ""),
    )


def _number(value: Any) -> str:
    """Return a bound as said (26.0 as 26; missing as empty)."""
    if value is None:
        return ""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
