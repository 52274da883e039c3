"""Parsing through an OpenAI-compatible endpoint, and every way back to the offline parser."""

from __future__ import annotations

import asyncio
import logging

import pytest
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.context_retrieval.const import DOMAIN

from .conftest import call_retrieve
from .openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.usefixtures("socket_enabled")

WIRE = '[{"a":"关闭","s":"卧室","n":"床头灯","t":"Light","q":"one"}]'


@pytest.fixture
async def llm_server():
    server = FakeOpenAI([Reply(content=WIRE)])
    yield server
    await server.close()


@pytest.fixture
async def llm_entry(home: HomeAssistant, llm_server: FakeOpenAI) -> MockConfigEntry:
    base_url = await llm_server.start()
    options = {"llm_base_url": base_url, "llm_api_key": "sk-test", "llm_model": "qwen-flash"}
    entry = MockConfigEntry(domain=DOMAIN, options=options)
    entry.add_to_hass(home)
    assert await home.config_entries.async_setup(entry.entry_id)
    await home.async_block_till_done()
    return entry


def llm_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "parsing LLM" in r.getMessage()
    ]


async def test_the_llm_parses_with_the_home_in_its_prompt(llm_entry, llm_server, home):
    [result] = (await call_retrieve(home, "把床头那盏关了"))["results"]
    assert result["meta"]["parse"] == "llm"
    assert result["command"] == {"a": "关闭", "s": "卧室", "n": "床头灯", "t": "Light", "q": "one"}
    assert result["candidates"][0]["entity_id"] == "light.bedside"
    [request] = llm_server.requests
    assert request["model"] == "qwen-flash"
    system, user = request["messages"]
    assert user == {"role": "user", "content": "把床头那盏关了"}
    for word in ("客厅", "起居室", "一楼"):
        assert word in system["content"]


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=401, body='{"error": {"message": "bad key"}}'), "ChatAuthError"),
        (Reply(status=500, body="oops"), None),
        (Reply(status=429, body="{}", headers={"Retry-After": "60"}), None),
        (Reply(status=200, body="not json"), None),
        (Reply(status=200, body='{"choices": []}'), None),
    ],
)
async def test_a_failing_endpoint_falls_back_to_the_offline_parser(llm_entry, llm_server, home, reply, error):
    llm_server.answer(reply)
    [result] = (await call_retrieve(home, "关掉床头灯"))["results"]
    assert result["meta"]["parse"] == "offline"
    assert result["meta"]["fallback"] == "offline_parser"
    if error:
        assert result["meta"]["llm_error"] == error
    assert result["candidates"][0]["entity_id"] == "light.bedside"


async def test_a_slow_endpoint_times_out_into_the_offline_parser(llm_entry, llm_server, home):
    llm_entry.runtime_data.parser.client.timeout = 0.2
    llm_server.answer(Reply(content=WIRE, delay=1.0))
    [result] = (await call_retrieve(home, "关掉床头灯"))["results"]
    assert result["meta"]["llm_error"] == "ChatConnectionError"
    assert result["candidates"][0]["entity_id"] == "light.bedside"


@pytest.mark.parametrize("content", ["好的，我这就帮您关灯！", '[{"a": 1}]', "[]"])
async def test_a_nonsense_answer_goes_to_the_offline_parser(llm_entry, llm_server, home, caplog, content):
    llm_server.answer(Reply(content=content))
    for _ in range(2):
        [result] = (await call_retrieve(home, "关掉床头灯"))["results"]
        assert result["meta"]["parse"] == "offline"
        assert result["meta"]["llm_error"] == "invalid_answer"
        assert result["meta"]["fallback"] == "offline_parser"
        assert result["candidates"][0]["entity_id"] == "light.bedside"
    assert len(llm_warnings(caplog)) == 1
    assert len(llm_server.requests) == 2  # a bad answer is no outage: the next utterance asks again


async def test_after_a_failure_the_endpoint_is_left_alone_for_a_while(llm_entry, llm_server, home):
    parser = llm_entry.runtime_data.parser
    now = [1000.0]
    parser.clock = lambda: now[0]
    llm_server.answer(Reply(status=500, body="down"))
    await call_retrieve(home, "关掉床头灯")
    asked = len(llm_server.requests)
    [result] = (await call_retrieve(home, "关掉床头灯"))["results"]
    assert result["meta"]["llm_error"] == "outage"
    assert result["candidates"][0]["entity_id"] == "light.bedside"
    assert len(llm_server.requests) == asked
    llm_server.answer(Reply(content=WIRE))
    now[0] += 31
    [result] = (await call_retrieve(home, "关掉床头灯"))["results"]
    assert result["meta"]["parse"] == "llm"


