"""The Context Retrieval conversation agent: the right devices on every turn, with an LLM agent or without.

Each utterance is retrieved first. With a delegate agent configured (an LLM agent that
selected the Context Retrieval LLM API), the agent hands the utterance on in the same
conversation with the retrieved devices as the extra system prompt: the delegate's static
prompt and tools stay byte-identical between turns (providers' prompt caches keep working)
and no model round trip is added. Without a delegate, or when it fails, the agent acts on
its own retrieval (see ``agent_actions``): it runs a clear command, answers a question from
live state, asks back when the result is unclear, and hands what it cannot place to Home
Assistant's own agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, override

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.helpers import intent
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo

from .agent_actions import async_act
from .const import DOMAIN, LOGGER
from .conversation_states import RequestContext
from .llm_api import API_ID, request_context_prompt
from .repairs import async_check_delegate
from .retrieval import async_run_retrieval

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

    from .data import ContextRetrievalConfigEntry
    from .retrieval import Retrieval


async def async_setup_entry(
    hass: HomeAssistant,  # noqa: ARG001 - HA signature
    entry: ContextRetrievalConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the entry's conversation agent."""
    async_add_entities([ContextRetrievalAgent(entry)])


class ContextRetrievalAgent(conversation.ConversationEntity, conversation.AbstractConversationAgent):
    """Retrieves each utterance's devices, then hands it to the delegate agent or acts itself."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, entry: ContextRetrievalConfigEntry) -> None:
        """Serve the home of ``entry``."""
        self.entry = entry
        self._delegate_outage = False
        self._attr_unique_id = entry.entry_id
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            manufacturer="Context Retrieval",
            entry_type=DeviceEntryType.SERVICE,
        )

    @property
    @override
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Return the languages it understands: any (Chinese and English are what the home is named in)."""
        return MATCH_ALL

    @override
    async def async_added_to_hass(self) -> None:
        """Register as the entry's agent."""
        await super().async_added_to_hass()
        conversation.async_set_agent(self.hass, self.entry, self)

    @override
    async def async_will_remove_from_hass(self) -> None:
        """Unregister the entry's agent."""
        conversation.async_unset_agent(self.hass, self.entry)
        await super().async_will_remove_from_hass()

    @override
    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Retrieve, then hand the utterance to the delegate with its devices, or act on it."""
        data = self.entry.runtime_data
        text = user_input.text.strip()
        retrieval = await async_run_retrieval(
            data, text, conversation_id=chat_log.conversation_id, language=user_input.language
        )
        delegate = data.settings.delegate_agent
        if delegate and delegate not in {self.entity_id, self.entry.entry_id}:
            result = await self._async_delegate(delegate, user_input, chat_log, retrieval)
            if result is not None:
                return result
        return await async_act(self.hass, data, user_input, chat_log, retrieval)

    async def _async_delegate(
        self,
        delegate: str,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        retrieval: Retrieval,
    ) -> conversation.ConversationResult | None:
        """Return the delegate's answer, given the request's devices; None when it failed."""
        data = self.entry.runtime_data
        text = user_input.text.strip()
        async_check_delegate(self.hass, delegate, API_ID)
        data.requests.remember(
            chat_log.conversation_id,
            RequestContext(text, retrieval.yaml, set(retrieval.device_ids()), in_prompt=True),
        )
        extra = request_context_prompt(retrieval.yaml)
        if user_input.extra_system_prompt:
            extra = f"{user_input.extra_system_prompt}\n{extra}"
        try:
            result = await conversation.async_converse(
                self.hass,
                user_input.text,
                chat_log.conversation_id,
                user_input.context,
                language=user_input.language,
                agent_id=delegate,
                device_id=user_input.device_id,
                satellite_id=user_input.satellite_id,
                extra_system_prompt=extra,
            )
        except Exception as err:  # noqa: BLE001 - whatever breaks the delegate, the user still gets an answer
            self._delegate_failed(delegate, repr(err))
            return None
        response = result.response
        if (
            response.response_type is intent.IntentResponseType.ERROR
            and response.error_code is intent.IntentResponseErrorCode.UNKNOWN
        ):
            self._delegate_failed(delegate, response.speech.get("plain", {}).get("speech", ""))
            return None
        if self._delegate_outage:
            LOGGER.info("The delegate agent %s answers again", delegate)
            self._delegate_outage = False
        return result

    def _delegate_failed(self, delegate: str, why: str) -> None:
        """Log the first failure of an outage (the agent answers offline meanwhile)."""
        if not self._delegate_outage:
            LOGGER.warning(
                "The delegate agent %s failed (%s); answering without it until it works again", delegate, why
            )
        self._delegate_outage = True
