"""The context_retrieval.retrieve service: responses, conversation memory, validation, concurrency."""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from pathlib import Path

import pytest
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.setup import async_setup_component

from custom_components.context_retrieval.const import DOMAIN, MAX_TEXT_LENGTH, SERVICE_RETRIEVE
from custom_components.context_retrieval.core import gating, pronunciation, scope, text, value_order

from .conftest import call_retrieve

ENGLISH = json.loads(
    (Path(__file__).parents[1] / "custom_components" / DOMAIN / "translations" / "en.json").read_text(
        encoding="utf-8"
    )
)


def members(result: dict) -> set[str]:
    """Return every entity a result points at, group members expanded."""
    return {
        device_id
        for candidate in result["candidates"]
        for device_id in candidate.get("device_ids", [candidate["entity_id"]])
    }


async def test_response_carries_commands_candidates_and_yaml(loaded_entry, home: HomeAssistant):
    response = await call_retrieve(home, "打开客厅主灯")
    [result] = response["results"]
    assert result["command"]["a"] == "打开"
    top = result["candidates"][0]
    assert top["entity_id"] == "light.living_main"
    assert top["kind"] == "device"
    assert top["capability_id"] == "light.turn_on"
    assert top["name"] == "客厅主灯"
    assert top["room"] == "客厅"
    assert top["score"] > 0
    assert top["reasons"]
    assert result["meta"]["parse"] == "offline"
    assert "客厅主灯" in response["yaml"]
    json.dumps(response, ensure_ascii=False)  # the response is plain JSON


async def test_text_utf8_cannot_encode_is_dropped_not_raised(loaded_entry, home: HomeAssistant):
    """A lone surrogate (a JSON escape can make one) in the utterance or a name never fails a call."""
    home.states.async_set("light.living_main", "off", {"friendly_name": "客厅主灯\udfff"})
    response = await call_retrieve(home, "\udfff打开客厅主灯\ud800")
    [result] = response["results"]
    assert result["candidates"][0]["entity_id"] == "light.living_main"
    json.dumps(response, ensure_ascii=False).encode("utf-8")  # every string can be written
    assert (await call_retrieve(home, "\udfff"))["results"]


async def test_the_context_speaks_home_assistants_language(loaded_entry, home):
    chinese = await call_retrieve(home, "打开厨房灯")
    assert "打开灯" in chinese["yaml"]
    home.config.language = "en"
    english = await call_retrieve(home, "打开厨房灯")
    assert "Turn on the light" in english["yaml"]
    assert "打开灯" not in english["yaml"]
    assert english["results"][0]["candidates"] == chinese["results"][0]["candidates"]


async def test_a_setting_names_the_service_and_its_field(loaded_entry, home):
    [result] = (await call_retrieve(home, "把大灯调到50%"))["results"]
    top = result["candidates"][0]
    assert (top["entity_id"], top["capability_id"], top["field"]) == (
        "light.living_main",
        "light.turn_on",
        "brightness_pct",
    )


async def test_a_question_retrieves_what_answers_it(loaded_entry, home):
    [result] = (await call_retrieve(home, "客厅温度多少"))["results"]
    assert result["candidates"][0]["entity_id"] in {"sensor.living_temperature", "climate.living_ac"}
    assert result["candidates"][0]["capability_id"] == "state"


async def test_all_lights_come_as_groups_with_their_members(loaded_entry, home):
    [result] = (await call_retrieve(home, "把所有的灯关掉"))["results"]
    assert members(result) == {"light.living_main", "light.kitchen", "light.bedside"}
    group = next(candidate for candidate in result["candidates"] if candidate["kind"] == "group")
    assert group["capability_id"] == "light.turn_off"
    assert group["device_ids"]


async def test_top_k_bounds_the_candidates(loaded_entry, home):
    [result] = (await call_retrieve(home, "打开", top_k=1))["results"]
    assert len(result["candidates"]) == 1


async def test_top_k_defaults_to_the_entry_option(home, config_entry):
    home.config_entries.async_update_entry(config_entry, options={"top_k": 2})
    assert await home.config_entries.async_setup(config_entry.entry_id)
    [result] = (await call_retrieve(home, "打开"))["results"]
    assert len(result["candidates"]) == 2


async def test_conversation_id_keys_the_memory_of_it(loaded_entry, home):
    await call_retrieve(home, "打开床头灯", conversation_id="bedroom")
    [followed] = (await call_retrieve(home, "把它关掉", conversation_id="bedroom"))["results"]
    assert followed["candidates"][0]["entity_id"] == "light.bedside"
    assert "last_mentioned" in followed["candidates"][0]["reasons"]
    [other] = (await call_retrieve(home, "把它关掉", conversation_id="kitchen"))["results"]
    assert other["hint"] == "no_target"
    [none] = (await call_retrieve(home, "把它关掉"))["results"]
    assert none["hint"] == "no_target"


