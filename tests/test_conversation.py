"""The Context Retrieval conversation agent without an LLM: it acts, answers, asks back or hands on.

Every turn goes through ``conversation.async_converse`` to the agent's entity, in the test
home; the services of the home's domains are recorded instead of run.
"""

from __future__ import annotations

import pytest
from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.context_retrieval.const import DOMAIN

from .conftest import settle
from .home import LIGHT_ATTRS, HomeEntity, add_entity

AGENT = "conversation.context_retrieval"


@pytest.fixture
def calls(home: HomeAssistant) -> dict[str, list]:
    """Record the services an offline agent may call."""
    recorded: dict[str, list] = {}
    for domain, service in (
        ("light", "turn_on"),
        ("light", "turn_off"),
        ("climate", "set_temperature"),
        ("climate", "turn_off"),
        ("cover", "open_cover"),
        ("cover", "close_cover"),
        ("media_player", "volume_set"),
        ("switch", "turn_off"),
    ):
        recorded[f"{domain}.{service}"] = async_mock_service(home, domain, service)
    return recorded


def made(calls: dict[str, list]) -> list[tuple[str, list[str], dict]]:
    """Return the calls made: service, entities, data without the entities."""
    return [
        (service, list(call.data["entity_id"]), {k: v for k, v in call.data.items() if k != "entity_id"})
        for service, recorded in calls.items()
        for call in recorded
    ]


async def say(hass: HomeAssistant, text: str, conversation_id: str | None = None, language: str = "zh-Hans"):
    return await conversation.async_converse(
        hass, text, conversation_id, Context(), language=language, agent_id=AGENT
    )


def speech(result: conversation.ConversationResult) -> str:
    return result.response.speech["plain"]["speech"]


async def test_the_agent_is_a_conversation_entity_of_the_entry(loaded_entry, home: HomeAssistant):
    entity = er.async_get(home).async_get(AGENT)
    assert entity is not None
    assert entity.platform == DOMAIN
    assert entity.config_entry_id == loaded_entry.entry_id
    assert (
        home.states.get(AGENT).attributes["supported_features"]
        & conversation.ConversationEntityFeature.CONTROL
    )
    assert await home.config_entries.async_unload(loaded_entry.entry_id)
    assert conversation.async_get_agent(home, AGENT) is None or home.states.get(AGENT).state == "unavailable"


async def test_a_clear_command_is_run(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "打开厨房灯")
    assert made(calls) == [("light.turn_on", ["light.kitchen"], {})]
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "好的，打开灯：厨房灯。"


async def test_a_value_inside_the_range_is_given_to_the_service(loaded_entry, home: HomeAssistant, calls):
    await say(home, "把客厅空调调到26度")
    assert made(calls) == [("climate.set_temperature", ["climate.living_ac"], {"temperature": 26})]


async def test_a_follow_up_acts_on_the_last_device(loaded_entry, home: HomeAssistant, calls):
    first = await say(home, "打开客厅主灯")
    await say(home, "把它调到30%", first.conversation_id)
    assert made(calls) == [
        ("light.turn_on", ["light.living_main"], {}),
        ("light.turn_on", ["light.living_main"], {"brightness_pct": 30}),
    ]


async def test_a_question_is_answered_from_live_state(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "客厅温度多少")
    assert made(calls) == []
    assert result.response.response_type is intent.IntentResponseType.QUERY_ANSWER
    assert "26.5" in speech(result)
    home.states.async_set(
        "sensor.living_temperature", "24.0", home.states.get("sensor.living_temperature").attributes
    )
    assert "24.0" in speech(await say(home, "客厅温度多少"))


async def test_a_value_out_of_range_is_asked_about_not_run(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "把客厅空调调到40度")
    assert made(calls) == [], speech(result)
    assert result.continue_conversation is True, speech(result)
    assert "16" in speech(result)
    assert "30" in speech(result)


