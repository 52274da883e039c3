"""Turn one Home Assistant entity into the engine's commands, from the shipped spec.

The spec, ``data/ha_commands.yaml``, states per domain which services (and which uses
of them) an entity supports, given its ``supported_features``, colour modes and
attributes, and which facts a question can read. It is read and checked once at
import: an unknown key, feature flag, colour mode or label table raises
``CommandSpecError``, so a typo fails loudly instead of dropping a command.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntFlag
from importlib import resources
from typing import TYPE_CHECKING, Any

import yaml
from homeassistant.components.light import ColorMode

from .core import CommandSpec

if TYPE_CHECKING:
    from homeassistant.core import State

SPEC_FILE = "ha_commands.yaml"
STATE_ID = "state"
"""Id of the readable entity state; an attribute's is ``state:<attribute>``."""
NOUN = "{noun}"
"""Placeholder of a description for what the entity is called (灯, 窗帘, 电视)."""
DEFAULT_NOUN = "default"
ATTRIBUTE_REFERENCE = "$"
"""Prefix of a range value read from the entity's attribute of that name."""
RANGE_KEYS = ("minimum", "maximum", "step", "unit")
_COMMAND_KEYS = frozenset(
    {"service", "field", "zh", "en", "features", "color_modes", "type", "current", "turn_on_first"}
)
_CURRENT_KEYS = frozenset({"attribute", "maximum", "state"})
_READABLE_KEYS = frozenset({"attribute", "zh", "en", "type"})
_VALUE_KEYS = frozenset({"range", "options", "values", "named"})
_DOMAIN_KEYS = frozenset({"features", "nouns", "commands", "readable"})
_NOUN_KEYS = frozenset({"zh", "en", "values"})

type Labels = Mapping[Any, str]
"""Chinese words of Home Assistant values (``cool`` -> 制冷)."""


class CommandSpecError(ValueError):
    """The command spec is malformed."""


@dataclass(frozen=True, slots=True)
class EntityFacts:
    """What the command spec needs to know about one entity."""

    entity_id: str
    state: str
    attributes: Mapping[str, Any]
    """The state's attributes."""
    device_class: str | None = None
    """Registry device_class or original_device_class, else ``attributes["device_class"]``."""
    supported_features: int = 0
    """``attributes["supported_features"]`` or the registry's."""


@dataclass(frozen=True, slots=True)
class Noun:
    """What an entity of a device class is called, and what its on/off state means."""

    zh: str
    en: str
    values: Labels | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    """One use of a service, or one readable fact, of a domain."""

    id: str
    zh: str
    en: str
    readable: bool
    service: str | None = None
    field: str | None = None
    """The service data field the use fills, if it takes an argument."""
    attribute: str | None = None
    """The attribute a readable fact reads (None for the entity state)."""
    features: tuple[int, ...] = ()
    """Feature sets of which the entity must support one (none: always supported)."""
    color_modes: frozenset[str] = frozenset()
    type: str | None = None
    value_range: Mapping[str, Any] | None = None
    options: str | None = None
    """The attribute listing the allowed values."""
    labels: Labels | None = None
    """Chinese words of the values (of ``options`` or the fixed list)."""
    fixed_values: bool = False
    """True when ``labels`` is itself the list of allowed values."""
    current: CurrentValue | None = None
    """Where the entity shows the value the command sets (for a change relative to it)."""
    named: Labels | None = None
    """Points of the range said in words, by their number (2700: 暖光)."""
    turn_on_first: bool = False
    """True when the service leaves an entity that is off off: the agent turns it on first."""


@dataclass(frozen=True, slots=True)
class CurrentValue:
    """Where a command's present value is: an attribute, or without one the entity's state.

    With ``maximum``, the attribute's 0..maximum is 0..100 % (brightness); an air conditioner's hvac
    mode is its state, and so is a number entity's value (written as a number: "36" is 36).
    """

    attribute: str | None
    maximum: float | None = None

    def read(self, state: State) -> float | str | None:
        """Return the present value in the command's terms, None when the entity does not show it.

        A value of a list (a fan mode) is returned as it is.
        """
        value = state.attributes.get(self.attribute) if self.attribute else state.state
        if isinstance(value, str) and value:
            number = _number_in(value) if self.attribute is None else None
            return value if number is None else number
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return value * 100 / self.maximum if self.maximum else float(value)


