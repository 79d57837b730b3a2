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


def test_a_model_that_changed_its_dimension_is_embedded_again(tmp_path: Path) -> None:
    """An endpoint's model replaced behind the same name answers in another dimension: its
    old vectors are dropped as the first new batch lands, and a reload skips rows of a
    dimension it is not reading (one such row left every search empty for good)."""
    from ovhooks.backend.local import LocalBackend
    from ovhooks.semantic.index import embed_pending

    store = LocalBackend(str(tmp_path), user="default")
    for n in range(3):
        store.write(f"{store.memories_root}/preferences/default/m{n}.md", f"fact number {n}")
    store.close()
    db = next(tmp_path.glob("*.db"))
    con = sqlite3.connect(db, isolation_level=None)
    ensure_table(con)
    model = "ext:openai:m"

    def encoder(dim: int) -> object:
        return lambda texts: np.ones((len(texts), dim), dtype=np.float32) / np.sqrt(dim)

    def lengths() -> list[int]:
        sql = f"SELECT length(vec) FROM {TABLE} WHERE model = ?"
        return [int(n) for (n,) in con.execute(sql, (model,))]

    assert embed_pending(con, encoder(8), limit=2, model=model) == 2
    assert lengths() == [16, 16]
    assert embed_pending(con, encoder(4), limit=1, model=model) == 1
    assert lengths() == [8]  # the old rows went: they are pending again
    con.execute(
        f"INSERT INTO {TABLE} SELECT model, kind, row_id + 100, owner, peer, stamp,"
        f" zeroblob(16) FROM {TABLE}"
    )
    con.close()
    index = StoreIndex(str(db))
    index.model = model
    index.reload()
    assert index.rows == 1 and index.matrix.shape == (1, 4)
