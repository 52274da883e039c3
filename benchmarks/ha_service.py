"""The integration inside a Home Assistant test instance: index build, service latency, loop blocking.

Generated homes of 300 and 1,000 exposed entities (Chinese names, areas with aliases on
floors, several domains); the service is called through ``hass.services`` with the offline
parser and with a local OpenAI-compatible server that answers at once.
"""

from __future__ import annotations

import asyncio
import random
import statistics
from contextlib import asynccontextmanager
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.test_utils import TestServer
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.context_retrieval.const import DOMAIN, SERVICE_RETRIEVE

from .hass_instance import test_home_assistant
from .quality import Target

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from homeassistant.core import HomeAssistant


SIZES = (300, 1000)
CALLS = 200
P50_TARGETS = {300: 5.0, 1000: 10.0}
"""Service p50 in ms without LLM time (the issue's targets)."""
MAX_LOOP_BLOCK_MS = 50.0
ROOMS = ("客厅", "主卧", "次卧", "儿童房", "书房", "厨房", "餐厅", "卫生间", "阳台", "玄关", "衣帽间", "茶室")
FLOORS = ("一楼", "二楼", "三楼", "四楼", "五楼", "六楼", "七楼", "八楼", "九楼", "十楼")
KINDS = (
    # domain, name stem, device class, attributes, weight
    ("light", "灯", None, {"supported_color_modes": ["brightness"], "brightness": 100}, 8),
    ("light", "灯带", None, {"supported_color_modes": ["color_temp"], "min_color_temp_kelvin": 2700}, 3),
    ("switch", "开关", None, {}, 3),
    ("switch", "插座", "outlet", {}, 2),
    ("cover", "窗帘", "curtain", {"current_position": 0, "supported_features": 15}, 3),
    (
        "climate",
        "空调",
        None,
        {"hvac_modes": ["off", "cool", "heat"], "min_temp": 16, "max_temp": 30, "supported_features": 385},
        2,
    ),
    ("fan", "风扇", None, {"percentage": 30, "supported_features": 1}, 1),
    ("media_player", "音箱", "speaker", {"volume_level": 0.2, "supported_features": 1036}, 1),
    ("sensor", "温度", "temperature", {"unit_of_measurement": "°C"}, 3),
    ("binary_sensor", "门磁", "door", {}, 1),
    ("lock", "门锁", None, {}, 1),
)
UTTERANCES = ("打开{name}", "关掉{name}", "把{room}的{stem}关了", "{room}温度多少", "除了{room}都关掉")
WIRE = '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"one"}]'


@dataclass(frozen=True, slots=True)
class Figures:
    """What one home measured."""

    entities: int
    areas: int
    build_s: float
    offline_ms: list[float]
    llm_ms: list[float]
    loop_block_ms: float


