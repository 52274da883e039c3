"""Parse an utterance into wire commands without an LLM (the deterministic fallback).

The text is cut into tokens by leftmost-longest matching against the home's own
room names and device names, the category words of ``gating.TYPE_WORDS`` and a
small table of function words (verbs, quantifiers, exclusion and reference
phrases). Tokens are then grouped into clauses (然后/再/并/，, or a second verb),
and each clause into targets (rooms + a head-final noun phrase). It follows the
conventions of the gold parses in ``shared/data/smartthings/parse_cases.jsonl``.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import StrEnum, auto
from typing import TYPE_CHECKING, NamedTuple

from custom_components.context_retrieval.core.gating import (
    DEVICE_WORDS,
    EVERYTHING_WORDS,
    GENERIC_TYPE_WORDS,
    ROLLED_WORDS,
    TYPE_WORDS,
    category_named,
    is_borrowed_type_word,
    is_kind_word,
    is_type_word,
)
from custom_components.context_retrieval.core.models import (
    ANY_NAME,
    ANY_ROOM,
    LAST_MENTIONED,
    LAST_ROOM,
    UNKNOWN_ACTION,
    UNKNOWN_CATEGORY,
    UNKNOWN_COMMAND,
    Command,
    Quantifier,
)
from custom_components.context_retrieval.core.pronunciation import readings
from custom_components.context_retrieval.core.scope import is_side, rooms_of_a_kind
from custom_components.context_retrieval.core.text import (
    LINKING_WORD,
    compact,
    cuts_a_latin_word,
    has_han,
    has_latin,
    normalize,
)
from custom_components.context_retrieval.core.value_order import ascending_words

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from custom_components.context_retrieval.core.models import Device, Room

ACTION_ON = "打开"
ACTION_OFF = "关闭"
ACTION_MUTE = "静音"
ACTION_UNMUTE = "取消静音"
ACTION_QUERY = "查询"
ACTION_LOCK = "锁定"
ACTION_UNLOCK = "解锁"
ACTION_PLAY = "播放"
ACTION_PAUSE = "暂停"
ACTION_STOP = "停止"
"""停 and 停止: a moving cover or a running task stops; a device that only switches goes off."""
_LOCKED = "门"
"""What a lock locks: the door locked is the lock's (两个门都锁上)."""
_LOCK_VERB = "锁"
"""The verb that is also the last word of a lock's name (门锁: a lock; 锁: lock it)."""
LOCK_NAME = _LOCKED + _LOCK_VERB
"""The target of a lock verb said without one (锁门, 上锁)."""
DEFAULT_QUERY_ATTRIBUTE = "状态"
SETTING_PREFIX = "设置"
SPEED_ATTRIBUTE = "风速"
COLOUR_TEMPERATURE_ATTRIBUTE = "色温"
"""A fan's speed: a number said of it without a unit is a level or a percentage, as its speeds decide."""
_COVER = "Blind"
_LIGHT = "Light"
_EFFECT_ATTRIBUTE = "灯效"
_PERCENT_ATTRIBUTES = {
    _LIGHT: "亮度",
    _COVER: "位置",
    "Fan": SPEED_ATTRIBUTE,
    "Television": "音量",
    "NetworkAudio": "音量",
    "Humidifier": "湿度",  # 加湿器开大点, 加湿器开到60%: its target humidity
}
"""What a bare percentage sets on a kind of device (窗帘开到70%: its position, not a brightness); a
device of unknown kind gets no attribute (设置=50%), its own commands decide."""
TEMPERATURE_ATTRIBUTE = "温度"
_PERCENT = 100
TEMPERATURE_UNIT = "C"
"""``设置温度=26C``: the unit the gold parses and the prompt use for degrees Celsius."""
MAX_OFFLINE_CHARS = 500
"""Only this much of an utterance is parsed; a spoken command is far shorter."""


class _Kind(StrEnum):
    """What a token is."""

    ROOM = auto()
    NAME = auto()
    TYPE = auto()
    OTHER = auto()
    ON = auto()
    OFF = auto()
    SET = auto()
    ADJUST = auto()
    ATTR = auto()
    NUM = auto()
    MODE = auto()
    MUTE = auto()
    CANCEL = auto()
    START = auto()
    PAUSE = auto()
    RESUME = auto()
    STOP = auto()
    TASK = auto()
    LOCK = auto()
    CHANNEL = auto()
    PLAY = auto()
    QUERY = auto()
    ASK = auto()
    AGAIN = auto()
    WHEN = auto()
    """十分钟后, 七点: a time; a command for later is no command to carry out now."""
    NEG = auto()
    """不要/别/不用: a clause that says not to do something is no command the engine can carry out."""
    """再: "then" after an action (开灯再关空调), "again"/"more" before one (落地灯再打开, 再暗一点)."""
    ALL = auto()
    ANY = auto()
    COUNT = auto()
    PRON = auto()
    EXC_START = auto()
    EXC_END = auto()
    CONJ = auto()
    SEP = auto()
    FILLER = auto()


_REFERENCE = "reference"
"""它/刚才的: points back even before a noun (刚才的灯 is the last-mentioned light)."""
_DEMONSTRATIVE = "demonstrative"
"""那个/这个: points back only alone (那个灯 is just a light)."""
_NOBODY = "没人"
"""Nobody: before a verb (没人在喝) it says why, as 没 before a noun does (没水)."""
_PULLED_UP = "拉起来"
"""The value of 拉起来 until its clause says what is pulled up (see ``_pulled_up``)."""

_MODES = {
    "自然风": "设置风模式=自然风",
    "睡眠风": "设置风模式=睡眠风",
    "标准风": "设置风模式=标准风",
    **{speed: f"设置风速={speed}" for speed in ("低风", "中风", "高风")},  # 开低风: the fan speed
    "摆风": "设置摆风=开启",
    "摇头": "设置摆风=开启",
    "制冷": "设置模式=制冷",
    "制热": "设置模式=制热",
    "暖风": "设置模式=制热",  # a bath heater's warm air (浴霸开暖风)
    "送风": "设置模式=送风",
    "除湿": "设置模式=除湿",
}
"""Mode words and the setting each one means (设为自然风 -> 设置风模式=自然风)."""
MODE_WORDS = frozenset(_MODES)
"""The modes the parser knows by name: a device lacking one does not have it under another name."""
_SWITCHED_ON, _SWITCHED_OFF = "=开启", "=关闭"
"""A switched setting's values (设置摆风=开启); said with 关, a mode word turns it off."""


_PLURAL_WORDS = ("这些", "那些")
SPEAKERS_ROOM_WORDS = frozenset({"我房间", "我的房间", "我屋", "我屋里", "我屋头"})
"""The speaker's own room (我房间的音箱): a room said, which the engine cannot place (a home's own
room words take precedence)."""
"""Plural demonstratives: before a device word they make it a set (那些灯; Cantonese 厅啲灯)."""
_POLITE_WORDS = (
    *("可以", "能不能", "可不可以", "能否", "能帮我", "能不能帮我"),
    *("好吗", "好不好", "行吗", "行不行", "可以吗"),
)
"""Words of a polite request: 可以打开灯吗 asks for an action, not about state."""


def _words(kind: _Kind, *words: str) -> dict[str, tuple[_Kind, str]]:
    """Return a lexicon slice where each word stands for itself."""
    return {word: (kind, word) for word in words}


def _mapped(kind: _Kind, mapping: dict[str, str]) -> dict[str, tuple[_Kind, str]]:
    """Return a lexicon slice where each word stands for a canonical value."""
    return {word: (kind, value) for word, value in mapping.items()}


_FUNCTION_WORDS: dict[str, tuple[_Kind, str]] = {
    **_mapped(_Kind.ON, dict.fromkeys(("打开", "开启", "启动", "开", "点亮"), ACTION_ON)),
    **_mapped(
        _Kind.OFF,
        dict.fromkeys(
            ("关闭", "关掉", "关上", "关了", "关", "熄灭", "断开", "灭掉", "灭了", "灭"), ACTION_OFF
        ),
    ),
    **_mapped(_Kind.OFF, dict.fromkeys(("拔掉", "拔了", "断电"), ACTION_OFF)),  # unplug: off
    **_mapped(
        _Kind.ON, dict.fromkeys(("插上", "插起来", "插上电", "插电", "通电"), ACTION_ON)
    ),  # plug in: on
    # Curtains and blinds: 拉开/升起 open them (a roller shade 拉上去: up), 拉上/合上/放下/降下 close them;
    # an awning 放出来 (let out) is opened.
    **_mapped(
        _Kind.ON,
        dict.fromkeys(
            ("拉开", "升起", "升起来", "收起", "收起来", "撑开", "升上去", "升上来", "拉上去", "拉上来"),
            ACTION_ON,
        ),
    ),
    **_mapped(_Kind.ON, dict.fromkeys(("放出来", "放出去", "伸出来", "伸出去", "拉出来"), ACTION_ON)),
    # 拉起来 opens what rolls up (卷帘拉起来) and may draw a curtain shut: read by ``_pulled_up``
    **_mapped(_Kind.OTHER, dict.fromkeys(("拉起来", "拉起"), _PULLED_UP)),
    **_mapped(
        _Kind.OFF,
        dict.fromkeys(
            ("拉上", "合上", "放下", "放下来", "降下", "降下来", "降下去", "关好", "拉下", "拉下来"),
            ACTION_OFF,
        ),
    ),
    **_mapped(_Kind.LOCK, dict.fromkeys(("锁门", "上锁", "锁上", "锁好", "锁定", "反锁"), ACTION_LOCK)),
    **_mapped(_Kind.LOCK, {"锁起来": ACTION_LOCK}),
    **_mapped(_Kind.LOCK, dict.fromkeys(("开锁", "解锁", "解开门锁"), ACTION_UNLOCK)),
    **_words(
        _Kind.SET,
        *("调到", "调至", "调成", "调为", "调整到", "调整为", "调", "开到", "变成"),
        *(
            "设置到",
            "设置成",
            "设置为",
            "设置",
            "设为",
            "设成",
            "设到",
            "改成",
            "改为",
            "设定",
            "设定为",
            "设定成",
        ),
        *("切换到", "切换为", "切换成", "切到", "切成", "换成", "换到", "转到"),
        *("换回", "切回", "调回", "改回"),  # back to what it was (换回制热)
        *("拉到", "整到", "整成", "放到", "开成", "打开到", "关到"),  # 窗帘拉到一半; northern 整到26度
        *("降到", "升到", "降至", "升至"),  # 晾衣架降到一半
        "来个",  # 来个呼吸的效果: give it that
        "换",  # 星空灯换蓝色: change to
        *("切", "转", "改"),  # 电视切 HDMI 2, 电视转 YouTube, 冷气改除湿: change to
        *("改一改", "改一下", "改改"),  # 温度改一改: a change said without its value
        # 调暗到30%: an adjustment verb with 到 sets the value, it does not move it by 30.
        *("调高到", "调低到", "调亮到", "调暗到", "调大到", "调小到"),
    ),
    **_words(_Kind.ADJUST, "调亮", "调暗", "调高", "调低", "调大", "调小"),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("开大", "大一点", "大点", "大些", "大一些"), "调大")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("开小", "关小", "小一点", "小点", "小些", "小一些"), "调小")),
    # 开一点/关一点: open or close by a bit (a blind, a valve), never all the way
    **_mapped(
        _Kind.ADJUST,
        dict.fromkeys(
            (
                "开一点",
                "开一些",
                "开多一点",
                "开些",
                "开一条缝",
                "开条缝",
                "开个缝",
                "开道缝",
                "开个小缝",
                "拉开一条缝",
            ),
            "调大",
        ),
    ),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("关一点", "关一些", "关些"), "调小")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("亮一点", "亮点", "亮一些", "亮些", "调亮点"), "调亮")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("暗一点", "暗点", "暗一些", "暗些", "调暗点"), "调暗")),
    # 太亮了, 声音太大了: too much one way asks for the other
    **_mapped(_Kind.ADJUST, dict.fromkeys(("太亮", "太刺眼"), "调暗")),
    **_mapped(_Kind.ADJUST, {"太暗": "调亮", "太高": "调低", "太低": "调高"}),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("太大", "太大声", "太吵", "太响"), "调小")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("太小", "太小声"), "调大")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("调大点", "调大些"), "调大")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("调小点", "调小些"), "调小")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("高一点", "高点", "升高", "提高", "调高点"), "调高")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("低一点", "低点", "降低", "调低点"), "调低")),
    # 再大声: louder again; 大声 alone is also a complaint (太大声了, 好大聲): no step by itself
    **_mapped(_Kind.ADJUST, dict.fromkeys(("大点声", "大声点", "大声一点", "大声些", "再大声"), "调大音量")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("暖和一点", "暖和点", "暖一点", "暖和些"), "调高温度")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("凉快一点", "凉快点", "凉一点", "凉快些"), "调低温度")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("冷一点", "冷一些", "冷些"), "调低温度")),  # 空调再冷一点
    **_mapped(_Kind.ADJUST, dict.fromkeys(("热一点", "热一些", "热些"), "调高温度")),
    **_mapped(_Kind.ADJUST, dict.fromkeys(("小点声", "小声点", "小声一点", "小声些", "再小声"), "调小音量")),
    **_words(_Kind.ATTR, "亮度", "风速", "音量", "遮光", "温度", "湿度", "状态", "电量", "色温", "吸力"),
    **_words(_Kind.ATTR, "信号源", "输入源"),
    **_words(_Kind.ATTR, "功率", "用电量", "耗电量", "漏水", "有人", "烟雾", "角度", "叶片", "灯效", "颜色"),
    # 风扇转速快一点: its speed, not 转 (change to) 速; 呼吸的效果: the light's effect
    **_mapped(_Kind.ATTR, {"转速": "风速", "效果": "灯效"}),
    **_mapped(
        _Kind.ATTR,
        {
            "遮光度": "遮光",
            "风量": "风速",
            "风力": "风速",
            "风": "风速",
            "声音": "音量",
            "电池": "电量",
            "耗电": "耗电量",
            "叶子": "叶片",
            "叶": "叶片",  # Cantonese 百叶帘啲叶: its slats
        },
    ),
    **_mapped(_Kind.MODE, _MODES),
    **_mapped(_Kind.MODE, {f"{word}模式": action for word, action in _MODES.items()}),
    **_words(_Kind.MUTE, "静音"),
    **_words(_Kind.CANCEL, "取消"),
    **_words(_Kind.START, "开始", "出动", "开工"),  # 扫地机出动
    **_words(_Kind.PAUSE, ACTION_PAUSE),
    **_words(_Kind.RESUME, "继续"),
    **_words(_Kind.STOP, "停止", "停掉", "停", "停一停"),
    **_mapped(_Kind.PAUSE, dict.fromkeys(("停一下", "停下", "停下来"), ACTION_PAUSE)),
    # 算了，莫放了: what plays no longer (a negated play said as one word; 放 alone is also 放下)
    **_mapped(
        _Kind.PAUSE,
        dict.fromkeys(("别放了", "莫放了", "不要放了", "不用放了", "别唱了", "莫唱了"), ACTION_PAUSE),
    ),
    **_words(_Kind.TASK, "烘干", "洗涤", "洗衣", "脱水", "漂洗", "清扫", "扫地", "拖地", "充电"),
    # 扫一下地, 拖下地: the task with 一下 inside it
    **_mapped(_Kind.TASK, dict.fromkeys(("扫一下地", "扫下地", "扫扫地", "扫一扫地"), "扫地")),
    **_mapped(_Kind.TASK, dict.fromkeys(("拖一下地", "拖下地", "拖拖地"), "拖地")),
    **_mapped(_Kind.CHANNEL, dict.fromkeys(("下一个频道", "下个频道", "下一台", "下一频道"), "下一个频道")),
    **_mapped(_Kind.CHANNEL, dict.fromkeys(("上一个频道", "上个频道", "上一台", "上一频道"), "上一个频道")),
    **_mapped(_Kind.CHANNEL, dict.fromkeys(("换台", "换个台", "换频道", "换个频道"), "换台")),
    **_mapped(
        _Kind.CHANNEL,
        dict.fromkeys(("下一首", "下一曲", "切歌", "换一首", "换首歌", "切下一首", "放下一首"), "下一首"),
    ),
    **_mapped(_Kind.CHANNEL, dict.fromkeys(("上一首", "上一曲", "切上一首", "放上一首"), "上一首")),
    **_mapped(
        _Kind.PLAY, dict.fromkeys(("播放", "播放音乐", "放音乐", "放歌", "放首歌", "放点音乐"), ACTION_PLAY)
    ),
    **_mapped(_Kind.PLAY, dict.fromkeys(("来点音乐", "来首歌", "听歌", "听音乐"), ACTION_PLAY)),
    **_mapped(_Kind.PLAY, dict.fromkeys(("播", "播歌", "播首歌", "播点歌"), ACTION_PLAY)),
    **_mapped(
        _Kind.QUERY, dict.fromkeys(("查询", "查看", "查一下", "看看", "看一下", "看下", "多少", "怎么样"), "")
    ),
    # A-not-A questions: 关没关, 锁没锁好, 开不开着
    **_mapped(
        _Kind.QUERY,
        dict.fromkeys(
            (
                *("开没开", "关没关", "锁没锁", "亮没亮", "开没开着", "亮没亮着", "开不开着"),
                *("关没关上", "关没关好", "锁没锁上", "锁没锁好", "拉没拉上", "关没关掉", "停没停"),
            ),
            "",
        ),
    ),
    **_mapped(
        _Kind.QUERY,
        dict.fromkeys(
            (
                "有没有",
                "是不是",
                "是否",
                "还有多少",
                "什么",
                "啥",
                "哪些",
                "哪几个",
                "哪个",
                "哪盏",
                "哪几盏",
                "几个",
                "几盏",
                "几台",
                "谁",
                "多亮",
                "多暗",
                "多热",
                "多冷",
                "开着",
                "关着",
                "亮着",
            ),
            "",
        ),
    ),
    **_mapped(
        _Kind.QUERY,
        dict.fromkeys(("几度", "多少度", "温度多少", "好多度", "多热", "多冷"), TEMPERATURE_ATTRIBUTE),
    ),
    **_mapped(_Kind.QUERY, dict.fromkeys(("几档", "几挡", "多少档"), "风速")),
    **_mapped(_Kind.QUERY, dict.fromkeys(("多大声", "声音多大", "音量多少", "多少音量"), "音量")),
    # 什么模式: the device's mode asked, no scenes
    **_mapped(_Kind.QUERY, dict.fromkeys(("什么模式", "啥模式", "哪个模式"), "模式")),
    **_mapped(_Kind.QUERY, dict.fromkeys(("多少电", "还有多少电", "剩多少电", "还剩多少电"), "电量")),
    **_mapped(_Kind.ASK, dict.fromkeys(("吗", "么", "没", "没有", "了没", "了吗", "了没有"), "")),
    **_words(_Kind.ALL, "所有", "全部", "都", "每个", "全都", "每一个", "各个", "全屋", "全家", "一切"),
    **_words(_Kind.ALL, "其他", "其它", "其余", "别的", "剩下的"),
    **_words(_Kind.ALL, "全", "统统", "通通", "全都是"),  # 全关了, 统统关掉
    **_words(_Kind.ANY, "随便", "任意", "随机", "任何", "哪个都行"),
    **_mapped(_Kind.PRON, dict.fromkeys(("它", "它们", "刚才的", "刚才那个", "刚刚的", "刚才"), _REFERENCE)),
    **_mapped(_Kind.PRON, {"上一个": _REFERENCE}),
    # 他/她 before a device or room word: the room of whoever was just talked about (他空调, 她屋)
    **_mapped(_Kind.ROOM, dict.fromkeys(("他", "她"), LAST_ROOM)),
    # 她屋里, 他房间: the room word after them is theirs, not the whole home (屋里的灯 is every light)
    **_mapped(
        _Kind.ROOM,
        dict.fromkeys(
            (who + room for who in ("他", "她") for room in ("屋", "屋里", "屋头", "房间", "房间里", "房里")),
            LAST_ROOM,
        ),
    ),
    # 张叔他们去三亚了: 他们 are people, whose room nobody said
    **_words(_Kind.OTHER, "他们", "她们"),
    **_words(_Kind.OTHER, _NOBODY),  # 没人在喝: nobody, before 人在 (where the speaker is) takes 人
    **_mapped(_Kind.PRON, dict.fromkeys(("那个", "这个", "那台", "这台", "那盏", "这盏"), _DEMONSTRATIVE)),
    **_mapped(_Kind.PRON, dict.fromkeys(("那支", "这支", "那部", "这部", "那只", "这只"), _DEMONSTRATIVE)),
    **_mapped(_Kind.PRON, dict.fromkeys(("那条", "这条"), _DEMONSTRATIVE)),  # 客厅那条: the strip
    **_words(_Kind.EXC_START, "除了", "除", "除去", "不包括", "不包含", "不含"),
    **_words(_Kind.EXC_START, "留", "保留", "留下", "留返"),  # 留筒灯，其他关掉: keep the downlight
    **_words(_Kind.EXC_END, "以外", "之外", "外", "留着"),  # 主卧的留着: all but the bedroom's
    **_words(_Kind.CONJ, "和", "与", "跟", "及", "以及", "、", "还有"),
    **_words(_Kind.CONJ, "同", "同埋"),  # Cantonese: 热水壶同咖啡机
    **_words(_Kind.SEP, "然后", "并且", "并", "接着", "之后", "随后", "同时"),
    **_words(_Kind.AGAIN, "再"),
    **_words(_Kind.NEG, "不要", "别", "不用", "甭", "不必", "莫"),
    # 等会儿关灯, 明天开窗帘: later, which no command of a device takes now.
    **_words(_Kind.WHEN, "等会儿", "等一会儿", "待会儿", "待会", "一会儿", "过会儿", "过一会儿", "稍后"),
    **_words(_Kind.WHEN, "晚点", "晚一点", "明天", "明早", "后天", "改天", "今晚", "今夜"),
    **_words(_Kind.SEP, "顺便", "顺手", "顺带", "另外"),
    **_words(_Kind.SEP, ",", ".", ";", "!", "?", "。", "；", "！", "？", "\n"),
    **_words(_Kind.SEP, "--", "——", "…", "...", "—"),  # a pause or a cut-off: 再大——
    **_words(_Kind.FILLER, "把", "让", "将", "请", "帮我", "帮忙", "麻烦", "给我", "一下", "的", "吧"),
    **_words(_Kind.FILLER, "啊", "呀", "呢", "了", "我", "要", "想", "一点", "房间", "里", "里面"),
    **_words(_Kind.FILLER, "现在", "目前", "当前", "谢谢", "也", "是", "直接"),
    **_words(_Kind.FILLER, "些", "一些"),  # 调亮些, 开大些: a little, as 一点
    **_words(_Kind.FILLER, "我们", "咱们", "俺们", "你", "您"),  # 你把书房灯开开: said to the assistant
    **_words(_Kind.FILLER, *EVERYTHING_WORDS),  # 工作室的东西全部关掉: no kind of device, every one
    **_mapped(_Kind.ON, {"开机": ACTION_ON}),  # PS5 开机: switched on
    **_mapped(_Kind.OFF, {"关机": ACTION_OFF}),
    # 这么冷? 调高两度: how cold, no device called 这; 怎么这么吵: why so loud, no question of how
    **_words(_Kind.FILLER, "这么", "那么", "怎么这么", "怎么那么"),
    **_words(_Kind.FILLER, "改主意", "改变主意"),  # 我改主意了, 关灯: a change of mind, no value
    # verb complements and helpers that add nothing to the command (开起来, 去开灯, 给关了, 稍微)
    **_words(_Kind.FILLER, "起来", "去", "给", "稍微", "稍稍", "一哈", "一下下", "一样", "您", "劳驾"),
    **_words(
        _Kind.FILLER, "点", "只", "只要", "用", "叫", "喊", "快", "快点", "赶紧", "麻利", "出来", "出去", "掉"
    ),
    **_mapped(_Kind.ON, dict.fromkeys(("开起", "开一开", "打开起", "开起来", "整开", "开回来"), ACTION_ON)),
    **_mapped(_Kind.OFF, dict.fromkeys(("关一关", "关起来", "整关"), ACTION_OFF)),
    **_mapped(
        _Kind.TASK,
        dict.fromkeys(("打扫", "扫一扫", "扫一次", "扫一遍", "扫一下", "扫一圈", "扫扫", "扫"), "扫地"),
    ),
    **_mapped(_Kind.TASK, dict.fromkeys(("割草", "割一下草", "割下草", "去割草"), "割草")),
    **_mapped(_Kind.TASK, dict.fromkeys(("回去充电", "回充", "回去", "回家充电", "回座充"), "回去充电")),
    # sentence-final particles of colloquial, Cantonese and Malaysian speech (校到50度啦, 关咗咯)
    **_words(_Kind.FILLER, "啦", "喇", "咯", "啰", "嘛", "哦", "喔", "噢", "呗", "嘞", "哇", "哟", "咧"),
    **_words(_Kind.FILLER, *_PLURAL_WORDS),
    # 那关了吧, 算了，还是关上吧, 好吧: "then", "never mind", "after all", "OK" say no target.
    **_words(_Kind.FILLER, "那", "那就", "还是", "算了", "就行", "就好", "好了", "就可以", "可以了", "先"),
    **_words(_Kind.FILLER, "就够了", "就够"),  # 开柜台灯就够了: that will do
    **_words(_Kind.FILLER, "好啦", "好吧"),
    **_words(_Kind.FILLER, "我在", "我现在在", "人在"),  # 我在健身房: where the speaker is
    **_words(_Kind.ROOM, *SPEAKERS_ROOM_WORDS),
    **_words(_Kind.FILLER, "那边", "这边", "家里", "家中", "屋里", "屋头"),
    # 其他屋的灯, 别的地方: a room in general, no name (a home's own rooms take precedence).
    **_words(_Kind.FILLER, "屋", "屋子", "地方"),
    # 儿化 (再亮点儿, 灯儿): the suffix of northern speech; words holding 儿 (一会儿, 儿童房) are longer.
    **_words(_Kind.FILLER, "儿"),
    **_words(_Kind.FILLER, "个", "盏"),  # 开个灯, Cantonese 个窗帘开一半: a classifier, no name
    **_words(_Kind.FILLER, "部"),  # Cantonese 部冷气, 麻糬部饮水机: the classifier of machines
    **_words(_Kind.FILLER, *_POLITE_WORDS),
    **_words(_Kind.FILLER, "(", ")", '"', "'", "“", "”", "‘", "’", "《", "》", ":", "~"),
}
"""Function words; a home's room and device names take precedence over them."""

