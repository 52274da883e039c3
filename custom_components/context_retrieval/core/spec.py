"""Load device profile specs and build the per-command retrieval documents (seeds 001, 002)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .models import CommandSpec, Device

_LOGGER = logging.getLogger(__name__)

COLOR_WORDS: tuple[str, ...] = ("颜色", "红色", "蓝色", "绿色", "黄色", "紫色", "橙色", "粉色")
"""What users call a hue: 把灯调成红色 should reach the hue and saturation commands."""

SETPOINT_WORDS: tuple[str, ...] = ("温度", "设置温度", "调温", "度")
"""What users say for a temperature set point (调到26度)."""


VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "启用": ("打开", "开", "开启", "启动", "on"),
    "开启": ("打开", "开", "启动", "on"),
    "打开": ("开", "开启", "启动", "on"),
    "关闭": ("关", "关掉", "关上", "停止", "off"),
    "停用": ("关闭", "关", "关掉", "停止", "off"),
    "暂停": ("停一下", "停"),
    "开始": ("打开", "开", "启动", "开启", "on"),
    "锁定": ("上锁", "锁门", "锁上"),
    "解锁": ("开锁", "打开门锁"),
}
"""Verb expansions of a command description (seed 002, 同义词归一化)."""

PHRASE_SYNONYMS: dict[str, tuple[str, ...]] = {
    # Longer phrases win over the verbs they contain: 关闭静音 is unmute, not 关闭.
    "关闭静音": ("取消静音", "解除静音", "打开声音"),
    "静音": ("无声",),
    "锁定状态": ("门锁状态", "有没有锁"),
    "开始烘干": ("烘干", "启动烘干", "烘衣服"),
    "暂停烘干": ("暂停", "停一下"),
    "取消烘干": ("取消", "停止烘干", "结束烘干"),
    "播放": ("开始播放", "继续播放", "放歌"),
    "播放状态": (),  # an attribute, not the 播放 command
    "暂停播放": ("暂停", "停一下"),
    "停止播放": ("停止", "别放了", "关闭", "关掉"),
    "停止清扫": ("停止", "关闭", "关掉", "停掉", "别扫了"),
    # The power attribute is what 开着吗 / 状态 asks about; the commands keep their verbs.
    "电源": ("开关状态", "开着", "关着", "状态"),
    "电源启用": VERB_SYNONYMS["启用"],
    "电源关闭": VERB_SYNONYMS["关闭"],
    # Lights.
    "调光器": ("亮度", "调亮", "调暗", "设置亮度"),
    "色温": ("冷白", "暖白", "暖光", "白光", "冷光", "暖黄"),
    "色相": COLOR_WORDS,
    "颜色": COLOR_WORDS,
    "饱和度": ("鲜艳", "色彩浓度"),
    # Audio and TV.
    "音量": ("声音", "设置音量", "调大", "调小"),
    "调高音量": ("音量", "声音", "调大", "大声", "大点声"),
    "调低音量": ("音量", "声音", "调小", "小声", "小点声"),
    "频道": ("换台", "节目"),
    "下一个频道": ("下一台", "换台"),
    "上一个频道": ("上一台", "换台"),
    # Fans and air.
    "风扇速度": ("风速", "设置风速", "档位"),
    "风扇摆动模式": ("摆风", "摇头", "摆头"),
    "风力模式": ("风模式", "自然风", "睡眠风"),
    "空气净化器风扇模式": ("净化模式", "风量"),
    # Climate.
    "制冷设定点": SETPOINT_WORDS,
    "制冷温度": SETPOINT_WORDS,
    "制热温度": (*SETPOINT_WORDS, "加热"),
    "温度": ("室温", "气温", "几度"),
    "湿度": ("潮湿", "干燥"),
    # Blinds.
    "遮光等级": ("遮光", "设置遮光"),
    "预设位置": ("位置", "开合度"),
    "倾斜度": ("角度", "叶片角度"),
    # Sensors and meters.
    "接触传感器": ("门磁", "门窗", "开没开"),
    "运动传感器": ("有人", "人体感应", "有没有人"),
    "照明度": ("光照", "光线"),
    "电池": ("电量", "剩余电量"),
    "功率计": ("功率", "耗电"),
    "电表": ("用电量", "耗电量"),
    "能耗": ("用电量", "耗电量"),
    # Others.
    "合上叶片": ("关闭叶片",),
    "翻开叶片": ("打开叶片",),
    "扫地机": ("扫地", "清扫", "打扫", "吸尘"),
    "阀门": ("水阀",),
    "喂食": ("喂猫", "喂狗", "投喂"),
}
"""Domain phrases, chosen so the Chinese actions an LLM emits reach the real spec commands.

