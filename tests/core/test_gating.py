"""Category gating from the type hint (seed 001 Category Gating 预过滤, decision 2)."""

import pytest

from custom_components.context_retrieval.core.gating import (
    CATEGORIES,
    category_for_type_hint,
    in_category,
    is_type_word,
)


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("Light", "Light"),
        ("light", "Light"),  # seed 004 writes type_hint="light"
        ("灯", "Light"),
        ("台灯", "Light"),
        ("窗帘", "Blind"),
        ("百叶窗", "Blind"),
        ("空调", "AirConditioner"),
        ("插座", "SmartPlug"),
        ("音响", "NetworkAudio"),
        ("Unknown", None),
        ("UnknownCategory", None),
        ("", None),
        (None, None),
    ],
)
def test_category_for_type_hint(hint, expected):
    assert category_for_type_hint(hint) == expected


def test_contract_categories_are_all_known():
    contract = {
        "Light", "Switch", "SmartPlug", "Blind", "AirConditioner", "Fan", "Television", "NetworkAudio",
        "Washer", "Charger", "Hub", "SmartLock", "RobotCleaner", "Valve", "Thermostat", "Sensor",
        "GarageDoor", "Scene",
    }  # fmt: skip
    assert contract <= CATEGORIES
    assert "Unknown" not in CATEGORIES


@pytest.mark.parametrize(
    ("word", "generic"), [("灯", True), ("窗帘", True), ("台灯", False), ("老伙计", False)]
)
def test_generic_type_words(word, generic):
    assert is_type_word(word) is generic


@pytest.mark.parametrize(
    ("device_category", "category", "expected"),
    [
        ("Sensor", "Sensor", True),
        ("ContactSensor", "Sensor", True),
        ("MotionSensor", "Sensor", True),
        ("SmokeDetector", "Sensor", False),
        ("Light", "Sensor", False),
    ],
)
def test_a_kind_of_a_category_is_in_it(device_category, category, expected):
    assert in_category(device_category, category) is expected
