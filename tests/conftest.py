"""Fixtures shared by the Home Assistant tests (pytest-homeassistant-custom-component)."""

from __future__ import annotations

import pytest

# Import the project's package before the plugin's testing_config/custom_components can shadow it.
import custom_components.context_retrieval  # noqa: F401


@pytest.fixture(autouse=True)
def _custom_integrations_for_hass_tests(request: pytest.FixtureRequest) -> None:
    """Let Home Assistant load custom integrations in every test that starts one."""
    if "hass" in request.fixturenames:
        request.getfixturevalue("enable_custom_integrations")
