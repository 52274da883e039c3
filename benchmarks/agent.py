"""The offline conversation agent on held-out dialogues: how often it acts wrongly, how often it acts.

Each set (``benchmarks/data/agent_*``) holds a Home Assistant home (``ha/home.yaml``) and
dialogues written without reading the engine (``agent.jsonl``, see the set's README). The
home is created in a Home Assistant test instance with the integration set up offline (no
LLM, no delegate), every service an entity could be asked for is recorded instead of run
(its effect on the entity's state and attributes is applied, as a real home would show it to
the next turn), and each dialogue's turns go through ``conversation.async_converse`` to the
Context Retrieval agent in one conversation (Home Assistant's own agent answers what it hands
on). Every dialogue starts from the home's labelled states.

Per turn the calls made are compared with the labelled ones:

- *wrong action*: a turn that made calls matching none of the accepted alternatives (an
  ``answer``, ``ask`` or ``other`` turn accepts no call at all);
- *acted on*: a clear command whose calls match an accepted alternative.

Calls are compared by service, entity set and the labelled data fields (numbers within 0.01);
calls of one service with the same data are merged, so one call on two lights equals two.
``python -m benchmarks.agent [--failures]`` prints the tables (and the held-out set's misses).
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import yaml
from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant, ServiceCall, callback
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.context_retrieval.agent_actions import STATE_AFTER
from custom_components.context_retrieval.const import DOMAIN, REBUILD_COOLDOWN
from custom_components.context_retrieval.entity_commands import DOMAIN_SPECS

from .data import REPO_ROOT, read_records
from .hass_instance import test_home_assistant
from .labelled_homes import async_create_layout

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

DATA = REPO_ROOT / "benchmarks" / "data"
HELD_OUT = "agent_d"
"""Written first and looked at while the agent's rules were made: a regression suite now."""
SETS: tuple[tuple[str, str], ...] = (
    (HELD_OUT, "agent_d (tuned on)"),
    ("agent_f", "agent_f (tuned on)"),
    ("agent_g", "agent_g (tuned on since issue 13's second session)"),
    ("agent_i", "agent_i (tuned on after its first measurement)"),
    ("agent_h", "agent_h (tuned on after its first measurement, in issue 13's third session)"),
    ("agent_j", "agent_j (tuned on after issue 13's third session)"),
    ("agent_k", "agent_k (tuned on after issue 13's third session)"),
    ("agent_l", "agent_l (tuned on after its first measurements, in issue 13's fourth session)"),
    ("agent_m", "agent_m (tuned on after its first measurements, in issue 13's fourth session)"),
    ("agent_n", "agent_n (tuned on in issue 13's fifth session)"),
    ("agent_o", "agent_o (a home of 243 entities, tuned on in issue 13's fifth session)"),
    ("agent_p", "agent_p (held-out in issue 13's fifth session, tuned on in its sixth)"),
    ("agent_q", "agent_q (held-out in issue 13's fifth session, tuned on in its sixth)"),
    ("agent_r", "agent_r (held-out in issue 13's sixth session, tuned on in its seventh)"),
    ("agent_s", "agent_s (held-out in issue 13's sixth session, tuned on in its seventh)"),
    ("agent_t", "agent_t (held-out in issue 13's seventh session, tuned on in its eighth)"),
    ("agent_u", "agent_u (held-out in issue 13's seventh session, tuned on in its eighth)"),
    ("agent_v", "agent_v (held-out in issue 13's eighth session, tuned on in its ninth)"),
    ("agent_w", "agent_w (held-out in issue 13's eighth session, tuned on in its ninth)"),
    ("agent_x", "agent_x (held-out in issue 13's ninth session, tuned on in its tenth)"),
    ("agent_y", "agent_y (held-out in issue 13's ninth session, tuned on in its tenth)"),
    ("agent_z", "agent_z (held-out in issue 13's tenth session, tuned on in its eleventh)"),
    ("agent_aa", "agent_aa (held-out in issue 13's tenth session, tuned on in its eleventh)"),
    ("agent_ab", "agent_ab (held-out in issue 13's eleventh session, measured unread, then tuned on)"),
    ("agent_ac", "agent_ac (held-out in issue 13's eleventh session, tuned on in its twelfth)"),
    ("agent_ad", "agent_ad (held-out in issue 13's eleventh session, tuned on in its twelfth)"),
    ("agent_ae", "agent_ae (held-out in issue 13's twelfth session, tuned on in its thirteenth)"),
    ("agent_af", "agent_af (held-out in issue 13's twelfth session, tuned on in its thirteenth)"),
    (
        "agent_ag",
        "agent_ag (held-out in issue 13's thirteenth session, then tuned on once AI and AJ were written)",
    ),
    (
        "agent_ah",
        "agent_ah (held-out in issue 13's thirteenth session, then tuned on once AI and AJ were written)",
    ),
    ("agent_ai", "agent_ai (held-out in issue 13's thirteenth session, tuned on in its fourteenth)"),
    ("agent_aj", "agent_aj (held-out in issue 13's thirteenth session, tuned on in its fourteenth)"),
    ("agent_ak", "agent_ak (held-out in issue 13's thirteenth session, tuned on in its fourteenth)"),
    ("agent_al", "agent_al (held-out in issue 13's thirteenth session, tuned on in its fourteenth)"),
    ("agent_am", "agent_am (held-out in issue 13's fourteenth session, tuned on in its fifteenth)"),
    ("agent_an", "agent_an (held-out in issue 13's fourteenth session, tuned on in its fifteenth)"),
    ("agent_ao", "agent_ao (held-out in issue 13's fourteenth session, tuned on in its fifteenth)"),
    ("agent_ap", "agent_ap (held-out in issue 13's fourteenth session, tuned on in its fifteenth)"),
    (
        "agent_aq",
        "agent_aq (held-out in issue 13's fourteenth and fifteenth sessions, tuned on in its sixteenth)",
    ),
    (
        "agent_ar",
        "agent_ar (held-out in issue 13's fourteenth and fifteenth sessions, tuned on in its sixteenth)",
    ),
    ("agent_as", "agent_as (held-out in issue 13's fifteenth session, tuned on in its sixteenth)"),
    ("agent_at", "agent_at (held-out in issue 13's fifteenth session, tuned on in its sixteenth)"),
    (
        "agent_au",
        "agent_au (held-out in issue 13's fifteenth and sixteenth sessions, tuned on in its seventeenth)",
    ),
    (
        "agent_av",
        "agent_av (held-out in issue 13's fifteenth and sixteenth sessions, tuned on in its seventeenth)",
    ),
    ("agent_aw", "agent_aw (held-out in issue 13's sixteenth session, tuned on in its seventeenth)"),
    ("agent_ax", "agent_ax (held-out in issue 13's sixteenth session, tuned on in its seventeenth)"),
    ("agent_ay", "agent_ay (held-out, written during issue 13's sixteenth session: never read)"),
    ("agent_az", "agent_az (held-out, written during issue 13's sixteenth session: never read)"),
    ("agent_ba", "agent_ba (written in issue 13's sixteenth session to be read while tuning)"),
    ("agent_bb", "agent_bb (written in issue 13's sixteenth session to be read while tuning)"),
    ("agent_bc", "agent_bc (held-out, written as issue 13's seventeenth session began: never read)"),
    ("agent_bd", "agent_bd (held-out, written as issue 13's seventeenth session began: never read)"),
    ("agent_be", "agent_be (held-out, written during issue 13's seventeenth session: never read)"),
    ("agent_bf", "agent_bf (held-out, written during issue 13's seventeenth session: never read)"),
    ("agent_bg", "agent_bg (written in issue 13's seventeenth session to be read while tuning)"),
    ("agent_bh", "agent_bh (written in issue 13's seventeenth session to be read while tuning)"),
)
"""The sets run, in the order they were written: each says whether its misses were read while tuning."""
SEALED = "agent_e"
"""Measured once, when the agent's work is done."""
AGENT = "conversation.context_retrieval"
HOME_ASSISTANT_AGENT = "conversation.home_assistant"
"""Home Assistant's own agent, run on the same dialogues for comparison (what ours must not make worse)."""
TOLERANCE = 0.01
EXTRA_SERVICES = {
    "homeassistant": ("turn_on", "turn_off", "toggle"),
    "scene": ("turn_on",),
    "script": ("turn_on", "turn_off", "toggle"),
    "light": ("turn_on", "turn_off", "toggle"),
    "switch": ("turn_on", "turn_off", "toggle"),
}
"""Services recorded beyond the capability table's (Home Assistant's own agent may call them)."""