async def test_one_hundred_simultaneous_calls_all_answer_correctly(loaded_entry, home):
    asks = [
        ("打开客厅主灯", "light.living_main"),
        ("关掉床头灯", "light.bedside"),
        ("关掉厨房灯", "light.kitchen"),
    ]
    calls = [asks[n % len(asks)] for n in range(100)]
    responses = await asyncio.gather(
        *(call_retrieve(home, text, conversation_id=f"c{n}") for n, (text, _) in enumerate(calls))
    )
    tops = [response["results"][0]["candidates"][0]["entity_id"] for response in responses]
    assert tops == [expected for _, expected in calls]


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({}, "invalid_text"),
        ({"text": ""}, "invalid_text"),
        ({"text": "   "}, "invalid_text"),
        ({"text": "\u200b\u3000\ufeff"}, "invalid_text"),  # invisible characters alone: empty
        ({"text": 42}, "invalid_text"),
        ({"text": "开" * (MAX_TEXT_LENGTH + 1)}, "invalid_text"),
        ({"text": "打开", "top_k": 0}, "invalid_top_k"),
        ({"text": "打开", "top_k": 51}, "invalid_top_k"),
        ({"text": "打开", "top_k": 2.5}, "invalid_top_k"),
        ({"text": "打开", "top_k": "many"}, "invalid_top_k"),
        ({"text": "打开", "top_k": True}, "invalid_top_k"),
        ({"text": "打开", "conversation_id": "x" * 201}, "invalid_conversation_id"),
        ({"text": "打开", "conversation_id": ["a"]}, "invalid_conversation_id"),
        ({"text": "打开", "entity_id": "light.kitchen"}, "unknown_field"),
    ],
)
async def test_bad_input_raises_a_translated_validation_error(loaded_entry, home, data, key):
    with pytest.raises(ServiceValidationError) as caught:
        await home.services.async_call(DOMAIN, SERVICE_RETRIEVE, data, blocking=True, return_response=True)
    assert caught.value.translation_domain == DOMAIN
    assert caught.value.translation_key == key
    message = ENGLISH["exceptions"][key]["message"]
    assert str(caught.value) == message.format(**(caught.value.translation_placeholders or {}))
    # Nothing is lost: the next good call still answers.
    assert (await call_retrieve(home, "打开厨房灯"))["results"][0]["candidates"]


@pytest.mark.parametrize("body", ['"打开客厅的灯"', "42", "[1]", '{"text": "\u200b"}'])
async def test_a_rest_call_that_is_no_request_is_answered_400_with_the_reason(
    loaded_entry, home: HomeAssistant, hass_client, body
):
    """Over Home Assistant's REST API a body that is no object, or empty text, gets 400 and our message."""
    assert await async_setup_component(home, "api", {})
    client = await hass_client()
    url = f"/api/services/{DOMAIN}/{SERVICE_RETRIEVE}?return_response"
    answer = await client.post(url, data=body.encode(), headers={"Content-Type": "application/json"})
    assert answer.status == HTTPStatus.BAD_REQUEST
    message = ENGLISH["exceptions"]["invalid_text"]["message"].format(max_length=MAX_TEXT_LENGTH)
    assert (await answer.json())["message"] == message
    refresh = await client.post(f"/api/services/{DOMAIN}/refresh", json={"entity_id": "light.kitchen"})
    assert refresh.status == HTTPStatus.BAD_REQUEST
    good = await client.post(url, json={"text": "打开厨房灯"})
    assert good.status == HTTPStatus.OK


async def test_numbers_given_as_text_or_floats_are_accepted(loaded_entry, home):
    [result] = (await call_retrieve(home, "打开", top_k="2", conversation_id=7))["results"]
    assert len(result["candidates"]) == 2
    [result] = (await call_retrieve(home, "打开", top_k=3.0))["results"]
    assert len(result["candidates"]) == 3


async def test_without_a_loaded_entry_the_service_says_so(loaded_entry, home):
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    with pytest.raises(ServiceValidationError) as caught:
        await call_retrieve(home, "打开厨房灯")
    assert caught.value.translation_key == "no_loaded_entry"
    assert str(caught.value) == "Context Retrieval is not set up or not loaded"  # translated
    assert await home.config_entries.async_setup(loaded_entry.entry_id)
    assert (await call_retrieve(home, "打开厨房灯"))["results"][0]["candidates"][0][
        "entity_id"
    ] == "light.kitchen"


async def test_the_service_needs_return_response(loaded_entry, home):
    with pytest.raises(ServiceValidationError):
        await home.services.async_call(DOMAIN, SERVICE_RETRIEVE, {"text": "打开"}, blocking=True)


async def test_the_first_requests_read_no_file_on_the_event_loop(
    home: HomeAssistant, config_entry, monkeypatch: pytest.MonkeyPatch
):
    """The language files are read with the index, in the executor; a request reads none on the loop."""
    loaders = (text._cantonese_markers, text._variants, value_order._value_order, value_order.ascending_words)
    for loader in loaders:
        loader.cache_clear()  # as at Home Assistant's start, before anything was read
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await home.async_block_till_done()
    read: list[str] = []
    original = text.package_text

    def reading(file: str) -> str:
        read.append(file)
        return original(file)

    for module in (text, value_order, gating, pronunciation, scope):
        monkeypatch.setattr(module, "package_text", reading)
    for said in ("客厅啲灯熄咗佢", "客厅主灯调到最暗"):
        assert (await call_retrieve(home, said))["results"]
    assert read == []
