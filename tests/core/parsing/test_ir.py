import pytest

from custom_components.context_retrieval.core.models import UNKNOWN_COMMAND, Command, Quantifier
from custom_components.context_retrieval.core.parsing import (
    REFERENCE_LAST_MENTIONED,
    command_to_ir,
    parse_scope,
)

RAW = "原话"


def test_full_command() -> None:
    command = Command(a="打开", s="客厅,卧室", n="灯", t="Light", q=Quantifier.ALL)

    ir = command_to_ir(command, RAW)

    assert ir.raw == RAW
    assert ir.action == "打开"
    assert ir.name_hint == "灯"
    assert ir.type_hint == "Light"
    assert ir.scope_include == {"客厅", "卧室"}
    assert ir.scope_exclude == frozenset()
    assert ir.quantifier is Quantifier.ALL
    assert ir.references == ()
    assert ir.count is None


@pytest.mark.parametrize(
    ("command", "action", "name_hint", "type_hint", "references"),
    [
        pytest.param(UNKNOWN_COMMAND, None, None, "Unknown", (), id="unknown"),
        pytest.param(Command(a=" "), None, None, "Unknown", (), id="blank-action"),
        pytest.param(
            Command(a="打开", n="@last"), "打开", None, "Unknown", (REFERENCE_LAST_MENTIONED,), id="last"
        ),
        pytest.param(Command(a="打开", n="*"), "打开", None, "Unknown", (), id="any-name"),
        pytest.param(Command(a="打开", n=""), "打开", None, "Unknown", (), id="empty-name"),
        pytest.param(Command(a="打开", n=" 老伙计 "), "打开", "老伙计", "Unknown", (), id="name"),
        pytest.param(Command(a="打开", t=""), "打开", None, None, (), id="empty-type"),
        pytest.param(Command(a="设置亮度=50%", t="Light"), "设置亮度=50%", None, "Light", (), id="type"),
    ],
)
def test_action_name_type(
    command: Command, action: str | None, name_hint: str | None, type_hint: str | None, references: tuple
) -> None:
    ir = command_to_ir(command, RAW)

    assert ir.action == action
    assert ir.name_hint == name_hint
    assert ir.type_hint == type_hint
    assert ir.references == references


def test_quantifier_and_count() -> None:
    ir = command_to_ir(Command(a="打开", n="灯", t="Light", q=Quantifier.ANY, c=2), RAW)

    assert ir.quantifier is Quantifier.ANY
    assert ir.count == 2


@pytest.mark.parametrize(
    ("scope", "include", "exclude"),
    [
        ("*", set(), set()),
        ("", set(), set()),
        ("客厅", {"客厅"}, set()),
        ("客厅,卧室", {"客厅", "卧室"}, set()),
        ("客厅，卧室", {"客厅", "卧室"}, set()),
        (" 客厅 , 卧室 ", {"客厅", "卧室"}, set()),
        ("!卧室", set(), {"卧室"}),
        ("*,!卧室", set(), {"卧室"}),
        ("*,!书房,!卧室", set(), {"书房", "卧室"}),
        ("*, ! 卧室", set(), {"卧室"}),
        ("*,！卧室", set(), {"卧室"}),
        ("客厅,!卧室", {"客厅"}, {"卧室"}),
        ("Living Room,!Bed Room", {"Living Room"}, {"Bed Room"}),
        ("*,!,!*,,", set(), set()),
    ],
)
def test_scope(scope: str, include: set[str], exclude: set[str]) -> None:
    ir = command_to_ir(Command(a="打开", s=scope), RAW)

    assert ir.scope_include == include
    assert ir.scope_exclude == exclude
    assert parse_scope(scope) == (include, exclude)


def test_rooms_are_kept_as_written() -> None:
    ir = command_to_ir(Command(a="打开", s="ＬＩＶＩＮＧ"), RAW)

    assert ir.scope_include == {"ＬＩＶＩＮＧ"}
