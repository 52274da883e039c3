"""Soak test of the integration in a real Home Assistant process: ``python -m benchmarks.soak [--quick]``.

Home Assistant runs as its own process on the demo's configuration and home (started, onboarded
and laid out as the compatibility check does, ``compat.hass``), Context Retrieval is added through
its config flow, and everything is driven from outside, over REST and the websocket API:

- bursts: concurrent ``context_retrieval.retrieve`` calls over REST and over one websocket;
- churn: entity and area renames, an area created and deleted, while calls run; how long each
  change takes to show in answers;
- bad bodies over REST and websocket (a string, a number, a list, invisible, huge or wrong-typed
  fields): the status and message of each;
- an options save and a reload while calls run and conversations refer back with 它;
- memory: the process's resident memory along 20,000 calls from new conversation ids;
- faults: the entry parses with a local OpenAI-compatible server (``tests.openai_server``) that
  answers, answers lone surrogates, prose, malformed JSON or 500, or hangs;
- the log: every line Home Assistant logged from or about the integration, phase by phase.

It reports figures and what it saw; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import aiohttp

from compat.hass import ENTRIES_PATH, FLOW_PATH, OPTIONS_FLOW_PATH, HomeAssistantUnderTest
from custom_components.context_retrieval.const import (
    CONF_EMBEDDING_BACKEND,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_TOP_K,
    DEFAULT_EMBEDDING_BACKEND,
    DEFAULT_TOP_K,
    DOMAIN,
    LLM_OUTAGE_PAUSE,
    LLM_TIMEOUT,
    MAX_CONVERSATION_ID_LENGTH,
    MAX_TEXT_LENGTH,
    SERVICE_REFRESH,
    SERVICE_RETRIEVE,
)
from demo.api import DemoError, async_authenticated_socket
from demo.ha import DEFAULT_UTTERANCES, async_confirm_http_settings
from demo.layout import LAYOUT_FILE, load_layout
from demo.server import BUNDLED_CONFIG, INTEGRATION
from tests.openai_server import FakeOpenAI, Reply

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence
    from types import TracebackType

SERVICE_PATH = f"/api/services/{DOMAIN}/{SERVICE_RETRIEVE}?return_response"
REFRESH_PATH = f"/api/services/{DOMAIN}/{SERVICE_REFRESH}"
DIAGNOSTICS_PATH = "/api/diagnostics/config_entry/{entry_id}"
CALL_TIMEOUT = 60.0
"""Seconds one call may take before it counts as unanswered (a parse gives up after 10 s)."""
VISIBLE_TIMEOUT = 15.0
"""Seconds a registry change may take to show in answers before it counts as not seen."""
PROBE_INTERVAL = 0.05
LOAD_WORKERS = 4
"""Callers kept busy in the background while the registries change or the entry reloads."""
WINDOW = 100
"""Calls in flight at once on the websocket when many are sent in a row."""
FOLLOW_UP_SPREAD = 2.0
"""Seconds over which the follow-ups (把它关掉) are sent, from the options save on."""
RELOAD_BURST = 100
"""Calls sent at once over REST with the entry's second reload."""
MEMORY_SAMPLES = 4
"""Times the process's memory is read along the memory phase."""
AFTER_CALLS = 5
"""Calls sent one at a time right after a fault's burst (the LLM is paused if it failed)."""
HANG_SECONDS = LLM_TIMEOUT + 2
QUOTE_LIMIT = 160
"""Characters of a log line or message quoted in the report."""
SERVICE_ERRORS = (
    "invalid_text",
    "invalid_top_k",
    "invalid_conversation_id",
    "unknown_field",
    "no_loaded_entry",
)
"""The translation keys of the services' validation errors."""
OUR_LOGGER = "custom_components.context_retrieval"
LOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ (?P<level>[A-Z]+) \((?P<thread>[^)]*)\) "
    r"\[(?P<logger>[^\]]+)\] (?P<message>.*)$"
)
CONNECTION = re.compile(r"^\[\d+\] ")
"""The connection number Home Assistant's websocket API puts before its messages."""
PROBLEM_LEVELS = frozenset({"WARNING", "ERROR", "CRITICAL"})
RESULT_FIELDS = (("command", dict), ("candidates", list), ("meta", dict), ("hint", str | None))
"""Each result's fields in a retrieve answer, and their types."""

UTTERANCES = (
    *DEFAULT_UTTERANCES,
    "关掉厨房的排气扇",
    "把卧室空调调到26度",
    "阳台的晾衣架升起来",
    "书房温度多少",
    "打开扫地机器人",
    "除了客厅都关灯",
)
"""What the calls ask, in turn: the demo's conversation and a few more."""
ROOMS = ("客厅", "餐厅", "厨房", "玄关", "车库", "卧室", "儿童房", "书房", "卫生间", "阳台")
DISTINCT = tuple(
    f"{verb}{room}的{thing}"
    for verb in ("打开", "关掉")
    for room in ROOMS
    for thing in ("灯", "窗帘", "风扇")
)
"""Different utterances, one LLM request each while it is asked."""
SAME = "客厅的灯都打开"
REFERRED = (
    ("打开油烟机", "switch.kitchen_range_hood"),
    ("打开咖啡机", "switch.kitchen_coffee_maker"),
    ("打开车库灯", "light.garage_light"),
    ("打开床头灯", "light.bedroom_bedside"),
    ("打开台灯", "light.study_desk_lamp"),
    ("打开镜前灯", "light.bathroom_mirror"),
    ("打开热水器", "switch.bathroom_water_heater"),
    ("打开电热毯", "switch.bedroom_electric_blanket"),
)
"""A first turn naming one device, and the device; the follow-up 把它关掉 must find it again."""
FOLLOW_UP = "把它关掉"
LAMP, LAMP_NAME = "light.living_room_floor_lamp", "老伙计"
CHANDELIER, DINING_ROOM = "light.dining_room_chandelier", "餐厅"
CABINET, CABINET_NAME, KITCHEN = "light.kitchen_cabinet", "橱柜灯", "厨房"
LAMP_NAMES = ("琥珀灯", "月光灯", "星空灯")
HALL_NAMES = ("宴会厅", "聚餐间", "用餐区")
STORE_NAMES = ("储藏间", "工作间", "杂物间")
"""The names the churn gives, one per round."""

GOOD_ANSWER = '[{"a":"打开","s":"客厅","n":"灯","t":"Light","q":"all"}]'
ESCAPED_SURROGATES = r'[{"a":"\u6253\u5f00\ud800","s":"\udfff","n":"\u706f","t":"Light","q":"one"}]'
"""The issue's answer: JSON escapes in the model's text that decode to lone surrogates."""
RAW_SURROGATES = '[{"a":"打开\ud800","s":"客厅\udfff","n":"灯","t":"Light","q":"all"}]'
"""Lone surrogates in the message itself (the server's JSON escapes them)."""