async def test_an_unknown_device_is_asked_about_not_guessed(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "关掉冰箱插座")
    assert made(calls) == []
    assert result.continue_conversation is True


async def test_a_number_the_command_would_drop_is_asked_about(loaded_entry, home: HomeAssistant, calls):
    turn_off = async_mock_service(home, "light", "turn_off")
    result = await say(home, "十分钟后关掉厨房灯")  # a delay no command carries: not now
    assert made(calls) == []
    assert turn_off == []
    # Asked about, so Home Assistant's own intents got their chance: they start a timer for it.
    assert not speech(result).startswith("好的，关闭")


async def test_a_mode_and_a_temperature_are_both_set(loaded_entry, home: HomeAssistant, calls):
    set_mode = async_mock_service(home, "climate", "set_hvac_mode")
    await say(home, "客厅空调制热二十八度")
    assert [call.data["hvac_mode"] for call in set_mode] == ["heat"]
    assert made(calls) == [("climate.set_temperature", ["climate.living_ac"], {"temperature": 28})]


async def test_a_setting_that_would_leave_a_dehumidifier_off_turns_it_on_first(
    loaded_entry, home: HomeAssistant, calls
):
    """Home Assistant sets an off dehumidifier's target humidity and leaves it off: it is turned on first."""
    turn_on = async_mock_service(home, "humidifier", "turn_on")
    set_humidity = async_mock_service(home, "humidifier", "set_humidity")
    await say(home, "除湿机湿度调到45")
    assert [call.data["entity_id"] for call in turn_on] == [["humidifier.bedroom_dehumidifier"]]
    assert [call.data["humidity"] for call in set_humidity] == [45]
    home.states.async_set("humidifier.bedroom_dehumidifier", "on", {"min_humidity": 30, "max_humidity": 80})
    await say(home, "除湿机湿度调到50")
    assert len(turn_on) == 1  # on already: only the setting
    assert [call.data["humidity"] for call in set_humidity] == [45, 50]


async def test_a_share_said_in_words_sets_the_position(loaded_entry, home: HomeAssistant, calls):
    set_position = async_mock_service(home, "cover", "set_cover_position")
    await say(home, "车库门打开一半")
    assert [call.data["position"] for call in set_position] == [50]
    assert made(calls) == []  # not opened fully first


async def test_what_it_cannot_place_goes_to_home_assistants_agent(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "现在几点了")
    assert made(calls) == []
    assert (
        result.response.speech
    )  # Home Assistant's own agent answered (its time, or that it did not understand)
    assert "好的" not in speech(result)


async def test_replies_follow_the_language_of_the_request(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "打开厨房灯", language="en")
    assert made(calls) == [("light.turn_on", ["light.kitchen"], {})]
    assert speech(result) == "Done. Turn on the light: 厨房灯."


async def test_a_failing_service_is_reported_not_raised(loaded_entry, home: HomeAssistant):
    result = await say(home, "打开厨房灯")  # no light service is registered in this home
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result).startswith("没能完成")


async def test_an_answer_to_the_question_picks_what_was_asked_about(loaded_entry, home: HomeAssistant, calls):
    asked = await say(home, "打开灯")  # lights in three rooms, no all-word
    assert made(calls) == []
    assert asked.continue_conversation is True
    assert "厨房" in speech(asked)
    await say(home, "厨房的", asked.conversation_id)
    assert made(calls) == [("light.turn_on", ["light.kitchen"], {})]


async def test_a_turn_with_another_action_is_no_answer(loaded_entry, home: HomeAssistant, calls):
    asked = await say(home, "打开灯")
    await say(home, "厨房的关掉", asked.conversation_id)  # not 打开: a command of its own
    assert ("light.turn_on", ["light.kitchen"], {}) not in made(calls)


