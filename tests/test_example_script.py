"""The README's script: retrieve, store the response, act on the top candidate."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_mock_service

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "act_on_top_candidate.yaml"


@pytest.fixture
async def script_home(loaded_entry, home):
    assert await async_setup_component(home, "system_log", {})
    assert await async_setup_component(
        home, "script", {"script": yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))}
    )
    return home


def test_the_readme_shows_the_tested_script():
    readme = (EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8").strip() in readme


async def test_the_script_turns_on_the_top_candidate(script_home):
    calls = async_mock_service(script_home, "light", "turn_on")
    await script_home.services.async_call(
        "script", "act_on_top_candidate", {"utterance": "打开客厅主灯"}, blocking=True
    )
    assert [call.data["entity_id"] for call in calls] == [["light.living_main"]]


async def test_the_script_acts_on_every_member_of_a_group(script_home):
    calls = async_mock_service(script_home, "light", "turn_off")
    await script_home.services.async_call(
        "script", "act_on_top_candidate", {"utterance": "一楼的灯都关掉"}, blocking=True
    )
    assert sorted(entity for call in calls for entity in call.data["entity_id"]) == [
        "light.kitchen",
        "light.living_main",
    ]


async def test_the_script_does_nothing_without_a_clear_command(script_home):
    calls = async_mock_service(script_home, "light", "turn_off")
    await script_home.services.async_call(
        "script", "act_on_top_candidate", {"utterance": "把它关掉"}, blocking=True
    )
    assert calls == []
