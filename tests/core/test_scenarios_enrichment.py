"""Seed scenarios of document enrichment (seed 001 文档富化/同义词归一化, seed 000 decision 3)."""

from __future__ import annotations

import logging

from custom_components.context_retrieval.core import (
    ConversationState,
    Device,
    LocalNgramEmbedder,
    build_vector_searcher,
    load_spec,
    retrieve,
)

from .conftest import FakeLLM, cmd

PROFILE = {
    "profileId": "ac-profile",
    "capabilities": [
        {"id": "main-switch-on", "description": "电源启用"},
        {
            "id": "main-airConditionerMode-setAirConditionerMode",
            "description": "设置空调模式",
            "type": "string",
            "value_list": [
                {"value": "cooling", "description": "制冷"},
                {"value": "heating", "description": "制热"},
            ],
        },
    ],
    "conditions": [{"id": "main-temperatureMeasurement-temperature", "description": "环境屏天气模式"}],
}


class RecordingEmbedder:
    """The local embedder, keeping every text it was asked to embed."""

    def __init__(self):
        self.inner = LocalNgramEmbedder()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_each_profile_command_gets_its_own_enriched_document():
    spec = load_spec([PROFILE])
    device = Device(id="ac-9", name="空调", room="客厅", category="AirConditioner", profile_id="ac-profile")
    embedder = RecordingEmbedder()
    index = build_vector_searcher([device], spec=spec, embedder=embedder)
    assert [c.id if c else None for c in index.vectors.entry_command] == [
        "main-switch-on",
        "main-airConditionerMode-setAirConditionerMode",
        "main-temperatureMeasurement-temperature",
    ]
    assert embedder.texts == [
        "电源启用 打开 开 开启 启动 on",
        "设置空调模式 制冷 制热",
        "环境屏天气模式",
    ]
    for text in embedder.texts:
        assert "AirConditioner" not in text
        assert "main-" not in text


def test_device_without_spec_profile_is_indexed_by_name_and_room_with_a_warning(caplog):
    spec = load_spec([PROFILE])
    device = Device(id="fan-9", name="老伙计", room="客厅", category="Fan", profile_id="missing-profile")
    embedder = RecordingEmbedder()
    with caplog.at_level(logging.WARNING):
        index = build_vector_searcher([device], spec=spec, embedder=embedder)
    assert "no command spec" in caplog.text
    assert embedder.texts == ["老伙计 客厅"]
    assert index.vectors.entry_command == [None]


def test_value_word_in_the_raw_query_recalls_the_mode_command(home):
    # seed 001: user says 空调制冷; the document 设置空调模式 制冷 制热 carries 制冷.
    (result,) = retrieve("空调制冷", home, FakeLLM({"空调制冷": [cmd("")]}), ConversationState())
    assert result.meta["vector_query"] == "空调制冷"
    assert result.candidates[0].entity_id == "ac-1"
    assert result.candidates[0].capability_id == "main-airConditionerMode-setAirConditionerMode"