An empty expansion keeps the shorter phrases inside a phrase from matching.
"""

CAPABILITY_SYNONYMS: dict[str, dict[str, tuple[str, ...]]] = {
    "windowShade": {
        "打开": ("拉开", "升起", "开"),
        "关闭": ("拉上", "关上", "放下", "合上", "关"),
    },
}
"""Phrase rules that apply only to one capability (a blind's 打开 is 拉开, not 启动)."""


@dataclass(slots=True)
class SpecIndex:
    """Commands of each device profile, keyed by profile id."""

    profiles: dict[str, list[CommandSpec]] = field(default_factory=dict)

    def commands_for(self, profile_id: str | None) -> list[CommandSpec]:
        """Return the commands of a profile (empty when the profile is unknown)."""
        if profile_id is None:
            return []
        return list(self.profiles.get(profile_id, ()))

    def __contains__(self, profile_id: object) -> bool:
        """Return True when the profile is in the index."""
        return profile_id in self.profiles

    def __len__(self) -> int:
        """Return the number of profiles."""
        return len(self.profiles)


def parse_command(raw: object, *, readable: bool) -> CommandSpec:
    """Return the CommandSpec of one spec capability or condition.

    Raises:
        TypeError: when ``raw`` is not an object.
        ValueError: when ``raw`` lacks a string id or description or has a field
            of the wrong type.

    """
    if not isinstance(raw, Mapping):
        raise TypeError(f"expected an object, got {type(raw).__name__}")
    command_id = raw.get("id")
    description = raw.get("description")
    if not isinstance(command_id, str) or not command_id:
        raise ValueError("missing id")
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{command_id}: missing description")
    kind = raw.get("type")
    if kind is not None and not isinstance(kind, str):
        raise ValueError(f"{command_id}: type is not a string")
    value_range = raw.get("value_range")
    if value_range is not None and not isinstance(value_range, Mapping):
        raise ValueError(f"{command_id}: value_range is not an object")
    description_en = raw.get("description_en")
    if description_en is not None and not isinstance(description_en, str):
        raise ValueError(f"{command_id}: description_en is not a string")
    value_list = raw.get("value_list")
    if value_list is not None and (
        not isinstance(value_list, list)
        or not all(
            isinstance(item, Mapping) and isinstance(item.get("description"), str) for item in value_list
        )
    ):
        raise ValueError(f"{command_id}: value_list is not a list of objects with a description")
    return CommandSpec(
        id=command_id,
        description=description.strip(),
        type=kind,
        value_range=dict(value_range) if value_range is not None else None,
        value_list=[dict(item) for item in value_list] if value_list is not None else None,
        readable=readable,
        description_en=description_en.strip() or None if description_en else None,
    )


def _parse_profile(raw: object) -> tuple[str, list[CommandSpec]]:
    """Return the profile id and commands of one spec profile, skipping bad commands."""
    if not isinstance(raw, Mapping):
        raise TypeError(f"expected an object, got {type(raw).__name__}")
    profile_id = raw.get("profileId")
    if not isinstance(profile_id, str) or not profile_id:
        raise ValueError("missing profileId")
    commands: list[CommandSpec] = []
    for key, readable in (("capabilities", False), ("conditions", True)):
        entries = raw.get(key, [])
        if not isinstance(entries, list):
            _LOGGER.warning("Spec profile %s: %s is not a list, ignored", profile_id, key)
            continue
        for position, entry in enumerate(entries):
            try:
                commands.append(parse_command(entry, readable=readable))
            except (TypeError, ValueError) as err:
                _LOGGER.warning("Spec profile %s: skipping %s[%d]: %s", profile_id, key, position, err)
    return profile_id, commands


def _read_profiles(path: Path) -> Iterable[object]:
    """Return the raw profiles of a JSON array file or a JSONL file."""
    text = path.read_text(encoding="utf-8")
    with contextlib.suppress(json.JSONDecodeError):
        data = json.loads(text)
        if isinstance(data, list):
            return data
        if isinstance(data, Mapping):
            return [data]
    profiles: list[object] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            profiles.append(json.loads(line))
        except json.JSONDecodeError as err:
            _LOGGER.warning("%s line %d: not valid JSON, skipped (%s)", path, number, err.msg)
    return profiles


def load_spec(source: str | os.PathLike[str] | Iterable[Mapping[str, Any]]) -> SpecIndex:
    """Return the index of a spec given as a JSON array file, a JSONL file or profile dicts.

    Malformed profiles and commands are skipped with a warning; a later profile
    with the same id replaces the earlier one.

    Raises:
        OSError: when ``source`` is a path that cannot be read.

    """
    raw_profiles = _read_profiles(Path(source)) if isinstance(source, (str, os.PathLike)) else source
    index = SpecIndex()
    for position, raw in enumerate(raw_profiles):
        try:
            profile_id, commands = _parse_profile(raw)
        except (TypeError, ValueError) as err:
            _LOGGER.warning("Skipping spec profile #%d: %s", position, err)
            continue
        if profile_id in index.profiles:
            _LOGGER.warning("Spec profile %s appears twice; the later one wins", profile_id)
        index.profiles[profile_id] = commands
    return index


def command_id_parts(command_id: str) -> tuple[str, str, str | None] | None:
    """Return the component, capability and command of a ``{component}-{capability}[-{command}]`` id.

    The command is None for an attribute's id (``main-switch``); an id without those parts
    (Home Assistant's ``light.turn_on``) gives None.
    """
    component, separator, rest = command_id.partition("-")
    if not separator:
        return None
    capability, _, command = rest.partition("-")
    return component, capability, command or None


def _capability_of(command_id: str) -> str:
    """Return the capability part of a ``{component}-{capability}[-{command}]`` id."""
    parts = command_id_parts(command_id)
    return parts[1] if parts else ""


def expand_synonyms(description: str, capability: str = "") -> list[str]:
    """Return the synonym expansions of a description, by longest non-overlapping phrase.

    Rules of ``capability`` (from CAPABILITY_SYNONYMS) take precedence over the
    general tables when they match a phrase of the same length. A description that is
    itself one synonym of the capability's rules (放下) is expanded with that rule's
    phrase (关闭).
    """
    rules = {**VERB_SYNONYMS, **PHRASE_SYNONYMS, **CAPABILITY_SYNONYMS.get(capability, {})}
    # A capability's synonymy goes both ways: a blind whose close command is described 放下
    # is 关闭 too. (The general tables share words between rules, so they expand one way.)
    own = CAPABILITY_SYNONYMS.get(capability, {})
    reverse = [(key, words) for key, words in own.items() if description in words]
    if len(reverse) == 1 and description not in rules:
        key, words = reverse[0]
        return [key, *(word for word in words if word != description)]
    longest = max(map(len, rules))
    expansions: list[str] = []
    position = 0
    while position < len(description):
        for length in range(min(longest, len(description) - position), 0, -1):
            words = rules.get(description[position : position + length])
            if words is not None:
                expansions.extend(words)
                position += length
                break
        else:
            position += 1
    return expansions


def build_command_document(command: CommandSpec) -> str:
    """Return the embedding document of one command (seed 002, 文档富化).

    The document is ``{description} {synonym expansions} {value descriptions}``. It
    never contains the capability id or the device category, so the vector text stays
    Chinese. Readable attributes are told apart by ``CommandSpec.readable``, not by
    words: questions choose among them (``fusion.choose_capability``).
    """
    words = [
        command.description,
        *expand_synonyms(command.description, _capability_of(command.id)),
        *(str(item["description"]) for item in command.value_list or ()),
    ]
    return " ".join(dict.fromkeys(word for word in words if word))


def build_fallback_document(device: Device) -> str:
    """Return the document of a device without spec: its name, aliases and room only."""
    words = [device.name, *device.aliases, device.room]
    return " ".join(dict.fromkeys(word.strip() for word in words if word and word.strip()))
