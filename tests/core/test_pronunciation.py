"""Words heard by their sound: speech recognition's homophones read as the home's words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from custom_components.context_retrieval.core.decision import decide
from custom_components.context_retrieval.core.models import CommandSpec, Device, Room
from custom_components.context_retrieval.core.parsing.offline import value_spans
from custom_components.context_retrieval.core.pipeline import build_vector_searcher, retrieve
from custom_components.context_retrieval.core.pronunciation import (
    LatinNames,
    LikenessError,
    SoundFolding,
    SoundIndex,
    readings,
    sound_keys,
)
from custom_components.context_retrieval.core.state import ConversationState
from custom_components.context_retrieval.core.text import says_cantonese

from .conftest import CLOSE, COOL, OFF, ON, OPEN, cmd, light
from .conftest import run_commands as run


def test_readings_are_toneless_and_include_every_heteronym():
    assert readings("调") == {"tiao", "diao"}
    assert readings("室") == {"shi"}
    assert readings("A") == {"A"}
    assert ("kong", "tiao") in sound_keys("空调")
    assert ("kong", "diao") in sound_keys("空调")


@pytest.mark.parametrize(
    ("heard", "meant"),
    [("握室", "卧室"), ("除房", "厨房"), ("床帘", "窗帘"), ("抬灯", "台灯"), ("空条", "空调")],
)
def test_a_word_that_sounds_like_a_home_word_is_read_as_it(heard, meant):
    sounds = SoundIndex.build(["卧室", "厨房", "窗帘", "台灯", "空调"])
    assert sounds.word_like(heard) == meant
    assert sounds.respell(f"打开{heard}") == (f"打开{meant}", {heard: meant})


def test_home_words_and_other_sounds_are_left_alone():
    sounds = SoundIndex.build(["卧室", "台灯"])
    assert sounds.word_like("卧室") is None
    assert sounds.word_like("书房") is None
    assert sounds.respell("打开卧室的台灯") == ("打开卧室的台灯", {})
    assert SoundIndex.build(["灯"]).by_sound == {}  # one character matches too much by sound


def test_what_a_home_word_holds_is_said_as_the_home_says_it():
    """防台 (fang tai) sounds like the brand 方太, but 客厅防台卷帘 says it: it stays."""
    sounds = SoundIndex.build(["客厅防台卷帘", "方太"])
    assert sounds.respell("防台卷帘放下来") == ("防台卷帘放下来", {})
    assert sounds.respell("芳泰关了") == ("方太关了", {"芳泰": "方太"})


@pytest.mark.parametrize(
    ("heard", "meant"),
    [("苏房", "书房"), ("南色", "蓝色"), ("乐水器", "热水器"), ("乱风", "暖风"), ("除思机", "除湿机")],
)
def test_a_word_heard_with_sounds_people_confuse_is_read_as_the_home_word(heard, meant):
    """s/sh, n/l, r/l, an/ang and the like, as input methods' fuzzy pinyin lists them."""
    sounds = SoundIndex.build(["书房", "蓝色", "热水器", "暖风", "除湿机"])
    assert sounds.word_like(heard) == meant


def test_a_shared_word_written_another_way_is_alike_by_its_own_spelling():
    """能气 (n/l) is 冷气, which the engine reads as 空调: the character in common is 气 of 冷气."""
    sounds = SoundIndex.build(["客厅冷气"], shared=["冷气"])
    assert sounds.respell("能气调到二十四度") == ("空调调到二十四度", {"能气": "空调"})
    assert sounds.respell("能调到二十四度") == ("能调到二十四度", {})


def test_a_likeness_needs_a_character_in_common_and_one_word_it_fits():
    assert SoundIndex.build(["书房"]).word_like("苏方") is None  # su fang, but nothing in common
    assert SoundIndex.build(["书房", "输房"]).word_like("苏房") is None  # two words alike: which?
    assert SoundIndex.build(["台灯"]).word_like("室灯") is None  # 台 reads si only rarely


def test_words_said_as_they_are_and_values_said_are_not_respelled():
    sounds = SoundIndex.build(["灯光", "三层"], kept=["灯", "关", "拉开"])
    assert sounds.respell("灯关了") == ("灯关了", {})  # 灯 and 关, no 灯光 misheard
    assert sounds.respell("拉开三成") == ("拉开三层", {"三成": "三层"})
    assert sounds.respell("拉开三成", value_spans("拉开三成")) == ("拉开三成", {})  # 30 %, not a floor


