"""Keyword recall: fuzzy name scores and the inverted character index (seed 004 名称精确命中优先)."""

import pytest

from custom_components.context_retrieval.core.keyword import (
    EXACT_NAME_SCORE,
    KeywordIndex,
    name_similarity,
)
from custom_components.context_retrieval.core.text import compact


def test_exact_name_scores_highest():
    assert name_similarity("老伙计", "老伙计") == EXACT_NAME_SCORE


@pytest.mark.parametrize(
    ("hint", "better", "worse"),
    [
        ("主灯", "主灯", "客厅主灯"),  # exact beats containment
        ("主灯", "客厅主灯", "吸顶灯"),  # containment beats a shared character
        ("床头灯", "床头台灯", "台灯"),  # more bigrams shared ranks higher
    ],
)
def test_name_similarity_orders_matches(hint, better, worse):
    assert name_similarity(hint, better) > name_similarity(hint, worse)


@pytest.mark.parametrize(("hint", "name"), [("", "灯"), ("灯", ""), ("空调", "窗帘")])
def test_unrelated_or_empty_scores_zero(hint, name):
    assert name_similarity(hint, name) == 0.0


def test_index_finds_devices_sharing_characters_and_aliases():
    index = KeywordIndex.build([("主灯",), ("老伙计", "落地扇"), ("窗帘",)])
    assert index.candidates("老伙") == {1}
    assert index.candidates("扇") == {1}
    score, via_alias = index.score(1, "落地扇")
    assert (score, via_alias) == (EXACT_NAME_SCORE, True)


def test_a_hint_made_of_two_of_a_devices_names_is_its_name():
    """先锋油汀: the brand alias 先锋 and the name 油汀 of one heater; 先锋台灯 names no device twice."""
    index = KeywordIndex.build([("油汀", "先锋"), ("台灯",)])
    assert index.score(0, "先锋油汀") == (EXACT_NAME_SCORE, True)
    assert index.score(1, "先锋台灯")[0] < EXACT_NAME_SCORE


def test_index_normalises_names():
    index = KeywordIndex.build([("客厅 主灯",), ("ＴＶ",)])
    assert index.score(0, "客厅主灯")[0] == EXACT_NAME_SCORE
    assert index.score(1, compact("tv"))[0] == EXACT_NAME_SCORE  # both folded alike (TV: 电视)


def test_contained_in_scores_names_found_in_text():
    index = KeywordIndex.build([("老伙计",), ("主灯",), ("窗帘",)])
    hits = index.contained_in("帮我把老伙计打开", index.candidates("帮我把老伙计打开"))
    assert set(hits) == {0}


def test_names_are_found_by_how_they_end():
    index = KeywordIndex.build(
        [("阳台灯",), ("灯带开关",), ("吸顶灯", "顶灯"), ("客厅扫地机器人",), ("小扫地机器人x",)]
    )
    assert index.ending_in("灯") == {0, 2}
    assert index.ending_in("顶灯") == {2}  # an alias counts
    assert index.ending_in("客厅扫地机器人") == {3}  # longer than the indexed endings
    assert index.ending_in("") == set()
