"""Home Assistant's own SmartThings integration as the source: its entry's runtime data, read duck-typed.

The fake entry mimics what Home Assistant 2026.10's SmartThings integration holds
(``SmartThingsData(devices: {deviceId: FullDevice(device, status, online)}, scenes, rooms,
client)``, with pysmartthings 4's ``Device``/``Component`` attribute names and a client
whose ``get_raw_devices`` returns the pages of ``GET /v1/devices``), and registers the
devices and entities as that integration does (identifier ``("smartthings", deviceId)``,
unique ids ``{deviceId}_{component}[...]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry, MockModule, mock_integration

from custom_components.context_retrieval.const import DOMAIN
from custom_components.context_retrieval.diagnostics import async_get_config_entry_diagnostics
from custom_components.context_retrieval.llm_api import API_ID, SMARTTHINGS_COMMAND_TOOL
from demo.smartthings_replay import read_jsonl

from .clients.smartthings_server import SHARED_SMARTTHINGS
from .conftest import call_retrieve, settle, user_turn
from .home import LIGHT_ATTRS

if TYPE_CHECKING:
    from collections.abc import Iterator

LIGHT_PROFILE_COMMANDS = {"main-switch-on", "main-switch-off", "main-switchLevel-setLevel"}
AC_PROFILE_COMMANDS = {"main-switch-on", "main-thermostatCoolingSetpoint-setCoolingSetpoint"}


class SmartThingsAuthenticationFailedError(Exception):
    """pysmartthings' error for a refused token (same name)."""


class SmartThingsConnectionError(Exception):
    """pysmartthings' error for a failed request (same name)."""


@dataclass
class Component:
    """pysmartthings ``Component``."""

    id: str
    capabilities: list[str]
    manufacturer_category: str
    user_category: str | None = None


@dataclass
class Device:
    """pysmartthings ``Device``."""

    device_id: str
    label: str
    room_id: str | None
    components: dict[str, Component]


@dataclass
class FullDevice:
    """Home Assistant's ``FullDevice``."""

    device: Device
    status: dict[str, Any]
    online: bool = True


@dataclass
class SmartThingsData:
    """Home Assistant's ``SmartThingsData``."""

    devices: dict[str, FullDevice]
    scenes: dict[str, Any]
    rooms: dict[str, str]
    client: Any


@dataclass
class Client:
    """pysmartthings 4's ``SmartThings``: raw device pages and commands."""

    items: list[dict[str, Any]]
    page_size: int = 2
    error: Exception | None = None
    error_body: dict[str, Any] | None = None
    """The body of a 429 or 5xx answer, which pysmartthings hands back as a page."""
    commands: list[tuple[Any, ...]] = field(default_factory=list)

    async def get_raw_devices(self) -> list[dict[str, Any]]:
        if self.error is not None:
            raise self.error
        if self.error_body is not None:
            return [self.error_body]
        return [
            {"items": self.items[start : start + self.page_size], "_links": {}}
            for start in range(0, len(self.items), self.page_size)
        ]

    async def execute_device_command(
        self, device_id: str, capability: str, command: str, component: str = "main", argument: Any = None
    ) -> None:
        if self.error is not None:
            raise self.error
        self.commands.append((device_id, capability, command, component, argument))


@dataclass
class ModelsOnlyClient:
    """A client without raw JSON (another pysmartthings version)."""

    async def execute_device_command(self, *args: Any) -> None:
        raise NotImplementedError


SHARED_ITEMS = {item["deviceId"]: item for item in read_jsonl(SHARED_SMARTTHINGS / "devices.jsonl")}
ROOMS = {room["roomId"]: room["name"] for room in read_jsonl(SHARED_SMARTTHINGS / "rooms.jsonl")}


def model_of(item: dict[str, Any]) -> FullDevice:
    """Return the pysmartthings model of a raw device item."""
    components = {
        component["id"]: Component(
            id=component["id"],
            capabilities=[capability["id"] for capability in component.get("capabilities", [])],
            manufacturer_category=component["categories"][0]["name"],
        )
        for component in item["components"]
    }
    return FullDevice(Device(item["deviceId"], item["label"], item.get("roomId"), components), {"main": {}})


@dataclass(frozen=True)
class Registered:
    """A SmartThings device as Home Assistant's integration registers it, with its entities."""

    device_id: str
    entities: tuple[tuple[str, str, str, bool], ...]
    """(entity_id, unique id suffix, friendly name, exposed)."""


