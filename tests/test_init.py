"""Set-up, unload and reload of the config entry."""

from __future__ import annotations

import asyncio

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import CoreState, HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.context_retrieval.const import DOMAIN, SERVICE_RETRIEVE
from custom_components.context_retrieval.data import Settings
from custom_components.context_retrieval.index import HomeIndexManager

from .conftest import call_retrieve, settle


async def test_setup_loads_the_entry_with_typed_runtime_data(loaded_entry, home: HomeAssistant):
    assert loaded_entry.state is ConfigEntryState.LOADED
    data = loaded_entry.runtime_data
    assert data.settings == Settings(
        llm_base_url=None, llm_api_key=None, llm_model=None, embedding_backend="local", top_k=5
    )
    assert data.parser is None  # no LLM configured: the offline parser parses
    assert home.services.has_service(DOMAIN, SERVICE_RETRIEVE)


async def test_the_service_exists_without_an_entry(ha_core: HomeAssistant):
    assert await async_setup_component(ha_core, DOMAIN, {})
    assert ha_core.services.has_service(DOMAIN, SERVICE_RETRIEVE)


async def test_unload_and_setup_again(loaded_entry, home):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    assert loaded_entry.state is ConfigEntryState.NOT_LOADED
    assert await home.config_entries.async_setup(loaded_entry.entry_id)
    assert loaded_entry.state is ConfigEntryState.LOADED


async def test_an_options_change_reloads_the_entry(loaded_entry, home):
    flow = await home.config_entries.options.async_init(loaded_entry.entry_id)
    await home.config_entries.options.async_configure(
        flow["flow_id"], {"embedding_backend": "local", "top_k": 1}
    )
    await home.async_block_till_done()
    assert loaded_entry.state is ConfigEntryState.LOADED
    assert loaded_entry.runtime_data.settings.top_k == 1
    [result] = (await call_retrieve(home, "打开"))["results"]
    assert len(result["candidates"]) == 1


async def test_an_options_save_keeps_what_conversations_remember(loaded_entry, home):
    """它 still points at the light turned on before the entry reloaded."""
    [first] = (await call_retrieve(home, "打开客厅主灯", conversation_id="c1"))["results"]
    assert first["candidates"][0]["entity_id"] == "light.living_main"
    assert await home.config_entries.async_reload(loaded_entry.entry_id)
    [again] = (await call_retrieve(home, "把它关掉", conversation_id="c1"))["results"]
    assert again["candidates"][0]["entity_id"] == "light.living_main"
    assert again["hint"] is None


async def test_calls_arriving_during_a_reload_are_answered(loaded_entry, home, monkeypatch):
    """Calls made while the entry sets up again (its options saved) wait for it, then get their answer."""
    setting_up, release = asyncio.Event(), asyncio.Event()
    create = HomeIndexManager.async_create

    async def slow_create(*args, **kwargs):
        setting_up.set()
        await release.wait()
        return await create(*args, **kwargs)

    monkeypatch.setattr(HomeIndexManager, "async_create", slow_create)
    reload = home.async_create_task(home.config_entries.async_reload(loaded_entry.entry_id))
    await setting_up.wait()  # unloaded, being set up again: not loaded
    assert loaded_entry.state is not ConfigEntryState.LOADED
    calls = [home.async_create_task(call_retrieve(home, "关掉床头灯")) for _ in range(5)]
    await asyncio.sleep(0.01)
    release.set()
    responses = await asyncio.gather(*calls)
    assert await reload
    assert [r["results"][0]["candidates"][0]["entity_id"] for r in responses] == ["light.bedside"] * 5


async def test_an_llm_in_the_options_makes_a_parser(home, config_entry):
    home.config_entries.async_update_entry(
        config_entry, options={"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": "m"}
    )
    assert await home.config_entries.async_setup(config_entry.entry_id)
    assert config_entry.runtime_data.parser is not None


async def test_setup_while_home_assistant_starts_indexes_again_once_started(hass, config_entry, caplog):
    hass.set_state(CoreState.not_running)
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    hass.states.async_set(
        "light.late", "off", {"friendly_name": "晚到的灯", "supported_color_modes": ["onoff"]}
    )
    await hass.async_start()
    await hass.async_block_till_done()
    await settle(hass)
    assert "light.late" in config_entry.runtime_data.index.current.by_id
    assert "Non-thread-safe" not in caplog.text
    assert "Error" not in caplog.text