type Call = tuple[str, frozenset[str], tuple[tuple[str, Any], ...]]


@dataclass(slots=True)
class TurnOutcome:
    """What one turn did, against its label."""

    dialogue: str
    kind: str
    text: str
    expected: str
    clear: bool
    calls: list[Call]
    matched: bool
    speech: str

    @property
    def wrong(self) -> bool:
        """Return True when the turn made calls that were not meant."""
        return bool(self.calls) and not self.matched

    @property
    def acted(self) -> bool:
        """Return True when the turn carried out what was meant."""
        return self.expected == "act" and self.matched


@dataclass(slots=True)
class Recorder:
    """Records the service calls of the turn under way."""

    calls: list[ServiceCall] = field(default_factory=list)

    @callback
    def register(self, hass: HomeAssistant) -> None:
        """Record every service the capability table or Home Assistant's agent may call."""
        services: dict[str, set[str]] = {domain: set(names) for domain, names in EXTRA_SERVICES.items()}
        for domain, spec in DOMAIN_SPECS.items():
            services.setdefault(domain, set()).update(rule.service for rule in spec.rules if rule.service)
        for domain, names in services.items():
            for name in names:
                hass.services.async_register(domain, name, self._record)

    async def _record(self, call: ServiceCall) -> None:
        self.calls.append(call)
        _apply(call.hass, call)


