"""The service's cache of server candidates' vectors (``answers.DocVectors``): what comes back
is what the encoder gives, each text is encoded once while it stays cached, and the cache is
bounded."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovhooks.semantic.answers import DocVectors, score


class CountingEncoder:
    """A deterministic stand-in: a text's vector is a function of its bytes."""

    key = "counting"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += texts
        rows = []
        for text in texts:
            rng = np.random.default_rng(sum(text.encode()) + len(text))
            v = rng.standard_normal(512).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, 512), dtype=np.float32)

    def encode_docs(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)


def test_vectors_are_the_encoders_and_each_text_is_encoded_once() -> None:
    encoder = CountingEncoder()
    cache = DocVectors(limit=10)
    docs = ["alpha", "beta", "gamma"]
    first = cache.encode(encoder, docs)
    assert np.array_equal(first, CountingEncoder().encode(docs))
    assert encoder.encoded == docs
    again = cache.encode(encoder, ["gamma", "delta", "alpha"])
    assert encoder.encoded == [*docs, "delta"]
    assert np.array_equal(again, CountingEncoder().encode(["gamma", "delta", "alpha"]))


def test_the_cache_keeps_the_recently_used_and_stays_bounded() -> None:
    encoder = CountingEncoder()
    cache = DocVectors(limit=3)
    cache.encode(encoder, ["a", "b", "c"])
    cache.encode(encoder, ["a"])  # "a" is now the most recent
    cache.encode(encoder, ["d"])  # evicts "b", the least recent
    assert len(cache.vectors) == 3
    encoder.encoded.clear()
    cache.encode(encoder, ["a", "c", "d", "b"])
    assert encoder.encoded == ["b"]
    assert len(cache.vectors) == 3


def test_scores_are_the_same_with_and_without_the_cache() -> None:
    probes = CountingEncoder().encode([f"probe {i}" for i in range(28)])
    request: dict[str, Any] = {"text": "which editor", "docs": ["helix editor", "postgres 16"]}
    plain = score(request, CountingEncoder(), probes)
    cache = DocVectors(limit=8)
    cached = [score(request, CountingEncoder(), probes, cache) for _ in range(2)]
    assert cached[0] == plain and cached[1] == plain