LEXICON_WORDS = frozenset(_FUNCTION_WORDS)
"""The parser's own words (verbs, values, particles): what is said in them is no misheard home word."""
PART_WORDS = frozenset({"叶片"})
"""Attribute words naming a part of a device that opens and closes by itself (a blind's slats)."""
ATTRIBUTE_WORDS = frozenset(word for word, (kind, _) in _FUNCTION_WORDS.items() if kind is _Kind.ATTR)
"""Words naming what a command reads or sets (温度, 亮度): no part of a device's name."""

_ACTION_KINDS = frozenset(
    {
        _Kind.ON,
        _Kind.OFF,
        _Kind.SET,
        _Kind.ADJUST,
        _Kind.MUTE,
        _Kind.CANCEL,
        _Kind.START,
        _Kind.PAUSE,
        _Kind.RESUME,
        _Kind.STOP,
        _Kind.LOCK,
        _Kind.CHANNEL,
        _Kind.PLAY,
        _Kind.QUERY,
        _Kind.ASK,
    }
)
_ACTION_WORD_KINDS = _ACTION_KINDS | {_Kind.NUM, _Kind.MODE, _Kind.TASK}
"""Tokens that make a clause a command even without a verb (亮度百分之五十)."""
_SWITCH_KINDS = frozenset({_Kind.ON, _Kind.OFF})
_VERB_KINDS = _SWITCH_KINDS | {_Kind.LOCK, _Kind.CHANNEL, _Kind.PLAY}
"""Verbs that open a second action after a target (关掉客厅灯打开卧室灯, 打开电视换台)."""
_LACKING = frozenset({"没", "没有", _NOBODY})
"""Question particles that, before a noun, say there is none (没人, 没水)."""
_LOCK_PARTICLES = frozenset({"上", "好", "埋"})
"""门锁上/锁好, Cantonese 锁埋: the particle after a lock word makes it the verb 锁定."""
_ADJUSTING_PREFIXES = frozenset({"较", "校"})
"""Cantonese 校/較 (adjust) before a direction with its step (較高一度); Mandarin 较高 is "rather high"."""
_VERB_COMPLEMENTS = frozenset({"上", "下", "起"})
"""开下 (开一下), 电热毯开上, 关起: a direction after 开/关 ending the clause adds nothing to it."""
_PHRASE_KINDS = frozenset({_Kind.NAME, _Kind.TYPE, _Kind.OTHER})
_VALUE_KINDS = frozenset({_Kind.OTHER, _Kind.TYPE, _Kind.ATTR, _Kind.MODE})
"""Tokens a setting's unknown value is made of (紫色, 睡眠模式, 连续除湿)."""
SCENE_CATEGORY = "Scene"
_SCENE = SCENE_CATEGORY
"""The category of 模式 and 场景: a word of it may end a mode said of a device (睡眠模式)."""
_HEAD_KINDS = frozenset({_Kind.NAME, _Kind.TYPE})
_EXCLUDED_NAME_KINDS = _PHRASE_KINDS | {_Kind.CONJ}
_TEMPERATURE_CATEGORIES = frozenset({"AirConditioner", "Thermostat"})
_TASK_VERBS = (_Kind.PAUSE, _Kind.CANCEL, _Kind.STOP)
"""Verbs that prefix a task word (暂停烘干); a task said alone or resumed starts (继续扫地: 开始扫地,
as a start resumes a paused task)."""
_DEFAULT_TASK_VERB = "开始"
_TASK_DEVICES = {task: entry.words[0] for entry in DEVICE_WORDS.values() for task in entry.tasks}
"""The kind of device a task said alone is done by (扫下地: the vacuum), from ``data/device_words.yaml``."""

_CN_DIGITS = {"零": 0, "两": 2, **{char: value for value, char in enumerate("〇一二三四五六七八九")}}
_CN_PLACES = {"千": 1000, "百": 100, "十": 10}
_CN_NUMBER = "[零一二两三四五六七八九十百千]+"
_NUMBER_PATTERNS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(rf"百分之([0-9]+|{_CN_NUMBER})"), "%"),
    (re.compile(r"([0-9]+(?:\.[0-9]+)?)(%|度|°c|°|档|挡|段|号|k)?"), None),
    (re.compile(rf"([0-9]+|{_CN_NUMBER})趴"), "%"),  # Taiwan: 三十趴 is 30 %
    (re.compile(rf"({_CN_NUMBER})(度|档|挡|段|号|k)"), None),  # 三千k: kelvin
    (
        re.compile(
            r"([一二两三四五六七八九][十百千](?:[零一二三四五六七八九][十百]?)*|十[一二三四五六七八九])()"
        ),
        None,
    ),
)
"""Value patterns: (regex, fixed unit or None to take the unit from group 2). A compound Chinese
numeral (十五, 八十, 二十六) is a value without a unit; a lone 十 or 百 is not (百叶窗)."""
_DECIMAL_PATTERN = re.compile(rf"([0-9]+|{_CN_NUMBER})点([0-9]|[零一二三四五六七八九])(度|°c|°)")
"""二十三点五度, 23点5度: a number with a decimal said, and its unit (without one, 七点五 is a time)."""
_UNITS = {"°": "度", "°c": "度", "挡": "档", "段": "档", "号": "档"}
"""Units written otherwise: 挡, Taiwan's 段 (电扇开二段) and 号 (风扇开三号) are levels (档)."""
_COUNT_PATTERN = re.compile(r"([0-9]+|[一二两三四五六七八九十]+)(个|盏|台|只|组|扇|部|套|路)")
_SHARE_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"([一二两三四五六七八九])成"), 10.0),
    (re.compile(r"一半"), 50.0),
)
"""Shares said as words: (regex, percent per unit of group 1, or the percent when it has no group)."""
EXTREME_VALUES = {"最大": 1, "最小": -1}
"""The ends of a command's range, as the parser writes them (设置风速=最大)."""
_EXTREME_WORDS = {
    **dict.fromkeys(("最大", "最高", "最亮", "最强", "最热", "最快"), "最大"),
    **dict.fromkeys(("最小", "最低", "最暗", "最弱", "最冷", "最慢"), "最小"),
}
"""Words for the ends of a range (调到最亮): values the engine gives the command's bound."""
EXTREME_UNIT = "end"
_DURATION_PATTERN = re.compile(rf"([0-9]+|{_CN_NUMBER}|半)(分钟|小时|个小时|秒钟|秒|个钟)")
"""十分钟(后): a delay or a duration, which no command of a device takes."""
_CLOCK_PATTERN = re.compile(r"([0-9]{1,2}|十[一二]?|[二两三四五六七八九])(点半|点钟|点)")
"""七点, 十点半: a time of day (not 一点, which is mostly "a bit")."""
_RELATIVE_WORDS = {
    "高": "调高",
    "低": "调低",
    "大": "调大",
    "小": "调小",
    "亮": "调亮",
    "暗": "调暗",
    "升": "调高",  # 温度升一度, 降五度, 湿度加十
    "降": "调低",
    "加": "调高",
    "减": "调低",
}
"""Before a number with its unit, a change by it (低一度, 高两度, 亮百分之十), not a setting to it."""
_AMOUNT_NOUNS = frozenset({"亮", "光"})
"""What a share is of, said after it (八成亮): nothing more than the share."""
_KEPT_STATES = {"开着": _Kind.ON, "亮着": _Kind.ON, "关着": _Kind.OFF}
"""States said as what to keep before a request particle (还是开着吧): an action, not a question."""
_REQUEST_PARTICLES = frozenset({"吧", "就好", "就行", "好了"})
_NOT_YET = "未"
"""Ending a clause, it asks whether something has happened (Cantonese 开咗未: 开了没)."""
_CLAUSE_END_KINDS = frozenset({_Kind.SEP, _Kind.FILLER, _Kind.ASK})
_DEGREE = "度"
_TENTH_DIGITS = frozenset("一二三四五六七八九123456789")
"""After 度, a digit alone is the tenths (十九度五 is 19.5, as 三块五 is 3.5)."""
_HALF = "半"
"""After a number with its unit (二十三度半, 两档半): half a unit more."""
_FRACTION_PATTERN = re.compile(r"([一二两三四五六七八九十])分之([一二两三四五六七八九])")
"""三分之一: the denominator first, as said."""


@dataclass(slots=True, frozen=True)
class _Token:
    """One piece of the utterance."""

    kind: _Kind
    text: str
    """The surface text (compacted)."""
    value: str = ""
    """The canonical value: room/device name as configured, action, attribute, number."""
    unit: str = ""
    """The unit of a ``NUM`` token (``%``, ``度``, ``档`` or empty)."""


@dataclass(slots=True)
class _Target:
    """What one command points at, before its quantifier is settled."""

    name: str = ANY_NAME
    category: str = UNKNOWN_CATEGORY
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    quantifier: Quantifier | None = None
    """Set when the words say it (所有, 除了, 随便, 两盏); otherwise decided at the end."""
    count: int | None = None
    left_out: list[str] = field(default_factory=list)
    """Names of devices the set leaves out (除了落地灯)."""
    the_rooms: bool = False
    """Said as the room's (客厅的灯, with 的): switched off, every one of the kind there."""
    one_called_so: bool = False
    """Settled one because a device is called the room and the kind (厨房灯 for 厨房的灯)."""


@dataclass(slots=True)
class _Clause:
    """The targets and action words of one clause."""

    tokens: list[_Token]
    targets: list[_Target]
    has_scope: bool = False
    """True when the clause itself named or excluded rooms."""
    value: str = ""
    """Words said as the value of a setting verb that the lexicon does not know (调成紫色: 紫色)."""
    value_said: str = ""
    """A value a device takes said alone, with no verb (黄光, 我要蓝色的)."""


MIN_ROOM_TAIL = 2
"""Characters a name needs before its kind word to be called by its room's end (走廊灯, 二楼走廊)."""


