"""The SmartThings direct connection: the account's devices join the index, the last good list is kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.context_retrieval.const import DOMAIN
from custom_components.context_retrieval.diagnostics import async_get_config_entry_diagnostics
from custom_components.context_retrieval.repairs import SPEC_FILE_UNREADABLE
from demo.smartthings_replay import LOCATION, TOKEN, Failure, SmartThingsReplay

from .clients.smartthings_server import SHARED_SMARTTHINGS
from .conftest import call_retrieve, settle

pytestmark = pytest.mark.usefixtures("socket_enabled")


@pytest.fixture
def entry_options(smartthings: SmartThingsReplay) -> dict[str, Any]:
    return {"smartthings_token": TOKEN, "smartthings_location_id": LOCATION}


async def refreshed(hass: HomeAssistant) -> None:
    """Let the background read of the account finish and the index rebuild."""
    await hass.async_block_till_done(wait_background_tasks=True)
    await settle(hass)


def indexed(entry: MockConfigEntry) -> dict[str, Any]:
    return entry.runtime_data.index.current.by_id


async def test_the_account_devices_join_the_index(loaded_entry, home: HomeAssistant, smartthings):
    await refreshed(home)
    devices = indexed(loaded_entry)
    assert "device-light-010" in devices
    assert devices["device-light-010"].room == "阳台"
    assert devices["device-light-010"].category == "Light"
    assert "light.living_main" in devices  # Home Assistant's entities stay
    response = await call_retrieve(home, "把阳台的灯带打开")
    assert response["results"][0]["candidates"][0]["entity_id"] == "device-light-010"


async def test_a_device_home_assistant_has_already_is_not_listed_twice(
    home: HomeAssistant, config_entry, smartthings
):
    owner = MockConfigEntry(domain="smartthings")
    owner.add_to_hass(home)
    dr.async_get(home).async_get_or_create(
        config_entry_id=owner.entry_id, identifiers={("smartthings", "device-light-010")}, name="灯带"
    )
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    devices = indexed(config_entry)
    assert "device-light-010" not in devices
    assert "device-light-009" in devices


async def test_a_failed_refresh_keeps_the_last_good_list(
    loaded_entry, home: HomeAssistant, smartthings, caplog
):
    await refreshed(home)
    source = loaded_entry.runtime_data.smartthings
    smartthings.failures = [Failure(500)] * 10
    assert await source.async_refresh() is False
    assert "device-light-010" in indexed(loaded_entry)
    diagnostics = await async_get_config_entry_diagnostics(home, loaded_entry)
    assert diagnostics["smartthings"]["devices"] == 30
    assert "SmartThingsConnectionError" in diagnostics["smartthings"]["last_error"]
    assert "SmartThings could not be read" in caplog.text
    smartthings.failures = []
    assert await source.async_refresh() is False  # the same devices again: nothing to rebuild
    assert source.last_error is None


async def test_an_expired_token_is_reported(home: HomeAssistant, config_entry, smartthings, entry_options):
    home.config_entries.async_update_entry(
        config_entry, options={**entry_options, "smartthings_token": "old"}
    )
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    source = config_entry.runtime_data.smartthings
    assert source.auth_failed is True
    assert "device-light-010" not in indexed(config_entry)
    response = await call_retrieve(home, "打开厨房灯")  # Home Assistant's entities still answer
    assert response["results"][0]["candidates"][0]["entity_id"] == "light.kitchen"


async def test_a_refused_token_starts_a_reauthentication_that_replaces_it(
    home: HomeAssistant, config_entry, smartthings, entry_options
):
    home.config_entries.async_update_entry(
        config_entry, options={**entry_options, "smartthings_token": "old"}
    )
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    flows = [flow for flow in home.config_entries.flow.async_progress() if flow["handler"] == DOMAIN]
    assert [(flow["context"]["source"], flow["step_id"]) for flow in flows] == [
        (SOURCE_REAUTH, "reauth_confirm")
    ]
    assert flows[0]["context"]["entry_id"] == config_entry.entry_id

    result = await home.config_entries.flow.async_configure(
        flows[0]["flow_id"], {"smartthings_token": "older"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"smartthings_token": "invalid_auth"}
    assert result["description_placeholders"]["location"] == LOCATION

    result = await home.config_entries.flow.async_configure(flows[0]["flow_id"], {"smartthings_token": TOKEN})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert config_entry.options == entry_options  # the new token, the rest kept
    await refreshed(home)
    assert "device-light-010" in indexed(config_entry)  # reloaded with the new token


async def test_refresh_reads_the_account_and_rebuilds_now(loaded_entry, home: HomeAssistant, smartthings):
    await refreshed(home)
    new = {**smartthings.devices[9], "deviceId": "device-light-099", "label": "氛围灯"}
    smartthings.devices.append(new)
    response = await home.services.async_call(DOMAIN, "refresh", {}, blocking=True, return_response=True)
    assert "device-light-099" in indexed(loaded_entry)  # no wait for the timer or the debounce
    assert response["devices"] == len(indexed(loaded_entry))
    assert response["smartthings"]["devices"] == 31
    assert response["smartthings"]["last_error"] is None
    found = await call_retrieve(home, "打开阳台的氛围灯")
    assert found["results"][0]["candidates"][0]["entity_id"] == "device-light-099"


async def test_diagnostics_redact_the_token(loaded_entry, home: HomeAssistant, smartthings):
    diagnostics = await async_get_config_entry_diagnostics(home, loaded_entry)
    assert diagnostics["options"]["smartthings_token"] == "**REDACTED**"  # noqa: S105
    assert diagnostics["smartthings"]["location_id"] == LOCATION


async def test_a_user_spec_gives_the_devices_their_profiles_commands(
    home: HomeAssistant, config_entry, smartthings, entry_options
):
    spec = str(SHARED_SMARTTHINGS / "spec.jsonl")  # one JSON array of 45 profiles
    home.config_entries.async_update_entry(config_entry, options={**entry_options, "smartthings_spec": spec})
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    assert indexed(config_entry)["device-light-010"].commands
    response = await call_retrieve(home, "打开阳台的灯带")
    [candidate, *_] = response["results"][0]["candidates"]
    assert candidate["entity_id"] == "device-light-010"
    assert candidate["capability_id"] == "main-switch-on"


async def test_a_spec_in_json_lines_skips_bad_lines_by_number(
    home: HomeAssistant, config_entry, smartthings, entry_options, tmp_path, caplog
):
    profiles = json.loads((SHARED_SMARTTHINGS / "spec.jsonl").read_text(encoding="utf-8"))
    lines = [json.dumps(profile, ensure_ascii=False) for profile in profiles]
    lines.insert(2, "{not json")
    path = tmp_path / "spec.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    home.config_entries.async_update_entry(
        config_entry, options={**entry_options, "smartthings_spec": str(path)}
    )
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    assert "line 3: not valid JSON, skipped" in caplog.text
    assert len(config_entry.runtime_data.smartthings.spec) == len(
        {profile["profileId"] for profile in profiles}
    )


async def test_a_missing_spec_file_is_a_repair_issue_not_a_failure(
    home: HomeAssistant, config_entry, smartthings, entry_options
):
    options = {**entry_options, "smartthings_spec": "no/such/spec.jsonl"}
    home.config_entries.async_update_entry(config_entry, options=options)
    assert await home.config_entries.async_setup(config_entry.entry_id)
    await refreshed(home)
    issue = ir.async_get(home).async_get_issue(DOMAIN, SPEC_FILE_UNREADABLE)
    assert issue is not None
    assert "no/such/spec.jsonl" in issue.translation_placeholders["problem"]
    assert "device-light-010" in indexed(config_entry)