def test_no_word_is_heard_across_a_word_said_whole():
    """关电视: 电视 is said whole, so 关电 is no 关店 misheard; 的暖气 holds no 地暖 (暖气 said)."""
    sounds = SoundIndex.build(["关店", "客厅"], shared=["电视", "暖气", "地暖"])
    assert sounds.respell("关电视") == ("关电视", {})
    assert sounds.respell("客厅的暖气关了") == ("客厅的暖气关了", {})
    assert sounds.respell("关电了") == ("关店了", {"关电": "关店"})  # nothing said whole after it
    assert sounds.respell("客厅的暖开了") == ("客厅地暖开了", {"的暖": "地暖"})


def test_a_type_word_written_another_way_is_heard_as_said():
    """电扇 is read as 风扇, but speech recognition hears it as 垫扇."""
    fan = Device(id="fan", name="落地扇", room="客厅", category="Fan", commands=[ON, OFF])
    (result,) = retrieve("客厅的垫扇开一下", [*_home(), fan], None, ConversationState())
    assert result.meta["heard_as"] == {"垫扇": "风扇"}
    top = result.candidates[0]
    assert result.groups[top.entity_id].device_ids == ["fan"]


def test_a_misheard_name_read_as_a_room_and_a_kind_still_calls_its_device():
    """倒台灯 is heard as 岛台灯 (an alias), which reads as the room alias 岛台 and 灯."""
    home = [
        light("light.w", "西厨灯", "西厨"),
        Device(
            id="light.i",
            name="岛台吊灯",
            room="西厨",
            category="Light",
            commands=[ON, OFF],
            aliases=["岛台灯"],
        ),
    ]
    index = build_vector_searcher(home, rooms=[Room("西厨", aliases=("岛台",))])
    results = retrieve("西厨的倒台灯打开", home, None, ConversationState(), vector_searcher=index)
    assert results[0].meta["heard_as"] == {"倒台灯": "岛台灯"}
    decision = decide(results, {d.id: d for d in home}, "西厨的倒台灯打开")
    assert [action.device_ids for action in decision.actions] == [("light.i",)]


def test_words_of_other_varieties_are_said_as_they_are():
    """Cantonese 啲 (the plural) before 风扇 is no 低风 (a fan mode of the home) misheard."""
    modes = CommandSpec(
        id="fan.set_preset_mode:preset_mode",
        description="设置风扇模式",
        type="string",
        value_list=[{"value": "low", "description": "低风"}],
    )
    fan = Device(id="fan", name="落地扇", room="客厅", category="Fan", commands=[ON, OFF, modes])
    (result,) = retrieve("闩晒啲风扇", [*_home(), fan], None, ConversationState())
    assert "heard_as" not in result.meta


@pytest.mark.parametrize(
    "raw",
    [
        {"initials": {"zh": "z"}},
        {"initials": {"zh": "z"}, "finals": ["ang"]},
        {"initials": {"zh": 3}, "finals": {}, "syllables": {}},
        {"initials": {"zh": "z"}, "finals": {"ang": "an"}},
        "zh: z",
    ],
)
def test_a_malformed_likeness_file_is_refused(raw):
    with pytest.raises(LikenessError):
        SoundFolding.from_data(raw)


def test_sounds_fold_at_the_start_and_the_end_of_a_syllable():
    folding = SoundFolding.from_data(
        {"initials": {"zh": "z", "n": "l"}, "finals": {"ang": "an", "eng": "en"}, "syllables": {}}
    )
    assert [folding.fold(s) for s in ("zhang", "nan", "neng", "ang")] == ["zan", "lan", "len", "an"]


def test_a_whole_syllable_is_respelled_before_its_sounds_fold():
    folding = SoundFolding.from_data(
        {"initials": {"h": "f"}, "finals": {"ang": "an"}, "syllables": {"huang": "fang", "hua": "fa"}}
    )
    assert [folding.folds(s) for s in ("huang", "fang", "hen")] == [{"fan", "fuan"}, {"fan"}, {"fen"}]


@pytest.mark.parametrize(
    ("said", "home_word"),
    [("发园", "花园"), ("客黄", "客房"), ("轰扇", "风扇"), ("仓帘", "窗帘"), ("穿帘", "窗帘")],
)
def test_sounds_merged_with_the_u_after_them_are_heard_as_the_home_word(said, home_word):
    index = SoundIndex.build([home_word, "客厅"])
    assert index.word_like(said) == home_word


