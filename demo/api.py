"""A small client of Home Assistant's REST and websocket APIs: onboarding, login, calls.

Only what the demo needs, with a timeout on every request. Every failure is a
``DemoError`` whose message says which request failed and what Home Assistant said.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Self

import aiohttp

if TYPE_CHECKING:
    from types import TracebackType

REQUEST_TIMEOUT = 30.0
"""Seconds one REST request or websocket command may take."""
ONBOARDING_STEPS = ("user", "core_config", "analytics", "integration")
MESSAGE_LIMIT = 500
"""Characters of an error answer quoted in a DemoError."""


class DemoError(Exception):
    """A step of the demo failed; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Credentials:
    """The owner account the demo creates (and logs in with when it is kept)."""

    name: str
    username: str
    password: str
    language: str


class HomeAssistantApi:
    """REST calls to one Home Assistant, authenticated once a token is known."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str) -> None:
        """Talk to the Home Assistant at ``base_url`` (no trailing slash)."""
        self.session = session
        self.base_url = base_url
        self.client_id = f"{base_url}/"
        """The OAuth client id: the frontend's own, so Home Assistant accepts it as is."""
        self.redirect_uri = f"{self.client_id}?auth_callback=1"
        self.access_token: str | None = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        form: dict[str, str] | None = None,
        auth: bool = True,
    ) -> Any:
        """Return the JSON answer of one request; raise DemoError on any failure."""
        headers = {"Authorization": f"Bearer {self.access_token}"} if auth and self.access_token else {}
        try:
            async with (
                asyncio.timeout(REQUEST_TIMEOUT),
                self.session.request(
                    method, f"{self.base_url}{path}", json=json, data=form, headers=headers
                ) as response,
            ):
                text = await response.text()
                if response.status >= HTTPStatus.BAD_REQUEST:
                    raise DemoError(f"{method} {path}: HTTP {response.status}: {text[:MESSAGE_LIMIT]}")
                return await response.json(content_type=None) if text else None
        except TimeoutError as err:
            raise DemoError(f"{method} {path}: no answer within {REQUEST_TIMEOUT:.0f} s") from err
        except aiohttp.ClientError as err:
            raise DemoError(f"{method} {path}: {err}") from err

    async def async_is_up(self) -> bool:
        """Return True once the HTTP server answers at all (before login, 401 is an answer)."""
        try:
            async with asyncio.timeout(2), self.session.get(f"{self.base_url}/api/") as response:
                return response.status > 0
        except (TimeoutError, aiohttp.ClientError):
            return False

    async def async_onboarding_steps(self) -> dict[str, bool]:
        """Return each onboarding step and whether it is done.

        Once every step is done, Home Assistant stops serving the list (404).
        """
        try:
            steps = await self.request("GET", "/api/onboarding", auth=False)
        except DemoError as err:
            if f"HTTP {HTTPStatus.NOT_FOUND.value}" not in str(err):
                raise
            return dict.fromkeys(ONBOARDING_STEPS, True)
        return {step["step"]: step["done"] for step in steps}

    async def async_onboard(self, credentials: Credentials) -> bool:
        """Onboard a fresh Home Assistant, or log in to one onboarded before; return True if onboarded now.

        Onboarding creates the owner (and Home Assistant's default areas) and returns
        an authorization code, exchanged for a token; the remaining steps (location,
        analytics, integrations) are then confirmed as the UI would, so the UI opens
        straight to the dashboard.
        """
        steps = await self.async_onboarding_steps()
        if steps.get("user"):
            await self._async_log_in(credentials)
            created = False
        else:
            answer = await self.request(
                "POST",
                "/api/onboarding/users",
                auth=False,
                json={
                    "client_id": self.client_id,
                    "name": credentials.name,
                    "username": credentials.username,
                    "password": credentials.password,
                    "language": credentials.language,
                },
            )
            await self._async_fetch_token(answer["auth_code"])
            created = True
        finish = {"client_id": self.client_id, "redirect_uri": self.redirect_uri}
        for step, body in (("core_config", None), ("analytics", None), ("integration", finish)):
            if not steps.get(step):
                await self.request("POST", f"/api/onboarding/{step}", json=body)
        return created

    async def _async_log_in(self, credentials: Credentials) -> None:
        """Log in through the login flow, as the login page does."""
        flow = await self.request(
            "POST",
            "/auth/login_flow",
            auth=False,
            json={
                "client_id": self.client_id,
                "handler": ["homeassistant", None],
                "redirect_uri": self.redirect_uri,
            },
        )
        result = await self.request(
            "POST",
            f"/auth/login_flow/{flow['flow_id']}",
            auth=False,
            json={
                "client_id": self.client_id,
                "username": credentials.username,
                "password": credentials.password,
            },
        )
        if result.get("type") != "create_entry":
            raise DemoError(
                f"cannot log in as {credentials.username!r} ({result.get('errors')}); "
                "delete the kept demo state to start afresh"
            )
        await self._async_fetch_token(result["result"])

    async def _async_fetch_token(self, code: str) -> None:
        """Exchange an authorization code for an access token."""
        answer = await self.request(
            "POST",
            "/auth/token",
            auth=False,
            form={"grant_type": "authorization_code", "code": code, "client_id": self.client_id},
        )
        self.access_token = answer["access_token"]

    def websocket(self) -> WebSocketApi:
        """Return a websocket connection (use it with ``async with``)."""
        if self.access_token is None:
            raise DemoError("no access token: onboard or log in first")
        return WebSocketApi(self.session, f"{self.base_url}/api/websocket", self.access_token)


