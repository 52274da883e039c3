"""Light normalisation shared by names, rooms and queries (seed 003 §2)."""

import pytest

from custom_components.context_retrieval.core.text import (
    HomeWords,
    NumberWords,
    VariantsError,
    WordFolding,
    char_ngrams,
    compact,
    has_han,
    has_latin,
    normalize,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("客厅  主灯", "客厅 主灯"),
        ("（客厅）主灯", "(客厅)主灯"),
        ("【客厅】主灯", "(客厅)主灯"),
        ("ＡＢＣ１２３", "abc123"),
        ("  灯\t带\n", "灯 带"),
        ("客厅—主灯", "客厅-主灯"),
        ("客廳的吊燈", "客厅的吊灯"),  # Traditional characters fold to Simplified (OpenCC's table)
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


def test_words_of_other_varieties_fold_to_mandarin():
    folding = WordFolding.from_sections(
        {
            "cantonese": {"熄": "关", "闩": "关"},
            "english": {"tv": "电视", "living room": "客厅", "turn on": "打开"},
        }
    )
    assert folding.fold("熄咗厅啲灯") == "关咗厅啲灯"
    assert folding.fold("turn on the tv in the living room") == "打开 the 电视 in the 客厅"
    assert folding.fold("tvbox") == "tvbox"  # Latin words only whole
    assert normalize("客廳冷氣") == "客厅空调"  # the shipped table: Taiwan's 冷气
    assert normalize("冷氣都開埋") == "空调也打开"  # Cantonese 都…埋: as well, not all
    assert normalize("閂咗廳啲燈") == "关了厅那些灯"  # 啲 before a noun: a plural
    assert normalize("有啲凍") == "有点冻"  # 有啲: a bit
    assert normalize("客厅的灯侪关脱") == "客厅的灯都关掉"  # Wu 侪: all
    assert normalize("叫佢返去叉電") == "叫它回去充电"  # Cantonese 叉电: charge
    assert normalize("冷氣開定佢先") == "空调打开它先"  # 开定: on ahead
    assert normalize("山咗厨房灯") == "关了厨房灯"  # 闩咗 as speech recognition writes it
    assert normalize("电视声细啲") == "电视声音小一点"
    assert normalize("turn it off first") == "它 关闭 先"  # English first: 先
    assert normalize("恁把楼下哩灯关喽") == "你把楼下的灯关了"  # Henan 恁 (you), 哩 (的)
    assert normalize("电视转到哔哩哔哩") == "电视转到哔哩哔哩"  # 哩 inside a name stays
    assert normalize("楼梯灯全部关爻") == "楼梯灯全部关了"  # Wenzhou 爻
    assert normalize("叫渠回去") == "叫它回去"  # Wu and Gan 渠: it
    assert normalize("前陽台電火緊開") == "前阳台灯打开"  # Hokkien 紧 before a verb: quickly
    assert normalize("主卧空调开起的没得") == "主卧空调开着的没有"  # Sichuanese 没得, not the brand 美的
    assert normalize("blinds 放下来") == "卷帘 放下来"  # a blind rolls: no curtain
    assert normalize("put the kettle on") == "水壶 打开"  # put ... on: switched on
    assert normalize("turn the telly down a bit") == "telly 调低 一点"
    assert normalize("the lounge lamp") == "lounge 台灯"  # a lamp is no ceiling light
    assert normalize("actually leave it on, just turn it down") == "开着, 它 调低"
    assert normalize("switch on the heater") == "打开 取暖器"  # a heater stands in a room
    assert normalize("turn the heating up to 21") == "暖气 调到 21"  # the heating: central heating
    assert normalize("nineteen and a half") == "19 点五"
    assert normalize("tilt the blinds half open") == "叶片 卷帘 开一半"
    assert normalize("熱水爐轉慳電模式") == "热水器转节能模式"  # 悭电: saving power
    assert normalize("抽氣扇閂住佢先") == "排气扇关掉它先"  # V住佢: an order, no state
    assert normalize("熱水爐教到六十度") == "热水器调到六十度"  # 校 heard as 教
    assert normalize("書枱燈黃啲") == "书台灯暖一点"  # a light's yellow: warmer, not hotter
    assert normalize("客厅灯关倒咯") == "客厅灯关掉"  # Guizhou V倒 as an order, 咯 a particle
    assert normalize("热水器搞起嘎") == "热水器打开"
    assert normalize("净化器调成 favorite 模式") == "净化器调成 最爱 模式"  # Xiaomi's 最爱模式
    assert normalize("灯光调黄一点") == "灯光调暖一点"  # 黄光 is warm light; 黄色 stays a colour
    assert normalize("灯换成黄色") == "灯换成黄色"
    assert normalize("电视声太大了") == "电视声音太大了"
    assert normalize("電視聲音關小聲一點") == "电视声音小声一点"
    assert normalize("客厅窗帘拉开来") == "客厅窗帘拉开"
    assert normalize("書房的印表機") == "书房的打印机"  # Taiwan's 印表机
    assert normalize("exhaust fan") == "排风扇"  # a kind of its own, set apart from fans
    assert normalize("On the cooker hood") == "打开 油烟机"  # Singapore English: on as a verb
    assert normalize("then I on the dryer") == "然后 我 打开 烘干机"


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("開埋餐枱燈", "打开餐桌灯"),  # Cantonese 枱: a table
        ("客厅电暖器", "客厅取暖器"),  # one space heater, said either way
        ("客厅的暖炉", "客厅的取暖器"),
        ("Chloe's lamp", "chloe的 台灯"),  # whose it is
        ("it's on", "它 打开"),
        ("成間屋啲風扇", "全屋那些风扇"),  # Cantonese: the whole flat
        ("風扇就熄咗佢", "风扇关了它"),  # 就 before a verb: then
        ("識咗飯廳燈", "关了饭厅灯"),  # 熄咗 as recognition writes it
        ("turn off the lights in the lounge", "关闭 所有灯 lounge"),  # the lights in a room: every one
        ("turn off the lights", "关闭 灯"),  # said of no room: the ones around the speaker, a question
        ("speed 5", "5档"),
        ("speed fifty", "风速 50"),  # speed 5 is no start of speed 50
    ],
)
def test_the_shipped_table_folds_words_of_other_varieties(said, read):
    assert normalize(said) == read


