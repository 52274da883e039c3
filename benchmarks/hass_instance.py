"""A Home Assistant test instance for benchmarks, with a configuration directory of its own."""

from __future__ import annotations

import tempfile
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from homeassistant import loader
from homeassistant.helpers import frame
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_test_home_assistant

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from homeassistant.core import HomeAssistant


@asynccontextmanager
async def test_home_assistant() -> AsyncIterator[HomeAssistant]:
    """Yield a running instance with ``conversation`` set up; its registries vanish with it.

    Outside pytest nothing mocks storage: the test plugin's default configuration directory
    would keep every run's floors and areas for the next one.
    """
    with tempfile.TemporaryDirectory() as config_dir:
        async with async_test_home_assistant(config_dir=config_dir) as hass:
            frame.async_setup(hass)  # what the test plugin's hass fixture does for each instance
            hass.data.pop(loader.DATA_CUSTOM_COMPONENTS, None)
            hass.config.language = "zh-Hans"
            await async_setup_component(hass, "homeassistant", {})
            await async_setup_component(hass, "conversation", {})
            yield hass
