"""The SmartThings REST client against a local server replaying ``tests/data/smartthings``."""

from __future__ import annotations

import time

import aiohttp
import pytest

from custom_components.context_retrieval.clients.json_http import RetryPolicy
from custom_components.context_retrieval.clients.smartthings import (
    SmartThingsAuthError,
    SmartThingsClient,
    SmartThingsConnectionError,
    SmartThingsRateLimitError,
    SmartThingsResponseError,
)
from demo.smartthings_replay import LOCATION, TOKEN, Failure, SmartThingsReplay

from .smartthings_server import shared_account

pytestmark = pytest.mark.usefixtures("socket_enabled")
FAST = RetryPolicy(timeout=5.0, max_attempts=3, retry_delay=0.01)


@pytest.fixture
async def smartthings():
    server = shared_account()
    await server.start()
    yield server
    await server.close()


@pytest.fixture
async def session():
    async with aiohttp.ClientSession() as client_session:
        yield client_session


def client(session, server: SmartThingsReplay, token: str = TOKEN) -> SmartThingsClient:
    return SmartThingsClient(session, token, server.base_url, FAST)


async def test_devices_are_read_page_by_page(session, smartthings):
    devices = await client(session, smartthings).async_devices(LOCATION)
    assert [item["deviceId"] for item in devices] == [item["deviceId"] for item in smartthings.devices]
    assert len(devices) == 30
    pages = [path for method, path, _ in smartthings.requests if path.startswith("/v1/devices")]
    assert len(pages) == 5  # 30 devices, 7 a page
    assert pages[0] == f"/v1/devices?locationId={LOCATION}"


async def test_rooms_of_the_location(session, smartthings):
    rooms = await client(session, smartthings).async_rooms(LOCATION)
    assert {room["roomId"]: room["name"] for room in rooms}["room-001"] == "客厅"


async def test_a_command_is_posted_in_the_api_shape(session, smartthings):
    command = {"component": "main", "capability": "switch", "command": "on", "arguments": []}
    answer = await client(session, smartthings).async_execute("device-light-001", [command])
    assert answer["results"][0]["status"] == "ACCEPTED"
    assert smartthings.commands == [("device-light-001", [command])]


async def test_an_expired_token_is_an_auth_error(session, smartthings):
    with pytest.raises(SmartThingsAuthError):
        await client(session, smartthings, token="expired").async_devices(LOCATION)  # noqa: S106


async def test_429_waits_as_told_then_succeeds(session, smartthings):
    smartthings.failures = [Failure(429, headers={"Retry-After": "0.2"})]
    started = time.monotonic()
    rooms = await client(session, smartthings).async_rooms(LOCATION)
    assert len(rooms) == 5
    assert time.monotonic() - started >= 0.2


async def test_429_longer_than_a_request_may_wait_fails(session, smartthings):
    smartthings.failures = [Failure(429, headers={"Retry-After": "3600"})]
    with pytest.raises(SmartThingsRateLimitError):
        await client(session, smartthings).async_rooms(LOCATION)


async def test_server_errors_are_retried_then_reported(session, smartthings):
    smartthings.failures = [Failure(503)]
    assert len(await client(session, smartthings).async_rooms(LOCATION)) == 5
    smartthings.failures = [Failure(500)] * 3
    with pytest.raises(SmartThingsConnectionError):
        await client(session, smartthings).async_rooms(LOCATION)


@pytest.mark.parametrize("body", ["not json", '{"items": "none"}', '{"items": [1, 2]}', "[]"])
async def test_malformed_answers_are_response_errors(session, smartthings, body):
    smartthings.failures = [Failure(200, body=body)]
    with pytest.raises(SmartThingsResponseError):
        await client(session, smartthings).async_rooms(LOCATION)


async def test_an_unknown_device_is_a_response_error(session, smartthings):
    with pytest.raises(SmartThingsResponseError, match="404"):
        await client(session, smartthings).async_execute("no-such-device", [])


async def test_a_next_page_outside_the_api_is_not_followed(session, smartthings):
    smartthings.page_size = 100
    smartthings.failures = [
        Failure(
            200, body='{"items": [], "_links": {"next": {"href": "https://elsewhere.example/v1/devices"}}}'
        )
    ]
    with pytest.raises(SmartThingsResponseError, match="outside"):
        await client(session, smartthings).async_devices(LOCATION)


async def test_an_unreachable_api_is_a_connection_error(session):
    unreachable = SmartThingsClient(session, TOKEN, "http://127.0.0.1:9/v1", FAST)
    with pytest.raises(SmartThingsConnectionError):
        await unreachable.async_rooms(LOCATION)