async def test_an_old_question_is_not_answered_by_a_later_turn(loaded_entry, home: HomeAssistant, calls):
    asked = await say(home, "打开灯")
    await say(home, "客厅温度多少", asked.conversation_id)  # the question was dropped
    await say(home, "厨房的", asked.conversation_id)
    assert made(calls) == []


async def test_traditional_chinese_gets_traditional_replies(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "打开厨房灯", language="zh-Hant")
    assert made(calls) == [("light.turn_on", ["light.kitchen"], {})]
    assert speech(result).startswith("好的，")
    asked = await say(home, "打开灯", language="zh-Hant")
    assert "哪個房間" in speech(asked)


async def test_a_volume_is_read_and_set_in_per_cent(loaded_entry, home: HomeAssistant, calls):
    """电视多大声 reads the volume (0.3) as 30%; 调到十 then sets it to 10%."""
    asked = await say(home, "电视多大声")
    assert "30%" in speech(asked)
    result = await say(home, "调到十", asked.conversation_id)
    assert made(calls) == [("media_player.volume_set", ["media_player.tv"], {"volume_level": 0.1})]
    assert "10%" in speech(result)


async def test_text_utf8_cannot_encode_never_fails_a_turn(loaded_entry, home: HomeAssistant, calls):
    result = await say(home, "打开厨房灯\udfff")
    assert made(calls) == [("light.turn_on", ["light.kitchen"], {})]
    speech(result).encode("utf-8")


async def test_a_device_that_is_offline_is_said_to_be_so_and_not_called(
    loaded_entry, home: HomeAssistant, calls
):
    home.states.async_set("light.kitchen", "unavailable", home.states.get("light.kitchen").attributes)
    result = await say(home, "打开厨房灯")
    assert made(calls) == []
    assert speech(result) == "厨房灯离线了，现在控制不了。"
    english = await say(home, "打开厨房灯", language="en")
    assert speech(english) == "厨房灯 is offline, so it cannot be controlled now."


async def test_a_set_acts_on_its_members_that_are_not_offline(loaded_entry, home: HomeAssistant, calls):
    home.states.async_set("light.kitchen", "unavailable", home.states.get("light.kitchen").attributes)
    await say(home, "所有灯都打开")
    (call,) = made(calls)
    assert call[0] == "light.turn_on"
    assert "light.kitchen" not in call[1]
    assert len(call[1]) > 1


async def test_a_question_about_a_set_is_answered_grouped_by_value(loaded_entry, home: HomeAssistant, calls):
    for entity_id in ("light.kitchen", "light.bedside"):
        home.states.async_set(entity_id, "on", home.states.get(entity_id).attributes)
    result = await say(home, "哪些灯开着")
    assert made(calls) == []
    answer = speech(result)
    assert answer.count("开：") == 1  # one group per value, not one phrase per light
    for light in ("客厅主灯", "厨房灯", "卧室床头灯"):
        assert light in answer


async def test_them_after_a_question_about_a_set_are_the_ones_the_answer_named(
    loaded_entry, home: HomeAssistant, calls
):
    home.states.async_set("light.kitchen", "on", home.states.get("light.kitchen").attributes)
    home.states.async_set("light.bedside", "unavailable", home.states.get("light.bedside").attributes)
    asked = await say(home, "哪些灯开着")
    result = await say(home, "把它们都关了", asked.conversation_id)
    (call,) = made(calls)
    on = sorted(e for e in call[1] if home.states.get(e).state == "on")
    assert call[0] == "light.turn_off"
    assert sorted(call[1]) == on
    assert "light.kitchen" in on
    assert "light.bedside" not in call[1]  # unavailable: in no state to turn off
    assert "厨房灯" in speech(result)