def make_home(hass: HomeAssistant, size: int) -> list[tuple[str, str, str, str, str | None]]:
    """Create floors, areas and ``size`` exposed entities; return (id, name, room, stem, class) per entity."""
    owner = MockConfigEntry(domain="bench")
    owner.add_to_hass(hass)
    rng = random.Random(size)
    floors, areas, entities = fr.async_get(hass), ar.async_get(hass), er.async_get(hass)
    area_names = []
    for number in range(max(8, size // 10)):
        floor = FLOORS[number // len(ROOMS) % len(FLOORS)]
        name = f"{floor}{ROOMS[number % len(ROOMS)]}"
        if floors.async_get_floor_by_name(floor) is None:
            floors.async_create(floor, aliases={f"{number // len(ROOMS) + 1}F"})
        floor_id = floors.async_get_floor_by_name(floor).floor_id
        areas.async_create(name, aliases={f"{ROOMS[number % len(ROOMS)]}{number}"}, floor_id=floor_id)
        area_names.append(name)
    weights = [kind[-1] for kind in KINDS]
    made = []
    for number in range(size):
        domain, stem, device_class, attributes, _ = rng.choices(KINDS, weights)[0]
        room = area_names[number % len(area_names)]
        name = f"{room}{stem}{number}"
        entry = entities.async_get_or_create(
            domain, "bench", f"{domain}-{number}", original_name=name, config_entry=owner
        )
        entities.async_update_entity(entry.entity_id, area_id=areas.async_get_area_by_name(room).id)
        state = "on" if domain in {"light", "switch", "fan"} else "off"
        hass.states.async_set(
            entry.entity_id,
            state,
            {"friendly_name": name, **({"device_class": device_class} if device_class else {}), **attributes},
        )
        async_expose_entity(hass, "conversation", entry.entity_id, should_expose=True)
        made.append((entry.entity_id, name, room, stem, device_class))
    return made


@asynccontextmanager
async def chat_server(answer: Callable[[str], str]) -> AsyncIterator[str]:
    """Serve /v1/chat/completions answering ``answer(utterance)`` at once; yield its base URL."""

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        message = {"role": "assistant", "content": answer(body["messages"][-1]["content"])}
        return web.json_response({"choices": [{"index": 0, "message": message}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("/v1"))
    finally:
        await server.close()


async def _time_calls(hass: HomeAssistant, texts: list[str]) -> list[float]:
    """Return the wall time of each service call in ms."""
    timings = []
    for number, text in enumerate(texts):
        started = perf_counter()
        await hass.services.async_call(
            DOMAIN,
            SERVICE_RETRIEVE,
            {"text": text, "conversation_id": f"bench-{number % 7}"},
            blocking=True,
            return_response=True,
        )
        timings.append((perf_counter() - started) * 1000)
    return timings


async def _longest_block_during(hass: HomeAssistant, work: Callable[[], Awaitable[Any]]) -> float:
    """Return the longest the event loop was kept from running (ms) while ``work`` runs.

    The ticker starts before the work does, so the part of a rebuild that runs on the
    loop (the snapshot of the home) is measured too.
    """
    longest = 0.0
    tick = 0.001
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal longest
        while not done.is_set():
            started = perf_counter()
            await asyncio.sleep(tick)
            longest = max(longest, (perf_counter() - started - tick) * 1000)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(tick)
    await work()
    done.set()
    await ticking
    await hass.async_block_till_done()
    return longest


async def _measure(size: int) -> Figures:
    """Build one generated home in a fresh Home Assistant and measure it."""
    async with test_home_assistant() as hass:
        made = make_home(hass, size)
        await hass.async_block_till_done()
        rng = random.Random(7)
        texts = []
        for _ in range(CALLS):
            _, name, room, stem, _ = rng.choice(made)
            texts.append(rng.choice(UTTERANCES).format(name=name, room=room, stem=stem))

        entry = MockConfigEntry(domain=DOMAIN)
        entry.add_to_hass(hass)
        await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        manager = entry.runtime_data.index
        builds = []
        for _ in range(3):
            started = perf_counter()
            await manager.async_rebuild()  # the snapshot on the loop and the index in the executor
            builds.append(perf_counter() - started)
        block = await _longest_block_during(hass, manager.async_rebuild)
        offline = await _time_calls(hass, texts)

        async with chat_server(lambda _: WIRE) as base_url:
            hass.config_entries.async_update_entry(
                entry, options={"llm_base_url": base_url, "llm_model": "bench", "llm_api_key": "k"}
            )
            await hass.config_entries.async_reload(entry.entry_id)
            with_llm = await _time_calls(hass, texts)
        areas = len(ar.async_get(hass).async_list_areas())
        await hass.config_entries.async_unload(entry.entry_id)
        await hass.async_stop(force=True)
    return Figures(size, areas, statistics.median(builds), offline, with_llm, block)


def _p95(values: list[float]) -> float:
    """Return the 95th percentile."""
    return statistics.quantiles(values, n=20)[-1]


def ha_service_section() -> tuple[str, list[tuple[str, str, float, Target]]]:
    """Return the Markdown table of the Home Assistant benchmark and its target checks."""
    figures = [asyncio.run(_measure(size)) for size in SIZES]
    lines = [
        "## Home Assistant: the retrieve service (test instance, generated homes)",
        "",
        f"{CALLS} service calls per home; latency is the whole `hass.services.async_call`; "
        "the LLM row parses through a local OpenAI-compatible server answering at once.",
        "",
        "| entities | areas | index build (median of 3) | p50 offline | p95 offline "
        "| p50 with LLM | p95 with LLM | longest loop block in a rebuild |",
        "|---|---|---|---|---|---|---|---|",
    ]
    checks: list[tuple[str, str, float, Target]] = []
    for figure in figures:
        p50 = statistics.median(figure.offline_ms)
        lines.append(
            f"| {figure.entities:,} | {figure.areas} | {figure.build_s:.3f} s | {p50:.2f} ms "
            f"| {_p95(figure.offline_ms):.2f} ms | {statistics.median(figure.llm_ms):.2f} ms "
            f"| {_p95(figure.llm_ms):.2f} ms | {figure.loop_block_ms:.1f} ms |"
        )
        checks.append(
            (
                "ha",
                f"service p50 ms, {figure.entities} entities",
                p50,
                Target(P50_TARGETS[figure.entities], at_most=True),
            )
        )
        checks.append(
            (
                "ha",
                f"loop block ms, {figure.entities} entities",
                figure.loop_block_ms,
                Target(MAX_LOOP_BLOCK_MS, at_most=True),
            )
        )
    return "\n".join(lines), checks
