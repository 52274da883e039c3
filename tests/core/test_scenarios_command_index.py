"""Seed scenarios of the command-level index (seed 001 命令级索引, seed 003 index reuse, seed 002 §3.4)."""

from __future__ import annotations

import numpy as np

from custom_components.context_retrieval.core import build_vector_searcher
from custom_components.context_retrieval.core import pipeline as pipeline_module
from custom_components.context_retrieval.core.home_index import build_home_index
from custom_components.context_retrieval.core.models import CommandSpec, Device

from .conftest import ON, DistinctEmbedder, cmd
from .conftest import run_commands as run

READ_TEMPERATURE = CommandSpec("main-probe-readTemperature", "读取温度")


def test_results_are_device_command_pairs(home):
    (result,) = run(home, "打开灯", cmd("打开", n="灯", t="Light"))
    devices = {device.id: device for device in home}
    pairs = [(c.entity_id, c.capability_id) for c in result.candidates]
    assert len(pairs) == 5
    assert len(set(pairs)) == len(pairs)
    for device_id, capability_id in pairs:
        assert capability_id == "main-switch-on"
        assert capability_id in {command.id for command in devices[device_id].commands}


def test_brightness_scores_set_level_above_switch_on_on_the_same_device(home):
    index = build_vector_searcher(home)
    scores = index.vectors.document_scores("调亮度")
    vectors = index.vectors
    by_command = {
        vectors.entry_command[entry].id: float(scores[vectors.entry_doc[entry]])
        for entry in vectors.device_entries[index.positions["lamp-1"]]
    }
    assert by_command["main-switchLevel-setLevel"] > by_command["main-switch-on"]


def test_index_is_built_once_for_a_multi_command_utterance(home, monkeypatch):
    builds = []

    def counting_build(devices, spec=None, embedder=None):
        builds.append(len(devices))
        return build_home_index(devices, spec, embedder)

    monkeypatch.setattr(pipeline_module, "build_home_index", counting_build)
    monkeypatch.setattr(pipeline_module, "_CACHE", pipeline_module._IndexCache())
    commands = [cmd("打开", n="窗帘", t="Blind"), cmd("关闭", n="空调", t="AirConditioner"), cmd("关闭")]
    first = run(home, "打开窗帘然后关闭空调再关掉", *commands)
    second = run(home, "打开窗帘然后关闭空调再关掉", *commands)
    assert builds == [len(home)]
    assert [r.candidates[0].entity_id for r in first] == [r.candidates[0].entity_id for r in second]


class ConstantEmbedder:
    """Every text gets the same vector: every command looks like every action."""

    def embed(self, texts):
        matrix = np.zeros((len(texts), 4), dtype=np.float32)
        matrix[:, 0] = 1.0
        return matrix


def test_capability_check_uses_the_injected_similarity():
    # seed 004: a device whose only command is 读取温度 cannot 打开; the similarity decides.
    home = [
        Device(id="lamp-1", name="主灯", room="客厅", category="Light", commands=[ON]),
        Device(id="probe-1", name="探头", room="客厅", category="Sensor", commands=[READ_TEMPERATURE]),
    ]
    text, command = "打开客厅的设备", cmd("打开", s="客厅")
    (local,) = run(home, text, command, index=build_vector_searcher(home))
    assert [c.entity_id for c in local.candidates] == ["lamp-1"]
    (similar,) = run(home, text, command, index=build_vector_searcher(home, embedder=ConstantEmbedder()))
    assert {c.entity_id for c in similar.candidates} == {"lamp-1", "probe-1"}
    (unrelated,) = run(home, text, command, index=build_vector_searcher(home, embedder=DistinctEmbedder()))
    assert unrelated.candidates == []
    assert unrelated.meta["no_capable_device"] is True
