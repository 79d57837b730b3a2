"""The service's index of a local store: the probes' spread is read on the memories, so the
history's comings and goings do not move every decision's unit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from ovhooks.semantic import DIM, MODEL_KEY
from ovhooks.semantic.index import (
    SPREAD_MIN_MEMORIES,
    SPREAD_SCALE,
    StoreIndex,
    spread_basis,
)
from ovhooks.semantic.vectors import TABLE, ensure_table


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return np.asarray(v / np.linalg.norm(v, axis=1, keepdims=True), dtype=np.float32)


def _index(path: Path, memories: np.ndarray, history: np.ndarray) -> StoreIndex:
    con = sqlite3.connect(path)
    ensure_table(con)
    rows = [("m", i, v) for i, v in enumerate(memories)] + [
        ("h", i, v) for i, v in enumerate(history)
    ]
    con.executemany(
        f"INSERT INTO {TABLE} VALUES (?, ?, ?, 'u', 'p', 1.0, ?)",
        [(MODEL_KEY, kind, rid, v.astype(np.float16).tobytes()) for kind, rid, v in rows],
    )
    con.commit()
    con.close()
    index = StoreIndex(str(path))
    index.reload()
    return index


def test_the_spread_is_the_memories_whatever_the_history_holds(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    probes = _unit(rng, 6)
    memories = _unit(rng, 12)
    # history rows close to the probes (questions and tasks resemble everyday prompts)
    chatty = probes[rng.integers(0, 6, size=30)] + 0.3 * _unit(rng, 30)
    chatty /= np.linalg.norm(chatty, axis=1, keepdims=True)
    quiet = _index(tmp_path / "quiet.db", memories, _unit(rng, 3))
    loud = _index(tmp_path / "loud.db", memories, chatty)
    _levels, spread_quiet = quiet.probe_levels(probes)
    levels, spread_loud = loud.probe_levels(probes)
    expected = SPREAD_SCALE * float(
        (probes @ memories.astype(np.float16).astype(np.float32).T).std()
    )
    assert abs(spread_quiet - expected) < 1e-5 and abs(spread_loud - expected) < 1e-5
    # every row keeps its own level, history rows too
    assert levels.shape == (12 + 30,)
    # reading the spread on every row would have moved it
    everything = float((probes @ loud.matrix.T).std()) * SPREAD_SCALE
    assert abs(everything - expected) > 0.1 * expected


def test_a_store_with_few_memories_reads_the_spread_on_every_row() -> None:
    few = np.array(["m"] * (SPREAD_MIN_MEMORIES - 1) + ["h"] * 5)
    enough = np.array(["m"] * SPREAD_MIN_MEMORIES + ["h"] * 5)
    assert spread_basis(few).all()
    assert spread_basis(enough).tolist() == [True] * SPREAD_MIN_MEMORIES + [False] * 5
