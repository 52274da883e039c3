"""Fixtures shared by the Home Assistant tests (pytest-homeassistant-custom-component)."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from homeassistant.components.conversation import ChatLog, ConversationInput, async_get_chat_log
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers.chat_session import async_get_chat_session
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

# Import the project's package before the plugin's testing_config/custom_components can shadow it.
import custom_components.context_retrieval  # noqa: F401
from custom_components.context_retrieval.const import DOMAIN, REBUILD_COOLDOWN, SERVICE_RETRIEVE

from .clients.smartthings_server import shared_account
from .home import build_home

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from demo.smartthings_replay import SmartThingsReplay


@pytest.fixture(autouse=True)
def _custom_integrations_for_hass_tests(request: pytest.FixtureRequest) -> None:
    """Let Home Assistant load custom integrations in every test that starts one."""
    if "hass" in request.fixturenames:
        request.getfixturevalue("enable_custom_integrations")


@pytest.fixture
async def ha_core(hass: HomeAssistant) -> HomeAssistant:
    """Home Assistant with the integrations ours builds on (exposure settings, Assist)."""
    hass.config.language = "zh-Hans"
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    return hass


@pytest.fixture
def entry_options() -> dict[str, Any]:
    """Options of the config entry under test (offline parser by default)."""
    return {}


@pytest.fixture
def config_entry(hass: HomeAssistant, entry_options: dict[str, Any]) -> MockConfigEntry:
    """The integration's config entry, added but not set up."""
    entry = MockConfigEntry(domain=DOMAIN, title="Context Retrieval", options=entry_options)
    entry.add_to_hass(hass)
    return entry


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The test home (floors, areas, devices, entities, exposure)."""
    devices_owner = MockConfigEntry(domain="test")
    devices_owner.add_to_hass(ha_core)
    build_home(ha_core, devices_owner)
    await ha_core.async_block_till_done()
    return ha_core


@pytest.fixture
async def loaded_entry(home: HomeAssistant, config_entry: MockConfigEntry) -> MockConfigEntry:
    """The integration set up on the test home."""
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await home.async_block_till_done()
    return config_entry


async def settle(hass: HomeAssistant) -> None:
    """Let the index's debounce cooldown pass and the rebuild finish."""
    await hass.async_block_till_done()
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=REBUILD_COOLDOWN + 1))
    await hass.async_block_till_done()


async def call_retrieve(hass: HomeAssistant, text: str, **data: Any) -> dict[str, Any]:
    """Call context_retrieval.retrieve and return its response."""
    return await hass.services.async_call(
        DOMAIN, SERVICE_RETRIEVE, {"text": text, **data}, blocking=True, return_response=True
    )


@pytest.fixture
async def smartthings(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[SmartThingsReplay]:
    """A replayed SmartThings account (``tests/data/smartthings``) the integration talks to."""
    from custom_components.context_retrieval.clients import smartthings as smartthings_client

    server = shared_account()
    await server.start()
    monkeypatch.setattr(smartthings_client, "API_ROOT", server.base_url)
    yield server
    await server.close()


@contextmanager
def user_turn(hass: HomeAssistant, text: str) -> Iterator[ChatLog]:
    """Open a conversation turn whose user said ``text`` (tools called inside it serve that request)."""
    user_input = ConversationInput(
        text=text,
        context=Context(),
        conversation_id=None,
        device_id=None,
        satellite_id=None,
        language="zh-Hans",
        agent_id="conversation.test",
    )
    with async_get_chat_session(hass) as session, async_get_chat_log(hass, session, user_input) as chat_log:
        yield chat_log