async def test_a_burst_of_one_utterance_during_an_outage_sends_one_request(llm_entry, llm_server, home):
    """50 calls of the same utterance while the LLM hangs share one request and its timeout."""
    llm_entry.runtime_data.parser.client.timeout = 0.2
    llm_server.answer(Reply(content=WIRE, delay=1.0))
    responses = await asyncio.gather(
        *(call_retrieve(home, "关掉床头灯", conversation_id=f"c{n}") for n in range(50))
    )
    assert len(llm_server.requests) == 1
    results = [response["results"][0] for response in responses]
    assert {r["meta"]["llm_error"] for r in results} == {"ChatConnectionError"}
    assert {r["meta"]["fallback"] for r in results} == {"offline_parser"}
    assert {r["candidates"][0]["entity_id"] for r in results} == {"light.bedside"}


async def test_when_a_request_fails_the_callers_waiting_on_others_fall_back_at_once(
    llm_entry, llm_server, home
):
    """A hangs; B fails: A's caller stops waiting and parses offline, not after A's answer."""
    llm_entry.runtime_data.parser.client.timeout = 30
    llm_server.answer(Reply(content=WIRE, delay=3.0), Reply(status=500, body="down"))
    hanging = home.async_create_task(call_retrieve(home, "关掉床头灯", conversation_id="a"))
    await llm_server.received.wait()
    failed = await call_retrieve(home, "打开客厅主灯", conversation_id="b")
    waited = await hanging
    assert failed["results"][0]["meta"]["llm_error"] == "ChatConnectionError"
    assert waited["results"][0]["meta"]["llm_error"] == "outage"  # never the hanging answer's "llm"
    assert waited["results"][0]["candidates"][0]["entity_id"] == "light.bedside"
    asked = [request["messages"][-1]["content"] for request in llm_server.requests]
    assert asked.count("关掉床头灯") == 1


async def test_an_outage_is_logged_once_and_its_end_once(llm_entry, llm_server, home, caplog):
    caplog.set_level(logging.INFO)
    now = [1000.0]
    llm_entry.runtime_data.parser.clock = lambda: now[0]
    llm_server.answer(Reply(status=500, body="down"))
    for _ in range(3):
        await call_retrieve(home, "关掉床头灯")
        now[0] += 31
    assert len(llm_warnings(caplog)) == 1
    llm_server.answer(Reply(content=WIRE))
    assert (await call_retrieve(home, "关掉床头灯"))["results"][0]["meta"]["parse"] == "llm"
    assert any("answers again" in r.getMessage() for r in caplog.records)
    llm_server.answer(Reply(status=500, body="down"))
    now[0] += 31
    await call_retrieve(home, "关掉床头灯")
    assert len(llm_warnings(caplog)) == 2


async def test_one_hundred_simultaneous_calls_through_a_slow_llm_during_a_rebuild(
    llm_entry, llm_server, home
):
    asks = {
        "打开客厅主灯": ('[{"a":"打开","s":"客厅","n":"主灯","t":"Light","q":"one"}]', "light.living_main"),
        "关掉床头灯": (WIRE, "light.bedside"),
        "关掉厨房灯": ('[{"a":"关闭","s":"厨房","n":"灯","t":"Light","q":"one"}]', "light.kitchen"),
    }
    llm_server.by_utterance = {text: wire for text, (wire, _) in asks.items()}
    llm_server.answer(Reply(content="[]", delay=0.05))  # every call waits, so they interleave
    texts = [list(asks)[n % len(asks)] for n in range(100)]
    rebuild = home.async_create_task(llm_entry.runtime_data.index.async_rebuild())
    responses = await asyncio.gather(
        *(call_retrieve(home, text, conversation_id=f"c{n}") for n, text in enumerate(texts))
    )
    await rebuild
    assert [r["results"][0]["meta"]["parse"] for r in responses] == ["llm"] * 100
    assert [r["results"][0]["candidates"][0]["entity_id"] for r in responses] == [asks[t][1] for t in texts]
