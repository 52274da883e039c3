"""Repair issues: an agent that selected an API reaching every entity as well as ours; a bad spec file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import llm

from .const import DOMAIN, LOGGER

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from homeassistant.core import HomeAssistant

ASSIST_ALSO_SELECTED = "assist_also_selected"
WHOLE_HOME_APIS = (llm.LLM_API_ASSIST, "homeassistant")
"""LLM APIs that give an agent every exposed entity: Assist ("Device control" since 2026.11) and, since
2026.11, the admin-only Home Assistant API (templates and any action)."""
SPEC_FILE_UNREADABLE = "smartthings_spec_unreadable"
DELEGATE_WITHOUT_API = "delegate_without_api"


def agents_selecting_assist_too(hass: HomeAssistant, api_id: str) -> list[str]:
    """Return the titles of the conversation agents that selected ``api_id`` and an API reaching every entity.

    Agents keep their choice in a config subentry (2025.7+) or, for older ones, in their
    entry's options; it is one API id or a list of them.
    """
    titles: list[str] = []
    for entry in hass.config_entries.async_entries():
        settings: list[tuple[str, Mapping[str, Any]]] = [(entry.title, entry.options)]
        settings += [(subentry.title, subentry.data) for subentry in entry.subentries.values()]
        for title, data in settings:
            selected = _selected_apis(data)
            if api_id in selected and any(api in selected for api in WHOLE_HOME_APIS):
                titles.append(title)
    return titles


def _selected_apis(settings: Mapping[str, Any]) -> list[str]:
    """Return the LLM APIs an agent's settings select (stored as one API id or a list of them)."""
    selected = settings.get(CONF_LLM_HASS_API) or []
    return [selected] if isinstance(selected, str) else list(selected)


def _raise_issue(
    hass: HomeAssistant,
    issue_id: str,
    placeholders: dict[str, str],
    severity: ir.IssueSeverity = ir.IssueSeverity.WARNING,
) -> None:
    """Create (or update) the non-fixable issue ``issue_id``, translated with ``placeholders``."""
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id,
        is_fixable=False,
        severity=severity,
        translation_key=issue_id,
        translation_placeholders=placeholders,
    )


def async_check_agents(hass: HomeAssistant, api_id: str) -> None:
    """Raise (or clear) the repair issue for agents that selected Assist and Context Retrieval."""
    titles = agents_selecting_assist_too(hass, api_id)
    if not titles:
        ir.async_delete_issue(hass, DOMAIN, ASSIST_ALSO_SELECTED)
        return
    registry = ir.async_get(hass)
    agents = ", ".join(titles)
    existing = registry.async_get_issue(DOMAIN, ASSIST_ALSO_SELECTED)
    if existing is None or (existing.translation_placeholders or {}).get("agents") != agents:
        LOGGER.warning(
            "%s selected Context Retrieval together with Device control (Assist) or the Home Assistant API, "
            "so the agent still receives every exposed entity; select only Context Retrieval",
            agents,
        )
    _raise_issue(hass, ASSIST_ALSO_SELECTED, {"agents": agents})


def delegate_apis(hass: HomeAssistant, agent_id: str) -> list[str] | None:
    """Return the LLM APIs the agent ``agent_id`` selected, None when that cannot be told."""
    entity = er.async_get(hass).async_get(agent_id)
    entry = (
        hass.config_entries.async_get_entry(entity.config_entry_id)
        if entity and entity.config_entry_id
        else None
    )
    if entity is None or entry is None:
        return None
    subentry = entry.subentries.get(entity.config_subentry_id) if entity.config_subentry_id else None
    return _selected_apis(subentry.data if subentry else entry.options)


def async_check_delegate(hass: HomeAssistant, delegate: str | None, api_id: str) -> None:
    """Raise (or clear) the repair issue of a delegate agent that did not select Context Retrieval.

    Such an agent still gets each request's devices, but not the tools that read and find them,
    and with Assist selected it gets every exposed entity as well.
    """
    apis = delegate_apis(hass, delegate) if delegate else None
    if apis is None or api_id in apis:
        ir.async_delete_issue(hass, DOMAIN, DELEGATE_WITHOUT_API)
        return
    state = hass.states.get(delegate) if delegate else None
    name = state.name if state else str(delegate)
    if ir.async_get(hass).async_get_issue(DOMAIN, DELEGATE_WITHOUT_API) is None:
        LOGGER.warning("The delegate agent %s has not selected the Context Retrieval LLM API", name)
    _raise_issue(hass, DELEGATE_WITHOUT_API, {"agent": name})


def async_report_spec_file(hass: HomeAssistant, problem: str | None) -> None:
    """Raise the repair issue of an unreadable SmartThings spec file, or clear it (``problem`` None)."""
    if problem is None:
        ir.async_delete_issue(hass, DOMAIN, SPEC_FILE_UNREADABLE)
        return
    _raise_issue(hass, SPEC_FILE_UNREADABLE, {"problem": problem}, ir.IssueSeverity.ERROR)