@dataclass(frozen=True, slots=True)
class Sizes:
    """How much the soak does."""

    sequential: int
    burst: int
    churn_rounds: int
    conversations: int
    memory_ids: int
    fault_burst: int
    recovery: bool
    """Wait out the LLM's pause after the last fault, to see it parse again."""


FULL = Sizes(
    sequential=200,
    burst=1000,
    churn_rounds=3,
    conversations=300,
    memory_ids=20_000,
    fault_burst=50,
    recovery=True,
)
QUICK = Sizes(
    sequential=50,
    burst=200,
    churn_rounds=1,
    conversations=80,
    memory_ids=2_000,
    fault_burst=20,
    recovery=False,
)


@dataclass(frozen=True, slots=True)
class Fault:
    """What the parsing LLM does in one step of the fault phase."""

    name: str
    reply: Reply


FAULTS = (
    Fault("answers", Reply(content=GOOD_ANSWER)),
    Fault(
        "answers lone surrogates (JSON escapes in its text, the issue's)", Reply(content=ESCAPED_SURROGATES)
    ),
    Fault("answers lone surrogates (in the response's JSON)", Reply(content=RAW_SURROGATES)),
    Fault("answers prose, not the command format", Reply(content="好的，我这就帮您打开客厅的灯。")),
    Fault("hangs (longer than the 10 s a parse may take)", Reply(content=GOOD_ANSWER, delay=HANG_SECONDS)),
    Fault("answers 500", Reply(status=500, body='{"error": {"message": "internal error"}}')),
    Fault("answers malformed JSON", Reply(body='{"choices": [{"message": {"content": "[{\\"a\\"')),
)

HUGE = "huge text (1,000,000 characters, 3 MB)"
BAD_BODIES: tuple[tuple[str, str], ...] = (
    ("a string", json.dumps("打开客厅的灯", ensure_ascii=False)),
    ("a number", "42"),
    ("a list", '["打开客厅的灯"]'),
    ("null", "null"),
    ("true", "true"),
    ("an empty object", "{}"),
    ("empty text", '{"text": ""}'),
    ("zero-width spaces", '{"text": "\\u200b\\u200b\\u200b"}'),
    ("ideographic spaces (U+3000)", '{"text": "\\u3000\\u3000"}'),
    ("ZWJ, BOM, U+3000, tab, newline", '{"text": "\\u200d\\ufeff\\u3000\\t\\n"}'),
    (f"text of {MAX_TEXT_LENGTH + 1} characters", json.dumps({"text": "灯" * (MAX_TEXT_LENGTH + 1)})),
    (HUGE, json.dumps({"text": "灯" * 1_000_000}, ensure_ascii=False)),
    ("text a number", '{"text": 42}'),
    ("text a list", '{"text": ["打开客厅的灯"]}'),
    ("text an object", '{"text": {"a": 1}}'),
    ("text null", '{"text": null}'),
    ("text true", '{"text": true}'),
    ("top_k 0", '{"text": "打开客厅的灯", "top_k": 0}'),
    ("top_k 51", '{"text": "打开客厅的灯", "top_k": 51}'),
    ("top_k 2.5", '{"text": "打开客厅的灯", "top_k": 2.5}'),
    ("top_k a word", '{"text": "打开客厅的灯", "top_k": "five"}'),
    ("top_k true", '{"text": "打开客厅的灯", "top_k": true}'),
    ("top_k a list", '{"text": "打开客厅的灯", "top_k": [3]}'),
    ("conversation_id a list", '{"text": "打开客厅的灯", "conversation_id": ["a"]}'),
    ("conversation_id empty", '{"text": "打开客厅的灯", "conversation_id": " "}'),
    (
        f"conversation_id of {MAX_CONVERSATION_ID_LENGTH + 1} characters",
        json.dumps({"text": "打开客厅的灯", "conversation_id": "c" * (MAX_CONVERSATION_ID_LENGTH + 1)}),
    ),
    ("an unknown field", '{"text": "打开客厅的灯", "entity_id": "light.living_room_ceiling"}'),
    ("a lone surrogate in the text", '{"text": "打开客厅的灯\\ud800"}'),
    ("not JSON", '{"text": '),
)
"""Bodies of ``POST /api/services/context_retrieval/retrieve?return_response``."""
BAD_REFRESH_BODIES: tuple[tuple[str, str], ...] = (
    ("refresh: a number", "42"),
    ("refresh: an unknown field", '{"text": "打开客厅的灯"}'),
)
OVER_SOCKET = frozenset(
    {
        "zero-width spaces",
        "ideographic spaces (U+3000)",
        HUGE,
        "text a number",
        "top_k 0",
        "conversation_id a list",
        "an unknown field",
        "a lone surrogate in the text",
    }
)
"""Bodies also sent as a websocket ``call_service``'s ``service_data``, each on a connection of its own."""


@dataclass(frozen=True, slots=True)
class Call:
    """One service call as its caller saw it."""

    status: str
    """The HTTP status (``200``), ``ok`` or the websocket error code, or ``timeout``/``disconnected``."""
    started: float
    ms: float
    response: Any = None
    """The service's answer, when it answered."""
    message: str = ""
    """The error's message, when it did not."""

    @property
    def answered(self) -> bool:
        """Return True when the service answered."""
        return self.status in {"200", "ok"}

    def meta(self) -> dict[str, Any]:
        """Return the ``meta`` of the answer's first result (empty when there is none)."""
        results = self.response.get("results") if isinstance(self.response, dict) else None
        return results[0].get("meta", {}) if results else {}

    def top(self) -> dict[str, Any] | None:
        """Return the first result's top candidate."""
        results = self.response.get("results") if isinstance(self.response, dict) else None
        candidates = results[0].get("candidates") if results else None
        return candidates[0] if candidates else None

    def candidate(self, entity_id: str) -> dict[str, Any] | None:
        """Return the candidate for ``entity_id`` in any result: the device, or a group holding it."""
        results = self.response.get("results", []) if isinstance(self.response, dict) else []
        return next(
            (
                candidate
                for result in results
                for candidate in result.get("candidates") or ()
                if entity_id == candidate.get("entity_id") or entity_id in candidate.get("device_ids", ())
            ),
            None,
        )


def malformed(response: Any) -> str | None:
    """Return what is wrong with a retrieve answer, or None when it has the documented shape."""
    if not isinstance(response, dict) or not isinstance(response.get("yaml"), str):
        return "no yaml"
    results = response.get("results")
    if not isinstance(results, list):
        return "no results list"
    return next((problem for result in results if (problem := result_problem(result))), None)