ATTRIBUTE_OF_FIELD = {
    "temperature": "temperature",
    "percentage": "percentage",
    "volume_level": "volume_level",
    "position": "current_position",
    "tilt_position": "current_tilt_position",
    "color_temp_kelvin": "color_temp_kelvin",
    "fan_mode": "fan_mode",
    "preset_mode": "preset_mode",
}
"""The attribute a service field sets."""


def _apply(hass: HomeAssistant, call: ServiceCall) -> None:
    """Give the called entities the states and attributes the call leaves them in, as a real home would.

    Dialogues are labelled against the state after their earlier turns (再低一度 after 调到25度).
    """
    entity_ids = call.data.get("entity_id") or []
    for entity_id in [entity_ids] if isinstance(entity_ids, str) else entity_ids:
        state = hass.states.get(entity_id)
        if state is None:
            continue
        value = str(STATE_AFTER.get(call.service, state.state))
        attributes = dict(state.attributes)
        for key, attribute in ATTRIBUTE_OF_FIELD.items():
            if key in call.data:
                attributes[attribute] = call.data[key]
        if "brightness_pct" in call.data:
            attributes["brightness"] = round(call.data["brightness_pct"] * 255 / 100)
        if "brightness_step_pct" in call.data:
            step = round(call.data["brightness_step_pct"] * 255 / 100)
            attributes["brightness"] = max(0, min(255, (attributes.get("brightness") or 0) + step))
        if call.service == "set_hvac_mode" or "hvac_mode" in call.data:
            value = call.data["hvac_mode"]
        hass.states.async_set(entity_id, value, attributes)


def merged(calls: list[dict[str, Any]] | list[Call]) -> set[Call]:
    """Return calls keyed by service and data, their entities merged."""
    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], set[str]] = {}
    for call in calls:
        if isinstance(call, dict):
            service, entities = call["service"], call["entity_ids"]
            data = tuple(sorted((key, _frozen(value)) for key, value in call.get("data", {}).items()))
        else:
            service, entities, data = call
        groups.setdefault((service, tuple(data)), set()).update(entities)
    return {(service, frozenset(entities), data) for (service, data), entities in groups.items()}


def _frozen(value: Any) -> Any:
    """Return a hashable form of a service data value (a colour's list)."""
    return tuple(_frozen(item) for item in value) if isinstance(value, (list, tuple)) else value


def _value_matches(expected: Any, actual: Any) -> bool:
    if (
        isinstance(expected, (int, float))
        and isinstance(actual, (int, float))
        and not isinstance(actual, bool)
    ):
        return abs(float(expected) - float(actual)) <= TOLERANCE
    return expected == actual or str(expected) == str(actual)