REGISTERED = (
    Registered("device-light-010", (("light.balcony_strip", "_main", "阳台灯带", True),)),
    Registered(
        "device-ac-002",
        (
            (
                "sensor.bedroom_ac_temperature",
                "_main_temperatureMeasurement_temperature_temperature",
                "卧室空调温度",
                True,
            ),
            ("climate.bedroom_ac", "_main", "卧室空调", True),
        ),
    ),
    Registered("device-light-001", (("light.living_ceiling", "_main", "客厅顶灯", False),)),
    Registered(
        "device-switch-001",
        (
            ("light.kitchen_hood_lamp", "_hood", "厨房油烟机灯", True),
            ("switch.kitchen_wall_switch", "_main_switch_switch_switch", "厨房墙壁开关", True),
        ),
    ),
)


def register(hass: HomeAssistant, owner: MockConfigEntry) -> None:
    """Register the devices and entities the way Home Assistant's SmartThings integration does."""
    areas, devices, entities = ar.async_get(hass), dr.async_get(hass), er.async_get(hass)
    for registered in REGISTERED:
        item = SHARED_ITEMS[registered.device_id]
        room = ROOMS[item["roomId"]]
        area = areas.async_get_area_by_name(room) or areas.async_create(room)
        device = devices.async_get_or_create(
            config_entry_id=owner.entry_id,
            identifiers={("smartthings", registered.device_id)},
            name=item["label"],
        )
        devices.async_update_device(device.id, area_id=area.id)
        for entity_id, suffix, name, exposed in registered.entities:
            domain, _, object_id = entity_id.partition(".")
            entities.async_get_or_create(
                domain,
                "smartthings",
                f"{registered.device_id}{suffix}",
                suggested_object_id=object_id,
                device_id=device.id,
                config_entry=owner,
                original_name=name,
            )
            attributes = LIGHT_ATTRS if domain == "light" else {}
            if domain == "climate":
                attributes = {"hvac_modes": ["off", "cool"], "min_temp": 16, "max_temp": 30}
            hass.states.async_set(entity_id, "off", {"friendly_name": name, **attributes})
            async_expose_entity(hass, "conversation", entity_id, exposed)


def runtime_data(client: Any) -> SmartThingsData:
    """Return the entry's runtime data: the registered devices, the rooms, the client."""
    devices = {
        registered.device_id: model_of(SHARED_ITEMS[registered.device_id]) for registered in REGISTERED
    }
    return SmartThingsData(devices=devices, scenes={}, rooms=ROOMS, client=client)


@pytest.fixture
def client() -> Client:
    """The SmartThings entry's client, answering the shared account's raw JSON (all 30 devices)."""
    return Client(list(SHARED_ITEMS.values()))


@pytest.fixture
def owner(ha_core: HomeAssistant) -> Iterator[MockConfigEntry]:
    """Home Assistant's SmartThings entry, added; not loaded again when the test ends.

    Its integration cannot be imported here (no pysmartthings), so Home Assistant must
    never unload it: the test leaves it in the state it would be in without the library.
    """
    entry = MockConfigEntry(domain="smartthings", title="SmartThings", data={"location_id": "location-1"})
    entry.add_to_hass(ha_core)
    yield entry
    entry.mock_state(ha_core, ConfigEntryState.NOT_LOADED)


@pytest.fixture
def smartthings_entry(ha_core: HomeAssistant, owner: MockConfigEntry, client: Client) -> MockConfigEntry:
    """Home Assistant's SmartThings entry, loaded, with its devices and entities registered."""
    register(ha_core, owner)
    owner.runtime_data = runtime_data(client)
    owner.mock_state(ha_core, ConfigEntryState.LOADED)
    return owner


@pytest.fixture
def entry_options() -> dict[str, Any]:
    return {"smartthings_spec": str(SHARED_SMARTTHINGS / "spec.jsonl")}


async def set_up(hass: HomeAssistant, config_entry: MockConfigEntry) -> dict[str, Any]:
    """Set the integration up, let it read the SmartThings entry and rebuild; return the index."""
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    await settle(hass)
    return config_entry.runtime_data.index.current.by_id