def result_problem(result: Any) -> str | None:
    """Return what is wrong with one result of a retrieve answer, or None."""
    if not isinstance(result, dict):
        return "a result that is no object"
    if wrong := next((name for name, kind in RESULT_FIELDS if not isinstance(result.get(name), kind)), None):
        return f"a result whose {wrong} is missing or of another type"
    if "parse" not in result["meta"]:
        return "a result without meta.parse"
    if not all(
        isinstance(candidate.get("entity_id"), str) and isinstance(candidate.get("score"), int | float)
        for candidate in result["candidates"]
    ):
        return "a candidate without entity_id or score"
    return None


@dataclass(frozen=True, slots=True)
class Change:
    """A registry change, and the answer that shows it: a field of the candidate for an entity."""

    kind: str
    command: str
    fields: dict[str, Any]
    probe: str
    """The utterance asked until the change shows."""
    entity_id: str
    field: str
    value: str
    gone: bool = False
    """True: the change shows once the field no longer has ``value`` (a deleted area)."""

    def seen(self, candidate: dict[str, Any]) -> bool:
        """Return True when the candidate (of ``entity_id``, or a group holding it) shows the change."""
        return (candidate.get(self.field) == self.value) != self.gone


def call_body(prefix: str, number: int) -> dict[str, Any]:
    """Return the body of the call ``number`` of a series: an utterance in turn, a conversation of its own."""
    return {"text": UTTERANCES[number % len(UTTERANCES)], "conversation_id": f"{prefix}-{number}"}


def referred(number: int) -> tuple[str, str]:
    """Return the first turn and the device of the conversation ``number``."""
    return REFERRED[number % len(REFERRED)]


def churn_round(number: int, areas: dict[str, str]) -> list[Change]:
    """Return one round of changes; ``areas`` maps area names to ids (the round's new area included)."""
    lamp, hall = LAMP_NAMES[number % len(LAMP_NAMES)], HALL_NAMES[number % len(HALL_NAMES)]
    store = STORE_NAMES[number % len(STORE_NAMES)]
    entity, area = "config/entity_registry/update", "config/area_registry/update"
    dining = areas[DINING_ROOM]
    return [
        Change(
            "entity renamed", entity, {"entity_id": LAMP, "name": lamp}, f"打开{lamp}", LAMP, "name", lamp
        ),
        Change(
            "area renamed",
            area,
            {"area_id": dining, "name": hall},
            f"打开{hall}的灯",
            CHANDELIER,
            "room",
            hall,
        ),
        Change(
            "entity moved into a new area",
            entity,
            {"entity_id": CABINET, "area_id": areas[store]},
            f"打开{store}的灯",
            CABINET,
            "room",
            store,
        ),
        Change(
            "area deleted (its entity left in no area)",
            "config/area_registry/delete",
            {"area_id": areas.pop(store)},
            f"打开{CABINET_NAME}",
            CABINET,
            "room",
            store,
            gone=True,
        ),
        Change(
            "entity moved back",
            entity,
            {"entity_id": CABINET, "area_id": areas[KITCHEN]},
            f"打开{CABINET_NAME}",
            CABINET,
            "room",
            KITCHEN,
        ),
        Change(
            "area renamed back",
            area,
            {"area_id": dining, "name": DINING_ROOM},
            f"打开{DINING_ROOM}的灯",
            CHANDELIER,
            "room",
            DINING_ROOM,
        ),
        Change(
            "entity name removed (its own again)",
            entity,
            {"entity_id": LAMP, "name": None},
            f"打开{LAMP_NAME}",
            LAMP,
            "name",
            LAMP_NAME,
        ),
    ]


@dataclass(frozen=True, slots=True)
class Figures:
    """Counts and latencies of a batch of calls."""

    calls: int
    statuses: Counter[str]
    well_formed: int
    p50: float
    p95: float
    slowest: float

    @classmethod
    def of(cls, calls: Sequence[Call]) -> Figures:
        """Return the figures of ``calls``."""
        times = sorted(call.ms for call in calls) or [0.0]
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
        return cls(
            len(calls),
            Counter(call.status for call in calls),
            sum(call.answered and malformed(call.response) is None for call in calls),
            statistics.median(times),
            p95,
            times[-1],
        )

    def statuses_text(self) -> str:
        """Return each status and how many calls got it (``200 ×1,000``)."""
        return ", ".join(f"{status} ×{count:,}" for status, count in self.statuses.most_common())


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Return ``text`` on one line, shortened, safe in a Markdown table."""
    line = " ".join(text.split()).replace("|", "\\|")
    return line if len(line) <= limit else line[: limit - 1] + "…"


class PipelinedSocket:
    """One authenticated websocket connection carrying many commands at once.

    ``demo.api.WebSocketApi`` waits for each answer before sending the next command; a
    burst needs them all in flight, answered in any order.
    """

    def __init__(self, session: aiohttp.ClientSession, url: str, access_token: str) -> None:
        """Connect to ``url`` with ``access_token`` when entered."""
        self._session = session
        self._url = url
        self._access_token = access_token
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._listeners: dict[int, Callable[[Any], None]] = {}
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        """Connect, authenticate and start reading."""
        self._socket = await async_authenticated_socket(
            self._session, self._url, self._access_token, within=CALL_TIMEOUT, max_message=0
        )
        self._reader = asyncio.create_task(self._async_read())
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the connection."""
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            await self._reader

    async def _async_read(self) -> None:
        """Hand each answer to its command and each event to its listener, until the connection ends."""
        assert self._socket is not None  # noqa: S101 - set before reading starts
        async for message in self._socket:
            if message.type is not aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            for item in data if isinstance(data, list) else [data]:
                if item.get("type") == "event" and (listener := self._listeners.get(item.get("id"))):
                    listener(item.get("event"))
                elif (future := self._pending.pop(item.get("id"), None)) is not None and not future.done():
                    future.set_result(item)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the websocket closed"))
        self._pending.clear()

    async def async_command(
        self,
        message: dict[str, Any],
        *,
        raw: str | None = None,
        listener: Callable[[Any], None] | None = None,
    ) -> dict[str, Any]:
        """Send one command and return its result.

        ``raw`` replaces the message: the command's JSON text after ``{"id": N,``. A subscription's
        events go to ``listener``.
        """
        if self._socket is None:
            raise DemoError("websocket used outside its async with block")
        message_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        if listener is not None:
            self._listeners[message_id] = listener
        if raw is None:
            await self._socket.send_json({"id": message_id, **message})
        else:
            await self._socket.send_str(f'{{"id": {message_id}, {raw}')
        async with asyncio.timeout(CALL_TIMEOUT):
            return await future

    async def async_retrieve(self, data: dict[str, Any] | str) -> Call:
        """Call the retrieve service for its response with ``data`` (an object, or raw JSON text)."""
        fields = {"domain": DOMAIN, "service": SERVICE_RETRIEVE, "return_response": True}
        started = time.monotonic()
        try:
            if isinstance(data, dict):
                answer = await self.async_command({"type": "call_service", **fields, "service_data": data})
            else:
                raw = json.dumps({"type": "call_service", **fields})[1:-1]
                answer = await self.async_command({}, raw=f'{raw}, "service_data": {data}}}')
        except TimeoutError:
            return Call("timeout", started, (time.monotonic() - started) * 1000)
        except (ConnectionError, aiohttp.ClientError) as err:
            return Call("disconnected", started, (time.monotonic() - started) * 1000, message=str(err))
        ms = (time.monotonic() - started) * 1000
        if answer.get("success"):
            return Call("ok", started, ms, (answer.get("result") or {}).get("response"))
        error = answer.get("error") or {}
        return Call(str(error.get("code")), started, ms, message=str(error.get("message")))