class OfflineReading(NamedTuple):
    """What the offline parser read in an utterance."""

    commands: list[Command]
    """The wire commands read, ``[UNKNOWN_COMMAND]`` if none."""
    unread: tuple[str, ...]
    """Words no command reads (窗帘开个缝: 缝)."""
    remarks: tuple[str, ...]
    """Clauses that say why or what to do later, as heard (鱼也要困觉的, 一会儿洗澡再开): no command,
    and no word of theirs is a target."""
    unread_if_carried: tuple[str, ...] = ()
    """In an utterance saying no action, the words a command carried from the previous turn would
    read nothing from (三楼走廊的呢: 走廊)."""


@dataclass(frozen=True, slots=True)
class DeviceCalls:
    """How a home's devices are called beyond their names: decides one or all of a kind said."""

    sole_names: frozenset[str] = frozenset()
    """Words (compacted) that are the own name or alias of exactly one device: 电视 said alone is that one."""
    room_named: frozenset[tuple[str, str]] | None = None
    """(room, category) of the devices called by their category's word in their room (厨房灯, or 灯 in
    厨房: 厨房, Light), and (floor, category) of those called so on their floor (一楼暖气); None when
    the rooms of the devices are not known (then any device so called)."""
    room_aliases: Mapping[str, str] = field(default_factory=dict)
    """Each area alias (compacted) and the area's name (大卧室: 主卧)."""
    room_kinds: frozenset[str] = frozenset()
    """Kinds of room several rooms are named after their floors (卫生间 of 一楼卫生间, 二楼卫生间)."""
    named_after_elsewhere: frozenset[str] = frozenset()
    """Names (as configured) holding another room's word than the device's own: 车库门口灯 in the
    garden is called by its whole name, not read as a 门口灯 in the garage."""
    value_words: frozenset[str] = frozenset()
    """The words of the values the devices' commands list (紫色, 暖光, 彩虹), two characters or more."""
    doors_that_move: bool = False
    """True when a door, a gate or a garage door opens by itself (a cover called so, not a lock)."""

    @classmethod
    def of(
        cls, devices: Sequence[Device], rooms: Sequence[Room] = (), values: Collection[str] = ()
    ) -> DeviceCalls:
        """Return how ``devices`` are called, with the aliases of ``rooms`` and the ``values`` they take."""
        called = [
            {compact(n) for n in (device.name, *device.aliases) if n and not is_borrowed_type_word(n)}
            for device in devices
        ]
        counts = Counter(name for names in called for name in names)
        room_words = {compact(room.name): [compact(a) for a in room.aliases if a] for room in rooms}
        floor_words = {compact(room.name): [compact(f) for f in room.floor_names if f] for room in rooms}
        room_named = set()
        for device, names in zip(devices, called, strict=True):
            room = compact(device.room)
            for name in names:
                # 阳台灯 in the room 阳台花园 called 阳台 too: the light called so in that room;
                # 走廊灯 in the room 二楼走廊: 二楼走廊灯 ends with its name.
                words = [w for w in (room, *room_words.get(room, ())) if w]
                prefix = next((w for w in words if name.startswith(w)), "")
                said = name.removeprefix(prefix)
                kind = next((word for word in GENERIC_TYPE_WORDS if name.endswith(word)), "")
                tail = name.removesuffix(kind)
                if said in GENERIC_TYPE_WORDS:
                    room_named.add((room, TYPE_WORDS[said]))
                # 一楼暖气 on the first floor: 一楼的暖气 is that one, not the floor's every heater
                floor = next((w for w in floor_words.get(room, ()) if name.startswith(w)), "")
                if floor and name.removeprefix(floor) in GENERIC_TYPE_WORDS:
                    room_named.add((floor, TYPE_WORDS[name.removeprefix(floor)]))
                elif kind and len(tail) >= MIN_ROOM_TAIL and any(w.endswith(tail) for w in words):
                    room_named.add((room, TYPE_WORDS[kind]))
        return cls(
            sole_names=frozenset(name for name, count in counts.items() if count == 1),
            room_named=frozenset(room_named),
            room_aliases={alias: name for name, aliases in room_words.items() for alias in aliases},
            room_kinds=frozenset(rooms_of_a_kind(rooms)),
            named_after_elsewhere=_named_after_elsewhere(devices, room_words),
            value_words=frozenset(
                word
                for word in (compact(normalize(value)) for value in values)
                if len(word) >= MIN_VALUE_WORD and word not in _FUNCTION_WORDS
            ),
            doors_that_move=any(_moves_as_a_door(device) for device in devices),
        )


def _holds_an_action(text: str, words: Mapping[str, tuple[_Kind, str]]) -> bool:
    """Return True when a word of an action (a verb, a mode, a task) is part of ``text``."""
    return any(
        words.get(text[start:end], (_Kind.OTHER, ""))[0] in _ACTION_WORD_KINDS
        for start in range(len(text))
        for end in range(start + 1, len(text) + 1)
    )


_MOVING_DOORS = frozenset({_COVER, "GarageDoor"})
"""Categories of what opens as a door does: a garage door, a cover called a gate or a door."""


def _moves_as_a_door(device: Device) -> bool:
    """Return True for a device that opens as a door does (车库门, a gate), not a lock or a valve (阀门)."""
    return device.category in _MOVING_DOORS and any(
        compact(name).endswith(_LOCKED) for name in (device.name, *device.aliases, device.kind) if name
    )


def _named_after_elsewhere(devices: Sequence[Device], room_words: Mapping[str, list[str]]) -> frozenset[str]:
    """Return the device names and aliases holding a word of a room other than the device's own.

    车库门口灯 in 花园; 大房热水器 in 大房厕所, 大房 being another room's alias.
    """
    everywhere = {word for room, aliases in room_words.items() for word in (room, *aliases) if word}
    named = set()
    for device in devices:
        room = compact(device.room)
        others = everywhere - {room, *room_words.get(room, ())}
        for name in (device.name, *device.aliases):
            said = compact(name)
            if room and any(word in said and word != said for word in others):
                named.add(name.strip())
    return frozenset(named)


@dataclass(slots=True, frozen=True)
class OfflineParser:
    """The offline parser of one home: function words plus its rooms and device names.

    Build it once per home with ``build``; ``parse`` then costs the same whatever
    the number of rooms and devices (tokens are found by dict lookups of the
    utterance's substrings, never by a scan of the words).
    """

    words: dict[str, tuple[_Kind, str]]
    lengths: tuple[int, ...]
    """The distinct lengths of ``words``, longest first."""
    device_names: frozenset[str]
    """Device names as they appear in ``NAME`` token values."""
    categories: frozenset[str] | None
    calls: DeviceCalls = field(default_factory=DeviceCalls)
    """How the devices are called beyond their names (电视 for one TV, 厨房灯 in 厨房)."""

    @classmethod
    def build(
        cls,
        rooms: Collection[str],
        device_names: Collection[str] = (),
        *,
        categories: Collection[str] | None = None,
        calls: DeviceCalls | None = None,
    ) -> OfflineParser:
        """Return the parser of one home (rooms beat device names beat function and type words).

        ``rooms`` and ``device_names`` are the home's own (longest match wins); a
        device name that contains a room word is known by the rest (客厅主灯 -> 主灯).
        When ``categories`` is given, a target whose category is not among them gets
        ``Unknown``, as the prompt asks of the LLM. A type word in ``calls.sole_names`` (one device's
        own name or alias) said without a room means that device, not every device of its kind.
        """
        words: dict[str, tuple[_Kind, str]] = {word: (_Kind.TYPE, word) for word in TYPE_WORDS}
        words.update(_FUNCTION_WORDS)
        room_words: dict[str, tuple[_Kind, str]] = {}
        for room in rooms:
            key = compact(room)
            if key and key not in room_words:
                room_words[key] = (_Kind.ROOM, room.strip())
        room_keys = _RoomKeys.build(room_words)
        names = _name_words(device_names, room_keys, words, calls or DeviceCalls())
        words.update(names)
        words.update(room_words)
        for value in sorted((calls or DeviceCalls()).value_words):
            # 切到有线电视, 转第四台: a value the home lists is read whole, unless it says an action
            # (a washer's 开始洗衣服 keeps its verb 开始)
            if has_han(value) and value not in words and not _holds_an_action(value, words):
                words[value] = (_Kind.OTHER, value)
        return cls(
            words=words,
            lengths=tuple(sorted({len(word) for word in words}, reverse=True)),
            device_names=frozenset(value for _kind, value in names.values()),
            categories=frozenset(categories) if categories is not None else None,
            calls=calls or DeviceCalls(),
        )

    def parse(self, text: str) -> list[Command]:
        """Return the wire commands of ``text`` parsed by rules, ``[UNKNOWN_COMMAND]`` if none."""
        return self.read(text)[0]

    def read(self, text: str) -> OfflineReading:
        """Return the commands of ``text``, the words they read nothing from, the clauses saying why.

        See ``unread_words`` and ``_what_to_do``.
        """
        tokens = _tokenize(compact(text)[:MAX_OFFLINE_CHARS], self)
        tokens = _verb_ending_a_name(
            _for_someone_dropped(_lone_numbers_set(_pulled_up(_sides_of_rooms(tokens))))
        )
        # 那个那个，老人屋的空调调到26度: a clause of 那个 alone is no command
        clauses, replaced = _said_instead(
            [clause for clause in _split_clauses(tokens) if not _hesitation(clause)]
        )
        if replaced:
            dropped = {id(token) for clause in replaced for token in clause}
            tokens = [token for token in tokens if id(token) not in dropped]
        clauses, remarks = _what_to_do(clauses, self)
        commands = self._commands(clauses)
        saying_no_action = not any(_has_action_word(clause) for clause in clauses)
        carried = unread_words(tokens, commands, every_clause=True) if saying_no_action else ()
        said_instead = [_said(clause) for clause in replaced]
        return OfflineReading(commands, unread_words(tokens, commands), (*said_instead, *remarks), carried)

    def _commands(self, clauses: list[list[_Token]]) -> list[Command]:
        """Return the wire commands of the clauses' tokens, ``[UNKNOWN_COMMAND]`` if none."""
        commands: list[Command] = []
        previous: list[_Target] = []
        previous_action: str | None = None
        carried: list[str] = []
        carried_names: list[str] = []
        carried_rooms: list[str] = []
        unsettled: list[_Target] = []
        """The previous clause's targets as said, before their quantifiers were settled."""
        for number, clause_tokens in enumerate(clauses, 1):
            clause = _read_clause(clause_tokens, self)
            targets = clause.targets
            if number < len(clauses) and _only_exclusion(clause, clauses[number]):
                carried, carried_names = list(targets[0].exclude), list(targets[0].left_out)
                carried_rooms = list(targets[0].include)  # 浩浩屋只留台灯，别的灯都关了: in 浩浩屋
                continue
            if (kept := _left_out_of(commands, previous, clause) or _valued_by(clause, commands)) is not None:
                # 窗帘都打开，纱帘不用: the set before leaves the 纱帘 alone; 电竞灯换个颜色，红色: the
                # colour the setting before wants
                commands = kept
                continue
            if _adds_nothing(clause, commands, previous_action):
                continue  # 水晶吊灯关了，筒灯留着: the downlight is left as it is
            if placed := _placed_after(unsettled, clause):
                # 开个空调，孩子屋的: the room said after the command is the command's room
                for target in placed:
                    _settle_quantifier(target, self)
                action = previous_action or UNKNOWN_ACTION
                commands[-len(placed) :] = [_command(action, target) for target in placed]
                previous = placed
                continue
            if not targets:
                targets = _previous_targets(previous, clause)
                commands = _without_unacted(commands, previous, previous_action)
            elif previous and not clause.has_scope:
                _inherit_rooms(targets, previous, self.calls.sole_names)
                commands = _without_room_said_first(commands, previous, previous_action)
            _carry_exclusion(targets, carried, carried_names, carried_rooms)  # 留筒灯，其他关掉
            carried, carried_names, carried_rooms = [], [], []
            unsettled = [replace(target, include=list(target.include)) for target in targets]
            for target in targets:
                _settle_quantifier(target, self)
            action = _action_or_previous(clause, targets[0].category, previous_action)
            action = _door_opened(action, targets, self)
            commands.extend(_command(action, target) for target in targets)
            previous, previous_action = targets, action
        return _or_unknown(commands)


def _what_to_do(clauses: list[list[_Token]], lexicon: OfflineParser) -> tuple[list[list[_Token]], list[str]]:
    """Return the clauses saying what to do now, and those past the first that do not, as heard.

    鱼缸灯关脱,鱼也要困觉的: 困觉 (a scene's name) is no second target; 先关了,一会儿洗澡再开:
    what is to be done later is no command now (nothing here waits to do it).
    """
    remarks: list[str] = []
    if (
        (
            len(clauses) > 1
            and (_complains(clauses[0]) or _says_what_i_do(clauses[0]))
            and any(map(_has_action_word, clauses[1:]))
        )
        or _says_what_goes_on(clauses, lexicon)
        or _says_how_a_room_is(clauses)
    ):
        # 太吵了，先停一下: what is wrong, then what to do about it; 我们出门了，开离家模式
        remarks, clauses = ["".join(token.text for token in clauses[0])], clauses[1:]
    elif (cleared := _complaint_cleared(clauses)) is not None:
        # 客厅灯太刺眼了，调到百分之五十: the value said is what to do about the glare
        remarks, clauses = [cleared[1]], [cleared[0], *clauses[1:]]
    kept = clauses[:1]
    for clause in clauses[1:]:
        complaint_after = _complains(clause) and any(map(_has_action_word, kept))
        if _says_when(clause) or _says_what_i_do(clause) or complaint_after:
            # 小天鹅关掉，声音太吵了: why it is switched off
            remarks.append("".join(token.text for token in clause))
        elif (
            not _has_action_word(clause)
            and not _value_said(clause, lexicon.calls.value_words)
            and not _says_a_level(clause)
            and _says_why(clause)
            and any(map(_has_action_word, kept))
        ):
            # after a command only: 吃好夜饭了，油烟还没散 is all about the need
            remarks.append(_said(clause))
        else:
            kept.append(clause)
    return kept, remarks


_LEVEL_UNITS = ("档", "速", "风")
"""What may follow a level said alone (低档, 中速, 高风)."""


def _says_a_level(clause: Sequence[_Token]) -> bool:
    """Return True for a clause saying only a level (吊扇开, 低档; ceiling fan on, low): a value, no why."""
    said = "".join(token.text for token in clause if token.kind not in {_Kind.FILLER, _Kind.SEP})
    level = said.removesuffix(next((unit for unit in _LEVEL_UNITS if said.endswith(unit)), ""))
    return bool(level) and level in ascending_words()


def _says_what_goes_on(clauses: list[list[_Token]], lexicon: OfflineParser) -> bool:
    """Return True when the first clause only says what goes on and a later one what to do, to what.

    睡觉了,两个门都锁上; 老头子在睡觉,天猫精灵别响了: the first says only words and names of no kind
    of device (睡觉 is a word of scenes' names), no room, time, exception or action, and no unknown
    word after a name (that would be its verb); the command after names its own device.
    """
    if len(clauses) < 2:
        return False
    first = clauses[0]
    return (
        {token.kind for token in first} <= {_Kind.NAME, _Kind.OTHER, _Kind.FILLER}
        and any(token.kind in {_Kind.NAME, _Kind.OTHER} for token in first)
        and not _verb_after_a_name(first)
        and all(
            _category_of(token.value, lexicon) == UNKNOWN_CATEGORY
            for token in first
            if token.kind is _Kind.NAME
        )
        and any(
            _has_action_word(clause) and any(token.kind in {_Kind.NAME, _Kind.TYPE} for token in clause)
            for clause in clauses[1:]
        )
    )


def _says_how_a_room_is(clauses: list[list[_Token]]) -> bool:
    """Return True when the first clause says how a room is and the next what to do there, naming it again.

    楼上好冷, 楼上的空调都开起: the cold is why; the room is said where the command needs it.
    """
    if len(clauses) < 2:
        return False
    first, following = clauses[0], clauses[1]
    rooms = {token.value for token in first if token.kind is _Kind.ROOM}
    return (
        bool(rooms)
        and {token.kind for token in first} <= {_Kind.ROOM, _Kind.OTHER, _Kind.FILLER, _Kind.SEP}
        and any(token.kind is _Kind.OTHER and has_han(token.text) for token in first)
        and _has_action_word(following)
        and rooms <= {token.value for token in following if token.kind is _Kind.ROOM}
    )


def _verb_after_a_name(tokens: Sequence[_Token]) -> bool:
    """Return True when a word the parser does not know follows a name: it is the name's verb (风筒收埋)."""
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    return any(
        token.kind is _Kind.NAME and following.kind is _Kind.OTHER
        for token, following in itertools.pairwise(said)
    )


def _said(clause: Sequence[_Token]) -> str:
    """Return a clause as heard, without the fillers it opens with (要暖光: 暖光; 用 turbo: turbo)."""
    start = next((i for i, token in enumerate(clause) if token.kind is not _Kind.FILLER), len(clause))
    return "".join(token.text for token in clause[start:])


