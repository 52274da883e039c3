"""The engine-only command-line demo (demo/engine.py) on the bundled demo home, offline."""

from __future__ import annotations

import yaml

from custom_components.context_retrieval.core.injection import CONTEXT_HEADER
from demo import engine as demo


def test_demo_runs_a_conversation_offline(monkeypatch, capsys):
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    assert demo.main(["打开客厅的灯", "把它关掉"]) == 0
    output = capsys.readouterr().out
    first, second = output.split("== ")[1:]
    assert "parse: offline" in first
    assert "客厅/主灯" in first
    assert CONTEXT_HEADER in first
    assert "main-switch-off" in second
    assert "last_mentioned" in second
    context = first[first.index(CONTEXT_HEADER) :]
    assert {d["room"] for d in yaml.safe_load(context)["devices"]} == {"客厅"}


def test_demo_without_arguments_runs_the_samples(monkeypatch, capsys):
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    assert demo.main([]) == 0
    output = capsys.readouterr().out
    assert output.count("== ") == len(demo.SAMPLE_UTTERANCES)
