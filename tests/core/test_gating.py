"""Category gating from the type hint (seed 001 Category Gating 预过滤, decision 2)."""

import pytest

from custom_components.context_retrieval.core.gating import (
    CATEGORIES,
    CATEGORY_WORDS,
    DeviceWordsError,
    category_for_type_hint,
    in_category,
    is_apart,
    is_type_word,
    parse_device_words,
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


@pytest.mark.parametrize(
    ("word", "category", "names", "apart"),
    [
        ("风扇", "Fan", ("主卫排气扇",), True),
        ("风扇", "Fan", ("油烟机", "抽油烟机"), True),
        ("风扇", "Fan", ("落地扇", "风扇"), False),
        ("窗帘", "Blind", ("阳台晾衣架",), True),
        ("窗帘", "Blind", ("天窗", ""), True),
        ("窗帘", "Blind", ("次卧百叶窗",), False),
        ("遮阳", "Blind", ("遮阳篷",), False),
        ("窗帘", "Blind", ("阳台卷帘门", "防台卷帘"), True),  # a roller shutter is no curtain
        ("卷帘", "Blind", ("阳台卷帘门",), False),
        ("灯", "Light", ("晾衣架",), False),
        ("空调", "AirConditioner", ("洗手间浴霸",), True),  # a bath heater on a climate entity
        ("空调", "AirConditioner", ("主人房空调",), False),
        ("暖气", "Thermostat", ("客厅电暖器", "踢脚线"), True),  # a space heater is no central heating
        ("暖气", "Thermostat", ("主卧暖气",), False),
    ],
)
def test_what_a_category_word_leaves_apart(word, category, names, apart):
    assert is_apart(word, category, names) is apart


def test_a_device_class_called_by_the_word_is_meant():
    assert is_apart("窗帘", "Blind", ("书房采光",), kind="窗户")  # a window cover is no curtain
    assert not is_apart("窗户", "Blind", ("天窗",), kind="窗户")


def test_a_device_one_of_whose_names_holds_the_word_is_meant():
    """A Dyson its maker calls a purifier, which the family calls Dyson风扇, is one of 所有风扇."""
    assert is_apart("风扇", "Fan", ("dyson", "dyson净化器"))
    assert not is_apart("风扇", "Fan", ("dyson", "dyson风扇", "dyson净化器"))
    assert is_apart("风扇", "Fan", ("洗衣房排风扇",))  # the word said ends the thing set apart


def test_each_category_has_its_usual_word_first():
    assert CATEGORY_WORDS["Light"] == "灯"
    assert CATEGORY_WORDS["Blind"] == "窗帘"


@pytest.mark.parametrize(
    "raw",
    [
        [],
        {"Lamp": {"words": ["灯"]}},
        {"Light": {"words": []}},
        {"Light": {"words": ["灯"], "colours": ["红"]}},
        {"Light": {"words": ["灯", 3]}},
        {"Light": {"words": ["灯"]}, "Fan": {"words": ["风扇"], "kinds": ["灯"]}},
    ],
)
def test_a_malformed_device_words_file_is_refused(raw):
    with pytest.raises(DeviceWordsError):
        parse_device_words(raw)


def test_a_categorys_tasks_are_read_and_checked():
    parsed = parse_device_words({"RobotCleaner": {"words": ["扫地机"], "tasks": ["扫地", "拖地"]}})
    assert parsed["RobotCleaner"].tasks == ("扫地", "拖地")
    with pytest.raises(DeviceWordsError):
        parse_device_words({"RobotCleaner": {"words": ["扫地机"], "tasks": "扫地"}})


def test_a_bed_moved_by_a_motor_is_no_curtain():
    """把窗帘都拉上 leaves a care bed's backrest (a cover) alone; 床帘 is no window's curtain either."""
    assert is_apart("窗帘", "Blind", ["护理床靠背"])
    assert is_apart("窗帘", "Blind", ["床帘"])
    assert not is_apart("窗帘", "Blind", ["床边窗帘"])