def _complains(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause saying only that something is too much (太吵了, 声音太大了): no target."""
    said = [token for token in tokens if token.kind not in {_Kind.FILLER, _Kind.SEP, _Kind.ATTR}]
    return bool(said) and all(token.kind is _Kind.ADJUST for token in said)


_TOO = "太"
"""太亮, 太吵: what is too much, which says what to change when nothing else does."""


def _complaint_cleared(clauses: list[list[_Token]]) -> tuple[list[_Token], str] | None:
    """Return the first clause without what it finds too much, and that, when the next says what to do.

    客厅灯太刺眼了，调到百分之五十: the light, set to half; the glare is why, no step down as well.
    None unless the first clause names a target and says nothing to do but a complaint, and the
    second says an action and no target of its own.
    """
    if len(clauses) < 2:
        return None
    first, second = clauses[0], clauses[1]
    too_much = [token.kind is _Kind.ADJUST and token.text.startswith(_TOO) for token in first]
    complaint = [token for token, said in zip(first, too_much, strict=True) if said]
    others = [token for token, said in zip(first, too_much, strict=True) if not said]
    if (
        not complaint
        or _has_action_word(others)
        or not any(token.kind in _HEAD_KINDS for token in others)
        or not _has_action_word(second)
        or any(token.kind in _HEAD_KINDS for token in second)
    ):
        return None
    return others, "".join(token.text for token in complaint)


_KEEPING_KINDS = frozenset({_Kind.NEG, _Kind.EXC_START, _Kind.EXC_END})
"""Words of a clause that keeps devices out of a command (留返台灯, 电视不用): it says what to do."""


_SPEAKER_WORDS = frozenset({"我", "我们", "俺", "俺们"})
_WANTING_WORDS = frozenset({"要", "想", "想要", "来", "帮", "帮我", "让", "给"})


def _says_what_i_do(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause whose subject is the speaker doing something (我换个水, 我煮个面).

    After a command it says why; 我要/我想 + a verb, or 我 + 开/关, still asks for something,
    unless nothing after the want is a device, a room, a setting or a switching verb (我要煮饭).
    """
    said = [token for token in tokens if token.kind is not _Kind.SEP]
    if len(said) < 2 or said[0].text not in _SPEAKER_WORDS:
        return False
    if said[1].text in _WANTING_WORDS:
        # 我给鱼换水, 我要煮饭: what the speaker is about to do, no device or setting said
        rest = said[2:]
        return any(t.kind is _Kind.OTHER and has_han(t.text) for t in rest) and all(
            t.kind in {_Kind.OTHER, _Kind.FILLER, _Kind.SET} for t in rest
        )
    return said[1].kind not in {_Kind.ROOM, _Kind.NAME, _Kind.TYPE, _Kind.ON, _Kind.OFF}


def _has_action_word(tokens: Sequence[_Token]) -> bool:
    """Return True when the tokens say an action, a value, a mode or a task."""
    return any(token.kind in _ACTION_WORD_KINDS for token in tokens)


def _says_when(tokens: Sequence[_Token]) -> bool:
    """Return True when the tokens say a time (一会儿, 十分钟后, 明天): what they say is for later."""
    return any(token.kind is _Kind.WHEN for token in tokens)


def _says_why(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause without an action that opens with words no command reads (鱼也要困觉的).

    After a command, such a clause says why (人都上楼了, 等下睡觉用): its subject is no device.
    An unknown word after a target is its verb (水壶也烧上), a second command; a kind of device
    said (看电视晃眼睛) may be what it is about; one keeping devices out (淨係留返台灯) says what to do;
    one saying what is lacking or has come to be (水箱没水了, 热煞了) says why, whatever it names.
    """
    if any(
        token.kind in _KEEPING_KINDS or (token.kind is _Kind.NAME and is_type_word(token.value))
        for token in tokens
    ):
        return False
    if _says_what_has_come_to_be(tokens):
        return True
    said = [token.kind for token in tokens if token.kind not in {_Kind.FILLER, _Kind.PRON, _Kind.SEP}]
    if said and said[0] is _Kind.ROOM and _Kind.OTHER in said and not {_Kind.NAME, _Kind.TYPE} & set(said):
        return True  # 娭毑要过去: a room's owner doing something, not where to do it
    for token in tokens:
        if token.kind is _Kind.OTHER and (has_han(token.text) or has_latin(token.text)):
            return True
        if token.kind not in {_Kind.FILLER, _Kind.PRON}:
            return False
    return False


def _says_what_has_come_to_be(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause saying what a thing lacks (水箱没水了) or has become (吃夜饭热煞了).

    An unknown word ending in 了 after a name says a state, not a second command; 也 (水壶也烧上了)
    makes it one.
    """
    if any(token.kind is _Kind.OTHER and token.text in _LACKING for token in tokens):
        return True
    said = [token for token in tokens if token.kind is not _Kind.SEP]
    return (
        _ends_in_a_change(said)
        and len(said) > 1
        and said[-2].kind is _Kind.OTHER
        and not any(token.text in _ALSO for token in said)
    )


def _ends_in_a_change(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause ending in 了 (separators aside): what has come to be, nothing wanted."""
    said = [token for token in tokens if token.kind is not _Kind.SEP]
    return bool(said) and said[-1].text == _CHANGED


_ASSERTING = "是"
"""The word saying which is meant (是主卧的): after a place said alone, it is said instead of it."""


def _said_instead(clauses: list[list[_Token]]) -> tuple[list[list[_Token]], list[list[_Token]]]:
    """Return the clauses without a place or name said alone that the next one, opening with 是, replaces.

    不是楼下的, 是主卧的 (不是 folds to nothing): 主卧 is meant, 楼下 was what the last turn took. The
    clauses replaced are returned apart.
    """
    kept: list[list[_Token]] = []
    replaced: list[list[_Token]] = []
    for clause in clauses:
        said = [token for token in clause if token.kind is not _Kind.SEP]
        if (
            kept
            and said
            and said[0].kind is _Kind.FILLER
            and said[0].text == _ASSERTING
            and _only_a_place_or_name(said[1:])
            and _only_a_place_or_name(kept[-1])
        ):
            replaced.append(kept.pop())
        kept.append(clause)
    return kept, replaced


def _only_a_place_or_name(tokens: Sequence[_Token]) -> bool:
    """Return True for tokens saying a room or a name and nothing else but fillers (楼下的)."""
    said = [token for token in tokens if token.kind not in {_Kind.FILLER, _Kind.SEP}]
    return bool(said) and all(token.kind in _HOME_KINDS for token in said)


def _hesitation(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause of demonstratives and fillers alone (那个那个, 嗯那个)."""
    said = [token for token in tokens if token.kind not in {_Kind.FILLER, _Kind.SEP}]
    return bool(said) and all(token.kind is _Kind.PRON and token.value == _DEMONSTRATIVE for token in said)


def unread_words(
    tokens: Sequence[_Token], commands: Sequence[Command], *, every_clause: bool = False
) -> tuple[str, ...]:
    """Return the runs of Chinese characters and the Latin words the commands read nothing from (开个缝: 缝).

    A character is read when it is a word of the lexicon or the home, or part of a name, room,
    action or value of a command; a room said, when a command's rooms hold it. Acting without
    the rest would drop what it says (开 rainbow 效果 would turn a light on and drop the effect;
    扫地机扫一下主卧 would clean the whole home). Only clauses saying what to do count: one
    saying why (我下去拿点酸菜, 热到 emo 了) changes nothing; with ``every_clause``, all do (三楼走廊的呢,
    read as the previous command carried to it).
    """
    read = compact("".join(c.n + c.s + c.a + "".join(c.x) for c in commands))
    rooms = {compact(room.lstrip("!")) for c in commands for room in c.s.split(",")}
    runs: list[str] = []
    for clause in _split_at_separators(tokens):
        if every_clause and not any(token.kind in _CARRIED_TO for token in clause):
            continue  # 好的，卧室的呢: 好的 is no place or device a carried command goes to
        if (
            (not every_clause and not _has_action_word(clause) and not _says_a_level(clause))
            or _says_when(clause)
            or _says_what_i_do(clause)
        ):
            continue  # 我下去拿点酸菜, 我换个水: a clause saying why; 一会儿洗澡再开: what is for later
        runs += _unread_in_clause(clause, read, rooms)
    return tuple(dict.fromkeys(runs))


def _unread_in_clause(clause: Sequence[_Token], read: str, rooms: set[str]) -> list[str]:
    """Return the runs of one clause's characters and Latin words that ``read`` does not hold."""
    runs: list[str] = []
    run, latin = "", ""
    ending = [*clause, _Token(_Kind.SEP, "")]
    complements = _complements_of_amount(clause, read)
    for token, following in zip(ending, [*ending[1:], ending[-1]], strict=True):
        if _verb_of_amount(token, following, read) or any(token is t for t in complements):
            continue  # 窗帘拉一半: the verb of a setting's value said around it (卷帘放一半下来)
        if token.kind is _Kind.OTHER and has_latin(token.text):
            latin += token.text
            continue
        if latin:
            runs += [latin] if latin not in read else []
            latin = ""
        if token.kind is _Kind.OTHER and has_han(token.text) and token.text not in read:
            run += token.text
        elif run:
            runs.append(run)
            run = ""
        if token.kind is _Kind.ROOM and compact(token.value) not in rooms and token.text not in read:
            runs.append(token.text)  # 扫地机去扫一下主卧: a place no command goes to
    return runs


_DIRECTION_COMPLEMENTS = frozenset({"下来", "下去", "上来", "上去", "起来", "出来"})
"""What completes a verb said before an amount (放一半下来, 拉三成上去): the way it goes."""


def _complements_of_amount(clause: Sequence[_Token], read: str) -> list[_Token]:
    """Return the tokens of a direction said right after a number a command reads (下来 of 放一半下来)."""
    if "=" not in read:
        return []
    for index, token in enumerate(clause[:-1]):
        after = clause[index + 1 : index + 3]
        if token.kind is _Kind.NUM and "".join(t.text for t in after) in _DIRECTION_COMPLEMENTS:
            return list(after)
    return []


def _verb_of_amount(token: _Token, following: _Token, read: str) -> bool:
    """Return True for one unknown character just before a number a command reads (拉 of 拉一半)."""
    return (
        token.kind is _Kind.OTHER
        and len(token.text) == 1
        and has_han(token.text)
        and following.kind is _Kind.NUM
        and "=" in read
    )


def _split_at_separators(tokens: Sequence[_Token]) -> list[list[_Token]]:
    """Return the tokens between separators (punctuation, 然后)."""
    clauses: list[list[_Token]] = [[]]
    for token in tokens:
        if token.kind is _Kind.SEP:
            clauses.append([])
        else:
            clauses[-1].append(token)
    return [clause for clause in clauses if clause]


def _or_unknown(commands: list[Command]) -> list[Command]:
    """Return the commands, or ``[UNKNOWN_COMMAND]`` when none says an action, a room or a name.

    A name left out is said (台灯留着, after 灯全关了: the desk lamp is kept on).
    """
    if all(
        command.a == UNKNOWN_ACTION and command.n == ANY_NAME and command.s == ANY_ROOM and not command.x
        for command in commands
    ):
        return [UNKNOWN_COMMAND]
    return commands


_HALTING = frozenset({ACTION_STOP, ACTION_PAUSE})
"""Actions that halt what runs: 停 and 停一下 said one after the other say one thing."""


def _valued_by(clause: _Clause, commands: Sequence[Command]) -> list[Command] | None:
    """Return the commands, the last given the value a clause says alone when it is a setting lacking one."""
    if not clause.value_said or clause.targets or _has_action_word(clause.tokens) or not commands:
        return None
    last = commands[-1]
    if not last.a.startswith(SETTING_PREFIX) or "=" in last.a:
        return None
    return [*commands[:-1], replace(last, a=f"{last.a}={clause.value_said}")]


def _adds_nothing(clause: _Clause, commands: Sequence[Command], previous: str | None) -> bool:
    """Return True when a clause adds no command to those before it.

    It says no action and no target, or leaves something alone (水晶吊灯关了，筒灯留着), or,
    naming nothing, says the action before it again (停停停，先停一下; 台灯关掉，关了吧).
    """
    if not _has_action_word(clause.tokens) and not clause.value_said:
        return not clause.targets or bool(commands and (_leaves_alone(clause) or _only_exclusion(clause)))
    if clause.targets or previous is None or not commands:
        return False
    action = _clause_action(clause.tokens, UNKNOWN_CATEGORY, clause.value)
    if action is None or relative_direction(action) is not None:
        return False  # 调高一度，再调高一度: a step said twice is two steps
    return action == previous or {action, previous} <= _HALTING


def _action_or_previous(clause: _Clause, category: str, previous: str | None) -> str:
    """Return the clause's action; a clause without one does the previous clause's (卧室的也是).

    A clause saying only a value a device takes sets it (我要蓝色的; 灯开了, 黄光).
    """
    action = _clause_action(clause.tokens, category, clause.value)
    if action is None and not _holds_back(clause.tokens):
        action = f"{SETTING_PREFIX}={clause.value_said}" if clause.value_said else previous
    elif action is not None and previous == ACTION_OFF and _amount_alone(clause.tokens):
        action = _closed_by(action, category)  # 窗帘关个三分之一
    return action or UNKNOWN_ACTION


_ALSO = frozenset({"也", "再", "还"})
"""Words saying a clause does what was said before again, to something else (水壶也烧上了)."""
_CHANGED = "了"
"""Ending a clause, it says what has come to be (要睡眠了), not a value wanted."""
MIN_VALUE_WORD = 2
_BETWEEN_WORDS = frozenset({_Kind.NAME, _Kind.ROOM, _Kind.TYPE, _Kind.FILLER, _Kind.SEP, _Kind.PRON})


def _value_said(tokens: Sequence[_Token], value_words: frozenset[str]) -> str:
    """Return a value word a clause says as a word of its own (蓝色 of 我要蓝色的), or nothing.

    睡眠 inside 睡眠床够冷 is no value said: the word must be all of the run it is in.
    """
    if _ends_in_a_change(tokens):
        return ""  # 空调关了，要睡眠了: what is about to happen, no value to set
    for between, run in itertools.groupby(tokens, key=lambda token: token.kind in _BETWEEN_WORDS):
        word = "".join(token.text for token in run)
        if not between and word in value_words:
            return word
    return ""


def _placed_after(said: Sequence[_Target], clause: _Clause) -> list[_Target]:
    """Return the previous clause's targets in the rooms of a clause saying only rooms, or [].

    Only when the previous clause named no room and this one names nothing else and does nothing:
    开个空调，孩子屋的.
    """
    if len(clause.targets) != 1 or any(target.include or target.exclude for target in said):
        return []
    (only,) = clause.targets
    if only.name != ANY_NAME or not only.include or only.exclude or only.quantifier is not None:
        return []
    if _has_action_word(clause.tokens):
        return []
    return [replace(target, include=list(only.include)) for target in said]


def _without_unacted(
    commands: list[Command], previous: Sequence[_Target], action: str | None
) -> list[Command]:
    """Return the commands without the previous clause's if it said no action and this one takes its targets.

    那大屋的呢，也开着吗: the room said first is the question's, not a command of its own.
    """
    if previous and action == UNKNOWN_ACTION:
        return commands[: -len(previous)]
    return commands


def _without_room_said_first(
    commands: list[Command], previous: Sequence[_Target], action: str | None
) -> list[Command]:
    """Return the commands without the previous clause's if it said only rooms and no action.

    我在健身房，电风扇开一下: the room said first is the command's, no command of its own.
    """
    if all(target.name == ANY_NAME for target in previous):
        return _without_unacted(commands, previous, action)
    return commands


def _previous_targets(previous: Sequence[_Target], clause: _Clause) -> list[_Target]:
    """Return the targets of a clause naming none: the previous clause's, else an unnamed one (都关掉)."""
    targets = [replace(target, include=list(target.include)) for target in previous]
    said_all = any(token.kind is _Kind.ALL for token in clause.tokens)
    return targets or [_Target(quantifier=Quantifier.ALL if said_all else None)]


def _left_out_of(
    commands: list[Command], previous: Sequence[_Target], clause: _Clause
) -> list[Command] | None:
    """Return the commands with the last clause's sets leaving out what this clause says not to touch.

    None unless the clause only says not to do (不要, 不用) the same to named devices and the
    clause before acted on sets: 不要开空调 after 灯关了 is no exception to the lights.
    """
    named = [target.name for target in clause.targets if target.name not in {ANY_NAME, LAST_MENTIONED}]
    named = named or [name for name in (_orphan_name(clause.tokens),) if name]  # 电脑那个不要关
    negated = any(token.kind is _Kind.NEG for token in clause.tokens)
    if _only_exclusion(clause) and clause.targets[0].left_out:
        named, negated = list(clause.targets[0].left_out), True  # 全部关掉，留台灯: all but the desk lamp
    sets = previous and all(target.quantifier in {Quantifier.ALL, Quantifier.EXCEPT} for target in previous)
    verbs = {token.value for token in clause.tokens if token.kind in _SWITCH_KINDS}
    rooms = clause.targets[0].exclude if _only_exclusion(clause) else []
    rooms = rooms or (_rooms_said_alone(clause, previous) if negated else [])
    if sets and commands and rooms and not verbs - {commands[-1].a}:
        # 所有窗帘打开，除了主人房的 / 空调都开起来，客房的不用: the set before leaves the room out
        last = commands[-len(previous) :]
        left = [
            replace(c, s=",".join([c.s, *(f"!{room}" for room in rooms)]), q=Quantifier.EXCEPT) for c in last
        ]
        return [*commands[: -len(previous)], *left]
    if not named or not negated or not sets or not commands:
        return None
    if verbs - {commands[-1].a}:
        return None
    last = commands[-len(previous) :]
    left = [replace(c, q=Quantifier.EXCEPT, x=(*c.x, *named)) for c in last]
    return [*commands[: -len(previous)], *left]


def _rooms_said_alone(clause: _Clause, previous: Sequence[_Target]) -> list[str]:
    """Return the rooms of a clause naming only rooms, or them and the set's kind (客房的（空调）)."""
    kinds = {ANY_NAME, *(target.name for target in previous)}
    targets = clause.targets
    if not targets or any(not t.include or t.exclude or t.name not in kinds for t in targets):
        return []
    return [room for target in targets for room in target.include]


def _leaves_alone(clause: _Clause) -> bool:
    """Return True for a clause saying to leave its devices as they are (筒灯留着, 电视不用管)."""
    return any(token.kind is _Kind.NEG or token.text in _KEEP_WORDS for token in clause.tokens)


_KEEP_WORDS = frozenset({"留着"})


def _only_exclusion(clause: _Clause, following: Sequence[_Token] = ()) -> bool:
    """Return True for a clause that only excludes rooms (除了厨房和卫生间，其他灯都打开).

    A kind said with them that the ``following`` clause names too excludes no more (除了神台的灯，
    其他灯都关掉); one it leaves unsaid is the set's (窗帘除了主卧的，都打开).
    """
    kind = clause.targets[0].name if clause.targets else ANY_NAME
    said_again = is_type_word(kind) and any(
        t.kind in {_Kind.NAME, _Kind.TYPE} and t.value == kind for t in following
    )
    return (
        len(clause.targets) == 1
        and (kind in {ANY_NAME, LAST_MENTIONED} or said_again)  # 留细路房嗰部: the one there, a room
        and bool(clause.targets[0].exclude or clause.targets[0].left_out)
        and not (clause.targets[0].include and clause.targets[0].exclude)
        # 浩浩屋只留台灯，别的灯都关了: the room goes to the set said next; 当门灯留着，再给它开开 keeps none
        and (not clause.targets[0].include or any(t.kind in _HEAD_KINDS for t in following))
        and not _has_action_word(clause.tokens)
    )


def _carry_exclusion(
    targets: Sequence[_Target], exclude: Sequence[str], left_out: Sequence[str], rooms: Sequence[str] = ()
) -> None:
    """Give the targets of the clause after an exclusion-only clause its excluded rooms and names.

    A room said with the names left out (浩浩屋只留台灯) places the targets said without one there.
    """
    if not exclude and not left_out:
        return
    for target in targets:
        if not target.exclude and not target.left_out:
            target.exclude = list(exclude)
            target.left_out = list(left_out)
            target.quantifier = Quantifier.EXCEPT
            if rooms and not target.include:
                target.include = list(rooms)


def parse_offline(
    text: str,
    rooms: Collection[str],
    device_names: Collection[str] = (),
    *,
    categories: Collection[str] | None = None,
) -> list[Command]:
    """Return the wire commands of ``text`` parsed by rules, ``[UNKNOWN_COMMAND]`` if none.

    A convenience for one-off parses: it builds the home's ``OfflineParser``
    (see ``OfflineParser.build``) and throws it away; build it once to parse many.
    """
    return OfflineParser.build(rooms, device_names, categories=categories).parse(text)


@dataclass(slots=True, frozen=True)
class _RoomKeys:
    """The compacted room words of one home, for stripping them from device names."""

    ranks: dict[str, int]
    """Each room word and its rank: longest first, then in the order given."""
    lengths: tuple[int, ...]
    """The distinct lengths of the room words, longest first."""

    @classmethod
    def build(cls, keys: Iterable[str]) -> _RoomKeys:
        """Return the room words ranked longest first (ties keep their order)."""
        ordered = sorted(keys, key=len, reverse=True)
        return cls(
            ranks={key: rank for rank, key in enumerate(ordered)},
            lengths=tuple(sorted({len(key) for key in ordered}, reverse=True)),
        )

    def strip(self, name: str) -> str:
        """Return ``name`` without the first-ranked (longest) room word it contains.

        A name that is itself a room word is kept, and so is a Latin word holding one (Marshall
        holds no hall). Only the name's own substrings are looked up, so this does not grow with
        the number of rooms.
        """
        for length in self.lengths:
            if length >= len(name):
                continue
            found = [
                (rank, start)
                for start in range(len(name) - length + 1)
                if (rank := self.ranks.get(name[start : start + length])) is not None
                and not cuts_a_latin_word(name, start, start + length)
            ]
            if found:
                start = min(found)[1]
                return name[:start] + name[start + length :]
        return name


def _without_leading_fillers(name: str) -> str:
    """Return a name without the function words it starts with (里的灯: 的灯), if anything is left."""
    for size in range(min(len(name) - 1, max(map(len, _FUNCTION_WORDS))), 0, -1):
        word = _FUNCTION_WORDS.get(name[:size])
        if word is not None and word[0] is _Kind.FILLER:
            return _without_leading_fillers(name[size:])
    return name


def _name_words(
    device_names: Collection[str],
    room_keys: _RoomKeys,
    words: dict[str, tuple[_Kind, str]],
    calls: DeviceCalls,
) -> dict[str, tuple[_Kind, str]]:
    """Return the lexicon entries of the home's device names; one said in its room is known by the rest."""
    names: dict[str, tuple[_Kind, str]] = {}
    for device_name in device_names:
        full = compact(device_name)
        key = room_keys.strip(full)
        if key != full:
            # 爷爷奶奶屋的灯 without its room is 灯, not 的灯; 园子里的灯 too, not 里的灯
            key = _without_leading_fillers(key.strip(LINKING_WORD)).strip(LINKING_WORD)
        kind = words.get(key, (None, ""))[0] if key != full else None
        if kind in _ACTION_KINDS | {_Kind.MODE}:
            # 开铺子, a scene in the room 铺子, is no 开 without it: its whole name names it; nor is
            # 全屋除湿 the mode 除湿 (调成除湿)
            names.setdefault(full, (_Kind.NAME, device_name.strip()))
            continue
        if key != full and (key in ATTRIBUTE_WORDS or kind is _Kind.TASK):
            # 主卧湿度 without its room is the attribute 湿度 (湿度设到55), not a name; 全家扫地
            # without its room the task 扫地 (小黑开始扫地)
            continue
        if key and key not in names:
            names[key] = (_Kind.NAME, device_name.strip() if key == full else key)
        if device_name.strip() in calls.named_after_elsewhere:
            names[full] = (_Kind.NAME, device_name.strip())  # 车库门口灯, in the garden
    return names


def _tokenize(text: str, lexicon: OfflineParser) -> list[_Token]:
    """Return the leftmost-longest tokens of compacted ``text``; unknown characters are ``OTHER``.

    A word of the lexicon never cuts into a room or a device name of the home: 开大房盏灯 is
    开 and the room 大房, not 开大 (turn up) and 房.
    """
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        token = _token_at(text, position, lexicon)
        if token.kind not in _HOME_KINDS and (edge := _home_word_cut(text, position, token, lexicon)):
            token = _token_at(text, position, lexicon, longest=edge - position)
        elif token.kind is _Kind.NAME and (
            verb := _verb_before_a_longer_name(text, position, token, lexicon)
        ):
            token = verb
        tokens.append(token)
        position += len(token.text)
    return _reclassify(tokens)


def _verb_before_a_longer_name(
    text: str, position: int, name: _Token, lexicon: OfflineParser
) -> _Token | None:
    """Return the verb a name opens with when a name said after the verb runs on past it, else None.

    开直播灯 with a script 开直播 and a light 直播灯: 开 and the light, not the script and a lone 灯.
    """
    for length in range(len(name.text) - 1, 0, -1):
        verb = _token_at(text, position, lexicon, longest=length)
        if len(verb.text) != length or verb.kind not in _ACTION_KINDS:
            continue
        after = _token_at(text, position + length, lexicon)
        if after.kind in _HOME_KINDS and position + length + len(after.text) > position + len(name.text):
            return verb
    return None


_HOME_KINDS = frozenset({_Kind.ROOM, _Kind.NAME})


def _home_word_cut(text: str, position: int, token: _Token, lexicon: OfflineParser) -> int | None:
    """Return where a room or name starts inside ``token`` and runs past its end, or None."""
    end = position + len(token.text)
    for start in range(position + 1, end):
        for length in lexicon.lengths:
            if start + length <= end or start + length > len(text):
                continue
            entry = lexicon.words.get(text[start : start + length])
            if entry is not None and entry[0] in _HOME_KINDS and entry[1] != LAST_ROOM:
                return start  # 他房间 is the parser's own word: 其他房间 stays 其他 and 房间
    return None


def _token_at(text: str, position: int, lexicon: OfflineParser, longest: int | None = None) -> _Token:
    """Return the longest token starting at ``position`` (numbers win ties), at most ``longest`` long."""
    best = _number_at(text, position)
    if best is not None and longest is not None and len(best.text) > longest:
        best = None
    remaining = len(text) - position if longest is None else min(longest, len(text) - position)
    for length in lexicon.lengths:
        if length > remaining:
            continue
        if best is not None and length <= len(best.text):
            break
        word = text[position : position + length]
        entry = lexicon.words.get(word)
        if entry is not None:
            return _Token(entry[0], word, entry[1])
    return best or _Token(_Kind.OTHER, text[position], text[position])


_LONE_NUMERALS = frozenset("一二两三四五六七八九十")


def _lone_numbers_set(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with a lone numeral set to by a verb, ending its clause, read as a number.

    调到十: a value (a lone 十 is otherwise no number: 百叶窗, 十字路口).
    """
    ending = [*tokens[1:], _Token(_Kind.SEP, "")]
    return [
        _Token(_Kind.NUM, token.text, str(_to_int(token.text)))
        if token.kind is _Kind.OTHER
        and token.text in _LONE_NUMERALS
        and index > 0
        and tokens[index - 1].kind is _Kind.SET
        and ending[index].kind in {_Kind.SEP, _Kind.FILLER}
        else token
        for index, token in enumerate(tokens)
    ]


_DONE_WORDS = frozenset({"一下", "了"})
"""Fillers after a verb saying it is to be done (锁一下, 锁了): after a name, its last word is that verb
(上 and 好, no fillers, are ``_LOCK_PARTICLES``)."""


def _verb_ending_a_name(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with the verb a device's name ends in also read as the clause's action.

    店门锁一下, 把门锁了: 锁 names the lock and says to lock it, when nothing else in the clause
    says what to do and 把 comes before the name or 一下/了 after it.
    """
    out: list[_Token] = []
    ending = [*tokens[1:], _Token(_Kind.SEP, "")]
    for index, token in enumerate(tokens):
        out.append(token)
        if token.kind is not _Kind.NAME or not token.text.endswith(_LOCK_VERB) or token.text == _LOCK_VERB:
            continue
        before = tokens[index - 1].text if index else ""
        marked = ending[index].text in _DONE_WORDS or before in _OBJECT_MARKERS
        start, end = _clause_bounds(tokens, index)
        if marked and not _has_action_word(tokens[start:end]):
            out.append(_Token(_Kind.LOCK, "", ACTION_LOCK))
    return out


def _clause_bounds(tokens: Sequence[_Token], index: int) -> tuple[int, int]:
    """Return where the clause holding ``index`` starts and ends (between separators)."""
    start = next((i + 1 for i in range(index - 1, -1, -1) if tokens[i].kind is _Kind.SEP), 0)
    end = next((i for i in range(index, len(tokens)) if tokens[i].kind is _Kind.SEP), len(tokens))
    return start, end


def _sides_of_rooms(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with a side word after a room read as a filler: 铺子头的音箱 is the shop's.

    Only a side word standing alone: in 客厅面板灯, 面 begins a word the parser does not know.
    """
    following = [*tokens[1:], _Token(_Kind.SEP, "")]
    return [
        _Token(_Kind.FILLER, token.text, token.value)
        if index
        and token.kind is _Kind.OTHER
        and is_side(token.text)
        and tokens[index - 1].kind is _Kind.ROOM
        and following[index].kind is not _Kind.OTHER
        else token
        for index, token in enumerate(tokens)
    ]


def _pulled_up(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with 拉起来 read as opening where its clause names a thing that rolls up.

    卷帘拉起来, 百叶窗拉起: up, so open; 窗帘拉起来 may mean drawn shut, so it stays unread.
    """
    out = list(tokens)
    for index, token in enumerate(tokens):
        if token.kind is not _Kind.OTHER or token.value != _PULLED_UP:
            continue
        start, end = _clause_bounds(tokens, index)
        if any(
            part.kind in _HEAD_KINDS and any(word in part.text for word in ROLLED_WORDS)
            for part in tokens[start:end]
        ):
            out[index] = _Token(_Kind.ON, token.text, ACTION_ON)
    return out


_FOR_SOMEONE = frozenset({"帮", "替"})
"""帮张叔开了: 帮 or 替 before someone the home does not know, and a verb, says whom it is for."""
_OBJECT_MARKERS = frozenset({"把", "将"})
"""帮阿公把空调开了: what the action is done to follows 把."""
MAX_PERSON_CHARS = 3
"""Characters of a person's name or kinship word (张叔, 阿公, 小明明)."""
_GIVING = "给"
"""空调给阿公开一下: 给 after the device, before someone, says whom it is for."""


def _device_said_before(tokens: Sequence[_Token], index: int) -> bool:
    """Return True when the clause names a device before ``index`` (空调 in 空调给阿公开一下)."""
    start, _ = _clause_bounds(tokens, index)
    return any(token.kind in _HEAD_KINDS for token in tokens[start:index])


def _for_someone_dropped(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with 帮/替 and the person after it, before an action or 把, read as fillers.

    热水器帮张叔开了, 帮阿公把空调开了: the person is whom it is for, no word of the command.
    给 says so too after the device (空调给阿公开一下, 风扇给他开开), the person then being
    someone whose room the home knows; before any device, 给卧室开空调 says where.
    """
    out = list(tokens)
    for start, token in enumerate(tokens):
        if token.text == _GIVING and _device_said_before(tokens, start):
            end = start + 2 if start + 1 < len(tokens) and tokens[start + 1].kind is _Kind.ROOM else start + 1
        elif token.kind is _Kind.OTHER and token.text in _FOR_SOMEONE:
            end = start + 1
        else:
            continue
        while end < len(tokens) and tokens[end].kind is _Kind.OTHER and has_han(tokens[end].text):
            end += 1
        person = "".join(t.text for t in tokens[start + 1 : end])
        said_next = tokens[end] if end < len(tokens) else None
        if (
            0 < len(person) <= MAX_PERSON_CHARS
            and said_next is not None
            and (said_next.kind in _ACTION_KINDS or said_next.text in _OBJECT_MARKERS)
        ):
            out[start:end] = [_Token(_Kind.FILLER, t.text, t.text) for t in tokens[start:end]]
    return out


def _number_at(text: str, position: int) -> _Token | None:
    """Return a time (一个钟), a count (两盏) or a value (26度, 百分之五十, 三成, 一半) at ``position``.

    A decimal said with its unit comes first (23点5度 is no clock), then a time (一个钟 is no 一个).
    """
    if decimal := _decimal_at(text, position):
        return decimal
    if when := _DURATION_PATTERN.match(text, position) or _CLOCK_PATTERN.match(text, position):
        return _Token(_Kind.WHEN, when.group(0), when.group(1), when.group(2))
    if count := _COUNT_PATTERN.match(text, position):
        return _Token(_Kind.COUNT, count.group(0), str(_to_int(count.group(1))))
    return _share_at(text, position) or _value_at(text, position)


def _value_at(text: str, position: int) -> _Token | None:
    """Return an end of a range (最大) or a number with its unit (26度, 二十三度半, 十九度五), or None."""
    for word, end in _EXTREME_WORDS.items():
        if text.startswith(word, position):
            return _Token(_Kind.NUM, word, end, EXTREME_UNIT)
    for pattern, fixed_unit in _NUMBER_PATTERNS:
        match = pattern.match(text, position)
        if match:
            number = match.group(1)
            value = number if number[0].isdigit() else str(_to_int(number))
            unit = fixed_unit or match.group(2) or ""
            said = match.group(0)
            if unit and text.startswith(_HALF, match.end()) and "." not in value:
                said, value = said + _HALF, f"{value}.5"  # 二十三度半: a half more
            elif (tenths := _tenths_after(text, match.end(), unit)) and "." not in value:
                said, value = said + tenths, f"{value}.{_to_int(tenths)}"  # 十九度五: 19.5
            return _Token(_Kind.NUM, said, value, _UNITS.get(unit, unit))
    return None


def _tenths_after(text: str, position: int, unit: str) -> str:
    """Return the one digit said after 度 that gives its tenths (十九度五), or nothing."""
    digit = text[position : position + 1]
    after = text[position + 1 : position + 2]
    if unit != _DEGREE or digit not in _TENTH_DIGITS or re.match(_CN_NUMBER + "|[0-9]|度|分|个", after):
        return ""
    return digit


def _decimal_at(text: str, position: int) -> _Token | None:
    """Return a number said with a decimal and its unit (二十三点五度) as a value token, or None."""
    decimal = _DECIMAL_PATTERN.match(text, position)
    if decimal is None:
        return None
    value = f"{_to_int(decimal.group(1))}.{_to_int(decimal.group(2))}"
    return _Token(_Kind.NUM, decimal.group(0), value, _UNITS.get(decimal.group(3), decimal.group(3)))


def _share_at(text: str, position: int) -> _Token | None:
    """Return a share said in words (三成, 一半, 三分之一) as a percentage token, or None."""
    fraction = _FRACTION_PATTERN.match(text, position)
    if fraction:
        percent = 100 * _to_int(fraction.group(2)) / _to_int(fraction.group(1))
        return _Token(_Kind.NUM, fraction.group(0), str(round(percent)), "%")
    for pattern, percent in _SHARE_PATTERNS:
        match = pattern.match(text, position)
        if match:
            units = _to_int(match.group(1)) if match.groups() else 1
            return _Token(_Kind.NUM, match.group(0), str(round(units * percent)), "%")
    return None


RAISING_ACTIONS = ("调亮", "调高", "调大")
LOWERING_ACTIONS = ("调暗", "调低", "调小")
"""The adjustments the parser writes (亮一点 → 调亮), by the way they move a value."""


def relative_direction(action: str) -> int | None:
    """Return +1 or -1 for an adjustment (调高温度=2C, 调暗), else None (also for 调亮或调暗)."""
    raises = any(word in action for word in RAISING_ACTIONS)
    lowers = any(word in action for word in LOWERING_ACTIONS)
    if raises == lowers:
        return None
    return 1 if raises else -1


def spoken_values(text: str) -> list[str]:
    """Return the values said in ``text`` (26度, 50%, 百分之三十, 3档), not counts (两盏); digits as said."""
    return [text[start:end] for start, end in value_spans(text)]


def value_spans(text: str) -> list[tuple[int, int]]:
    """Return where ``text`` says values (26度, 三成, 百分之十), as (start, end) pairs."""
    spans: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        token = _number_at(text, position)
        if token is None:
            position += 1
            continue
        if token.kind in {_Kind.NUM, _Kind.WHEN}:
            spans.append((position, position + len(token.text)))
        position += len(token.text)
    return spans


def _to_int(number: str) -> int:
    """Return the value of an Arabic or a simple Chinese numeral (up to 9,999).

    A last digit said right after 千 or 百 counts the next place down, as people shorten it:
    六千五 is 6,500 and 两百五 250 (一千零五 is 1,005).
    """
    if number.isdigit():
        return int(number)
    total, digit, place = 0, 0, 10
    for char in number:
        if char in _CN_PLACES:
            total, digit, place = total + max(digit, 1) * _CN_PLACES[char], 0, _CN_PLACES[char]
        elif char == "零":
            digit, place = 0, 10
        else:
            digit = _CN_DIGITS[char]
    return total + digit * place // 10


def _reclassify(tokens: list[_Token]) -> list[_Token]:
    """Return ``tokens`` with context-dependent kinds fixed.

    静音 before a noun is part of a name (音响静音灯); a bare number is a value only
    after 调到/亮度 (otherwise it is part of a name, 1号灯); 上/好 after a lock word
    locks it (把门锁上). Then 較 before a step read so (較高一度) is the verb, no name.
    """
    fixed: list[_Token] = []
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        fixed.append(_in_context(token, fixed[-1] if fixed else None, following))
    fixed = [
        _Token(_Kind.FILLER, token.text, token.text)
        if _adjusts(token, fixed[index + 1 : index + 2])
        else token
        for index, token in enumerate(fixed)
    ]
    fixed = [_kept_as_asked(fixed, index) or token for index, token in enumerate(fixed)]
    return _doing_its_job(fixed)


def _doing_its_job(tokens: list[_Token]) -> list[_Token]:
    """Return the tokens with a device told to do its job (随手泡烧一下水: 烧 水) read as switching it on.

    A verb and its object with 一下 between them, said right after a device's name, in a clause
    with no verb of its own, ask the device to do what it does: 电水壶烧一下水, 电视看一下新闻.
    """
    fixed = list(tokens)
    for index in range(1, len(tokens) - 2):
        name, verb, between, thing = tokens[index - 1 : index + 3]
        if not (
            name.kind is _Kind.NAME
            and verb.kind is _Kind.OTHER
            and between.text in _A_WHILE
            and thing.kind is _Kind.OTHER
        ):
            continue
        start, end = _clause_bounds(tokens, index)
        if all(
            t.kind in {_Kind.FILLER, _Kind.OTHER} for t in tokens[index + 3 : end]
        ) and not _has_action_word(tokens[start:end]):
            fixed[index] = _Token(_Kind.ON, verb.text, ACTION_ON)
            fixed[index + 2 : end] = [_Token(_Kind.FILLER, t.text, t.text) for t in tokens[index + 2 : end]]
    return fixed


_A_WHILE = frozenset({"一下", "下"})
"""Between a verb and its object (烧一下水), what makes it a request to do it now."""


def _kept_as_asked(tokens: Sequence[_Token], index: int) -> _Token | None:
    """把卷帘门关着, 天台灯帮我开着: a state ending a clause that asks for it (把, 帮我) is an action.

    So is one said after a command (电视关了，小夜灯开着) or a change of mind (算了，关着). None unless
    the state ends its clause (fillers aside), a word asking someone to do it comes before it in
    the clause (or a switching verb, 算了 or 还是 before it), and nothing else in the clause asks or
    is left unread.
    """
    token = tokens[index]
    if token.kind is not _Kind.QUERY or token.text not in _KEPT_STATES:
        return None
    start, end = _clause_bounds(tokens, index)
    before, after = tokens[start:index], tokens[index + 1 : end]
    after_a_command = any(t.kind in _SWITCH_KINDS for t in tokens[:start]) and not any(
        t.kind is _Kind.ALL for t in before
    )  # 空调关了吧，窗户都开着: what all of them are, why
    changing_mind = any(t.text in _CHANGING_MIND for t in tokens[:index])  # 算了，关着: keep it off
    asked = any(t.text in _ASKING_TO_DO for t in before) or after_a_command or changing_mind
    if any(t.kind is not _Kind.FILLER for t in after) or not asked:
        return None
    if any(t.kind in {_Kind.QUERY, _Kind.ASK, _Kind.OTHER} for t in before):
        return None
    return _Token(_KEPT_STATES[token.text], token.text, token.text)


_CHANGING_MIND = frozenset({"算了", "还是"})
"""Said before a state (算了，关着; 还是开着): the state is what to leave it in, an action."""
_ASKING_TO_DO = frozenset({"把", "将", "帮我", "给我", "帮忙", "麻烦", "请"})
"""Words asking someone to do something to a thing: a state they ask for is to be brought about."""


def _adjusts(token: _Token, following: Sequence[_Token]) -> bool:
    """Return True for 較 before a direction read as a step (較高一度): the verb adjusting it."""
    return (
        token.kind is _Kind.OTHER
        and token.text in _ADJUSTING_PREFIXES
        and any(after.kind is _Kind.ADJUST for after in following)
    )


def _in_context(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token:
    """Return ``token`` as its neighbours make it (see ``_reclassify``): the first rule that applies."""
    for rule in _CONTEXT_RULES:
        if (fixed := rule(token, preceding, following)) is not None:
            return fixed
    return token


def _as_name_part(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """静音 before a noun (音响静音灯), a bare number not after 调到/亮度 (1号灯): part of a name.

    A bare number ending a clause after 开 is the value it is turned on at (冷气开二十六).
    """
    name_part = token.kind is _Kind.MUTE and following is not None and following.kind in _HEAD_KINDS
    turned_on_at = (
        preceding is not None
        and preceding.kind is _Kind.ON
        and (following is None or following.kind in {_Kind.SEP, _Kind.FILLER})
    )
    bare_number = (
        token.kind is _Kind.NUM
        and not token.unit
        and not turned_on_at
        and (preceding is None or preceding.kind not in {_Kind.SET, _Kind.ATTR})
    )
    return _Token(_Kind.OTHER, token.text, token.text) if name_part or bare_number else None


def _as_step(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """再低一度, 再亮: a direction is a step that way before a number with its unit, or after 再 alone.

    低 before 一度 steps down by it; 亮 after 再 and before nothing else is 再亮一点 (风扇再大).
    """
    if token.kind is not _Kind.OTHER or token.text not in _RELATIVE_WORDS:
        return None
    by_number = following is not None and following.kind is _Kind.NUM and bool(following.unit)
    more = (
        preceding is not None
        and preceding.kind is _Kind.AGAIN
        and (following is None or following.kind in {_Kind.SEP, _Kind.FILLER})
    )
    return _Token(_Kind.ADJUST, token.text, _RELATIVE_WORDS[token.text]) if by_number or more else None


def _as_amount_noun(token: _Token, preceding: _Token | None, _following: _Token | None) -> _Token | None:
    """开三成光, 调到八成亮: what the share is of adds nothing to it."""
    if (
        token.kind is _Kind.OTHER
        and token.text in _AMOUNT_NOUNS
        and preceding
        and preceding.kind is _Kind.NUM
    ):
        return _Token(_Kind.FILLER, token.text, "")
    return None


def _as_kept_state(token: _Token, _preceding: _Token | None, following: _Token | None) -> _Token | None:
    """还是开着吧: a state before a request particle is what to keep, an action."""
    if token.text in _KEPT_STATES and following is not None and following.text in _REQUEST_PARTICLES:
        return _Token(_KEPT_STATES[token.text], token.text, token.text)
    return None


def _as_not_yet(token: _Token, _preceding: _Token | None, following: _Token | None) -> _Token | None:
    """开咗热水炉未 (Cantonese): 未 ending the clause asks, as 了没 does."""
    if token.text == _NOT_YET and (following is None or following.kind in _CLAUSE_END_KINDS):
        return _Token(_Kind.ASK, token.text, "")
    return None


def _as_mode_wanted(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """要暖风: a mode wanted ends its clause, though a device is called by it too (浴霸暖风)."""
    if (
        token.kind is _Kind.NAME
        and token.text in _MODES
        and preceding is not None
        and preceding.text in _WANTING_WORDS
        and (following is None or following.kind in _CLAUSE_END_KINDS)
    ):
        return _Token(_Kind.MODE, token.text, _MODES[token.text])
    return None


def _as_lacking(token: _Token, _preceding: _Token | None, following: _Token | None) -> _Token | None:
    """没人睡, 快没水了: 没 before a word no command reads says something is lacking; it asks nothing."""
    if (
        token.kind is _Kind.ASK
        and token.text in _LACKING
        and following is not None
        and following.kind is _Kind.OTHER
    ):
        return _Token(_Kind.OTHER, token.text, token.text)
    return None


def _as_lock_particle(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """把门锁上: 上/好 after a lock word locks it."""
    if (
        token.kind is _Kind.OTHER
        and token.text in _LOCK_PARTICLES
        and preceding is not None
        and preceding.text.endswith(_LOCK_VERB)
        and (following is None or following.kind not in _PHRASE_KINDS)
    ):
        return _Token(_Kind.LOCK, token.text, ACTION_LOCK)
    return None


def _as_verb_complement(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """厨房灯开下, 电热毯开上: a direction after 开/关 that ends its clause is no word to read."""
    if (
        token.kind is _Kind.OTHER
        and token.text in _VERB_COMPLEMENTS
        and preceding is not None
        and preceding.kind in {_Kind.ON, _Kind.OFF}
        and (following is None or following.kind in {_Kind.SEP, _Kind.FILLER})
    ):
        return _Token(_Kind.FILLER, token.text, token.text)
    return None


_SWITCH_VERBS = ("开", "关")
"""The one-character verbs that switch a device, which speech recognition writes by sound (揩 for 开)."""
_TARGET_KINDS = frozenset({_Kind.NAME, _Kind.TYPE, _Kind.ROOM, _Kind.PRON})


def _as_switch_heard_wrong(
    token: _Token, preceding: _Token | None, following: _Token | None
) -> _Token | None:
    """客厅电视揩一下: a character the parser does not know, sounding as 开 or 关, after a target, is it.

    Speech recognition picks characters by sound (揩 kai for 开 kai, 管 guan for 关 guan); said
    right after what is switched and ending the clause (or before 一下), it is the verb.
    """
    if (
        token.kind is not _Kind.OTHER
        or len(token.text) != 1
        or preceding is None
        or preceding.kind not in _TARGET_KINDS
        or (following is not None and following.kind not in {_Kind.SEP, _Kind.FILLER})
    ):
        return None
    verb = next((v for v in _SWITCH_VERBS if readings(token.text) & readings(v)), None)
    if verb is None:
        return None
    kind, value = _FUNCTION_WORDS[verb]
    return _Token(kind, token.text, value)


def _as_action_not_room(token: _Token, preceding: _Token | None, following: _Token | None) -> _Token | None:
    """A room word that is also an action word, not followed by what is there, is the action.

    A sunroom called 暖房 (Taiwan: heating, folded to 制热): 空调制热二十六度 sets the mode, and
    暖房的灯 is the room's light.
    """
    if token.kind is not _Kind.ROOM or token.text not in _FUNCTION_WORDS:
        return None
    kind, value = _FUNCTION_WORDS[token.text]
    if kind not in _ACTION_WORD_KINDS or preceding is None:
        return None
    if following is not None and (following.text == LINKING_WORD or following.kind in _HEAD_KINDS):
        return None
    return _Token(kind, token.text, value)


_CONTEXT_RULES = (
    _as_action_not_room,
    _as_name_part,
    _as_step,
    _as_amount_noun,
    _as_kept_state,
    _as_not_yet,
    _as_lacking,
    _as_mode_wanted,
    _as_lock_particle,
    _as_verb_complement,
    _as_switch_heard_wrong,
)
"""How neighbours change a token's kind, in order (the first that applies wins)."""


def _split_clauses(tokens: Sequence[_Token]) -> list[list[_Token]]:
    """Return the clauses of an utterance: one action each, in spoken order."""
    clauses: list[list[_Token]] = []
    current: list[_Token] = []
    for index, token in enumerate(tokens):
        if token.kind is _Kind.AGAIN and not _has_action_word(current):
            continue  # 落地灯再打开: "again", not a second command
        if token.kind is _Kind.SEP and current and current[-1].kind is _Kind.WHEN:
            continue  # 一个钟之后关掉: after a time, 之后 says when the command is, not a next one
        if token.kind in {_Kind.SEP, _Kind.AGAIN} or (
            token.kind is _Kind.CONJ and _next_is_action(tokens, index)
        ):
            clauses.append(current)
            current = []
            continue
        if _starts_new_action(tokens, index, current) and not _asks_which_of_two([*current, token]):
            done, current = _with_the_next_target(current)  # 是升上去还是放下来: one clause, two states
            clauses.append(done)
        current.append(token)
    clauses.append(current)
    return [clause for clause in clauses if clause]


def _with_the_next_target(clause: list[_Token]) -> tuple[list[_Token], list[_Token]]:
    """Return a clause ending before a second action, and what opens the next one: the target after 和.

    水壶打开和暖气调到21 (put the kettle on and turn the heating up to 21): 暖气 is the setting's.
    """
    joined = next((i for i in range(len(clause) - 1, 0, -1) if clause[i].kind is _Kind.CONJ), None)
    if joined is None:
        return clause, []
    before, after = clause[:joined], clause[joined + 1 :]
    if _has_action_word(before) and not _has_action_word(after) and any(t.kind in _HEAD_KINDS for t in after):
        return before, after
    return clause, []


def _next_is_action(tokens: Sequence[_Token], index: int) -> bool:
    """Return True when the next meaningful token after ``index`` is a verb (打开灯和关闭空调)."""
    for token in tokens[index + 1 :]:
        if token.kind is not _Kind.FILLER:
            return token.kind in _ACTION_KINDS
    return False


def _starts_new_action(tokens: Sequence[_Token], index: int, current: Sequence[_Token]) -> bool:
    """Return True when ``tokens[index]`` opens a second action in the current clause.

    打开卧室床头灯调到50%: a setting after a switch verb; 关掉客厅灯打开卧室灯: a
    second switch verb after a target; 制热二十八度: a temperature after a mode.
    """
    token = tokens[index]
    has_switch = any(t.kind in _SWITCH_KINDS for t in current)
    if token.kind is _Kind.NUM and token.unit == "度" and any(t.kind is _Kind.MODE for t in current):
        return True  # 制热二十八度: the mode, then the temperature
    if token.kind is _Kind.ATTR and has_switch:
        return index + 1 < len(tokens) and tokens[index + 1].kind is _Kind.SET
    if token.kind is _Kind.SET or (token.kind is _Kind.NUM and token.unit):
        preceding = current[-1] if current else None
        # 风量开最小: 开 sets the attribute said before it, no second action
        sets_attribute = (
            preceding is not None
            and preceding.kind is _Kind.ON
            and token.kind is _Kind.NUM
            and any(t.kind is _Kind.ATTR for t in current)
        )
        return (
            has_switch
            and preceding is not None
            and preceding.kind not in {_Kind.ATTR, _Kind.SET}
            and not sets_attribute
        )
    if token.kind in _VERB_KINDS:
        # 换到下一个频道: the verb says what to set; 灯是不是都关了: the state asked about;
        # 摇头关了: the verb switches the mode said.
        last = current[-1] if current else None
        said_by_verb = last is not None and (
            last.kind is _Kind.SET or (last.kind is _Kind.MODE and last.value.endswith(_SWITCHED_ON))
        )
        asked = any(t.kind is _Kind.QUERY for t in current)
        return (
            not said_by_verb
            and not asked
            and _has_action_word(current)
            and any(t.kind in _HEAD_KINDS for t in current)
        )
    return False


def _read_clause(tokens: list[_Token], lexicon: OfflineParser) -> _Clause:
    """Return the targets of one clause and the tokens left for its action."""
    tokens, value = _take_setting_value(tokens, lexicon.calls.value_words)
    tokens, exclude, left_out, excepting = _take_exclusions(tokens)
    kinds = {token.kind for token in tokens}
    count = next((int(token.value) for token in tokens if token.kind is _Kind.COUNT), None)
    quantifier = _spoken_quantifier(kinds, excepting=excepting, counted=count is not None)
    if quantifier is Quantifier.ANY and _Kind.ALL in kinds and not _counts_a_device(tokens):
        quantifier = Quantifier.ALL  # 三个房间的灯都关了: every light of three rooms, not three lights
    plural = _says_plural(tokens) or any(token.text in _PLURAL_PRONOUNS for token in tokens)
    if quantifier is None and (plural or any(token.text in _WHICH_WORDS for token in tokens)):
        quantifier = Quantifier.ALL  # 客厅的灯哪盏开着 asks about every light there; 那些灯
    if quantifier is None and _Kind.ROOM in kinds and _points_at_one(tokens):
        quantifier = Quantifier.ONE  # 客厅那个灯: one of the lights there, not all of them
    targets: list[_Target] = []
    pending: list[str] = []
    last_rooms: list[str] = []
    phrases, rooms_after = _phrases(tokens)
    for phrase, rooms_before in phrases:
        pending.extend(rooms_before)
        # 玄关灯和阳台灯: the one device called 阳台灯 is not the 玄关's; a kind (落地灯) is the room's
        name = compact("".join(token.value for token in phrase))
        own = name in lexicon.calls.sole_names and not is_kind_word(name)
        rooms = pending or ([] if own else last_rooms)
        targets.append(_phrase_target(phrase, rooms, lexicon))
        targets[-1].the_rooms = _said_as_the_rooms(tokens, phrase)
        last_rooms, pending = list(rooms), []
    _place_after(targets, rooms_after, kinds)
    has_scope = excepting or _Kind.ROOM in kinds
    if targets and _points_back(tokens):
        targets = [replace(targets[0], name=LAST_MENTIONED)]
    if not targets:
        targets = _unnamed_targets(tokens, kinds, lexicon, has_scope=has_scope)
    if _Kind.LOCK in kinds:
        _locks_meant(targets, lexicon)
    targets = _merge_same_names(targets)
    for target in targets:
        target.exclude = list(exclude)
        target.left_out = list(left_out)
        target.quantifier = quantifier
        target.count = count
    value_said = _value_said(tokens, lexicon.calls.value_words)
    return _Clause(tokens=tokens, targets=targets, has_scope=has_scope, value=value, value_said=value_said)


def _said_as_the_rooms(tokens: Sequence[_Token], phrase: Sequence[_Token]) -> bool:
    """Return True when a phrase is said right after a room and 的 (小宇房间的灯, not 小宇房间灯)."""
    start = next((i for i, token in enumerate(tokens) if phrase and token is phrase[0]), None)
    return (
        start is not None
        and start > 1  # the room and 的 before it
        and tokens[start - 1].text == LINKING_WORD
        and tokens[start - 2].kind is _Kind.ROOM
    )


def _place_after(targets: Sequence[_Target], rooms: Sequence[str], kinds: set[_Kind]) -> None:
    """Give the targets without rooms of their own the rooms said after them.

    The TV in the 客堂间, the washer and the dryer on the 晒台: English says the place last. A
    task's place is where it goes (扫一下卧室), no room of the vacuum's.
    """
    if _Kind.TASK in kinds:
        return
    for target in targets:
        target.include = target.include or list(rooms)


def _take_setting_value(tokens: list[_Token], value_words: Collection[str] = ()) -> tuple[list[_Token], str]:
    """Return the tokens without the words after the last setting verb, and those words as a value.

    调成紫色, 风速调成高风, 切到睡眠模式: what follows the verb is the value to set when it is
    words the lexicon does not know (a type word like 模式 may end them), not a device, a room,
    a number or a mode it knows.
    """
    verbs = [i for i, token in enumerate(tokens) if token.kind is _Kind.SET]
    # 改成反转: a verb that ends the clause (转) is part of the value, not the verb setting it
    verb = next(
        (i for i in reversed(verbs) if any(t.kind is not _Kind.FILLER for t in tokens[i + 1 :])),
        verbs[-1] if verbs else None,
    )
    if verb is None:
        return _take_named_mode(tokens, value_words)
    after = [token for token in tokens[verb + 1 :] if token.kind is not _Kind.FILLER]
    before = [token for token in tokens[:verb] if token.kind is not _Kind.FILLER]
    device_before = any(token.kind in _HEAD_KINDS for token in before)
    if (device_before or not before) and len(after) == 1 and _names_a_mode(after[0]):
        # 净化器切到睡眠模式, or 开成睡眠模式 of what was just said (a scene is also called so)
        return tokens[: verb + 1], after[0].text
    pointed = device_before or any(token.kind is _Kind.PRON for token in before)
    if pointed and len(after) == 2 and after[0].kind is _Kind.NAME and _is_scene_word(after[1]):
        # 把它调成干衣模式: a home's word before 模式 is the mode of what is pointed at
        return tokens[: verb + 1], after[0].text + after[1].text
    if _effect_said(after):  # 换成流星的效果: the effect 流星
        return [*tokens[: verb + 1], after[-1]], "".join(token.text for token in after[:-1])
    if (
        not after
        or after[0].kind is not _Kind.OTHER
        or any(t.kind not in _VALUE_KINDS | {_Kind.SET} for t in after[1:])
    ):
        return tokens, ""
    return tokens[: verb + 1], "".join(token.text for token in after)


def _names_the_effect(token: _Token) -> bool:
    """Return True for the word of a light's effect (效果, 灯效)."""
    return token.kind is _Kind.ATTR and token.value == _EFFECT_ATTRIBUTE


def _effect_said(after: Sequence[_Token]) -> bool:
    """Return True for unknown words followed by the word for a light's effect (流星的效果)."""
    return (
        len(after) > 1
        and _names_the_effect(after[-1])
        and all(token.kind is _Kind.OTHER for token in after[:-1])
    )


def _is_scene_word(token: _Token) -> bool:
    """Return True for a type word of the scene kind (模式)."""
    return token.kind is _Kind.TYPE and TYPE_WORDS.get(token.value) == _SCENE


def _names_a_mode(token: _Token) -> bool:
    """Return True for a name ending in a word of the scene kind (睡眠模式)."""
    return token.kind is _Kind.NAME and ends_in_a_scene_word(token.text)


def ends_in_a_scene_word(text: str) -> bool:
    """Return True for words ending in a word of the scene kind (睡眠模式, 品茶模式)."""
    return any(text.endswith(word) for word, category in TYPE_WORDS.items() if category == _SCENE)


def _take_named_mode(tokens: list[_Token], value_words: Collection[str] = ()) -> tuple[list[_Token], str]:
    """Return the tokens without a mode said of a device before it, and the mode as a value.

    扫地机用强力模式, 新风开睡眠模式: unknown words ending in 模式 (or 效果, a light's effect) after
    a device's name are the mode to set, and so is a scene's name ending in 模式 said right after
    the device and 开; 打开电影模式 (no device before) stays a scene's name.
    """
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    if (start := _latin_value(said)) is not None:  # Dyson 开 auto: a value said in English
        return tokens[: tokens.index(said[start])], "".join(token.text for token in said[start:])
    if (
        len(said) >= 3  # a device, the verb, the mode
        and (_names_a_mode(said[-1]) or said[-1].text in value_words)
        and said[-2].kind is _Kind.ON
        and said[-3].kind in _HEAD_KINDS
    ):
        # 新风开睡眠模式, a scene also called so; 热水器开节能, a value the home lists
        return tokens[: tokens.index(said[-1])], said[-1].text
    effect = bool(said) and _names_the_effect(said[-1])
    scene = bool(said) and _is_scene_word(said[-1])
    if len(said) < 2 or not (scene or effect):
        return tokens, ""
    start = len(said) - 1
    while start > 0 and said[start - 1].kind is _Kind.OTHER:
        start -= 1
    if (
        start == len(said) - 1
        and start > 1
        and said[start - 1].kind is _Kind.NAME
        and said[start - 2].kind is _Kind.ON
    ):
        start -= 1  # 德业开干衣模式: a home's word after 开 names the mode
    if start == len(said) - 1 or not any(token.kind in _HEAD_KINDS for token in said[:start]):
        return tokens, ""
    first = tokens.index(said[start])
    if effect:  # 星空顶开流星效果: the effect 流星, the attribute kept to say what it sets
        return [*tokens[:first], said[-1]], "".join(token.text for token in said[start:-1])
    return tokens[:first], "".join(token.text for token in said[start:])


def _points_at_one(tokens: Sequence[_Token]) -> bool:
    """Return True when a demonstrative with its measure word says the name after it (那个灯, 这盏灯)."""
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    return any(
        token.kind is _Kind.PRON
        and token.value == _DEMONSTRATIVE
        and following.kind in {_Kind.NAME, _Kind.TYPE}
        for token, following in itertools.pairwise(said)
    )


def _points_back(tokens: Sequence[_Token]) -> bool:
    """Return True when the clause's 它 points back to what was said before.

    主人房的窗帘拉上它 (Cantonese 拉埋佢): 它 after the named device is that device again.
    """
    pronoun = next((i for i, t in enumerate(tokens) if t.kind is _Kind.PRON and t.value == _REFERENCE), None)
    if pronoun is None:
        return False
    return not any(token.kind in _HEAD_KINDS for token in tokens[:pronoun])


def _latin_value(said: Sequence[_Token]) -> int | None:
    """Return where the Latin words ending a clause start, after 开 said after a device (Dyson 开 auto)."""
    start = len(said)
    while start > 0 and said[start - 1].kind is _Kind.OTHER and has_latin(said[start - 1].text):
        start -= 1
    if start == len(said) or start < 2 or said[start - 1].kind is not _Kind.ON:
        return None
    return start if any(token.kind in _HEAD_KINDS for token in said[: start - 1]) else None


def _door_opened(action: str, targets: list[_Target], lexicon: OfflineParser) -> str:
    """Return the action opening a bare door: unlocking its lock, in a home with locks and no door that moves.

    开门, 帮我开门: the door opens by its lock; a home with a garage door or a gate asks which.
    """
    if (
        action != ACTION_ON
        or len(targets) != 1
        or targets[0].name != _LOCKED
        or lexicon.calls.doors_that_move
    ):
        return action
    lock = _category_of(LOCK_NAME, lexicon)
    if lock == UNKNOWN_CATEGORY or lexicon.categories is None:
        return action
    targets[0].name, targets[0].category = LOCK_NAME, lock
    return ACTION_UNLOCK


def _locks_meant(targets: list[_Target], lexicon: OfflineParser) -> None:
    """Make the targets of a lock action locks: 两个门都锁上 locks the doors' locks."""
    for target in targets:
        if target.name == _LOCKED:
            target.name = LOCK_NAME
        if target.category == UNKNOWN_CATEGORY:
            target.category = _category_of(LOCK_NAME, lexicon)


def _unnamed_targets(
    tokens: Sequence[_Token], kinds: Collection[_Kind], lexicon: OfflineParser, *, has_scope: bool
) -> list[_Target]:
    """Return the target of a clause without a noun phrase: 它, an unknown name, 锁门, or a room."""
    pending = [token.value for token in tokens if token.kind is _Kind.ROOM]
    orphan = _orphan_name(tokens)
    pointing = [token.value for token in tokens if token.kind is _Kind.PRON]
    # 过道那盏也开: a demonstrative with a room is the one of that room, of the kind said before
    if pointing and not (pending and all(value == _DEMONSTRATIVE for value in pointing)):
        return [_Target(name=LAST_MENTIONED, include=pending or _qualifying(tokens))]
    if orphan and set(kinds) & _ACTION_KINDS:
        return [_Target(name=orphan, category=_category_of(orphan, lexicon), include=pending)]
    if (implied := _implied_name(tokens, kinds)) is not None:
        return [_Target(name=implied, category=_category_of(implied, lexicon), include=pending)]
    return [_Target(include=pending)] if has_scope else []


MAX_QUALIFIER_CHARS = 4
"""Characters of words the home does not know that say which of the things just named (卧室那个)."""


def _qualifying(tokens: Sequence[_Token]) -> list[str]:
    """Return the unknown words just before a demonstrative, as where the one pointed at is (卧室那个).

    After 楼下空调开着没, 卧室那个关了吧 is the one of the two whose room or name holds 卧室.
    """
    at = next((i for i, t in enumerate(tokens) if t.kind is _Kind.PRON and t.value == _DEMONSTRATIVE), None)
    start = at
    while start and tokens[start - 1].kind is _Kind.OTHER and has_han(tokens[start - 1].text):
        start -= 1
    said = "".join(token.text for token in tokens[start:at]) if at is not None and start is not None else ""
    return [said] if 1 < len(said) <= MAX_QUALIFIER_CHARS else []


def _implied_name(tokens: Sequence[_Token], kinds: Collection[_Kind]) -> str | None:
    """Return the kind of device the verb implies (锁门: a lock; 扫下地: the vacuum), or None."""
    if _Kind.LOCK in kinds:
        return LOCK_NAME
    task = next((token.value for token in tokens if token.kind is _Kind.TASK), None)
    return _TASK_DEVICES.get(task or "")


_PLURAL_PRONOUNS = frozenset({"它们", "他们"})
"""Pronouns of several things: 把它们调到50% acts on every device just mentioned."""
_WHICH_WORDS = frozenset({"哪些", "哪几个", "哪个", "哪盏", "哪几盏", "哪一个", "哪一盏"})
"""Question words asking which of a set: the question is about the whole set."""


def _says_plural(tokens: Sequence[_Token]) -> bool:
    """Return True when a plural demonstrative stands before a device word (那些灯), not after a verb."""
    return any(
        token.text in _PLURAL_WORDS and following.kind in {_Kind.TYPE, _Kind.NAME}
        for token, following in itertools.pairwise(tokens)
    )


def _counts_a_device(tokens: Sequence[_Token]) -> bool:
    """Return True when the count said stands before a device's words (两盏灯, 两个卧室的吸顶灯).

    三个房间的灯都关了 counts rooms: every light of them is meant, not three lights.
    """
    return any(
        token.kind is _Kind.COUNT and following.kind in _PHRASE_KINDS
        for token, following in itertools.pairwise(tokens)
    )


def _spoken_quantifier(kinds: Collection[_Kind], *, excepting: bool, counted: bool) -> Quantifier | None:
    """Return the quantifier the words say (除了 > 随便/两盏 > 所有), or None."""
    if excepting:
        return Quantifier.EXCEPT
    if counted or _Kind.ANY in kinds:
        return Quantifier.ANY
    if _Kind.ALL in kinds:
        return Quantifier.ALL
    return None


def _opens(kept: Sequence[_Token]) -> bool:
    """Return True when nothing but fillers was said before in the clause."""
    return all(token.kind is _Kind.FILLER for token in kept)


def _names_next(tokens: Sequence[_Token], index: int) -> bool:
    """Return True when a room or a device's name comes next after ``index`` (fillers aside)."""
    after = next((token for token in tokens[index + 1 :] if token.kind is not _Kind.FILLER), None)
    return after is not None and after.kind in {_Kind.ROOM, *_HEAD_KINDS}


def _take_exclusions(tokens: Sequence[_Token]) -> tuple[list[_Token], list[str], list[str], bool]:
    """Return the tokens without their exclusion, the excluded rooms and names, and whether there was one.

    Handles 除(了)客厅(和卧室)(以外/之外/外), 卧室以外 and 除了落地灯(和台灯): an excluded
    device goes to the wire's ``x``.
    """
    kept: list[_Token] = []
    exclude: list[str] = []
    left_out: list[str] = []
    excepting = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind is _Kind.EXC_START or (
            token.kind is _Kind.EXC_END and _opens(kept) and _names_next(tokens, index)
        ):
            excepting = True  # 除了客厅; 留着细路房的 (the word keeping it said first)
            rooms, index = _room_list(tokens, index + 1)
            exclude.extend(rooms)
            if rooms:
                index = _after_kind_of_rooms(tokens, index)  # 除了楼梯灯: the stairs' lights
            else:
                names, index = _excluded_names(tokens, index)
                left_out.extend(names)
            if index < len(tokens) and tokens[index].kind is _Kind.EXC_END:
                index += 1
            continue
        if token.kind in _HEAD_KINDS and (end := _kept_name_end(tokens, index)) is not None:
            excepting = True  # 台灯留着: all but the desk lamp; NAS跟鱼缸留着: but both
            names, _ = _excluded_names([t for t in tokens[index:end] if t.kind is not _Kind.FILLER], 0)
            left_out.extend(names)
            index = end + 1
            continue
        if token.kind is _Kind.ROOM:
            rooms, end = _room_list(tokens, index)
            while end < len(tokens) and tokens[end].kind is _Kind.FILLER:
                end += 1  # 主卧的留着: 的 between the room and the word leaving it out
            if end < len(tokens) and tokens[end].kind is _Kind.EXC_END:
                excepting = True
                exclude.extend(rooms)
                index = end + 1
                continue
        # 外 outside an exclusion is part of a name (室外灯).
        kept.append(_Token(_Kind.OTHER, token.text, token.text) if token.kind is _Kind.EXC_END else token)
        index += 1
    return kept, exclude, [name for name in left_out if name], excepting


def _says_a_kind(token: _Token) -> bool:
    """Return True for a token saying only a kind of device: a type word, or a name that is one (灯)."""
    return token.kind is _Kind.TYPE or (token.kind is _Kind.NAME and is_type_word(token.value))


def _after_kind_of_rooms(tokens: Sequence[_Token], index: int) -> int:
    """Return the index after a kind word said of excluded rooms that the set names too, else ``index``.

    一楼的灯除了楼梯灯都关了: the 灯 of 楼梯灯 is the set's, said again; in 除了妞妞屋的灯，都关喽
    it is the only word naming the set, and stays.
    """
    end = index
    while end < len(tokens) and tokens[end].kind is _Kind.FILLER:
        end += 1
    kind = tokens[end] if end < len(tokens) else None
    if kind is None or not _says_a_kind(kind):
        return index
    again = any(other.value == kind.value for at, other in enumerate(tokens) if at != end)
    return end + 1 if again else index


def _excluded_names(tokens: Sequence[_Token], index: int) -> tuple[list[str], int]:
    """Return the names excluded from ``index`` on (落地灯和台灯 of 除了落地灯和台灯) and the index after."""
    names: list[str] = []
    name: list[str] = []
    while index < len(tokens) and tokens[index].kind in _EXCLUDED_NAME_KINDS:
        if tokens[index].kind is _Kind.CONJ:
            names.append("".join(name))
            name = []
        else:
            name.append(tokens[index].value)
        index += 1
    names.append("".join(name))
    return names, index


_CARRIED_TO = frozenset({_Kind.ROOM, _Kind.NAME, _Kind.TYPE})
"""What a clause of a follow-up names for the command it carries (三楼走廊的呢: 三楼)."""
_KEEPING_AFTER = frozenset(
    word for word, (kind, _) in _FUNCTION_WORDS.items() if kind is _Kind.EXC_END and len(word) > 1
)
"""Words after a device's name leaving it out (台灯留着, 台灯以外); 外 alone is part of names (室外灯)."""


def _kept_name_end(tokens: Sequence[_Token], index: int) -> int | None:
    """Return where the words leaving out the names starting at ``index`` are (台灯和风扇留着), or None."""
    end = index
    while end < len(tokens) and (
        tokens[end].kind in _HEAD_KINDS
        or (tokens[end].kind is _Kind.CONJ and end + 1 < len(tokens) and tokens[end + 1].kind in _HEAD_KINDS)
    ):
        end += 1
    while end < len(tokens) and tokens[end].kind is _Kind.FILLER:
        end += 1
    if end < len(tokens) and tokens[end].kind is _Kind.EXC_END and tokens[end].text in _KEEPING_AFTER:
        return end
    return None


def _room_list(tokens: Sequence[_Token], index: int) -> tuple[list[str], int]:
    """Return the rooms of ``客厅和卧室`` starting at ``index`` and the index after them."""
    rooms: list[str] = []
    while index < len(tokens) and tokens[index].kind is _Kind.ROOM:
        rooms.append(tokens[index].value)
        index += 1
        joined = index + 1 < len(tokens) and tokens[index].kind is _Kind.CONJ
        if joined and tokens[index + 1].kind is _Kind.ROOM:
            index += 1
    return rooms, index


_LINKING_WORDS = frozenset({LINKING_WORD, "个"})
"""Words linking a modifier to the name after it (外面的灯; Cantonese 鱼缸个水泵)."""


def _phrases(tokens: Sequence[_Token]) -> tuple[list[tuple[list[_Token], list[str]]], list[str]]:
    """Return each noun phrase with the rooms said since the previous one, and the rooms said after all.

    A phrase is a run of names, type words and unknown characters that ends in a
    name or type word (Chinese noun phrases are head-final: 音响静音灯, 门口开关); a bare type
    word after 的 heads the phrase before it (浇花的阀门, 电视的插座).
    """
    phrases: list[tuple[list[_Token], list[str]]] = []
    rooms: list[str] = []
    run: list[_Token] = []
    modifier: list[_Token] = []
    pending: list[_Token] = []
    held: tuple[list[_Token], list[str]] | None = None
    """A phrase before 的, which a bare type word after it heads (浇花的阀门 is the 浇花阀门)."""
    for token in [*tokens, _Token(_Kind.SEP, "")]:
        if token.kind in _PHRASE_KINDS:
            run.append(token)
            continue
        heads = [i for i, part in enumerate(run) if part.kind in _HEAD_KINDS]
        if held is not None:
            # 浇花的阀门; 跑步机的插座 and 日立的冷气, 插座 and 空调 also names of the home's devices;
            # 投影的幕布: the one thing of the other's (a list would say 和), however it is named
            if len(run) == 1 and (_says_a_kind(run[0]) or run[0].kind is _Kind.NAME):
                modifier, rooms, heads = held[0], [*held[1], *rooms], [0]
            else:
                phrases.append(held)
            held = None
        if heads and _links_to_the_next(token) and not modifier:
            held = ([*run[: heads[-1] + 1]], rooms)
            rooms, pending = [], []
        elif heads:
            phrases.append(([*modifier, *run[: heads[-1] + 1]], rooms))
            rooms, modifier, pending = [], [], []
        elif token.kind is _Kind.FILLER:
            # 外面的灯, 老婆那边的床头灯: unknown words before 的 narrow the next name, never dropped;
            # Cantonese links them with 个 too (鱼缸个水泵).
            pending = run or pending
            modifier = pending if token.text in _LINKING_WORDS else modifier
        else:
            modifier, pending = [], []
        run = []
        if token.kind is _Kind.ROOM:
            rooms.append(token.value)
    return phrases, rooms


def _links_to_the_next(token: _Token) -> bool:
    """Return True for 的, or a demonstrative, after a phrase: 先锋那个油汀 is 先锋的油汀, one thing."""
    if token.kind is _Kind.PRON:
        return token.value == _DEMONSTRATIVE
    return token.kind is _Kind.FILLER and token.text == LINKING_WORD


def _phrase_target(phrase: Sequence[_Token], rooms: Sequence[str], lexicon: OfflineParser) -> _Target:
    """Return the target a noun phrase names."""
    name = "".join(token.value for token in phrase)
    return _Target(name=name, category=_category_of(name, lexicon), include=list(rooms))


def _orphan_name(tokens: Sequence[_Token]) -> str:
    """Return the first run of unknown characters (打开老伙计 -> 老伙计), or ''."""
    run: list[str] = []
    for token in tokens:
        if token.kind is _Kind.OTHER:
            run.append(token.value)
        elif run:
            break
    return "".join(run)


def _category_of(name: str, lexicon: OfflineParser) -> str:
    """Return the category of a name, by the longest type word it ends with (``gating.category_named``).

    Unknown when it has none, or when the home has no device of it.
    """
    category = category_named(name) or UNKNOWN_CATEGORY
    if lexicon.categories is not None and category not in lexicon.categories:
        return UNKNOWN_CATEGORY
    return category


def _merge_same_names(targets: list[_Target]) -> list[_Target]:
    """Return targets with one entry per name: 客厅电视和卧室电视 -> 电视 in 客厅,卧室."""
    merged: dict[str, _Target] = {}
    for target in targets:
        existing = merged.get(target.name)
        if existing is None:
            merged[target.name] = target
        else:
            existing.include.extend(room for room in target.include if room not in existing.include)
    return list(merged.values())


def _inherit_rooms(
    targets: Sequence[_Target], previous: Sequence[_Target], sole_names: Collection[str]
) -> None:
    """Give room-less targets the room of the previous clause's single device.

    把客厅主灯打开然后打开窗帘 means the 客厅 curtain; after 打开客厅的灯 (all lights
    of a room) a following 空调 is not tied to that room; a name only one device has (后门锁
    after 车房门闩埋) is that device, wherever it is. A room said alone first (一楼没人了，灯全关了)
    is the room of a set said after it too.
    """
    last = previous[-1]
    if last.quantifier is not Quantifier.ONE or len(last.include) != 1:
        return
    rooms = last.include
    room_said_first = all(target.name == ANY_NAME for target in previous)
    for target in targets:
        if (
            not target.include
            and (target.quantifier is None or (room_said_first and target.quantifier is Quantifier.ALL))
            and target.name != LAST_MENTIONED
            and compact(target.name) not in sole_names
        ):
            target.include = list(rooms)


def _settle_quantifier(target: _Target, lexicon: OfflineParser) -> None:
    """Decide one/all when the words did not: several rooms, or a bare category word, mean all."""
    if target.quantifier is not None:
        return
    generic = target.name in GENERIC_TYPE_WORDS
    calls = lexicon.calls
    called = not target.include and compact(target.name) in calls.sole_names  # 电视, one TV's alias
    # 厨房的灯 in a home with a 厨房灯 is that light; 客厅的灯 with none called so, every light there
    if calls.room_named is None:
        room_named = bool(target.include) and target.name in lexicon.device_names
    else:
        rooms = [calls.room_aliases.get(compact(room), compact(room)) for room in target.include]
        room_named = generic and any((room, TYPE_WORDS[target.name]) in calls.room_named for room in rooms)
    if kinds := [room for room in target.include if compact(room) in calls.room_kinds]:
        # 卫生间的灯 with two bathrooms and no 所有 said: no room is said, 卫生间灯 is the name
        target.include = [room for room in target.include if room not in kinds]
        target.name = "".join(kinds) + (target.name if target.name != ANY_NAME else "")
        generic = False
    areas = {calls.room_aliases.get(compact(room), compact(room)) for room in target.include}
    if len(areas) > 1 or (generic and not called and not room_named):  # 西厨的岛台: one area
        target.quantifier = Quantifier.ALL
    else:
        target.quantifier = Quantifier.ONE
        target.one_called_so = generic and room_named and not called


def _called_off(tokens: Sequence[_Token]) -> bool:
    """Return True for 别开了 / 不用开了: a negated turning on ending in 了 (no longer), no time said."""
    said = [token for token in tokens if token.kind is not _Kind.FILLER or token.text == _NO_LONGER]
    return (
        len(said) >= len(_CALLED_OFF)
        and [token.kind for token in said[-len(_CALLED_OFF) :]] == list(_CALLED_OFF)
        and said[-1].text == _NO_LONGER
        and not _says_when(said)
    )


_NO_LONGER = "了"
_CALLED_OFF = (_Kind.NEG, _Kind.ON, _Kind.FILLER)


def _switched_off(mode: str) -> str:
    """Return the action switching off a switched setting (设置摆风=开启: 设置摆风=关闭)."""
    return mode.removesuffix(_SWITCHED_ON) + _SWITCHED_OFF


def _mode_said_not(tokens: Sequence[_Token]) -> str | None:
    """Return a switched mode turned off when the clause says not to do it (不要摇头), else None."""
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    for token, following in itertools.pairwise(said):
        if (
            token.kind is _Kind.NEG
            and following.kind is _Kind.MODE
            and following.value.endswith(_SWITCHED_ON)
        ):
            return _switched_off(following.value)
    return None


_WHOLLY = "全"
"""全 right before a verb that opens or closes says how far (全拉开: fully), not how many."""


_SWITCHING_WORDS = tuple(word for word, (kind, _value) in _FUNCTION_WORDS.items() if kind in _SWITCH_KINDS)
_OTHER_ALL_WORDS = tuple(
    word for word, (kind, _value) in _FUNCTION_WORDS.items() if kind is _Kind.ALL and word != _WHOLLY
)


def says_fully(text: str) -> bool:
    """Return True when 全 comes right before a switching verb and no other all-word is said (全拉开)."""
    said = compact(text)
    for at in (i for i, char in enumerate(said) if char == _WHOLLY):
        if any(said.startswith(verb, at + 1) for verb in _SWITCHING_WORDS):
            rest = said[:at] + said[at + 1 :]
            return not any(word in rest for word in _OTHER_ALL_WORDS)
    return False


def _holds_back(tokens: Sequence[_Token]) -> bool:
    """Return True when a clause says not to act now (幕布不要动, 十分钟后): it takes no earlier action."""
    return any(token.kind in {_Kind.NEG, _Kind.WHEN} for token in tokens)


def _clause_action(tokens: Sequence[_Token], category: str, value: str = "") -> str | None:
    """Return the wire action of a clause, or None when it has no action words.

    ``value`` is what a setting verb was said with that the lexicon does not know (紫色).
    """
    first = {token.kind: token for token in reversed(tokens)}
    if (to := _number_set_to(tokens)) is not None:
        first[_Kind.NUM] = to  # 空调26度改成23度: from 26 to 23
    if _holds_back(tokens):
        # 电脑那个不要关, 十分钟后关掉: not an action to take now; 算了，莫开了: off again;
        # 风扇唔好摆头: oscillation off
        return _mode_said_not(tokens) or (ACTION_OFF if _called_off(tokens) else None)
    if _asks(tokens):
        return _query(tokens, first)
    action = _word_action(first) or _value_action(tokens, first, category)
    if action is not None:
        return action
    if value or (_Kind.SET in first and _Kind.ATTR in first):
        # 换个颜色 (no value): which colour is still to be said
        attribute = first[_Kind.ATTR].value if _Kind.ATTR in first else ""
        return f"{SETTING_PREFIX}{attribute}={value}" if value else SETTING_PREFIX + attribute
    return _verb_action(tokens, first, category)


def _verb_action(tokens: Sequence[_Token], first: dict[_Kind, _Token], category: str) -> str | None:
    """Return what a clause's verb says alone: lock, channel, a cover moved a bit, switch or play."""
    for kind in (_Kind.LOCK, _Kind.CHANNEL):
        if kind in first:
            return first[kind].value
    if category == _COVER and (step := _switched_by_a_bit(tokens)):
        return adjusted_for(step, category)
    return _switch_action(first) or (ACTION_PLAY if _Kind.PLAY in first else None)


_A_BIT = frozenset({"点", "一点", "一点点", "些", "一些"})
_BY_A_BIT = {_Kind.ON: "调大", _Kind.OFF: "调小"}


def _switched_by_a_bit(tokens: Sequence[_Token]) -> str | None:
    """Return the step of a switching verb said "a bit" ending its clause (调小 for 关点), or None.

    窗帘再关点, 卷帘再放下来一点: a cover closed by a bit, not all the way.
    """
    ending = [*tokens[1:], _Token(_Kind.SEP, "")]
    for index, token in enumerate(tokens[1:], start=1):
        verb = tokens[index - 1]
        if token.text in _A_BIT and verb.kind in _BY_A_BIT and ending[index].kind in _CLAUSE_END_KINDS:
            return _BY_A_BIT[verb.kind]
    return None


def _number_set_to(tokens: Sequence[_Token]) -> _Token | None:
    """Return the number after the one setting verb when one of its unit was said before it, else None."""
    verbs = [i for i, token in enumerate(tokens) if token.kind is _Kind.SET]
    if len(verbs) != 1:
        return None  # 温度调到26度风速调成3档: two settings, each its own number
    before = [token for token in tokens[: verbs[0]] if token.kind is _Kind.NUM]
    after = next((token for token in tokens[verbs[0] + 1 :] if token.kind is _Kind.NUM), None)
    return after if before and after is not None and before[-1].unit == after.unit else None


def _word_action(first: dict[_Kind, _Token]) -> str | None:
    """Return 静音/取消静音, a task (开始烘干) or a mode setting, or None."""
    if _Kind.MUTE in first:
        return ACTION_UNMUTE if _Kind.CANCEL in first else ACTION_MUTE
    if _Kind.TASK in first:
        prefix = next((first[kind].value for kind in _TASK_VERBS if kind in first), _DEFAULT_TASK_VERB)
        return prefix + first[_Kind.TASK].value
    if _Kind.MODE in first:
        mode = first[_Kind.MODE].value
        if _Kind.OFF in first and mode.endswith(_SWITCHED_ON):
            return _switched_off(mode)  # 摇头关了: the setting off
        return mode
    return None


def _asks(tokens: Sequence[_Token]) -> bool:
    """Return True when the clause ends in a question particle (门锁了吗, 阳台门关了没).

    A polite request (可以打开灯吗) still asks for the action.
    """
    if _asks_which_of_two(tokens):
        return True
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    if not said or said[-1].kind is not _Kind.ASK:
        return False
    return not any(token.text in _POLITE_WORDS for token in tokens)


def _asks_which_of_two(tokens: Sequence[_Token]) -> bool:
    """Return True for a question offering two states (开着还是关着, 是升上去还是放下来)."""
    for position, token in enumerate(tokens):
        if token.text == _OR_WORD:
            before = any(t.kind in _ACTION_KINDS or t.text == _IS_WORD for t in tokens[:position])
            if before and any(t.kind in _ACTION_KINDS for t in tokens[position + 1 :]):
                return True
    return False


_IS_WORD = "是"
_OR_WORD = "还是"
"""Between two states it asks which (开着还是关着); before an action it is "rather" (还是关掉吧)."""


def _query(tokens: Sequence[_Token], first: dict[_Kind, _Token]) -> str:
    """Return 查询<属性>: the attribute a question word or an attribute word names, else 状态.

    看看空调是多少度: 多少度 names the temperature even after the bare 看看.
    """
    asked = next((token.value for token in tokens if token.kind is _Kind.QUERY and token.value), "")
    attribute = first[_Kind.ATTR].value if _Kind.ATTR in first else ""
    return ACTION_QUERY + (asked or attribute or DEFAULT_QUERY_ATTRIBUTE)


def _value_action(tokens: Sequence[_Token], first: dict[_Kind, _Token], category: str) -> str | None:
    """Return a setting, a relative adjustment or a query action, or None."""
    attribute = first[_Kind.ATTR].value if _Kind.ATTR in first else ""
    adjust = first[_Kind.ADJUST].value if _Kind.ADJUST in first else None
    # 婴儿房十度多少: a value asked about, with no verb setting it, is no setting
    asked_only = _Kind.QUERY in first and adjust is None and _Kind.SET not in first
    if _Kind.NUM in first and not asked_only:
        setting = _setting(first[_Kind.NUM], attribute, category)
        if adjust is None or _Kind.SET in first:
            return setting  # dim it to 30% (调暗 它 调到 30%): the value to set
        # 调高两度 is a change by 2, not a setting to 2: 调高温度=2C keeps the adjustment.
        said, _, value = setting.removeprefix(SETTING_PREFIX).partition("=")
        return f"{adjust if adjust.endswith(said) else adjust + said}={value}"
    if adjust is not None:
        if not attribute:
            return adjusted_for(adjust, category)
        return adjust if adjust.endswith(attribute) else adjust + attribute
    if _Kind.QUERY in first:
        return _query(tokens, first)
    return None


def adjusted_for(adjust: str, category: str) -> str:
    """Return an adjustment said with no attribute, moving what a device of ``category`` moves.

    空调调高: its temperature (调高温度); 窗帘开大 or 开个缝: its position; else as said.
    """
    attribute = ""
    if category in _TEMPERATURE_CATEGORIES and adjust in RAISING_ACTIONS + LOWERING_ACTIONS:
        attribute = TEMPERATURE_ATTRIBUTE
    elif adjust in ("调大", "调小"):
        attribute = _PERCENT_ATTRIBUTES.get(category, "")
    return adjust if adjust.endswith(attribute) else adjust + attribute


def _amount_alone(tokens: Sequence[_Token]) -> bool:
    """Return True for a clause that is only an amount (三分之一 of 关个三分之一), no verb of its own."""
    said = [token for token in tokens if token.kind is not _Kind.FILLER]
    return len(said) == 1 and said[0].kind is _Kind.NUM


def _closed_by(setting: str, category: str) -> str:
    """Return a cover's position closed by the share said (窗帘关个三分之一: open 67 %, not 33 %).

    A cover's position is how far it is open; closing it by a share leaves the rest open. 关到
    (a setting verb) says the position itself.
    """
    said, _, value = setting.partition("=")
    share = value.removesuffix("%")
    if category != _COVER or said != SETTING_PREFIX + _PERCENT_ATTRIBUTES[_COVER] or value == share:
        return setting
    try:
        closed = float(share)
    except ValueError:
        return setting
    return f"{said}={_PERCENT - closed:g}%"


def _switch_action(first: dict[_Kind, _Token]) -> str | None:
    """Return 打开/关闭/暂停/继续 from the verbs of a clause, or None.

    A part that opens by itself is named with the verb (百叶窗叶片合上: 关闭叶片, not the blind).
    """
    part = first[_Kind.ATTR].value if _Kind.ATTR in first and first[_Kind.ATTR].value in PART_WORDS else ""
    if _Kind.ON in first or _Kind.START in first:
        return ACTION_ON + part
    if _Kind.STOP in first and _Kind.OFF not in first and not part:
        return ACTION_STOP
    if _Kind.OFF in first or _Kind.STOP in first or _Kind.CANCEL in first:
        return ACTION_OFF + part
    for kind in (_Kind.PAUSE, _Kind.RESUME):
        if kind in first:
            return first[kind].value
    return None


def _setting(number: _Token, attribute: str, category: str) -> str:
    """Return ``设置<属性>=<值>`` for a number said with or without a unit."""
    if number.unit == "度" or (
        not number.unit
        and (attribute == TEMPERATURE_ATTRIBUTE or (not attribute and category in _TEMPERATURE_CATEGORIES))
    ):
        return f"设置{TEMPERATURE_ATTRIBUTE}={number.value}{TEMPERATURE_UNIT}"
    if number.unit == "档":
        return f"设置{attribute or '风速'}={number.value}档"
    if number.unit == "k" or (attribute == COLOUR_TEMPERATURE_ATTRIBUTE and not number.unit):
        return f"设置{attribute or COLOUR_TEMPERATURE_ATTRIBUTE}={number.value}K"  # 色温调到4000: kelvin
    if number.unit == EXTREME_UNIT:
        said = attribute or _PERCENT_ATTRIBUTES.get(category, "")
        return f"{SETTING_PREFIX}{said}={number.value}"
    attribute = attribute or _PERCENT_ATTRIBUTES.get(category, "")
    if not number.unit and attribute in {"", SPEED_ATTRIBUTE}:
        # 调到五十五 of an unknown kind, 风速调到6 (a level or a percentage): the device's range decides
        return f"{SETTING_PREFIX}{attribute}={number.value}"
    return f"设置{attribute}={number.value}%"


def _command(action: str, target: _Target) -> Command:
    """Return the wire command for an action on a settled target.

    小宇房间的灯关了 switches off every light of the room, though one is called 小宇房间灯 (打开
    turns on that one: the others are there to be turned on by name).
    """
    parts = [*target.include] or ([ANY_ROOM] if target.exclude else [])
    parts.extend(f"!{room}" for room in target.exclude)
    quantifier = target.quantifier or Quantifier.ONE
    if action == ACTION_OFF and target.the_rooms and target.one_called_so and target.category == _LIGHT:
        quantifier = Quantifier.ALL
    return Command(
        a=action,
        s=",".join(parts) or ANY_ROOM,
        n=target.name,
        t=target.category,
        q=quantifier,
        c=target.count,
        x=tuple(target.left_out),
    )
