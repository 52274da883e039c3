"""The index follows the home: debounced rebuilds off the event loop on every kind of change."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.context_retrieval import index as index_module
from custom_components.context_retrieval.const import REBUILD_COOLDOWN

from .conftest import call_retrieve, settle
from .home import LIGHT_ATTRS, HomeEntity, add_entity


@dataclass(slots=True)
class BlockedBuild:
    """The index's build, held in the executor until released; it records the threads it ran on."""

    build: Callable[[Any], Any]
    started: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    threads: list[int] = field(default_factory=list)

    def __call__(self, snapshot, remote=None):
        self.threads.append(threading.get_ident())
        self.started.set()
        self.release.wait(5)
        return self.build(snapshot, remote)

    async def wait_until_started(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.started.wait, 5)


@pytest.fixture
def blocked_build(monkeypatch) -> BlockedBuild:
    blocked = BlockedBuild(index_module.build_home)
    monkeypatch.setattr(index_module, "build_home", blocked)
    return blocked


def current(entry: MockConfigEntry):
    return entry.runtime_data.index.current


def device(entry: MockConfigEntry, entity_id: str):
    return current(entry).by_id.get(entity_id)


async def test_setup_builds_the_index_of_the_exposed_entities(loaded_entry):
    assert len(current(loaded_entry).devices) == 9
    assert loaded_entry.runtime_data.index.rebuilds == 0


async def test_entity_rename_and_aliases_are_picked_up(loaded_entry, home):
    registry = er.async_get(home)
    registry.async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, "灶台灯"])
    await settle(home)
    assert "灶台灯" in device(loaded_entry, "light.kitchen").aliases
    home.states.async_set("light.kitchen", "off", {**LIGHT_ATTRS, "friendly_name": "橱柜灯"})
    await settle(home)
    assert device(loaded_entry, "light.kitchen").name == "橱柜灯"


async def test_entity_area_change_moves_it(loaded_entry, home):
    bedroom = ar.async_get(home).async_get_area_by_name("卧室")
    er.async_get(home).async_update_entity("light.kitchen", area_id=bedroom.id)
    await settle(home)
    assert device(loaded_entry, "light.kitchen").room == "卧室"


async def test_device_area_and_name_changes_reach_its_entities(loaded_entry, home):
    devices = dr.async_get(home)
    ac = devices.async_get(er.async_get(home).async_get("climate.living_ac").device_id)
    bedroom = ar.async_get(home).async_get_area_by_name("卧室")
    devices.async_update_device(ac.id, area_id=bedroom.id, name_by_user="格力空调")
    await settle(home)
    climate = device(loaded_entry, "climate.living_ac")
    assert climate.room == "卧室"
    assert "格力空调" in climate.aliases


async def test_area_and_floor_aliases_are_picked_up(loaded_entry, home):
    areas, floors = ar.async_get(home), fr.async_get(home)
    kitchen = areas.async_get_area_by_name("厨房")
    areas.async_update(kitchen.id, aliases={"灶间"})
    floor = floors.async_get_floor_by_name("二楼")
    floors.async_update(floor.floor_id, aliases={"楼上"})
    await settle(home)
    rooms = {room.name: room for room in current(loaded_entry).rooms}
    assert rooms["厨房"].aliases == ("灶间",)
    assert "楼上" in rooms["卧室"].floor_names
    [result] = (await call_retrieve(home, "楼上的灯都打开"))["results"]
    assert {c["entity_id"] for c in result["candidates"]} | {
        d for c in result["candidates"] for d in c.get("device_ids", [])
    } >= {"light.bedside"}


async def test_entities_added_and_removed(loaded_entry, home):
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    add_entity(home, HomeEntity("light.study", "书桌灯", "off", LIGHT_ATTRS, area="卧室"), owner)
    await settle(home)
    assert device(loaded_entry, "light.study") is not None
    home.states.async_remove("light.study")
    await settle(home)
    assert device(loaded_entry, "light.study") is None


async def test_exposure_changes_are_picked_up(loaded_entry, home):
    async_expose_entity(home, "conversation", "light.kitchen", False)
    await settle(home)
    assert device(loaded_entry, "light.kitchen") is None
    async_expose_entity(home, "conversation", "light.hidden", True)
    await settle(home)
    assert device(loaded_entry, "light.hidden") is not None