WS_DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024
"""aiohttp's own bound on one websocket message, in bytes."""


async def async_authenticated_socket(
    session: aiohttp.ClientSession,
    url: str,
    access_token: str,
    *,
    within: float = REQUEST_TIMEOUT,
    max_message: int = WS_DEFAULT_MAX_MESSAGE,
) -> aiohttp.ClientWebSocketResponse:
    """Return a websocket connection to Home Assistant, authenticated with ``access_token``.

    ``within`` seconds to connect and authenticate; ``max_message`` 0 reads answers of any size.
    Raise DemoError when it cannot connect or is refused.
    """
    try:
        async with asyncio.timeout(within):
            socket = await session.ws_connect(url, max_msg_size=max_message)
            await socket.receive_json()  # auth_required
            await socket.send_json({"type": "auth", "access_token": access_token})
            answer = await socket.receive_json()
    except (TimeoutError, aiohttp.ClientError, TypeError, ValueError) as err:
        raise DemoError(f"websocket {url}: cannot connect ({err!r})") from err
    if answer.get("type") != "auth_ok":
        await socket.close()
        raise DemoError(f"websocket {url}: authentication refused ({answer})")
    return socket


class WebSocketApi:
    """One authenticated websocket connection; commands are sent one at a time."""

    def __init__(self, session: aiohttp.ClientSession, url: str, access_token: str) -> None:
        """Connect to ``url`` with ``access_token`` when entered."""
        self._session = session
        self._url = url
        self._access_token = access_token
        self._ids = itertools.count(1)
        self._socket: aiohttp.ClientWebSocketResponse | None = None

    async def __aenter__(self) -> Self:
        """Connect and authenticate."""
        self._socket = await async_authenticated_socket(self._session, self._url, self._access_token)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the connection."""
        if self._socket is not None:
            await self._socket.close()

    async def call(self, command: str, **fields: Any) -> Any:
        """Return the result of one command; raise DemoError when Home Assistant reports an error."""
        if self._socket is None:
            raise DemoError("websocket used outside its async with block")
        message_id = next(self._ids)
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                await self._socket.send_json({"id": message_id, "type": command, **fields})
                while True:
                    answer = await self._socket.receive_json()
                    if answer.get("id") == message_id and answer.get("type") == "result":
                        break
        except (TimeoutError, aiohttp.ClientError, TypeError, ValueError) as err:
            raise DemoError(f"websocket {command}: no answer ({err!r})") from err
        if not answer.get("success"):
            raise DemoError(f"websocket {command}: {answer.get('error')}")
        return answer.get("result")