async def test_a_set_said_after_a_question_about_it_is_of_the_ones_the_answer_named(
    loaded_entry, home: HomeAssistant, calls
):
    """哪些灯开着, then 除了卧室的都关了: the lights that are on, but the bedroom's."""
    for entity_id in ("light.kitchen", "light.bedside"):
        home.states.async_set(entity_id, "on", home.states.get(entity_id).attributes)
    home.states.async_set("light.living_main", "off", home.states.get("light.living_main").attributes)
    was_on = {state.entity_id for state in home.states.async_all("light") if state.state == "on"}
    asked = await say(home, "哪些灯开着")
    await say(home, "除了卧室的都关了", asked.conversation_id)
    (call,) = made(calls)
    assert call[0] == "light.turn_off"
    assert "light.kitchen" in call[1]
    assert set(call[1]) <= was_on - {"light.bedside"}
    for recorded in calls.values():
        recorded.clear()
    home.states.async_set("light.kitchen", "on", home.states.get("light.kitchen").attributes)
    result = await say(home, "除了卧室的灯都关了")  # asked nothing before: the set as said
    (every,) = made(calls)
    assert "light.living_main" in every[1], speech(result)


async def test_an_adjustment_moves_from_the_present_value(loaded_entry, home: HomeAssistant, calls):
    await say(home, "客厅空调调高两度")  # the target is 26 °C
    await say(home, "客厅主灯调暗一点")
    assert sorted(made(calls)) == [
        ("climate.set_temperature", ["climate.living_ac"], {"temperature": 28}),
        ("light.turn_on", ["light.living_main"], {"brightness_step_pct": -20}),
    ]


async def test_dimming_a_dim_light_never_turns_it_off(loaded_entry, home: HomeAssistant, calls):
    """暗一点 moves a light at 15 % by 5, not by the usual 20 that would leave it dark."""
    attributes = {**home.states.get("light.living_main").attributes, "brightness": 38}
    home.states.async_set("light.living_main", "on", attributes)
    await say(home, "客厅主灯调暗一点")
    assert made(calls) == [("light.turn_on", ["light.living_main"], {"brightness_step_pct": -5})]


async def test_the_home_said_is_every_room(loaded_entry, home: HomeAssistant, calls):
    """屋里的灯关了: every light of the home, where 关灯 alone asks which room."""
    for entity_id in ("light.kitchen", "light.bedside"):
        home.states.async_set(entity_id, "on", home.states.get(entity_id).attributes)
    await say(home, "屋里的灯关了")
    ((service, entity_ids, _),) = made(calls)
    assert service == "light.turn_off"
    assert {"light.living_main", "light.kitchen", "light.bedside"} <= set(entity_ids)


async def test_the_room_of_the_last_turn_settles_which_room(loaded_entry, home: HomeAssistant, calls):
    first = await say(home, "客厅温度多少")
    await say(home, "打开灯", first.conversation_id)  # lights in three rooms; the last turn was about 客厅
    assert made(calls) == [("light.turn_on", ["light.living_main"], {})]


async def test_an_answer_may_name_the_room_by_its_alias(loaded_entry, home: HomeAssistant, calls):
    asked = await say(home, "打开灯")
    await say(home, "睡房的", asked.conversation_id)  # 睡房: an alias of 卧室
    assert made(calls) == [("light.turn_on", ["light.bedside"], {})]


async def test_the_one_device_that_runs_settles_which_when_the_action_changes_it(
    loaded_entry, home: HomeAssistant, calls
):
    """Lights in three rooms, only the living room's on: 调暗 and 关 are said of it; 打开 still asks."""
    await say(home, "把灯调暗一点")
    await say(home, "关灯")
    asked = await say(home, "打开灯")
    assert made(calls) == [
        ("light.turn_on", ["light.living_main"], {"brightness_step_pct": -20}),
        ("light.turn_off", ["light.living_main"], {}),
    ]
    assert asked.continue_conversation  # asked which room