def _number_in(text: str) -> float | None:
    """Return the number a state is written as (a number entity's "36"), None for words (cool)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True, slots=True)
class DomainSpec:
    """The commands and readable facts of one entity domain."""

    nouns: Mapping[str, Noun]
    rules: tuple[Rule, ...]

    def noun_for(self, device_class: str | None) -> Noun:
        """Return the noun of a device class, else the domain's default (empty if none)."""
        default = self.nouns.get(DEFAULT_NOUN, Noun("", ""))
        return self.nouns.get(device_class, default) if device_class else default

    @property
    def shaping_attributes(self) -> frozenset[str]:
        """Return the attributes whose values shape the commands (option lists, ranges, colour modes)."""
        names = {"supported_color_modes"}
        for rule in self.rules:
            if rule.options:
                names.add(rule.options)
            for raw in (rule.value_range or {}).values():
                if isinstance(raw, str) and raw.startswith(ATTRIBUTE_REFERENCE):
                    names.add(raw.removeprefix(ATTRIBUTE_REFERENCE))
        return frozenset(names)

    @property
    def readable_attributes(self) -> frozenset[str]:
        """Return the attributes whose presence gives a readable fact."""
        return frozenset(rule.attribute for rule in self.rules if rule.attribute)


def current_value(state: State | None, command_id: str) -> float | str | None:
    """Return the present value of what a command sets on an entity (26 for a target of 26 °C), or None."""
    if state is None:
        return None
    rule = _rule_of(state.domain, command_id)
    if rule is None or rule.current is None:
        return None
    return rule.current.read(state)


def turns_on_first(command_id: str) -> bool:
    """Return True when a command leaves an entity that is off off (set_humidity of a dehumidifier)."""
    rule = _rule_of(command_id.partition(".")[0], command_id)
    return rule is not None and rule.turn_on_first


def _rule_of(domain: str, command_id: str) -> Rule | None:
    """Return the rule of a domain's command or readable fact, None when the spec has none."""
    spec = DOMAIN_SPECS.get(domain)
    return next((rule for rule in spec.rules if rule.id == command_id), None) if spec else None


def kind_for(facts: EntityFacts) -> str:
    """Return what the entity's device class is called (窗户 for a window cover), empty without one."""
    spec = DOMAIN_SPECS.get(facts.entity_id.partition(".")[0])
    if spec is None or not facts.device_class or facts.device_class not in spec.nouns:
        return ""
    return spec.nouns[facts.device_class].zh


def commands_for_entity(facts: EntityFacts) -> list[CommandSpec]:
    """Return the entity's supported commands in spec order, then its readable facts.

    A domain the spec does not know gets no commands.
    """
    spec = DOMAIN_SPECS.get(facts.entity_id.partition(".")[0])
    if spec is None:
        return []
    noun = spec.noun_for(facts.device_class)
    return [command for rule in spec.rules if (command := _command(rule, facts, noun)) is not None]


def _command(rule: Rule, facts: EntityFacts, noun: Noun) -> CommandSpec | None:
    """Return the command a rule gives the entity, or None when the entity cannot do it."""
    if not _supported(rule, facts):
        return None
    value_list = _value_list(rule, facts.attributes, noun)
    if rule.options and not value_list and not rule.readable:
        return None  # nothing to choose from; a readable fact still has its state
    return CommandSpec(
        id=rule.id,
        description=rule.zh.replace(NOUN, noun.zh),
        description_en=rule.en.replace(NOUN, noun.en),
        type=rule.type,
        value_range=_value_range(rule.value_range, facts.attributes),
        value_list=value_list or None,
        readable=rule.readable,
        named_values={word: float(value) for value, word in rule.named.items()} if rule.named else None,
    )


def _supported(rule: Rule, facts: EntityFacts) -> bool:
    """Return True when the entity has what the rule needs (features, colour modes, attribute)."""
    if rule.attribute is not None and rule.attribute not in facts.attributes:
        return False
    if rule.features and not any(facts.supported_features & need == need for need in rule.features):
        return False
    if rule.color_modes:
        modes = facts.attributes.get("supported_color_modes")
        return isinstance(modes, (list, tuple, set, frozenset)) and not rule.color_modes.isdisjoint(modes)
    return True


def _value_list(rule: Rule, attributes: Mapping[str, Any], noun: Noun) -> list[dict[str, Any]] | None:
    """Return the allowed values with their Chinese words, or None when the rule has none."""
    labels = rule.labels or {}
    if rule.options:
        values = _listed_values(attributes.get(rule.options))
    elif rule.readable and rule.attribute is None and noun.values is not None:
        values, labels = list(noun.values), noun.values
    elif rule.fixed_values:
        values = list(labels)
    else:
        return None
    return [{"value": value, "description": labels.get(value, str(value))} for value in values]


def _listed_values(raw: object) -> list[str]:
    """Return the string values of an options attribute (a list, or a mapping's keys)."""
    if not isinstance(raw, (list, tuple, Mapping)):
        return []
    return [value for value in raw if isinstance(value, str)]