@pytest.mark.parametrize(("said", "home_word"), [("夫房", "书房"), ("热费器", "热水器"), ("方帘", "窗帘")])
def test_sh_said_as_f_before_u_is_heard_as_the_home_word(said, home_word):
    """Guanzhong Mandarin says 书 shu as fu, 水 shui as fei, 窗 chuang as fang."""
    index = SoundIndex.build([home_word, "客厅"])
    assert index.word_like(said) == home_word


@pytest.mark.parametrize(
    ("said", "home_word"), [("夜水器", "热水器"), ("业水器", "热水器"), ("电叶炕", "电热炕")]
)
def test_r_said_as_y_is_heard_as_the_home_word(said, home_word):
    """The northeast and Jiaoliao Mandarin (Qingdao, Dalian) say 热 re as ye."""
    index = SoundIndex.build([home_word, "客厅"])
    assert index.word_like(said) == home_word


def test_a_syllable_may_be_respelled_several_ways():
    folding = SoundFolding.from_data(
        {"initials": {"ch": "c"}, "finals": {"ang": "an"}, "syllables": {"chuang": ["cang", "fang"]}}
    )
    assert folding.folds("chuang") == {"cuan", "can", "fan"}


def test_kitchen_is_not_heard_for_study():
    """书 shu folds to fu; 厨 chu does not, so 书房 said in a home without one is not the kitchen."""
    assert SoundIndex.build(["厨房", "客厅"]).word_like("书房") is None


def _home():
    return [
        light("l-bed", "台灯", "卧室"),
        light("l-kit", "主灯", "厨房"),
        light("l-liv", "吊灯", "客厅"),
        Device(id="b-bed", name="窗帘", room="卧室", category="Blind", commands=[OPEN, CLOSE]),
        Device(id="ac-liv", name="空调", room="客厅", category="AirConditioner", commands=[ON, OFF, COOL]),
        Device(id="ac-kit", name="空调", room="厨房", category="AirConditioner", commands=[ON, OFF, COOL]),
    ]


def test_a_misheard_room_scopes_the_command_with_a_pinyin_hit():
    (result,) = run(_home(), "打开除房的空条", cmd("打开", s="除房", n="空条", t="AirConditioner"))
    assert [c.entity_id for c in result.candidates] == ["ac-kit"]
    assert {"room_hit", "pinyin_hit"} <= set(result.candidates[0].reasons)
    assert result.meta["heard_as"] == {"除房": "厨房", "空条": "空调"}


def test_a_misheard_name_finds_the_device():
    (result,) = run(_home(), "抬灯关掉", cmd("关闭", n="抬灯", t="Light"))
    assert result.candidates[0].entity_id == "l-bed"
    assert "pinyin_hit" in result.candidates[0].reasons


def test_an_exact_name_needs_no_sound():
    (result,) = run(_home(), "台灯关掉", cmd("关闭", n="台灯", t="Light"))
    assert result.candidates[0].entity_id == "l-bed"
    assert "pinyin_hit" not in result.candidates[0].reasons
    assert "heard_as" not in result.meta


def test_the_offline_parser_reads_misheard_words_too():
    (result,) = retrieve("把握室的床帘拉上", _home(), None, ConversationState())
    assert result.candidates[0].entity_id == "b-bed"
    assert "pinyin_hit" in result.candidates[0].reasons
    assert result.meta["heard_as"] == {"握室": "卧室", "床帘": "窗帘"}


def test_everyday_words_that_sound_like_a_type_word_are_not_respelled():
    home = [*_home(), Device(id="awning", name="露台", room="阳台", category="Blind", commands=[OPEN, CLOSE])]
    (result,) = retrieve("就这样关掉吧", home, None, ConversationState())
    assert "heard_as" not in result.meta  # 这样 sounds like 遮阳, a kind of blind
    assert all("pinyin_hit" not in candidate.reasons for candidate in result.candidates)


def test_the_parsers_own_words_are_not_respelled_as_home_words():
    """设定 sounds like 射灯 (灯 reads ding too), but is the verb 'set'."""
    home = [*_home(), light("l-spot", "射灯", "卧室")]
    (result,) = retrieve("卧室空调设定26度", home, None, ConversationState())
    assert "heard_as" not in result.meta
    assert (result.command.a, result.command.n) == ("设置温度=26C", "空调")


