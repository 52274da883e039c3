"""SmartThings REST client: a location's devices (paged) and rooms, and device commands.

``GET /v1/devices?locationId=`` follows ``_links.next`` page by page (only to the same API
root, so the token never goes elsewhere); ``GET /v1/locations/{id}/rooms``;
``POST /v1/devices/{id}/commands``. Requests go through Home Assistant's aiohttp session
with the personal access token (or OAuth token) as a bearer token; 429 honours
``Retry-After`` and 5xx is retried within the request's time budget (``json_http``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final
from urllib.parse import quote

from .json_http import (
    EndpointAuthError,
    EndpointConnectionError,
    EndpointError,
    EndpointRateLimitError,
    EndpointResponseError,
    ErrorClasses,
    RetryPolicy,
    async_request_json,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import aiohttp

API_ROOT: Final = "https://api.smartthings.com/v1"
MAX_PAGES: Final = 200
"""Pages of devices followed at most (200 devices a page is SmartThings' default)."""
REQUEST_POLICY: Final = RetryPolicy(timeout=30.0, max_attempts=3)


class SmartThingsError(EndpointError):
    """SmartThings gave no usable answer."""


class SmartThingsAuthError(SmartThingsError, EndpointAuthError):
    """SmartThings rejected the token (401/403): it expired or lacks a scope."""


class SmartThingsConnectionError(SmartThingsError, EndpointConnectionError):
    """SmartThings could not be reached, timed out or failed (5xx)."""


class SmartThingsRateLimitError(SmartThingsError, EndpointRateLimitError):
    """SmartThings answered 429 for longer than a request may wait."""


class SmartThingsResponseError(SmartThingsError, EndpointResponseError):
    """SmartThings answered, but not as its API says (another 4xx, malformed JSON, wrong shape)."""


@dataclass(slots=True)
class SmartThingsClient:
    """One SmartThings account (token), through Home Assistant's shared aiohttp session."""

    errors: ClassVar[ErrorClasses] = ErrorClasses(
        SmartThingsAuthError, SmartThingsConnectionError, SmartThingsRateLimitError, SmartThingsResponseError
    )

    session: aiohttp.ClientSession
    token: str
    base_url: str = API_ROOT
    policy: RetryPolicy = field(default=REQUEST_POLICY)

    async def async_devices(self, location_id: str) -> list[dict[str, Any]]:
        """Return every device item of a location, following the pages."""
        url: str | None = f"{self._root}/devices?locationId={quote(location_id)}"
        items: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return items
            body = await self._async_get(url)
            items.extend(self._items(body, url))
            url = self._next_page(body, url)
        raise SmartThingsResponseError(f"{self._root}/devices listed more than {MAX_PAGES} pages")

    async def async_rooms(self, location_id: str) -> list[dict[str, Any]]:
        """Return the room items of a location."""
        url = f"{self._root}/locations/{quote(location_id)}/rooms"
        return self._items(await self._async_get(url), url)

    async def async_execute(self, device_id: str, commands: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Send commands (``component``, ``capability``, ``command``, ``arguments``) to a device."""
        url = f"{self._root}/devices/{quote(device_id)}/commands"
        body = await async_request_json(
            self.session,
            self.errors,
            "POST",
            url,
            payload={"commands": [dict(command) for command in commands]},
            headers=self._headers,
            policy=self.policy,
        )
        if not isinstance(body, dict):
            raise SmartThingsResponseError(f"{url} did not answer an object")
        return body

    @property
    def _root(self) -> str:
        return self.base_url.rstrip("/")

    @property
    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}

    async def _async_get(self, url: str) -> Any:
        return await async_request_json(
            self.session, self.errors, "GET", url, headers=self._headers, policy=self.policy
        )

    @staticmethod
    def _items(body: Any, url: str) -> list[dict[str, Any]]:
        """Return the ``items`` of a list answer."""
        items = body.get("items") if isinstance(body, dict) else None
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise SmartThingsResponseError(f"{url} did not answer a list of items")
        return items

    def _next_page(self, body: dict[str, Any], url: str) -> str | None:
        """Return the next page's URL; one outside the API root is refused (the token stays home)."""
        links = body.get("_links")
        following = links.get("next") if isinstance(links, dict) else None
        href = following.get("href") if isinstance(following, dict) else None
        if not href:
            return None
        if not isinstance(href, str) or not href.startswith(f"{self._root}/"):
            raise SmartThingsResponseError(f"{url} links its next page outside {self._root}: {href!r}")
        return href