def _value_range(spec: Mapping[str, Any] | None, attributes: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return the range with ``$attribute`` values read from the entity (None when empty)."""
    if spec is None:
        return None
    value_range: dict[str, Any] = {}
    for key, raw in spec.items():
        value = raw
        if isinstance(raw, str) and raw.startswith(ATTRIBUTE_REFERENCE):
            value = attributes.get(raw.removeprefix(ATTRIBUTE_REFERENCE))
        if _is_number(value) or (key == "unit" and isinstance(value, str) and value):
            value_range[key] = value
    return value_range or None


def _is_number(value: object) -> bool:
    """Return True for an int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def load_command_spec(text: str) -> dict[str, DomainSpec]:
    """Return the domain specs of a spec file's text.

    Raises:
        CommandSpecError: when the spec is malformed (see ``data/ha_commands.yaml``).

    """
    raw = yaml.safe_load(text)
    _expect_mapping(raw, "the spec")
    tables = raw.get("labels", {})
    _expect_mapping(tables, "labels")
    for name, table in tables.items():
        _expect_mapping(table, f"labels.{name}")
    domains = raw.get("domains")
    _expect_mapping(domains, "domains")
    return {domain: _domain_spec(domain, entry, tables) for domain, entry in domains.items()}


def _domain_spec(domain: str, raw: Any, tables: Mapping[str, Labels]) -> DomainSpec:
    """Return one domain's spec."""
    _expect_keys(raw, _DOMAIN_KEYS, domain)
    flags = _feature_enum(domain, raw.get("features"))
    nouns_raw = raw.get("nouns", {})
    _expect_mapping(nouns_raw, f"{domain}.nouns")
    nouns = {name: _noun(entry, tables, f"{domain}.nouns.{name}") for name, entry in nouns_raw.items()}
    rules = [
        *(_rule(domain, entry, flags, tables, readable=False) for entry in raw.get("commands", [])),
        *(_rule(domain, entry, flags, tables, readable=True) for entry in raw.get("readable", [])),
    ]
    ids = [rule.id for rule in rules]
    if len(ids) != len(set(ids)):
        raise CommandSpecError(f"{domain}: duplicate ids in {ids}")
    if not nouns and any(NOUN in rule.zh + rule.en for rule in rules):
        raise CommandSpecError(f"{domain}: {NOUN} is used but the domain has no nouns")
    return DomainSpec(nouns=nouns, rules=tuple(rules))


def _feature_enum(domain: str, name: object) -> type[IntFlag] | None:
    """Return the domain's ``*EntityFeature`` class named in the spec, or None."""
    if name is None:
        return None
    try:
        module = importlib.import_module(f"homeassistant.components.{domain}")
    except ImportError as err:
        raise CommandSpecError(f"{domain}: not a Home Assistant domain") from err
    flags = getattr(module, str(name), None)
    if not (isinstance(flags, type) and issubclass(flags, IntFlag)):
        raise CommandSpecError(f"{domain}: {name} is not a feature flag class of {module.__name__}")
    return flags


def _noun(raw: Any, tables: Mapping[str, Labels], where: str) -> Noun:
    """Return one noun entry."""
    _expect_keys(raw, _NOUN_KEYS, where)
    values = raw.get("values")
    return Noun(
        zh=_text(raw, "zh", where),
        en=_text(raw, "en", where),
        values=_labels(values, tables, where) if values is not None else None,
    )


def _rule(
    domain: str, raw: Any, flags: type[IntFlag] | None, tables: Mapping[str, Labels], *, readable: bool
) -> Rule:
    """Return one command or readable rule."""
    where = f"{domain}.{'readable' if readable else 'commands'}"
    _expect_keys(raw, (_READABLE_KEYS if readable else _COMMAND_KEYS) | _VALUE_KEYS, where)
    if readable:
        attribute = _optional_text(raw, "attribute", where)
        service = field = None
        rule_id = f"{STATE_ID}:{attribute}" if attribute else STATE_ID
    else:
        attribute = None
        service = _text(raw, "service", where)
        field = _optional_text(raw, "field", where)
        rule_id = f"{domain}.{service}" + (f":{field}" if field else "")
    where = f"{where} {rule_id}"
    options = _optional_text(raw, "options", where)
    return Rule(
        id=rule_id,
        zh=_text(raw, "zh", where),
        en=_text(raw, "en", where),
        readable=readable,
        service=service,
        field=field,
        attribute=attribute,
        features=_features(raw.get("features", []), flags, where),
        color_modes=_color_modes(raw.get("color_modes", []), where),
        type=_optional_text(raw, "type", where),
        value_range=_range(raw.get("range"), where),
        options=options,
        labels=_rule_labels(raw, options, tables, where),
        fixed_values=raw.get("values") is not None,
        current=_current(raw.get("current"), where),
        named=_named(raw.get("named"), tables, where),
        turn_on_first=_flag(raw, "turn_on_first", where),
    )


def _flag(raw: Mapping[str, Any], key: str, where: str) -> bool:
    """Return a boolean key of an entry (False when left out)."""
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise CommandSpecError(f"{where}: {key} must be true or false")
    return value


def _named(raw: Any, tables: Mapping[str, Labels], where: str) -> Labels | None:
    """Return a ranged command's named points (a label table whose values are numbers), or None."""
    if raw is None:
        return None
    named = _labels(raw, tables, where)
    if not all(_is_number(value) for value in named):
        raise CommandSpecError(f"{where}: named points must be numbers")
    return named


def _current(raw: Any, where: str) -> CurrentValue | None:
    """Return a command's ``current`` (an attribute and an optional maximum, or the state), or None."""
    if raw is None:
        return None
    _expect_keys(raw, _CURRENT_KEYS, f"{where} current")
    if "state" in raw:
        if raw != {"state": True}:
            raise CommandSpecError(f"{where}: current.state must be true and stand alone")
        return CurrentValue(None)
    maximum = raw.get("maximum")
    if maximum is not None and not _is_number(maximum):
        raise CommandSpecError(f"{where}: current.maximum must be a number")
    return CurrentValue(_text(raw, "attribute", f"{where} current"), maximum)


def _rule_labels(raw: Any, options: str | None, tables: Mapping[str, Labels], where: str) -> Labels | None:
    """Return the words of a rule's values: its fixed ``values``, else its options' label table."""
    if raw.get("values") is not None:
        if options:
            raise CommandSpecError(f"{where}: options and values exclude each other")
        return _labels(raw["values"], tables, where)
    return tables.get(options) if options else None


def _features(raw: Any, flags: type[IntFlag] | None, where: str) -> tuple[int, ...]:
    """Return the feature sets of ``A`` / ``A|B`` alternatives, resolved against the flag class."""
    if not isinstance(raw, list):
        raise CommandSpecError(f"{where}: features is not a list")
    if not raw:
        return ()
    if flags is None:
        raise CommandSpecError(f"{where}: features given but the domain names no feature class")
    return tuple(_feature_set(str(alternative), flags, where) for alternative in raw)


def _feature_set(alternative: str, flags: type[IntFlag], where: str) -> int:
    """Return the flags of ``A|B`` combined."""
    need = 0
    for name in (part.strip() for part in alternative.split("|")):
        if name not in flags.__members__:
            raise CommandSpecError(f"{where}: {flags.__name__} has no flag {name}")
        need |= flags[name]
    return need


def _color_modes(raw: Any, where: str) -> frozenset[str]:
    """Return the colour modes, checked against Home Assistant's ``ColorMode``."""
    if not isinstance(raw, list):
        raise CommandSpecError(f"{where}: color_modes is not a list")
    try:
        return frozenset(ColorMode(mode).value for mode in raw)
    except ValueError as err:
        raise CommandSpecError(f"{where}: {err}") from err


def _range(raw: Any, where: str) -> Mapping[str, Any] | None:
    """Return a range spec, checking its keys."""
    if raw is None:
        return None
    _expect_keys(raw, frozenset(RANGE_KEYS), f"{where} range")
    return dict(raw)


def _labels(raw: Any, tables: Mapping[str, Labels], where: str) -> Labels:
    """Return an inline label table or the named one."""
    if isinstance(raw, Mapping):
        return {value: str(word) for value, word in raw.items()}
    if isinstance(raw, str) and raw in tables:
        return tables[raw]
    raise CommandSpecError(f"{where}: no label table {raw!r}")


def _text(raw: Mapping[str, Any], key: str, where: str) -> str:
    """Return a required non-empty string."""
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CommandSpecError(f"{where}: {key} is missing or not a string")
    return value.strip()


def _optional_text(raw: Mapping[str, Any], key: str, where: str) -> str | None:
    """Return an optional non-empty string."""
    return _text(raw, key, where) if raw.get(key) is not None else None


def _expect_mapping(raw: object, where: str) -> None:
    """Raise unless ``raw`` is a mapping."""
    if not isinstance(raw, Mapping):
        raise CommandSpecError(f"{where} is not a mapping")


def _expect_keys(raw: object, allowed: frozenset[str], where: str) -> None:
    """Raise unless ``raw`` is a mapping with only allowed keys."""
    _expect_mapping(raw, where)
    if unknown := set(raw) - allowed:
        raise CommandSpecError(f"{where}: unknown keys {sorted(map(str, unknown))}")


DOMAIN_SPECS: dict[str, DomainSpec] = load_command_spec(
    resources.files(__package__).joinpath("data", SPEC_FILE).read_text(encoding="utf-8")
)
"""The shipped spec, by entity domain."""
