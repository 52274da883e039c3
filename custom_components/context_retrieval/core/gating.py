"""Category gating: map a type hint to a SmartThings category (seed 001 decision 2)."""

from __future__ import annotations

from .text import compact

CATEGORIES: frozenset[str] = frozenset(
    {
        "Light",
        "Switch",
        "SmartPlug",
        "Blind",
        "AirConditioner",
        "Fan",
        "Television",
        "NetworkAudio",
        "Washer",
        "Dryer",
        "Charger",
        "Hub",
        "SmartLock",
        "RobotCleaner",
        "Valve",
        "Thermostat",
        "Sensor",
        "GarageDoor",
        "Scene",
        "Camera",
        "AirPurifier",
        "Humidifier",
        "Dehumidifier",
        "Refrigerator",
        "Dishwasher",
        "Oven",
        "Doorbell",
    }
)
"""The closed category set of CONTRACT §3 (``Unknown`` is not a category)."""

GENERIC_TYPE_WORDS: dict[str, str] = {
    "灯": "Light",
    "灯光": "Light",
    "照明": "Light",
    "电灯": "Light",
    "窗帘": "Blind",
    "遮阳": "Blind",
    "遮阳帘": "Blind",
    "百叶窗": "Blind",
    "卷帘": "Blind",
    "纱帘": "Blind",
    "窗户": "Blind",
    "空调": "AirConditioner",
    "冷气": "AirConditioner",
    "暖气": "Thermostat",
    "温控器": "Thermostat",
    "地暖": "Thermostat",
    "开关": "Switch",
    "墙壁开关": "Switch",
    "插座": "SmartPlug",
    "智能插座": "SmartPlug",
    "插排": "SmartPlug",
    "排插": "SmartPlug",
    "电视": "Television",
    "电视机": "Television",
    "音响": "NetworkAudio",
    "音箱": "NetworkAudio",
    "音乐": "NetworkAudio",
    "喇叭": "NetworkAudio",
    "风扇": "Fan",
    "电扇": "Fan",
    "吊扇": "Fan",
    "洗衣机": "Washer",
    "烘干机": "Dryer",
    "充电器": "Charger",
    "充电桩": "Charger",
    "网关": "Hub",
    "门锁": "SmartLock",
    "锁": "SmartLock",
    "智能锁": "SmartLock",
    "扫地机": "RobotCleaner",
    "扫地机器人": "RobotCleaner",
    "扫地机器": "RobotCleaner",
    "阀门": "Valve",
    "水阀": "Valve",
    "传感器": "Sensor",
    "车库门": "GarageDoor",
    "场景": "Scene",
    "情景": "Scene",
    "模式": "Scene",
    "摄像头": "Camera",
    "监控": "Camera",
    "空气净化器": "AirPurifier",
    "净化器": "AirPurifier",
    "加湿器": "Humidifier",
    "除湿机": "Dehumidifier",
    "冰箱": "Refrigerator",
    "洗碗机": "Dishwasher",
    "烤箱": "Oven",
    "门铃": "Doorbell",
}
"""Words that name a whole category: 所有灯 means every Light."""

CATEGORY_WORDS: dict[str, str] = {category: word for word, category in reversed(GENERIC_TYPE_WORDS.items())}
"""The first (most common) Chinese word of each category: Light -> 灯."""


TYPE_WORDS: dict[str, str] = {
    **GENERIC_TYPE_WORDS,
    "台灯": "Light",
    "吊灯": "Light",
    "吸顶灯": "Light",
    "落地灯": "Light",
    "壁灯": "Light",
    "灯带": "Light",
    "射灯": "Light",
    "筒灯": "Light",
    "主灯": "Light",
    "顶灯": "Light",
    "床头灯": "Light",
    "夜灯": "Light",
    "氛围灯": "Light",
}
"""Generic words plus kinds of a category (台灯 is a Light, but 所有台灯 is not every Light)."""

_BY_LOWER = {category.lower(): category for category in CATEGORIES}


def in_category(device_category: str, category: str) -> bool:
    """Return True when a device category is the category or a kind of it (ContactSensor is a Sensor).

    The parser's categories are a closed set (CONTRACT §3); vendors name finer ones by
    prefixing the kind, as SmartThings does (ContactSensor, MotionSensor).
    """
    return device_category == category or device_category.endswith(category)


def category_for_type_hint(type_hint: str | None) -> str | None:
    """Return the category a type hint gates on, or None to skip gating.

    ``Unknown``, None, empty and anything outside the closed set skip gating
    (seed 004, 类型映射失败/Unknown/为空). Accepts category names in any case and
    Chinese type words.
    """
    if not type_hint:
        return None
    hint = type_hint.strip()
    return _BY_LOWER.get(hint.lower()) or TYPE_WORDS.get(compact(hint))


def is_type_word(name_hint: str | None) -> bool:
    """Return True when a name hint is a bare type word (灯, 空调) rather than a name."""
    return bool(name_hint) and compact(name_hint) in GENERIC_TYPE_WORDS