@pytest.mark.usefixtures("smartthings_entry")
async def test_a_registered_device_appears_once_as_its_entity_with_smartthings_facts(
    ha_core: HomeAssistant, config_entry
):
    devices = await set_up(ha_core, config_entry)
    strip = devices["light.balcony_strip"]
    assert strip.category == "Light"
    assert strip.profile_id == SHARED_ITEMS["device-light-010"]["profile"]["id"]
    assert {command.id for command in strip.commands} >= LIGHT_PROFILE_COMMANDS
    assert "light.turn_on" in {command.id for command in strip.commands}  # Home Assistant's stay
    assert "device-light-010" not in devices
    ac = devices["climate.bedroom_ac"]
    assert {command.id for command in ac.commands} >= AC_PROFILE_COMMANDS
    sensor = devices["sensor.bedroom_ac_temperature"]
    assert not any(command.id.startswith("main-") for command in sensor.commands)
    # Left unexposed in Home Assistant, so left out here too, under either id.
    assert "light.living_ceiling" not in devices
    assert "device-light-001" not in devices
    # The raw JSON lists all 30 devices; only those the entry has are read.
    assert not any(device_id.startswith("device-") for device_id in devices)
    built = config_entry.runtime_data.index.current
    assert built.smartthings_ids == {
        "light.balcony_strip": "device-light-010",
        "climate.bedroom_ac": "device-ac-002",
        "switch.kitchen_wall_switch": "device-switch-001",  # the main component's, not the hood lamp
    }
    assert devices["switch.kitchen_wall_switch"].category == "Switch"
    assert not any(command.id.startswith("main-") for command in devices["light.kitchen_hood_lamp"].commands)


@pytest.mark.usefixtures("smartthings_entry")
async def test_the_entity_answers_with_its_smartthings_commands(ha_core: HomeAssistant, config_entry):
    await set_up(ha_core, config_entry)
    response = await call_retrieve(ha_core, "把阳台的灯带调到50%")
    top = response["results"][0]["candidates"][0]
    assert top["entity_id"] == "light.balcony_strip"
    commands = {candidate["capability_id"] for candidate in response["results"][0]["candidates"]}
    commands.add(top["capability_id"])
    assert "main-switchLevel-setLevel" in response["yaml"] or "main-switchLevel-setLevel" in commands


@pytest.mark.usefixtures("smartthings_entry")
async def test_an_agent_runs_a_spec_command_through_home_assistants_client(
    ha_core: HomeAssistant, config_entry, client: Client
):
    await set_up(ha_core, config_entry)
    api = next(api for api in llm.async_get_apis(ha_core) if api.id == API_ID)
    context = llm.LLMContext(
        platform="conversation", context=None, language="zh-Hans", assistant="conversation", device_id=None
    )
    instance = await api.async_instance(context, in_prompt=False)
    with user_turn(ha_core, "把阳台的灯带调到50%"):
        result = await instance.async_call_tool(
            llm.ToolInput(
                SMARTTHINGS_COMMAND_TOOL,
                {"device_id": "light.balcony_strip", "command_id": "main-switchLevel-setLevel", "value": 50},
            )
        )
        assert result.data["success"] is True
        assert client.commands == [("device-light-010", "switchLevel", "setLevel", "main", [50])]

        client.error = SmartThingsConnectionError("Timeout occurred while connecting to SmartThings")
        failed = await instance.async_call_tool(
            llm.ToolInput(
                SMARTTHINGS_COMMAND_TOOL, {"device_id": "light.balcony_strip", "command_id": "main-switch-on"}
            )
        )
    assert failed.error is True
    assert "Timeout occurred" in failed.data["error"]


@pytest.mark.usefixtures("smartthings_entry")
async def test_a_failed_read_keeps_the_last_list_and_a_refused_token_is_reported(
    ha_core: HomeAssistant, config_entry, client: Client
):
    await set_up(ha_core, config_entry)
    client.error = SmartThingsAuthenticationFailedError("Authentication failed with SmartThings")
    response = await ha_core.services.async_call(DOMAIN, "refresh", {}, blocking=True, return_response=True)
    assert response["smartthings"]["auth_failed"] is True
    assert response["smartthings"]["account"] == "home_assistant"
    assert response["smartthings"]["entry_state"] == "loaded"
    assert "light.balcony_strip" in config_entry.runtime_data.index.current.by_id
    assert config_entry.runtime_data.index.current.smartthings_ids  # the last good list
    # Home Assistant's SmartThings entry re-authenticates itself; ours starts no flow.
    assert not [flow for flow in ha_core.config_entries.flow.async_progress() if flow["handler"] == DOMAIN]

    client.error = SmartThingsConnectionError("Error occurred while connecting to SmartThings")
    await ha_core.services.async_call(DOMAIN, "refresh", {}, blocking=True)
    diagnostics = await async_get_config_entry_diagnostics(ha_core, config_entry)
    assert diagnostics["smartthings"]["auth_failed"] is False
    assert "SmartThingsConnectionError" in diagnostics["smartthings"]["last_error"]
    assert diagnostics["smartthings"]["devices"] == 4

    client.error = None
    client.error_body = {"requestId": "1", "error": {"code": "TooManyRequestError"}}
    await ha_core.services.async_call(DOMAIN, "refresh", {}, blocking=True)
    diagnostics = await async_get_config_entry_diagnostics(ha_core, config_entry)
    assert "TooManyRequestError" in diagnostics["smartthings"]["last_error"]
    assert diagnostics["smartthings"]["devices"] == 4
    assert "main-switch-on" in {
        c.id for c in config_entry.runtime_data.index.current.by_id["light.balcony_strip"].commands
    }