async def test_a_readable_attribute_appearing_reshapes_the_commands(loaded_entry, home):
    home.states.async_set("light.kitchen", "unavailable", {"friendly_name": "厨房灯"})
    await settle(home)
    assert "light.turn_on:brightness_pct" not in {
        c.id for c in device(loaded_entry, "light.kitchen").commands
    }
    home.states.async_set("light.kitchen", "on", {**LIGHT_ATTRS, "friendly_name": "厨房灯"})
    await settle(home)
    assert "light.turn_on:brightness_pct" in {c.id for c in device(loaded_entry, "light.kitchen").commands}


async def test_state_values_and_exposure_defaults_do_not_rebuild(loaded_entry, home):
    manager = loaded_entry.runtime_data.index
    home.states.async_set("light.kitchen", "on", {**LIGHT_ATTRS, "friendly_name": "厨房灯", "brightness": 3})
    home.states.async_set(
        "sensor.living_temperature", "27.1", home.states.get("sensor.living_temperature").attributes
    )
    er.async_get(home).async_update_entity_options("light.kitchen", "cloud.google_assistant", {"x": 1})
    await settle(home)
    assert manager.rebuilds == 0


async def test_a_burst_of_changes_rebuilds_once(loaded_entry, home):
    registry = er.async_get(home)
    for n in range(10):
        registry.async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, f"灯{n}"])
    await settle(home)
    assert loaded_entry.runtime_data.index.rebuilds == 1
    assert "灯9" in device(loaded_entry, "light.kitchen").aliases


async def test_rebuild_runs_off_the_loop_and_requests_meanwhile_use_the_previous_index(
    loaded_entry, home, blocked_build
):
    previous = current(loaded_entry)
    er.async_get(home).async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, "灶台灯"])
    async_fire_time_changed(home, dt_util.utcnow() + timedelta(seconds=REBUILD_COOLDOWN + 1))
    await blocked_build.wait_until_started()
    [result] = (await call_retrieve(home, "打开厨房灯"))["results"]
    assert result["candidates"][0]["entity_id"] == "light.kitchen"
    assert current(loaded_entry) is previous
    blocked_build.release.set()
    await home.async_block_till_done()
    assert current(loaded_entry) is not previous
    assert blocked_build.threads
    assert blocked_build.threads[0] != threading.get_ident()


async def test_unload_stops_listening(loaded_entry, home):
    manager = loaded_entry.runtime_data.index
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    er.async_get(home).async_update_entity("light.kitchen", aliases=["别名"])
    await settle(home)
    assert manager.rebuilds == 0


async def test_changes_of_unexposed_entities_do_not_rebuild(loaded_entry, home):
    home.states.async_set("light.hidden", "on", {"friendly_name": "改名的隐藏灯", "icon": "mdi:lamp"})
    home.states.async_set("input_text.note", "hello", {"friendly_name": "便签"})  # not exposed by default
    await settle(home)
    assert loaded_entry.runtime_data.index.rebuilds == 0


async def test_values_coming_and_going_that_commands_do_not_read_do_not_rebuild(loaded_entry, home):
    attributes = dict(home.states.get("light.kitchen").attributes)
    for playing in (True, False, True):
        extra = {"entity_picture": "/x.png", "icon": "mdi:lamp"} if playing else {}
        home.states.async_set("light.kitchen", "on", {**attributes, **extra, "brightness": 30})
        await settle(home)
    assert loaded_entry.runtime_data.index.rebuilds == 0


async def test_a_change_during_a_rebuild_is_picked_up_by_another(loaded_entry, home, blocked_build):
    registry = er.async_get(home)
    registry.async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, "甲"])
    async_fire_time_changed(home, dt_util.utcnow() + timedelta(seconds=REBUILD_COOLDOWN + 1))
    await blocked_build.wait_until_started()
    registry.async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, "乙"])  # after the snapshot
    # Its cooldown ends while the first build still runs (a slow build in a large home).
    async_fire_time_changed(home, dt_util.utcnow() + timedelta(seconds=2 * REBUILD_COOLDOWN + 2))
    await asyncio.sleep(0)
    blocked_build.release.set()  # later builds pass straight through
    await home.async_block_till_done()
    await settle(home)
    assert "乙" in device(loaded_entry, "light.kitchen").aliases


async def test_a_change_during_the_first_build_is_built_right_after(home, config_entry, blocked_build):
    setup = home.async_create_task(home.config_entries.async_setup(config_entry.entry_id))
    await blocked_build.wait_until_started()
    er.async_get(home).async_update_entity("light.kitchen", aliases=[er.COMPUTED_NAME, "灶台灯"])
    blocked_build.release.set()
    assert await setup
    await settle(home)
    assert "灶台灯" in device(config_entry, "light.kitchen").aliases