def matches(actual: set[Call], alternative: set[Call]) -> bool:
    """Return True when the calls made are the alternative's (labelled data fields compared)."""
    if len(actual) != len(alternative):
        return False
    remaining = list(actual)
    for service, entities, data in alternative:
        found = next(
            (
                call
                for call in remaining
                if call[0] == service
                and call[1] == entities
                and all(_value_matches(value, dict(call[2]).get(key)) for key, value in data)
            ),
            None,
        )
        if found is None:
            return False
        remaining.remove(found)
    return True


def _as_call(call: ServiceCall) -> Call:
    entity_ids = call.data.get("entity_id") or []
    entity_ids = [entity_ids] if isinstance(entity_ids, str) else list(entity_ids)
    data = tuple(sorted((key, _frozen(value)) for key, value in call.data.items() if key != "entity_id"))
    return (f"{call.domain}.{call.service}", frozenset(entity_ids), data)


@asynccontextmanager
async def async_agent_home(directory: Path) -> AsyncIterator[tuple[HomeAssistant, Recorder, MockConfigEntry]]:
    """Yield a test instance holding a set's home, its services recorded, the integration set up offline."""
    layout = yaml.safe_load((directory / "ha" / "home.yaml").read_text(encoding="utf-8"))
    async with test_home_assistant() as hass:
        await async_create_layout(hass, layout)
        recorder = Recorder()
        recorder.register(hass)
        entry = MockConfigEntry(domain=DOMAIN, title="Context Retrieval", options={})
        entry.add_to_hass(hass)
        await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        yield hass, recorder, entry
        await hass.async_stop(force=True)


async def _async_pause(hass: HomeAssistant) -> None:
    """Let the moment pass that a person leaves between two turns, whatever the machine's speed.

    A call that reshapes a device (a light turned on gains a colour mode) rebuilds the index once
    the home has been quiet for ``REBUILD_COOLDOWN``; on a real clock, whether that lands before
    the next turn would depend on how busy the machine is, and so would the figures.
    """
    await hass.async_block_till_done()
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=REBUILD_COOLDOWN + 1))
    await hass.async_block_till_done()


async def _async_run_set(directory: Path, agent_id: str = AGENT) -> list[TurnOutcome]:
    """Run every dialogue of a set through an agent; return one outcome per turn."""
    outcomes: list[TurnOutcome] = []
    async with async_agent_home(directory) as (hass, recorder, _entry):
        initial = {state.entity_id: state for state in hass.states.async_all()}
        for dialogue in read_records(directory / "agent.jsonl"):
            for state in initial.values():  # each dialogue starts from the labelled home
                hass.states.async_set(state.entity_id, state.state, state.attributes)
            await _async_pause(hass)
            conversation_id = f"bench-{dialogue['id']}"
            for turn in dialogue["turns"]:
                recorder.calls.clear()
                result = await conversation.async_converse(
                    hass, turn["text"], conversation_id, Context(), language="zh-Hans", agent_id=agent_id
                )
                await _async_pause(hass)
                expect = turn["expect"]
                calls = [_as_call(call) for call in recorder.calls]
                accepted = [merged(alternative) for alternative in expect.get("accept", [])]
                made = merged(calls)
                outcomes.append(
                    TurnOutcome(
                        dialogue=dialogue["id"],
                        kind=dialogue["class"],
                        text=turn["text"],
                        expected=expect["outcome"],
                        clear=bool(expect.get("clear")),
                        calls=calls,
                        matched=bool(made) and any(matches(made, alternative) for alternative in accepted),
                        speech=result.response.speech.get("plain", {}).get("speech", ""),
                    )
                )
    return outcomes