async def test_removing_the_smartthings_entry_removes_what_it_gave(
    ha_core: HomeAssistant, config_entry, smartthings_entry: MockConfigEntry
):
    await set_up(ha_core, config_entry)
    smartthings_entry.mock_state(ha_core, ConfigEntryState.NOT_LOADED)  # as unloading leaves it
    mock_integration(ha_core, MockModule("smartthings"))  # removing asks the integration
    await ha_core.config_entries.async_remove(smartthings_entry.entry_id)
    await ha_core.async_block_till_done(wait_background_tasks=True)
    await settle(ha_core)
    built = config_entry.runtime_data.index.current
    assert built.smartthings_ids == {}
    assert not any(device_id.startswith("device-") for device_id in built.by_id)


async def test_an_entry_that_is_not_loaded_is_reported_then_read_once_it_loads(
    ha_core: HomeAssistant, config_entry, owner: MockConfigEntry, client: Client
):
    register(ha_core, owner)
    owner.mock_state(ha_core, ConfigEntryState.SETUP_RETRY)
    devices = await set_up(ha_core, config_entry)
    assert "light.balcony_strip" in devices  # Home Assistant's entity, without SmartThings' facts
    assert "main-switch-on" not in {command.id for command in devices["light.balcony_strip"].commands}
    diagnostics = await async_get_config_entry_diagnostics(ha_core, config_entry)
    assert diagnostics["smartthings"]["entry_state"] == "setup_retry"
    assert "setup_retry" in diagnostics["smartthings"]["last_error"]

    owner.runtime_data = runtime_data(client)
    owner.mock_state(ha_core, ConfigEntryState.LOADED)
    await ha_core.async_block_till_done(wait_background_tasks=True)
    await settle(ha_core)
    strip = config_entry.runtime_data.index.current.by_id["light.balcony_strip"]
    assert "main-switch-on" in {command.id for command in strip.commands}


async def test_without_raw_json_the_device_models_give_capability_commands(
    ha_core: HomeAssistant, config_entry, owner: MockConfigEntry
):
    register(ha_core, owner)
    data = runtime_data(ModelsOnlyClient())
    data.devices["device-light-010"].device.components["main"] = Component(
        "main", ["switch", "switchLevel"], "Light", user_category="Light"
    )
    owner.runtime_data = data
    owner.mock_state(ha_core, ConfigEntryState.LOADED)
    devices = await set_up(ha_core, config_entry)
    strip = devices["light.balcony_strip"]
    assert {"main-switch-on", "main-switchLevel-setLevel"} <= {command.id for command in strip.commands}
    assert strip.profile_id is None
    assert devices["climate.bedroom_ac"].category == "AirConditioner"


async def test_without_a_smartthings_entry_nothing_is_read_and_nothing_is_reported(
    home: HomeAssistant, config_entry, caplog
):
    await set_up(home, config_entry)
    diagnostics = await async_get_config_entry_diagnostics(home, config_entry)
    assert diagnostics["smartthings"] == {
        "account": "home_assistant",
        "entry_id": None,
        "entry_state": None,
        "devices": 0,
        "fetched_at": diagnostics["smartthings"]["fetched_at"],
        "last_error": None,
        "auth_failed": False,
    }
    assert "SmartThings could not be read" not in caplog.text
    assert not [
        flow
        for flow in home.config_entries.flow.async_progress()
        if flow["context"]["source"] == SOURCE_REAUTH
    ]