async def test_it_means_what_the_agent_acted_on(loaded_entry, home: HomeAssistant, calls):
    """打开灯 asked which room, 厨房的 answered: 把它关掉 turns off the kitchen light, not the three."""
    asked = await say(home, "打开灯")
    await say(home, "厨房的", asked.conversation_id)
    await say(home, "把它关掉", asked.conversation_id)
    assert made(calls) == [
        ("light.turn_on", ["light.kitchen"], {}),
        ("light.turn_off", ["light.kitchen"], {}),
    ]


async def test_several_devices_it_found_are_asked_about_not_left_to_home_assistants_sentences(
    loaded_entry, home: HomeAssistant, calls
):
    """客厅床头灯 with two bedside lamps there: Home Assistant's sentences take 床头灯 for any light."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    er.async_get(home).async_update_entity("light.bedside", name="阅读灯")  # no light called 床头灯 alone
    for entity_id, name in (("light.left", "左边床头灯"), ("light.right", "右边床头灯")):
        add_entity(home, HomeEntity(entity_id, name, "off", LIGHT_ATTRS, area="客厅"), owner)
    await settle(home)
    result = await say(home, "客厅床头灯打开")
    assert made(calls) == [], speech(result)
    assert result.continue_conversation is True
    assert "左边床头灯" in speech(result)
    assert "右边床头灯" in speech(result)


async def test_a_remark_in_english_after_the_command_does_not_stop_it(
    loaded_entry, home: HomeAssistant, calls
):
    await say(home, "把客厅空调调到26度，热到 emo 了")
    assert made(calls) == [("climate.set_temperature", ["climate.living_ac"], {"temperature": 26})]


async def test_an_input_source_with_a_digit_is_selected(loaded_entry, home: HomeAssistant, calls):
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    sources = {"supported_features": 2048, "source_list": ["HDMI1", "HDMI2"], "source": "HDMI2"}
    add_entity(home, HomeEntity("media_player.projector", "投影仪", "on", sources, area="客厅"), owner)
    await settle(home)
    select = async_mock_service(home, "media_player", "select_source")
    await say(home, "投影仪切到 HDMI1")  # the 1 is the source's, no number left over
    assert [(call.data["entity_id"], call.data["source"]) for call in select] == [
        (["media_player.projector"], "HDMI1")
    ]


async def test_the_one_fan_that_runs_is_the_one_turned_up_when_others_cannot_step(
    loaded_entry, home: HomeAssistant, calls
):
    """风扇开大一点 with fans in three rooms, one only on and off, one running: that one, up a step."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    stepping = {"supported_features": 49, "percentage_step": 20}
    for entity_id, name, state, attrs, area in (
        ("fan.ceiling", "客厅风扇", "on", {**stepping, "percentage": 40}, "客厅"),
        ("fan.floor", "卧室风扇", "off", {**stepping, "percentage": 0}, "卧室"),
        ("fan.desk", "厨房风扇", "off", {"supported_features": 48}, "厨房"),
    ):
        add_entity(home, HomeEntity(entity_id, name, state, attrs, area=area), owner)
    await settle(home)
    increase = async_mock_service(home, "fan", "increase_speed")
    result = await say(home, "风扇开大一点")
    assert [call.data["entity_id"] for call in increase] == [["fan.ceiling"]], speech(result)


async def test_a_level_beyond_a_fans_speeds_is_asked_about_with_its_range(
    loaded_entry, home: HomeAssistant, calls
):
    """吊扇开到七档 with a fan of five speeds (20 % steps): no call, and the range said, not an empty list."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(home)
    fan = {"percentage": 40, "percentage_step": 20, "supported_features": 1}
    add_entity(home, HomeEntity("fan.ceiling", "吊扇", "on", fan, area="客厅"), owner)
    await settle(home)
    set_speed = async_mock_service(home, "fan", "set_percentage")
    result = await say(home, "吊扇开到七档")
    assert set_speed == []
    assert result.continue_conversation is True, speech(result)
    assert "0 到 100" in speech(result), speech(result)
    assert "：。" not in speech(result)