class Driver:
    """Service calls to one Home Assistant over REST, and websocket connections to it."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, access_token: str) -> None:
        """Call the Home Assistant at ``base_url`` with ``access_token``."""
        self.session = session
        self.base_url = base_url
        self.access_token = access_token

    async def async_rest(self, body: dict[str, Any] | str, path: str = SERVICE_PATH) -> Call:
        """POST a body (an object, or raw JSON text) to the service; return what came back."""
        data = json.dumps(body, ensure_ascii=False) if isinstance(body, dict) else body
        headers = {"Authorization": f"Bearer {self.access_token}", "Content-Type": "application/json"}
        started = time.monotonic()
        try:
            async with (
                asyncio.timeout(CALL_TIMEOUT),
                self.session.post(f"{self.base_url}{path}", data=data.encode(), headers=headers) as response,
            ):
                text = await response.text()
        except TimeoutError:
            return Call("timeout", started, (time.monotonic() - started) * 1000)
        except aiohttp.ClientError as err:
            return Call("disconnected", started, (time.monotonic() - started) * 1000, message=str(err))
        ms = (time.monotonic() - started) * 1000
        try:
            answer = json.loads(text)
        except ValueError:
            return Call(str(response.status), started, ms, message=text)
        if response.status == 200 and isinstance(answer, dict):
            return Call("200", started, ms, answer.get("service_response"))
        message = answer.get("message", text) if isinstance(answer, dict) else text
        return Call(str(response.status), started, ms, message=str(message))

    def socket(self) -> PipelinedSocket:
        """Return a new websocket connection (use it with ``async with``)."""
        return PipelinedSocket(self.session, f"{self.base_url}/api/websocket", self.access_token)


async def async_windowed(jobs: Iterable[Awaitable[Call]], window: int = WINDOW) -> list[Call]:
    """Await ``jobs`` with at most ``window`` of them in flight; return their calls in order."""
    limit = asyncio.Semaphore(window)

    async def run(job: Awaitable[Call]) -> Call:
        async with limit:
            return await job

    return list(await asyncio.gather(*(run(job) for job in jobs)))


class Load:
    """A few callers kept busy over REST in the background until the block ends."""

    def __init__(self, driver: Driver, name: str, workers: int = LOAD_WORKERS) -> None:
        """Prepare ``workers`` callers, each in a conversation of its own named after ``name``."""
        self.driver = driver
        self.name = name
        self.workers = workers
        self.calls: list[Call] = []
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Self:
        """Start calling."""
        self._tasks = [asyncio.create_task(self._async_work(number)) for number in range(self.workers)]
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop calling once each caller's current call has answered."""
        self._stop.set()
        await asyncio.gather(*self._tasks)

    async def _async_work(self, number: int) -> None:
        """Call the service again and again, through the utterances in turn."""
        for turn in itertools.count(number):
            if self._stop.is_set():
                return
            body = {"text": UTTERANCES[turn % len(UTTERANCES)], "conversation_id": f"{self.name}-{number}"}
            self.calls.append(await self.driver.async_rest(body))


class SoakedHomeAssistant(HomeAssistantUnderTest):
    """The demo home in this environment's Home Assistant, with Context Retrieval added through its flow."""

    async def async_add_context_retrieval(self) -> str:
        """Add the integration (offline, no field filled in); return its entry id once it answers."""
        entry_id = await self._async_run_flow(FLOW_PATH, {"handler": DOMAIN}, {})
        await self._async_wait_until_loaded(entry_id)
        await self._async_wait_until_answering()
        return entry_id

    async def async_save_options(self, entry_id: str, options: dict[str, Any]) -> None:
        """Save the entry's options through its options flow, as the Configure dialog does."""
        await self._async_run_flow(OPTIONS_FLOW_PATH, {"handler": entry_id}, options)

    async def async_reload(self, entry_id: str) -> None:
        """Reload the entry (Home Assistant answers once it is set up again)."""
        await self.api.request("POST", f"{ENTRIES_PATH}/{entry_id}/reload")
        await self._async_wait_until_loaded(entry_id)

    async def async_diagnostics(self, entry_id: str) -> dict[str, Any]:
        """Return the entry's diagnostics (empty when Home Assistant does not serve them)."""
        try:
            answer = await self.api.request("GET", DIAGNOSTICS_PATH.format(entry_id=entry_id))
        except DemoError:
            return {}
        return answer.get("data", {}) if isinstance(answer, dict) else {}

    def rss_mb(self) -> float:
        """Return the Home Assistant process's resident memory in MiB (Linux's ``/proc``)."""
        assert self.process is not None  # noqa: S101 - started before
        status = Path(f"/proc/{self.process.process.pid}/status").read_text(encoding="utf-8")
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kib) / 1024


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line Home Assistant logged, with the lines that followed it (a traceback)."""

    phase: str
    level: str
    logger: str
    message: str
    detail: str

    @property
    def ours(self) -> bool:
        """Return True when the integration logged it."""
        return self.logger.startswith(OUR_LOGGER)

    def about_us(self, messages: dict[str, re.Pattern[str]]) -> bool:
        """Return True when it names the integration (in a traceback too) or quotes one of its errors."""
        return (
            DOMAIN in self.message
            or DOMAIN in self.detail
            or any(pattern.search(self.message) for pattern in messages.values())
        )


def read_log(path: Path, marks: Sequence[tuple[str, int]]) -> list[LogEntry]:
    """Return the log's entries, each with the phase that was running when it was written.

    ``marks`` are the phases in order, each with the log's size when it began.
    """
    data = path.read_bytes()
    entries: list[LogEntry] = []
    offset = 0
    current: dict[str, Any] | None = None
    for raw in data.splitlines(keepends=True):
        line = raw.decode("utf-8", errors="replace").rstrip("\n")
        if found := LOG_LINE.match(line):
            if current is not None:
                entries.append(LogEntry(**current))
            phase = next((name for name, start in reversed(marks) if start <= offset), marks[0][0])
            current = found.groupdict() | {"phase": phase, "detail": ""}
            del current["thread"]
        elif current is not None:
            current["detail"] += line + "\n"
        offset += len(raw)
    if current is not None:
        entries.append(LogEntry(**current))
    return entries


def translated_messages() -> dict[str, re.Pattern[str]]:
    """Return the services' error messages in every language, placeholders as wildcards, by key."""
    patterns: dict[str, re.Pattern[str]] = {}
    for path in sorted((INTEGRATION / "translations").glob("*.json")):
        exceptions = json.loads(path.read_text(encoding="utf-8")).get("exceptions", {})
        for key in SERVICE_ERRORS:
            if message := exceptions.get(key, {}).get("message"):
                parts = re.split(r"\{[^}]*\}", message)
                pattern = ".+".join(map(re.escape, parts))
                patterns[f"{key} ({path.stem})"] = re.compile(f"{pattern}$")
    return patterns


