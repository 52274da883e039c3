import json
import random

import pytest

from custom_components.context_retrieval.core.models import UNKNOWN_COMMAND, Command, Quantifier
from custom_components.context_retrieval.core.parsing import parse_commands
from custom_components.context_retrieval.core.parsing.wire import MAX_COMMANDS, MAX_RAW_CHARS

LIGHT = '{"a":"打开","s":"客厅","n":"主灯","t":"Light","q":"one"}'
LIGHT_COMMAND = Command(a="打开", s="客厅", n="主灯", t="Light", q=Quantifier.ONE)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(f"[{LIGHT}]", [LIGHT_COMMAND], id="plain"),
        pytest.param(f"```json\n[{LIGHT}]\n```", [LIGHT_COMMAND], id="json-fence"),
        pytest.param(f"```\n[{LIGHT}]\n```", [LIGHT_COMMAND], id="bare-fence"),
        pytest.param(f"好的，解析结果如下：\n[{LIGHT}]\n以上。", [LIGHT_COMMAND], id="prose-around"),
        pytest.param(f"规则见[1]：[{LIGHT}]", [LIGHT_COMMAND], id="bracket-in-prose"),
        pytest.param(f"  [ {LIGHT} ]  ", [LIGHT_COMMAND], id="whitespace"),
        pytest.param(
            '[{"a":"打开","s":"客厅","n":"主灯","t":"Light","q":"one","why":"x","conf":0.9}]',
            [LIGHT_COMMAND],
            id="unknown-keys-ignored",
        ),
        pytest.param('[{"a":"关闭"}]', [Command(a="关闭")], id="defaults"),
        pytest.param(
            '[{"a":"关闭","n":"灯","q":"except","x":["落地灯"," 台灯 ",""]}]',
            [Command(a="关闭", n="灯", q=Quantifier.EXCEPT, x=("落地灯", "台灯"))],
            id="left-out-names",
        ),
        pytest.param(
            '[{"a":"关闭","n":"灯","q":"except","x":"落地灯"}]',
            [Command(a="关闭", n="灯", q=Quantifier.EXCEPT, x=("落地灯",))],
            id="one-left-out-name",
        ),
        pytest.param('[{"a":" ","n":"老伙计"}]', [Command(a="", n="老伙计")], id="empty-action-kept"),
        pytest.param(
            '[{"a":"关闭","s":"","n":" ","t":null,"q":null,"c":null}]',
            [Command(a="关闭")],
            id="empty-and-null",
        ),
        pytest.param(
            '[{"a":" 打开 ","s":" 客厅 ","n":"主灯","t":"Light","q":"ALL"}]',
            [Command(a="打开", s="客厅", n="主灯", t="Light", q=Quantifier.ALL)],
            id="stripped-and-case",
        ),
        pytest.param(
            '[{"a":"打开","n":"灯","t":"Light","q":"any","c":2}]',
            [Command(a="打开", n="灯", t="Light", q=Quantifier.ANY, c=2)],
            id="count",
        ),
        pytest.param(
            '[{"a":"UNKNOWN","s":"*","n":"*","t":"Unknown","q":"one"}]', [UNKNOWN_COMMAND], id="model-unknown"
        ),
        pytest.param(
            '[{"a":"打开","s":"客厅","n":"灯","t":"Light","q":"all"},'
            '{"a":"设置温度=26C","s":"*","n":"空调","t":"AirConditioner","q":"one"}]',
            [
                Command(a="打开", s="客厅", n="灯", t="Light", q=Quantifier.ALL),
                Command(a="设置温度=26C", n="空调", t="AirConditioner"),
            ],
            id="order-kept",
        ),
        pytest.param(
            '{"commands":[{"a":"静音","n":"电视","t":"Television","q":"all"}]}',
            [Command(a="静音", n="电视", t="Television", q=Quantifier.ALL)],
            id="array-inside-wrapper",
        ),
    ],
)
def test_valid_answers(raw: str, expected: list[Command]) -> None:
    outcome = parse_commands(raw)

    assert outcome.commands == expected
    assert not outcome.degraded
    assert outcome.errors == []


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("", id="empty-text"),
        pytest.param("打开客厅的灯", id="prose-only"),
        pytest.param('[{"a":"打开","s":"客厅"', id="truncated-object"),
        pytest.param(f"[{LIGHT},", id="truncated-array"),
        pytest.param(LIGHT, id="object-not-array"),
        pytest.param("[]", id="empty-array"),
        pytest.param("```json\n[]\n```", id="fenced-empty-array"),
        pytest.param("[1]", id="number-element"),
        pytest.param('["打开-客厅-主灯"]', id="string-element"),
        pytest.param(f"[{LIGHT}, 1]", id="one-bad-element"),
        pytest.param(f'[{LIGHT}, {{"a":"打开","q":"many"}}]', id="one-bad-quantifier"),
        pytest.param('[{"s":"客厅"}]', id="missing-action"),
        pytest.param('[{"a":null}]', id="null-action"),
        pytest.param('[{"a":1}]', id="action-int"),
        pytest.param('[{"a":"打开","s":["客厅"]}]', id="scope-list"),
        pytest.param('[{"a":"打开","n":5}]', id="name-int"),
        pytest.param('[{"a":"打开","t":{"x":1}}]', id="type-object"),
        pytest.param('[{"a":"打开","q":"some"}]', id="quantifier-unknown"),
        pytest.param('[{"a":"打开","q":1}]', id="quantifier-int"),
        pytest.param('[{"a":"打开","c":"2"}]', id="count-string"),
        pytest.param('[{"a":"打开","c":true}]', id="count-bool"),
        pytest.param('[{"a":"打开","c":0}]', id="count-zero"),
        pytest.param('[{"a":"打开","c":-1}]', id="count-negative"),
        pytest.param('[{"a":"打开","c":2.5}]', id="count-float"),
        pytest.param("[" * 5000, id="deep-nesting"),
        pytest.param("[" * 5000 + "]" * 5000, id="deep-nesting-closed"),
        pytest.param("[" + ",".join([LIGHT] * (MAX_COMMANDS + 1)) + "]", id="too-many-commands"),
        pytest.param("[" + LIGHT + "]" + " " * MAX_RAW_CHARS, id="too-long"),
    ],
)
def test_invalid_answers_degrade_to_unknown(raw: str) -> None:
    outcome = parse_commands(raw)

    assert outcome.commands == [UNKNOWN_COMMAND]
    assert outcome.degraded
    assert outcome.errors


def test_non_text_answer_degrades() -> None:
    outcome = parse_commands(None)  # type: ignore[arg-type]

    assert outcome.degraded
    assert outcome.commands == [UNKNOWN_COMMAND]


def test_gold_arrays_round_trip(parse_cases: list[dict]) -> None:
    for case in parse_cases:
        raw = json.dumps(case["gold_commands"], ensure_ascii=False)

        outcome = parse_commands(raw)

        assert not outcome.degraded, case["text"]
        assert [command.to_dict() for command in outcome.commands] == case["gold_commands"]


def test_random_text_never_raises() -> None:
    rng = random.Random(20240601)  # noqa: S311 - reproducible fuzz, not cryptography
    alphabet = '[]{}",:0123456789 \n`abcqstn打开灯客厅*!-.truefalsenull'
    pieces = ['{"a":', '"q":"one"', '"c":', "[", "]", "{", "}", ",", "```json", LIGHT]
    for _ in range(2000):
        if rng.random() < 0.5:
            raw = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        else:
            raw = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))

        outcome = parse_commands(raw)

        assert outcome.commands
        assert all(isinstance(command, Command) for command in outcome.commands)
        assert outcome.degraded == (outcome.commands == [UNKNOWN_COMMAND] and bool(outcome.errors))