def test_a_span_made_of_the_parsers_words_is_not_respelled():
    """开它 (kai ta) said after a question is 打开 it, not a scene called 开台."""
    home = [*_home(), Device(id="mahjong", name="开台", room="客厅", category="Scene", commands=[ON])]
    (result,) = retrieve("开它", home, None, ConversationState())
    assert "heard_as" not in result.meta


def test_the_word_a_sound_is_heard_as_does_not_change_between_runs():
    """Set iteration of strings changes with the hash seed: the choice among readings must not."""
    program = (
        "from custom_components.context_retrieval.core.pronunciation import SoundIndex;"
        "print(SoundIndex.build(['大灯', '射灯', '台面']).word_like('台灯'))"
    )
    heard = {
        subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            cwd=Path(__file__).resolve().parents[2],
        ).stdout.strip()
        for seed in (1, 2, 3, 4)
    }
    assert len(heard) == 1


@pytest.mark.parametrize(
    ("said", "heard"),
    [
        ("home pot 继续播放", "homepod 继续播放"),
        ("叫 so no 播歌", "叫 sonos 播歌"),
        ("pan a sonic 冷气", "panasonic 冷气"),  # its letters spaced out
        ("把 hall 的窗帘打开", "把 hall 的窗帘打开"),  # a word of the home's own names and rooms
        ("turn on the light", "turn on the light"),  # English the engine reads
        ("把 who go 打开", "把 who go 打开"),  # not alike enough to Hue Go's letters
        ("dim the kitchen lights a bit", "dim the kitchen lights a bit"),  # the name said right, then a
    ],
)
def test_latin_names_misheard_are_read_as_the_homes_names(said, heard):
    names = LatinNames.build(
        ["HomePod", "Sonos", "Panasonic", "Hall TV", "Hue Go", "Kitchen lights"], ["hall"]
    )
    assert names.respell(said)[0] == heard


def test_a_misheard_latin_name_finds_the_device_offline():
    home = [
        *_home(),
        Device(id="speaker", name="HomePod", room="客厅", category="NetworkAudio", commands=[ON, OFF]),
    ]
    (result,) = retrieve("把 home pot 打开", home, None, ConversationState())
    assert result.candidates[0].entity_id == "speaker"
    assert result.meta["heard_as"] == {"home pot": "homepod"}


def test_said_in_cantonese_a_word_is_heard_by_its_cantonese_reading_too():
    """冷戏 and 冷气 are both laang hei in Cantonese (lengxi, lengqi in Mandarin); 少度 and 小度 siu dou."""
    index = SoundIndex.build(["冷气", "小度", "晾衫架"])
    assert index.respell("冷戏开廿六度", cantonese=True) == ("空调开廿六度", {"冷戏": "空调"})  # read as 空调
    assert index.respell("浪衫架升返上去", cantonese=True)[0].startswith("晾衣架")  # read as 晾衣架
    assert index.respell("冷戏开", cantonese=False) == ("冷戏开", {})
    assert index.respell("地暖多少度") == ("地暖多少度", {})  # Mandarin: 少度 is no 小度
    assert says_cantonese("闩咗厨房灯")
    assert says_cantonese("客厅啲灯开返")
    assert not says_cantonese("把厨房灯关了")


def test_everyday_words_are_never_heard_as_home_words_in_cantonese_either():
    """冷气而家开咗多少度 with a 小度 speaker: 多少度 is asked, 少度 (siu dou in Cantonese) is no 小度."""
    on = CommandSpec("x.turn_on", "打开")
    temperature = CommandSpec("state:current_temperature", "当前温度", readable=True)
    home = [
        Device(
            id="climate.a", name="空调", room="客厅", category="AirConditioner", commands=[on, temperature]
        ),
        Device(id="media_player.x", name="小度", room="客厅", category="NetworkAudio", commands=[on]),
    ]
    for text in ("冷气而家开咗多少度", "冷气现在开多少度"):
        results = retrieve(text, home, None, ConversationState())
        decision = decide(results, {d.id: d for d in home}, text)
        assert [r.command.a for r in results] == ["查询温度"], text
        assert decision.actions == (), text
    assert not says_cantonese("冷气现在开多少度")  # 冷气 is Mandarin too: no mark of Cantonese