@pytest.mark.parametrize(
    "raw",
    [["熄"], {"cantonese": ["熄"]}, {"english": {"TV": "电视"}}, {"english": {"tv": 1}}, {"x": {"": "a"}}],
)
def test_a_malformed_variants_table_is_refused(raw):
    with pytest.raises(VariantsError):
        WordFolding.from_sections(raw)


def test_an_english_plural_folds_as_its_singular():
    folding = WordFolding.from_sections({"english": {"plug": "插座", "switch": "开关", "on": "打开"}})
    assert folding.fold("all the plugs") == "all the 插座"
    assert folding.fold("switches") == "开关"
    assert folding.fold("the side ones") == "the side ones"  # too short a word: ones is no plural of on
    assert folding.fold("plugsy") == "plugsy"


def test_no_variant_word_is_folded_across_a_home_word():
    """Cantonese 开细 (turn down) over the start of the room 细路房 leaves the room whole."""
    home = HomeWords.build(["細路房", "細路房抽濕機", "冷氣", "灯"])

    spoken = home.separate("開細路房抽濕機")

    assert compact(spoken) == "开细路房除湿机"  # inside a home word, as its name folds
    assert compact("開細路房抽濕機") == "开小路房除湿机"  # without the home's words
    assert compact(home.separate("開細啲")) == "开小那些"  # no home word there: folded
    assert compact(home.separate("着冷氣")) == "开空调"  # a variant holding a whole home word
    assert home.separate(spoken) == spoken
    assert HomeWords.build([]).separate("開細") == "开细"


def test_a_verb_and_its_object_said_apart_are_the_home_word_they_make():
    """浇一下花 and 淋下啲花 are the home's 浇花 and 淋花; 厅啲灯 is the room's lights, not a 厅灯."""
    home = HomeWords.build(["浇花", "淋花", "厅灯"])
    assert home.rejoined("帮我浇一下花") == ("帮我浇花", {"浇一下花": "浇花"})
    assert home.rejoined("淋下啲花啦") == ("淋花啦", {"淋下啲花": "淋花"})
    assert home.rejoined("闩咗厅啲灯") == ("闩咗厅啲灯", {})
    assert home.rejoined("烧一下水") == ("烧一下水", {})  # no home word 烧水


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("空调开到 twenty-five degree", "空调开到25度"),
        ("volume 调到 twenty", "音量调到20"),
        ("dim 到 thirty percent", "调暗到30%"),
        ("twenty one", "21"),
        ("one hundred percent", "100%"),
        ("set to five", "调到5"),
        ("the one in the bedroom", "onebedroom"),  # one alone names, it does not count
        ("Xbox One", "xboxone"),
        ("seventeenth", "seventeenth"),  # whole words only
        ("two hundred", "2hundred"),  # a hundred counts only as one hundred
        ("lower the volume", "调低音量"),
    ],
)
def test_numbers_said_in_english_words_are_read_as_digits(said: str, read: str) -> None:
    assert compact(said) == read


def test_wu_it_is_read_only_after_a_verb():
    """关脱伊 is 关掉它; the 伊 of 伊莱克斯 (Electrolux) stays a name's."""
    assert compact("灶披间灯关脱伊") == "灶披间灯关掉它"
    assert compact("关掉伊莱克斯洗衣机").startswith("关掉伊")


@pytest.mark.parametrize(
    "raw",
    [
        ["twenty"],
        {"english": {"tens": {"Twenty": 20}}},
        {"english": {"tens": {"twenty": "20"}}},
        {"english": {"dozens": {"dozen": 12}}},
        {"english": {"units": {"two": True}}},
    ],
)
def test_a_malformed_number_words_file_is_refused(raw: object) -> None:
    with pytest.raises(VariantsError):
        NumberWords.from_sections(raw)