@dataclass(frozen=True, slots=True)
class AgentFigures:
    """The two figures the issue asks for, and the rest of the breakdown."""

    turns: int
    wrong: int
    clear: int
    clear_acted: int
    unclear: int
    unclear_acted: int
    unclear_wrong: int
    not_act: int
    not_act_wrong: int

    @classmethod
    def of(cls, outcomes: list[TurnOutcome]) -> AgentFigures:
        """Return the figures of a set's turns."""
        clear = [o for o in outcomes if o.expected == "act" and o.clear]
        unclear = [o for o in outcomes if o.expected == "act" and not o.clear]
        other = [o for o in outcomes if o.expected != "act"]
        return cls(
            turns=len(outcomes),
            wrong=sum(o.wrong for o in outcomes),
            clear=len(clear),
            clear_acted=sum(o.acted for o in clear),
            unclear=len(unclear),
            unclear_acted=sum(o.acted for o in unclear),
            unclear_wrong=sum(o.wrong for o in unclear),
            not_act=len(other),
            not_act_wrong=sum(o.wrong for o in other),
        )

    def row(self, name: str) -> str:
        """Return the set's Markdown table row."""
        return (
            f"| {name} | {self.turns} | {self.wrong} ({self.wrong / self.turns:.1%}) | "
            f"{self.clear_acted}/{self.clear} ({self.clear_acted / self.clear:.1%}) | "
            f"{self.unclear_acted}/{self.unclear} acted, {self.unclear_wrong} wrong | "
            f"{self.not_act_wrong}/{self.not_act} |"
        )


def agent_section(*, sealed: bool = True, failures: bool = False, only: tuple[str, ...] = ()) -> str:
    """Run the sets (``only`` those named); return the table (and the misses when asked) as Markdown.

    The misses listed are agent_d's, or those of every set named in ``only``.
    """
    lines = [
        "## The offline conversation agent (held-out dialogues)",
        "",
        "| set | turns | wrong actions (target ≤ 1 %) | clear commands acted on (≥ 80 %) | "
        "unclear commands | calls on questions, asks, other |",
        "|---|---|---|---|---|---|",
    ]
    missed: dict[str, list[TurnOutcome]] = {}
    worse: list[str] = []
    sets = [(name, title) for name, title in SETS if (DATA / name).is_dir()]
    sets += [(SEALED, "agent_e (sealed)")] if sealed else []
    if only:
        sets = [(name, title) for name, title in sets if name in only]
    for name, title in sets:
        outcomes = asyncio.run(_async_run_set(DATA / name))
        theirs = asyncio.run(_async_run_set(DATA / name, HOME_ASSISTANT_AGENT))
        lines.append(AgentFigures.of(outcomes).row(title))
        lines.append(AgentFigures.of(theirs).row(f"{name}, Home Assistant's own agent alone"))
        pairs = list(zip(outcomes, theirs, strict=True))
        lost = [o for o, t in pairs if t.acted and not o.acted]
        shared = [o for o, t in pairs if o.wrong and sorted(o.calls) == sorted(t.calls)]
        worse.append(
            f"{name}: {len(lost)} turns Home Assistant's agent alone carries out and ours does not; "
            f"{len(shared)} of our wrong actions are the calls Home Assistant's agent alone makes"
        )
        if name in (only or (HELD_OUT,)):
            missed[name] = outcomes
    lines += ["", *worse]
    for name, outcomes in missed.items() if failures else ():
        lines += ["", f"### {name}: wrong actions and clear commands not acted on", ""]
        misses = [o for o in outcomes if o.wrong or (o.expected == "act" and o.clear and not o.acted)]
        lines += [
            f"- {o.dialogue} [{o.kind}] {o.text} → {'WRONG ' if o.wrong else ''}"
            f"{sorted(o.calls) or 'no call'}; said: {o.speech}"
            for o in misses
        ]
        counts = Counter(o.kind for o in misses)
        lines += ["", "by class: " + ", ".join(f"{kind} {count}" for kind, count in counts.most_common())]
    return "\n".join(lines)


def main() -> None:
    """Print the section: ``python -m benchmarks.agent [--failures]``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--failures", action="store_true", help="list the misses (agent_d's, or the sets named)"
    )
    parser.add_argument("sets", nargs="*", help="run only these sets (agent_h ...)")
    parser.add_argument("--held-out-only", action="store_true", help="leave the sealed set unmeasured")
    args = parser.parse_args()
    print(agent_section(sealed=not args.held_out_only, failures=args.failures, only=tuple(args.sets)))


if __name__ == "__main__":
    main()
