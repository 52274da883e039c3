"""Tests for spec loading and command document enrichment (seeds 001, 002)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from custom_components.context_retrieval.core.gating import CATEGORIES
from custom_components.context_retrieval.core.models import CommandSpec, Device
from custom_components.context_retrieval.core.spec import (
    SpecIndex,
    build_command_document,
    build_fallback_document,
    expand_synonyms,
    load_spec,
    parse_command,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_SPEC = REPO_ROOT / "tests" / "data" / "smartthings" / "spec.jsonl"

LIGHT_PROFILE = {
    "profileId": "light",
    "capabilities": [
        {"id": "main-switch-on", "description": "电源启用", "type": "string"},
        {
            "id": "main-switchLevel-setLevel",
            "description": "调光器",
            "type": "integer",
            "value_range": {"minimum": 0, "maximum": 100, "unit": ["%"]},
        },
    ],
    "conditions": [
        {
            "id": "main-switch",
            "description": "电源",
            "type": "string",
            "value_list": [{"value": "on", "description": "开"}, {"value": "off", "description": "关"}],
        }
    ],
}
PLUG_PROFILE = {
    "profileId": "plug",
    "capabilities": [{"id": "main-switch-off", "description": "电源关闭"}],
}


def _shared_profiles() -> list[dict]:
    return json.loads(SHARED_SPEC.read_text(encoding="utf-8"))


def _command(description: str, command_id: str = "main-x-y", **kwargs: object) -> CommandSpec:
    return CommandSpec(id=command_id, description=description, **kwargs)


# --- loading -------------------------------------------------------------------------------


def test_load_json_array_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps([LIGHT_PROFILE, PLUG_PROFILE], ensure_ascii=False), encoding="utf-8")
    index = load_spec(path)
    assert len(index) == 2
    assert "light" in index
    assert [c.id for c in index.commands_for("light")] == [
        "main-switch-on",
        "main-switchLevel-setLevel",
        "main-switch",
    ]


def test_load_jsonl_file_from_str_path(tmp_path: Path) -> None:
    path = tmp_path / "spec.jsonl"
    lines = [json.dumps(profile, ensure_ascii=False) for profile in (LIGHT_PROFILE, PLUG_PROFILE)]
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    index = load_spec(str(path))
    assert len(index) == 2
    assert [c.description for c in index.commands_for("plug")] == ["电源关闭"]


def test_load_single_object_file(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(PLUG_PROFILE), encoding="utf-8")
    assert "plug" in load_spec(path)


def test_load_iterable_of_dicts() -> None:
    index = load_spec(iter([LIGHT_PROFILE, PLUG_PROFILE]))
    assert len(index) == 2


def test_load_shared_spec() -> None:
    raw = _shared_profiles()
    assert len(raw) == 45
    index = load_spec(SHARED_SPEC)
    # One profile id occurs twice in the shared file; the later entry wins.
    assert len(index) == len({profile["profileId"] for profile in raw})
    for profile in raw:
        assert profile["profileId"] in index
    last = {profile["profileId"]: profile for profile in raw}
    for profile_id, profile in last.items():
        commands = index.commands_for(profile_id)
        expected = [(c["id"], False) for c in profile["capabilities"]] + [
            (c["id"], True) for c in profile.get("conditions", [])
        ]
        assert [(c.id, c.readable) for c in commands] == expected


def test_bad_jsonl_line_is_skipped_with_its_line_number(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "spec.jsonl"
    path.write_text(
        json.dumps(LIGHT_PROFILE)
        + "\n"
        + '{"profileId": "broken", '
        + "\n"
        + json.dumps(PLUG_PROFILE)
        + "\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING):
        index = load_spec(path)
    assert set(index.profiles) == {"light", "plug"}
    assert any("line 2" in record.getMessage() for record in caplog.records)


def test_conditions_become_readable_specs() -> None:
    commands = {c.id: c for c in load_spec([LIGHT_PROFILE]).commands_for("light")}
    assert commands["main-switch"].readable
    assert commands["main-switch"].value_list == [
        {"value": "on", "description": "开"},
        {"value": "off", "description": "关"},
    ]
    assert not commands["main-switch-on"].readable
    assert commands["main-switchLevel-setLevel"].value_range == {"minimum": 0, "maximum": 100, "unit": ["%"]}
    assert commands["main-switchLevel-setLevel"].type == "integer"


@pytest.mark.parametrize(
    "profile",
    [
        "not a profile",
        {"capabilities": []},
        {"profileId": 7},
        {"profileId": ""},
    ],
)
def test_malformed_profiles_are_skipped(profile: object, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        index = load_spec([profile, PLUG_PROFILE])
    assert list(index.profiles) == ["plug"]
    assert caplog.records


@pytest.mark.parametrize(
    "capability",
    [
        {"description": "电源启用"},
        {"id": "main-switch-on"},
        {"id": "main-switch-on", "description": "   "},
        {"id": 3, "description": "电源启用"},
        {"id": "main-switch-on", "description": "电源启用", "type": 1},
        {"id": "main-x", "description": "调光器", "value_range": [0, 100]},
        {"id": "main-x", "description": "模式", "value_list": "制冷"},
        {"id": "main-x", "description": "模式", "value_list": [{"value": "cool"}]},
        "main-switch-on",
    ],
)
def test_malformed_commands_are_skipped(capability: object, caplog: pytest.LogCaptureFixture) -> None:
    profile = {"profileId": "p", "capabilities": [capability, {"id": "main-ok", "description": "好"}]}
    with caplog.at_level(logging.WARNING):
        index = load_spec([profile])
    assert [c.id for c in index.commands_for("p")] == ["main-ok"]
    assert any("p" in record.getMessage() for record in caplog.records)


def test_capabilities_that_are_not_a_list_are_ignored(caplog: pytest.LogCaptureFixture) -> None:
    profile = {
        "profileId": "p",
        "capabilities": {"id": "x"},
        "conditions": [{"id": "main-t", "description": "温度"}],
    }
    with caplog.at_level(logging.WARNING):
        index = load_spec([profile])
    assert [c.id for c in index.commands_for("p")] == ["main-t"]
    assert caplog.records


def test_parse_command_copies_nested_values() -> None:
    raw = {"id": "main-x", "description": "模式", "value_list": [{"value": "cool", "description": "制冷"}]}
    command = parse_command(raw, readable=False)
    raw["value_list"][0]["description"] = "changed"
    assert command.value_list == [{"value": "cool", "description": "制冷"}]


def test_spec_index_lookups() -> None:
    index = SpecIndex({"p": [_command("电源启用")]})
    assert index.commands_for("unknown") == []
    assert index.commands_for(None) == []
    assert "p" in index
    assert "q" not in index
    assert len(index) == 1
    index.commands_for("p").clear()
    assert len(index.commands_for("p")) == 1


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="missing"):
        load_spec(tmp_path / "missing.jsonl")


# --- enrichment ----------------------------------------------------------------------------


def test_verb_synonym_expansion_matches_seed() -> None:
    assert build_command_document(_command("电源启用", "main-switch-on")) == "电源启用 打开 开 开启 启动 on"


def test_power_off_expands_to_off_words() -> None:
    assert build_command_document(_command("电源关闭", "main-switch-off")) == "电源关闭 关 关掉 关上 停止 off"


def test_no_rule_keeps_description() -> None:
    assert build_command_document(_command("环境屏天气模式")) == "环境屏天气模式"


def test_value_list_descriptions_are_appended_in_order() -> None:
    command = _command(
        "设置空调模式",
        "main-airConditionerMode-setAirConditionerMode",
        value_list=[{"value": "cool", "description": "制冷"}, {"value": "heat", "description": "制热"}],
    )
    assert build_command_document(command) == "设置空调模式 制冷 制热"


def test_unmute_is_not_a_power_off() -> None:
    document = build_command_document(_command("关闭静音", "main-audioMute-unmute"))
    words = document.split()
    assert words[0] == "关闭静音"
    assert {"取消静音", "解除静音", "打开声音"} <= set(words)
    assert not {"关", "关掉", "关上", "停止", "off"} & set(words)


def test_blind_open_close_use_blind_words() -> None:
    open_words = build_command_document(_command("打开", "main-windowShade-open")).split()
    close_words = build_command_document(_command("关闭", "main-windowShade-close")).split()
    assert {"拉开", "升起"} <= set(open_words)
    assert "on" not in open_words
    assert {"拉上", "关上", "放下", "合上"} <= set(close_words)
    assert "off" not in close_words


def test_readable_attribute_is_marked_not_worded() -> None:
    # Readable attributes are told apart by the flag; their documents carry no generic
    # question words, which would make every short attribute match 查询状态 best.
    readable = _command("温度", "main-temperatureMeasurement-temperature", readable=True)
    assert build_command_document(readable) == build_command_document(_command("温度"))
    assert "查询" not in build_command_document(readable).split()


def test_power_attribute_carries_state_words_but_power_commands_keep_their_verbs() -> None:
    assert {"开着", "状态"} <= set(build_command_document(_command("电源", readable=True)).split())
    assert "开着" not in build_command_document(_command("电源启用")).split()
    assert "开着" not in build_command_document(_command("电源关闭")).split()


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("调光器", {"亮度", "调亮", "调暗", "设置亮度"}),
        ("设置灯光的色温", {"冷白", "暖白", "暖光", "白光"}),
        ("设置灯光颜色的色相", {"颜色", "红色", "蓝色", "绿色", "黄色"}),
        ("设置灯光颜色的饱和度", {"红色"}),
        ("音量", {"声音", "设置音量", "调大", "调小"}),
        ("静音", {"无声"}),
        ("风扇速度", {"风速", "设置风速", "档位"}),
        ("风扇摆动模式", {"摆风", "摇头", "摆头"}),
        ("风力模式", {"风模式", "自然风", "睡眠风"}),
        ("设置窗帘遮光等级", {"遮光", "设置遮光"}),
        ("设置制冷设定点为特定温度值，明确降温目标。", {"温度", "设置温度", "调温", "度"}),
        ("制冷温度", {"温度", "设置温度", "调温", "度"}),
        ("制热温度", {"温度", "设置温度", "调温"}),
        ("暂停", {"停一下"}),
    ],
)
def test_domain_phrases_expand(description: str, expected: set[str]) -> None:
    assert expected <= set(build_command_document(_command(description)).split())


def test_dryer_commands_stay_distinct() -> None:
    documents = {
        description: build_command_document(_command(description))
        for description in ("开始烘干", "暂停烘干", "取消烘干")
    }
    assert len(set(documents.values())) == 3
    assert "停一下" in documents["暂停烘干"]
    assert "停一下" not in documents["开始烘干"]
    assert "停一下" not in documents["取消烘干"]


def test_longest_phrase_wins_and_blocks_shorter_ones() -> None:
    assert expand_synonyms("关闭静音") == ["取消静音", "解除静音", "打开声音"]
    assert "开始播放" not in expand_synonyms("播放状态")


def test_documents_of_the_shared_spec_have_no_id_or_category() -> None:
    index = load_spec(SHARED_SPEC)
    for profile_id in index.profiles:
        for command in index.commands_for(profile_id):
            document = build_command_document(command)
            assert document.startswith(command.description)
            assert command.id not in document
            assert command.id.split("-")[1] not in document
            assert not any(category in document for category in CATEGORIES)


def test_fallback_document_has_name_aliases_room_only() -> None:
    device = Device(id="d1", name="老伙计", room="客厅", category="Fan", aliases=["风扇", "老伙计"])
    assert build_fallback_document(device) == "老伙计 风扇 客厅"


def test_fallback_document_without_room() -> None:
    device = Device(id="d1", name="小白", room="", category="RobotCleaner")
    assert build_fallback_document(device) == "小白"


def test_a_capability_synonym_used_as_a_description_expands_to_its_phrase():
    assert expand_synonyms("放下", "windowShade")[0] == "关闭"
    assert expand_synonyms("升起", "windowShade")[0] == "打开"
    # The general tables share words between phrases (停止 is 关闭 and 停用): one way only.
    assert "关闭" not in expand_synonyms("停止", "windowShade")