def outcome(call: Call, messages: dict[str, re.Pattern[str]]) -> tuple[str, str]:
    """Return how a bad body was answered: its status, and our translation key or the message."""
    if call.answered:
        return call.status, "answered"
    key = next((key for key, pattern in messages.items() if pattern.search(call.message)), None)
    return call.status, key or repr(quote(call.message, 80))


@dataclass(slots=True)
class Report:
    """The soak's Markdown sections and its summary rows."""

    sections: list[str] = field(default_factory=list)
    summary: list[tuple[str, str]] = field(default_factory=list)

    def add(self, title: str, lines: Iterable[str]) -> None:
        """Add a section."""
        self.sections.append("\n".join([f"### {title}", "", *lines]))

    def note(self, what: str, figure: str) -> None:
        """Add a summary row."""
        self.summary.append((what, figure))


class Soak:
    """One soak run: a Home Assistant, the phases, the stop and the log."""

    def __init__(self, sizes: Sizes, session: aiohttp.ClientSession, work_dir: Path) -> None:
        """Prepare a run of ``sizes`` in ``work_dir``."""
        self.sizes = sizes
        self.session = session
        self.hass = SoakedHomeAssistant(Path(sys.executable), work_dir / "config", session)
        self.report = Report()
        self.marks: list[tuple[str, int]] = [("start-up", 0)]
        self.rss: list[tuple[str, float]] = []
        self.entry_id = ""
        self.driver: Driver | None = None
        self.socket: PipelinedSocket
        """The websocket the phases share (open while they run)."""
        self.entry_states: list[tuple[float, str]] = []
        self.seconds = 0.0

    def mark(self, phase: str) -> None:
        """Note that ``phase`` begins (where the log is at)."""
        assert self.hass.process is not None  # noqa: S101 - started before
        self.marks.append((phase, self.hass.process.log_path.stat().st_size))

    def sample_rss(self, when: str) -> float:
        """Note the process's resident memory now; return it."""
        rss = self.hass.rss_mb()
        self.rss.append((when, rss))
        return rss

    async def async_run(self) -> None:
        """Start Home Assistant, run every phase, stop it and read its log."""
        started = time.monotonic()
        try:
            await self.hass.async_start(BUNDLED_CONFIG, LAYOUT_FILE)
            async with self.hass.api.websocket() as ws:
                await async_confirm_http_settings(ws)  # else reverted (and restarted) after 5 minutes
            self.entry_id = await self.hass.async_add_context_retrieval()
            assert self.hass.api.access_token is not None  # noqa: S101 - onboarded
            self.driver = Driver(self.session, self.hass.api.base_url, self.hass.api.access_token)
            self.sample_rss("index built, first answer given")
            async with self.driver.socket() as self.socket:
                await self.socket.async_command(
                    {"type": "config_entries/subscribe"}, listener=self._entry_changed
                )
                for name, phase in (
                    ("bursts", self.async_bursts),
                    ("churn", self.async_churn),
                    ("bad bodies", self.async_bad_bodies),
                    ("options save", self.async_options_save),
                    ("memory", self.async_memory),
                    ("faults", self.async_faults),
                ):
                    self.mark(name)
                    await phase()
            self.sample_rss("end")
            self.memory_section()
        finally:
            self.mark("stop")
            code = await self.hass.async_stop()
        self.report.note("Home Assistant's exit code", str(code))
        self.log_section()
        self.seconds = time.monotonic() - started

    def _entry_changed(self, event: Any) -> None:
        """Note each state the entry enters (``config_entries/subscribe``)."""
        for change in event or ():
            entry = change.get("entry") or {}
            if entry.get("entry_id") == self.entry_id:
                self.entry_states.append((time.monotonic(), str(entry.get("state"))))

    def reload_windows(self) -> list[tuple[float, float]]:
        """Return when the entry was not loaded: from leaving ``loaded`` to entering it again."""
        windows, since = [], None
        for moment, state in self.entry_states:
            if state != "loaded" and since is None:
                since = moment
            elif state == "loaded" and since is not None:
                windows.append((since, moment))
                since = None
        return windows

    @property
    def rest(self) -> Driver:
        """Return the driver (set once the integration answers)."""
        assert self.driver is not None  # noqa: S101 - set before any phase
        return self.driver

    async def async_bursts(self) -> None:
        """Call one at a time, then all at once over REST, then all at once over one websocket."""
        size = self.sizes.burst
        sequential = [await self.rest.async_rest(call_body("one", n)) for n in range(self.sizes.sequential)]
        rows: list[tuple[str, Sequence[Call], float]] = [("REST, one at a time", sequential, 0.0)]
        for transport, call in (
            ("REST", lambda n: self.rest.async_rest(call_body("rest", n))),
            ("websocket (one connection)", lambda n: self.socket.async_retrieve(call_body("ws", n))),
        ):
            started = time.monotonic()
            calls = await asyncio.gather(*(call(n) for n in range(size)))
            rows.append((f"{transport}, {size:,} at once", calls, time.monotonic() - started))
        lines = [
            "| calls | how | answered | well formed | p50 | p95 | slowest | wall |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for how, calls, wall in rows:
            figures = Figures.of(calls)
            lines.append(
                f"| {figures.calls:,} | {how} | {figures.statuses_text()} | {figures.well_formed:,} "
                f"| {figures.p50:.1f} ms | {figures.p95:.1f} ms | {figures.slowest:.1f} ms "
                f"| {f'{wall:.2f} s' if wall else '-'} |"
            )
            self.report.note(
                f"retrieve: {how}",
                f"{figures.statuses_text()}, {figures.well_formed:,} well formed; "
                f"p50 {figures.p50:.1f} ms, p95 {figures.p95:.1f} ms"
                + (f", {wall:.1f} s in all" if wall else ""),
            )
        self.sample_rss("after the bursts")
        self.report.add(
            "Bursts",
            [
                f"The demo's utterances in turn, each call in a conversation of its own; latency is "
                f"the caller's, from sending to the whole answer ({self.sizes.sequential:,} calls one at a "
                "time first).",
                "",
                *lines,
            ],
        )

    async def _async_visible(self, change: Change) -> float | None:
        """Ask the change's probe until an answer shows it; return the seconds that took (None: never)."""
        started = time.monotonic()
        while time.monotonic() - started < VISIBLE_TIMEOUT:
            call = await self.rest.async_rest({"text": change.probe})
            candidate = call.candidate(change.entity_id) if call.answered else None
            if candidate is not None and change.seen(candidate):
                return time.monotonic() - started
            await asyncio.sleep(PROBE_INTERVAL)
        return None

    async def async_churn(self) -> None:
        """Rename, move and delete in the registries while calls run; time each change into answers."""
        before = (await self.hass.async_diagnostics(self.entry_id)).get("index", {}).get("rebuilds")
        changes: list[tuple[str, float | None]] = []
        async with self.hass.api.websocket() as ws, Load(self.rest, "churn") as load:
            areas = {area["name"]: area["area_id"] for area in await ws.call("config/area_registry/list")}
            for number in range(self.sizes.churn_rounds):
                store = STORE_NAMES[number % len(STORE_NAMES)]
                areas[store] = (await ws.call("config/area_registry/create", name=store))["area_id"]
                for change in churn_round(number, areas):
                    await ws.call(change.command, **change.fields)
                    changes.append((change.kind, await self._async_visible(change)))
        after = (await self.hass.async_diagnostics(self.entry_id)).get("index", {}).get("rebuilds")
        seen = [seconds for _, seconds in changes if seconds is not None]
        figures = Figures.of(load.calls)
        lines = ["| change | made | seen in answers | median | slowest |", "|---|---|---|---|---|"]
        for kind in dict.fromkeys(kind for kind, _ in changes):
            times = [seconds for name, seconds in changes if name == kind]
            found = [seconds for seconds in times if seconds is not None]
            lines.append(
                f"| {kind} | {len(times)} | {len(found)} "
                f"| {statistics.median(found) if found else float('nan'):.2f} s "
                f"| {max(found) if found else float('nan'):.2f} s |"
            )
        rebuilds = f"; the index was rebuilt {after - before} times" if before is not None and after else ""
        self.report.add(
            "Registry churn while calls run",
            [
                f"{self.sizes.churn_rounds} round(s) of changes through the websocket registry commands "
                "(each round creates an area first), while "
                f"{LOAD_WORKERS} callers keep asking over REST; after each change, an utterance that names "
                f"the new name is asked every {PROBE_INTERVAL * 1000:.0f} ms until the answers show it "
                "(time from the command's result).",
                "",
                *lines,
                "",
                f"Calls meanwhile: {figures.statuses_text()}, {figures.well_formed:,} well formed, "
                f"p50 {figures.p50:.1f} ms, slowest {figures.slowest:.0f} ms{rebuilds}.",
            ],
        )
        self.report.note(
            "registry churn",
            f"{len(seen)} of {len(changes)} changes seen in answers, median {statistics.median(seen):.2f} s, "
            f"slowest {max(seen):.2f} s; calls meanwhile {figures.statuses_text()}"
            if seen
            else f"none of {len(changes)} changes seen",
        )

    async def async_bad_bodies(self) -> None:
        """Send each bad body over REST (and some over websocket, each on its own connection)."""
        messages = translated_messages()
        lines = ["| body | REST | websocket |", "|---|---|---|"]
        outcomes: Counter[str] = Counter()
        for name, body in (*BAD_BODIES, *BAD_REFRESH_BODIES):
            path = REFRESH_PATH if name.startswith("refresh") else SERVICE_PATH
            answers = [outcome(await self.rest.async_rest(body, path), messages)]
            if name in OVER_SOCKET:
                async with self.rest.socket() as alone:
                    answers.append(outcome(await alone.async_retrieve(body), messages))
            outcomes.update(
                f"{status} {'ours' if detail in messages else detail}" for status, detail in answers
            )
            cells = [f"{status} {detail}" for status, detail in answers]
            lines.append(f"| {name} | {' | '.join(cells)}{' | -' if len(cells) == 1 else ''} |")
        good = await self.rest.async_rest({"text": SAME})
        counted = ", ".join(f"{outcome} ×{count}" for outcome, count in outcomes.most_common())
        self.report.add(
            "Bad bodies",
            [
                "Each body sent to `POST /api/services/context_retrieval/retrieve?return_response` (two to "
                "`refresh`); some over websocket too, as the `service_data` of a `call_service`, each alone "
                "on a connection. A translation key is the integration's translated message (the language "
                "in brackets); a quoted message is Home Assistant's own.",
                "",
                *lines,
                "",
                f"Outcomes (ours: the integration's translated message): {counted}; a good call afterwards: "
                f"{good.status}.",
            ],
        )
        self.report.note(
            f"bad bodies ({len(BAD_BODIES) + len(BAD_REFRESH_BODIES)} over REST, {len(OVER_SOCKET)} over "
            "websocket; ours: the integration's translated message)",
            counted,
        )

    async def async_options_save(self) -> None:
        """Save the options and reload while calls run and conversations refer back with 它."""
        count = self.sizes.conversations
        control = await self._async_control_follow_ups()
        first = await async_windowed(
            self.socket.async_retrieve({"text": referred(n)[0], "conversation_id": f"it-{n}"})
            for n in range(count)
        )
        named = sum((call.top() or {}).get("entity_id") == referred(n)[1] for n, call in enumerate(first))
        self.entry_states.clear()
        async with Load(self.rest, "options") as load:
            await asyncio.sleep(0.2)
            started = time.monotonic()
            following = asyncio.create_task(self._async_follow_ups(count))
            await self.hass.async_save_options(
                self.entry_id,
                {CONF_EMBEDDING_BACKEND: DEFAULT_EMBEDDING_BACKEND, CONF_TOP_K: DEFAULT_TOP_K - 1},
            )
            await asyncio.sleep(max(0.0, FOLLOW_UP_SPREAD / 2 - (time.monotonic() - started)))
            reloading = asyncio.create_task(self.hass.async_reload(self.entry_id))
            burst = await asyncio.gather(
                *(self.rest.async_rest(call_body("reload", n)) for n in range(RELOAD_BURST))
            )
            await reloading
            follow = await following
            await asyncio.sleep(0.2)
        windows = self.reload_windows()
        calls = [*follow, *burst, *load.calls]
        during = [call for call in calls if any(start <= call.started <= end for start, end in windows)]
        kept = sum((call.top() or {}).get("entity_id") == referred(n)[1] for n, call in enumerate(follow))
        refused = [call for call in calls if not call.answered]
        figures = Figures.of(calls)
        reloads = ", ".join(f"{(end - start) * 1000:.0f} ms" for start, end in windows) or "none seen"
        refusals = "; ".join(sorted({f"{call.status} {quote(call.message, 80)}" for call in refused}))
        slowest_during = max((call.ms for call in during), default=0.0)
        self.report.add(
            "Options saved and the entry reloaded while calls run",
            [
                f"{count} conversations first name a device (打开油烟机, 打开台灯, ...; {named} of {count} "
                f"found it). Then, while {LOAD_WORKERS} callers keep asking over REST, the options are saved "
                "(top_k "
                f"{DEFAULT_TOP_K} → {DEFAULT_TOP_K - 1}: the entry reloads), and the entry is reloaded once "
                f"more with {RELOAD_BURST} calls at once over REST; each conversation says {FOLLOW_UP}, over "
                f"websocket, spread over {FOLLOW_UP_SPREAD:.0f} s from the save on.",
                "",
                "| figure | value |",
                "|---|---|",
                f"| the entry not loaded (from `config_entries/subscribe`) | {reloads} |",
                f"| calls in all | {figures.calls:,}: {figures.statuses_text()} |",
                f"| calls sent while the entry was not loaded | {len(during)}, answered "
                f"{sum(call.answered for call in during)}, slowest {slowest_during:.0f} ms |",
                f"| refused | {len(refused)}{f' ({refusals})' if refused else ''} |",
                f"| {FOLLOW_UP} finds the device named before (它 remembered) | {kept} of {count} "
                f"(control, no reload: {sum(control)} of {len(control)}) |",
                f"| slowest call | {figures.slowest:.0f} ms |",
            ],
        )
        self.report.note(
            "options save + reload during calls",
            f"{len(refused)} of {figures.calls:,} calls refused ({len(during)} sent while not loaded); "
            f"它 remembered in {kept} of {count} conversations",
        )

    async def _async_control_follow_ups(self) -> list[bool]:
        """Return, for each device of ``REFERRED``, whether 它 finds it again without a reload."""
        found = []
        for number, (text, entity_id) in enumerate(REFERRED):
            await self.rest.async_rest({"text": text, "conversation_id": f"control-{number}"})
            follow = await self.rest.async_rest({"text": FOLLOW_UP, "conversation_id": f"control-{number}"})
            found.append((follow.top() or {}).get("entity_id") == entity_id)
        return found

    async def _async_follow_ups(self, count: int) -> list[Call]:
        """Say the follow-up in each conversation, spread over ``FOLLOW_UP_SPREAD``; return the calls."""
        jobs = []
        for number in range(count):
            body = {"text": FOLLOW_UP, "conversation_id": f"it-{number}"}
            jobs.append(asyncio.create_task(self.socket.async_retrieve(body)))
            await asyncio.sleep(FOLLOW_UP_SPREAD / count)
        return list(await asyncio.gather(*jobs))

    async def async_memory(self) -> None:
        """Call from many new conversation ids, each naming a device; note the memory meanwhile."""
        count = self.sizes.memory_ids
        before = self.sample_rss(f"before {count:,} calls from new conversation ids")
        started = time.monotonic()
        calls: list[Call] = []
        for part in range(MEMORY_SAMPLES):
            numbers = range(count * part // MEMORY_SAMPLES, count * (part + 1) // MEMORY_SAMPLES)
            calls += await async_windowed(
                self.socket.async_retrieve(
                    {"text": referred(number)[0], "conversation_id": f"memory-{number}"}
                )
                for number in numbers
            )
            after = self.sample_rss(f"after {numbers.stop:,} of them")
        seconds = time.monotonic() - started
        remembered = (await self.hass.async_diagnostics(self.entry_id)).get("conversations")
        figures = Figures.of(calls)
        self.report.add(
            "Many conversation ids",
            [
                f"{count:,} calls over one websocket ({WINDOW} in flight), each from a new conversation id "
                f"naming one device (打开油烟机, 打开台灯, ...: each remembers it for 它), "
                f"in {seconds:.1f} s ({count / seconds:,.0f} calls/s): {figures.statuses_text()}, "
                f"{figures.well_formed:,} well formed, p50 {figures.p50:.1f} ms. Conversations remembered "
                f"afterwards (diagnostics): {remembered}. The process's resident memory is below; it also "
                "holds what Home Assistant keeps of every service call (the demo runs its recorder).",
            ],
        )
        self.report.note(
            f"memory, {count:,} new conversation ids",
            f"{before:.1f} → {after:.1f} MiB ({after - before:+.1f} MiB); "
            f"{remembered} conversations remembered",
        )

    def memory_section(self) -> None:
        """Add the process's resident memory at each point it was read."""
        self.report.add(
            "Resident memory of Home Assistant",
            [
                "`VmRSS` of the Home Assistant process (`/proc/PID/status`).",
                "",
                "| when | resident memory |",
                "|---|---|",
                *(f"| {when} | {rss:.1f} MiB |" for when, rss in self.rss),
            ],
        )

    async def async_faults(self) -> None:
        """Parse with a local LLM server that answers, then fails in each way; burst calls at it each time."""
        fake = FakeOpenAI(replies=[FAULTS[0].reply])
        url = await fake.start()
        lines = [
            "| the LLM | calls | answered | well formed | `meta` | `fallback: offline_parser` "
            "| requests it got | burst took | slowest | next calls (p50) | `meta` of the next calls |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        try:
            await self.hass.async_save_options(
                self.entry_id,
                {
                    CONF_LLM_BASE_URL: url,
                    CONF_LLM_API_KEY: "soak-key",
                    CONF_LLM_MODEL: "soak-model",
                    CONF_EMBEDDING_BACKEND: DEFAULT_EMBEDDING_BACKEND,
                    CONF_TOP_K: DEFAULT_TOP_K,
                },
            )
            await self._async_until_parsed_by_llm()
            ended = time.monotonic()
            for number, fault in enumerate(FAULTS):
                if number:
                    await self.hass.async_reload(self.entry_id)  # a fresh parser: no pause left from before
                self.mark(f"faults: the LLM {fault.name}")
                fake.answer(fault.reply)
                lines.append(await self._async_fault_row(fault.name, fake))
                ended = time.monotonic()
            if self.sizes.recovery:
                self.mark("faults: the LLM answers again")
                fake.answer(FAULTS[0].reply)
                await asyncio.sleep(max(0.0, LLM_OUTAGE_PAUSE + 1 - (time.monotonic() - ended)))
                lines.append(
                    await self._async_fault_row(
                        f"answers again, after the {LLM_OUTAGE_PAUSE:.0f} s pause", fake
                    )
                )
        finally:
            await fake.close()
        self.report.add(
            "The parsing LLM: answers, faults, hangs",
            [
                "The entry's options point its parsing LLM at a local server speaking the OpenAI chat "
                "protocol. For each behaviour (the entry reloaded first, so no pause is left from the one "
                f"before), {self.sizes.fault_burst} calls at once over REST (half the same utterance, half "
                f"different ones), then {AFTER_CALLS} calls one at a time. `meta` counts the first result's "
                "`parse` and, in brackets, its `llm_error`.",
                "",
                *lines,
            ],
        )

    async def _async_until_parsed_by_llm(self) -> None:
        """Wait until the reloaded entry parses with the LLM."""
        deadline = time.monotonic() + VISIBLE_TIMEOUT
        while time.monotonic() < deadline:
            call = await self.rest.async_rest({"text": SAME})
            if call.meta().get("parse") == "llm":
                return
            await asyncio.sleep(PROBE_INTERVAL)
        raise DemoError("the entry does not parse with the LLM after its options were saved")

    async def _async_fault_row(self, name: str, fake: FakeOpenAI) -> str:
        """Burst calls at the LLM's current behaviour, then a few one at a time; return the table row."""
        size = self.sizes.fault_burst
        texts = [SAME if n % 2 else DISTINCT[n // 2 % len(DISTINCT)] for n in range(size)]
        before = len(fake.requests)
        started = time.monotonic()
        burst = await asyncio.gather(*(self.rest.async_rest({"text": text}) for text in texts))
        wall = time.monotonic() - started
        requests = len(fake.requests) - before
        after = [await self.rest.async_rest({"text": DISTINCT[-1 - n]}) for n in range(AFTER_CALLS)]
        figures, later = Figures.of(burst), Figures.of(after)
        fallbacks = sum(call.meta().get("fallback") == "offline_parser" for call in burst)
        self.report.note(
            f"the LLM {name}",
            f"{figures.statuses_text()}, {figures.well_formed} well formed, {meta_text(burst)}; "
            f"{requests} requests to it; the burst took {wall:.1f} s",
        )
        return (
            f"| {name} | {figures.calls} | {figures.statuses_text()} | {figures.well_formed} "
            f"| {meta_text(burst)} | {fallbacks} | {requests} | {wall:.2f} s | {figures.slowest:.0f} ms "
            f"| {later.p50:.1f} ms | {meta_text(after)} |"
        )

    def log_section(self) -> None:
        """Add what Home Assistant logged from or about the integration, phase by phase."""
        assert self.hass.process is not None  # noqa: S101 - started before
        messages = translated_messages()
        entries = read_log(self.hass.process.log_path, self.marks)
        ours = [entry for entry in entries if entry.ours]
        about = [
            entry
            for entry in entries
            if not entry.ours and entry.level in PROBLEM_LEVELS and entry.about_us(messages)
        ]
        others = [
            entry
            for entry in entries
            if entry.phase != "start-up"
            and entry.level in {"ERROR", "CRITICAL"}
            and not entry.ours
            and not entry.about_us(messages)
        ]
        grouped: Counter[tuple[str, str, str, str]] = Counter(
            (
                entry.phase,
                entry.logger,
                entry.level,
                CONNECTION.sub("", entry.message) + traceback_note(entry),
            )
            for entry in [*ours, *about]
        )
        lines = [
            "| phase | logger | level | lines | message |",
            "|---|---|---|---|---|",
            *(
                f"| {phase} | `{logger}` | {level} | {count} | {quote(message)} |"
                for (phase, logger, level, message), count in grouped.items()
            ),
        ]
        unrelated = "; ".join(sorted({quote(f"[{entry.logger}] {entry.message}", 120) for entry in others}))
        self.report.add(
            "Home Assistant's log",
            [
                f"Every line from `{OUR_LOGGER}` (the demo logs it from INFO on), and every warning or error "
                "of another logger that names the integration or quotes its error messages, as logged, by "
                "the phase that was running. (Home Assistant's websocket API logs every validation error of "
                "a `call_service` at ERROR, whichever integration raised it; its REST API logs none.)",
                "",
                *(lines if grouped else ["Nothing."]),
                "",
                f"Errors of other loggers after start-up that do neither: {len(others)}"
                + (f" ({unrelated})." if others else "."),
            ],
        )
        levels = Counter(entry.level for entry in ours if entry.level in PROBLEM_LEVELS)
        self.report.note(
            f"log: warnings and errors from `{OUR_LOGGER}`",
            ", ".join(f"{level} ×{count}" for level, count in levels.items()) or "none",
        )
        loggers = Counter(entry.logger for entry in about)
        self.report.note(
            "log: warnings and errors of other loggers about the integration",
            "; ".join(f"`{logger}` ×{count}" for logger, count in loggers.items()) or "none",
        )


def traceback_note(entry: LogEntry) -> str:
    """Return a note that a traceback follows the entry, naming the integration's frame if one is there."""
    if "Traceback" not in entry.detail:
        return ""
    frames = [line.strip() for line in entry.detail.splitlines() if f"{DOMAIN}/" in line]
    return f" (traceback through {frames[-1]})" if frames else " (traceback)"


def meta_text(calls: Sequence[Call]) -> str:
    """Return how the answers were parsed, counted: the first result's ``parse`` and ``llm_error``."""
    seen = Counter(
        str(call.meta().get("parse")) + (f" ({error})" if (error := call.meta().get("llm_error")) else "")
        for call in calls
        if call.answered
    )
    return ", ".join(f"{meta} ×{count}" for meta, count in seen.most_common()) or "-"


def render(soak: Soak, *, quick: bool) -> str:
    """Return the soak's report as Markdown."""
    layout = load_layout()
    home = (
        f"{len(layout.entity_ids())} entities in {len(layout.areas())} areas on {len(layout.floors)} floors"
    )
    return "\n".join(
        [
            "## Soak: a real Home Assistant under bursts, churn, faults and bad bodies",
            "",
            f"Home Assistant {soak.hass.version} as its own process on the demo home ({home}), driven over "
            f"REST and websocket ({'quick' if quick else 'full'} run, {soak.seconds:.0f} s in all).",
            "",
            "| what | figures |",
            "|---|---|",
            *(f"| {what} | {figure} |" for what, figure in soak.report.summary),
            "",
            "\n\n".join(soak.report.sections),
        ]
    )


async def async_soak(sizes: Sizes, *, keep: bool = False) -> tuple[Soak, Path]:
    """Run the soak in a temporary directory; return it and the directory (deleted unless ``keep``)."""
    work_dir = Path(tempfile.mkdtemp(prefix="context-retrieval-soak-"))
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        soak = Soak(sizes, session, work_dir)
        try:
            await soak.async_run()
        except BaseException:
            print(f"soak failed: configuration and log kept in {work_dir}", file=sys.stderr)
            raise
    if not keep:
        shutil.rmtree(work_dir, ignore_errors=True)
    return soak, work_dir


def soak_section(*, quick: bool) -> str:
    """Return the soak's Markdown (for ``benchmarks.run``)."""
    soak, _ = asyncio.run(async_soak(QUICK if quick else FULL))
    return render(soak, quick=quick)


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print its report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller bursts and fewer conversation ids")
    parser.add_argument("--keep", action="store_true", help="keep Home Assistant's configuration and log")
    args = parser.parse_args(argv)
    soak, work_dir = asyncio.run(async_soak(QUICK if args.quick else FULL, keep=args.keep))
    print(render(soak, quick=args.quick))
    if args.keep:
        print(f"\nconfiguration and log kept in {work_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
