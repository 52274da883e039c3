"""Light normalisation shared by names, rooms and queries (seed 003 §2)."""

import pytest

from custom_components.context_retrieval.core.text import char_ngrams, compact, has_han, has_latin, normalize


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("客厅  主灯", "客厅 主灯"),
        ("（客厅）主灯", "(客厅)主灯"),
        ("【客厅】主灯", "(客厅)主灯"),
        ("ＡＢＣ１２３", "abc123"),
        ("  灯\t带\n", "灯 带"),
        ("客厅—主灯", "客厅-主灯"),
        ("客廳的電燈", "客厅的电灯"),  # Traditional characters fold to Simplified (OpenCC's table)
        ("書枱燈", "书台灯"),  # Hong Kong's 枱 too
        ("什么", "什么"),  # a Simplified character another convention folds further stays
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_compact_removes_all_whitespace():
    assert compact(" 客 厅\u3000主灯 ") == "客厅主灯"


@pytest.mark.parametrize(
    ("text", "n", "expected"),
    [("客厅主灯", 2, ["客厅", "厅主", "主灯"]), ("灯", 2, ["灯"]), ("", 2, []), ("abc", 3, ["abc"])],
)
def test_char_ngrams(text, n, expected):
    assert char_ngrams(text, n) == expected


def test_script_detection():
    assert has_han("打开")
    assert not has_han("turn on")
    assert has_latin("turn on")
    assert not has_latin("设置温度")
