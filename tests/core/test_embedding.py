"""The local vectorizer: offline, deterministic, Chinese-aware."""

import numpy as np
import pytest

from custom_components.context_retrieval.core.embedding import LocalNgramEmbedder


@pytest.fixture
def embedder():
    return LocalNgramEmbedder()


def cosine(embedder, left, right):
    vectors = embedder.embed([left, right])
    return float(vectors[0] @ vectors[1])


def test_rows_are_unit_length_and_empty_is_zero(embedder):
    vectors = embedder.embed(["打开客厅的灯", "", "turn on"])
    assert vectors.shape == (3, embedder.dimensions)
    assert vectors.dtype == np.float32
    assert np.isclose(np.linalg.norm(vectors[0]), 1.0)
    assert not vectors[1].any()


def test_embedding_is_deterministic(embedder):
    assert np.array_equal(embedder.embed(["设置亮度"]), LocalNgramEmbedder().embed(["设置亮度"]))


def test_action_is_close_to_matching_description(embedder):
    # seed 004: 打开 vs 打开设备 above 0.5; 打开 vs 读取温度 unrelated.
    assert cosine(embedder, "打开", "打开设备") > 0.5
    assert cosine(embedder, "打开", "读取温度") < 0.1


def test_value_descriptions_make_documents_reachable(embedder):
    # seed 001: 空调制冷 reaches 设置空调模式 制冷 制热.
    assert cosine(embedder, "空调制冷", "设置空调模式 制冷 制热") > cosine(embedder, "空调制冷", "电源启用")
