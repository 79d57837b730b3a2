"""The service's side of the local store: vectors kept with the rows, and the search over them.

Vectors live in the store's own SQLite file (table ``semantic_vectors``), one per memory and
per history statement and model, as float16 (1 kB a row), stamped with the row's
``updated_at`` so a rewritten memory is embedded again. Rows without a current vector are
*pending*; the service embeds them in small batches between queries, so a store written
before this release is filled in the background and resumes where it stopped.

In memory the service keeps the store's vectors as one matrix: float32 up to
``FLOAT_ROWS`` rows, int8 with a per-row scale beyond (100,000 rows: 51 MB instead of 205),
searched by brute force in chunks; the int8 candidates are then rescored from the float16
vectors on disk.
"""

from __future__ import annotations

import sqlite3
import threading

import numpy as np

from ovhooks.semantic import DIM, MODEL_KEY
from ovhooks.semantic.vectors import PENDING, TABLE, connect, ensure_table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.semantic.model import Embedder

FLOAT_ROWS = 50_000
_CHUNK = 8192
_RESCORE = 64
BATCH = 16


def embed_pending(
    con: sqlite3.Connection, encode: object, limit: int = BATCH, model: str = MODEL_KEY
) -> int:
    """Embed up to ``limit`` rows pending for ``model`` in one transaction; how many."""
    for kind, sql in PENDING.items():
        rows = con.execute(f"{sql} LIMIT ?", (model, limit)).fetchall()
        if not rows:
            continue
        vectors = encode([str(text) for _id, text, _o, _p, _s in rows])  # type: ignore[operator]
        blobs = np.asarray(vectors, dtype=np.float16)
        con.execute("BEGIN IMMEDIATE")
        try:
            kept = con.execute(
                f"SELECT length(vec) FROM {TABLE} WHERE model = ? LIMIT 1", (model,)
            ).fetchone()
            if kept is not None and kept[0] != 2 * blobs.shape[1]:
                # The endpoint's model changed behind the same name (another dimension): the
                # old vectors compare with nothing it makes; every row is embedded again.
                con.execute(f"DELETE FROM {TABLE} WHERE model = ?", (model,))
            con.executemany(
                f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (model, kind, int(rid), owner, peer, float(stamp), vec.tobytes())
                    for (rid, _t, owner, peer, stamp), vec in zip(rows, blobs, strict=True)
                ],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return len(rows)
    return 0


# Probe cosines of the memories spread less than those of a store's every row (questions and
# tasks in the history resembled the probes unevenly): scaled so that the decisions keep the
# unit they were tuned in, on the stores they were tuned on (issue 12's and batch 3's: 1.10-1.15).
SPREAD_SCALE = 1.13
# Fewer memories than this: the spread is read on every row.
SPREAD_MIN_MEMORIES = 8


def spread_basis(kinds: np.ndarray) -> np.ndarray:
    """Which rows the probes' spread is read on: the memories ('m'), or every row while
    there are fewer than ``SPREAD_MIN_MEMORIES`` of them."""
    memories = np.asarray(kinds == "m", dtype=bool)
    return memories if int(memories.sum()) >= SPREAD_MIN_MEMORIES else np.ones_like(memories)


class StoreIndex:
    """One store's vectors in memory, reloaded when another connection changed the file."""

    def __init__(self, path: str, model: str = MODEL_KEY) -> None:
        self.path = path
        # Whose vectors are loaded: set by the service to the model that serves this store
        # (a change is loaded on the next refresh).
        self.model = model
        self.con = connect(path)
        self.version: int | None = None
        # Vectors this service wrote since the last load (its own writes leave
        # ``data_version`` alone), and when it last loaded.
        self.stale = False
        self.loaded_at = 0.0
        self.kinds = np.zeros(0, dtype="U1")
        self.ids = np.zeros(0, dtype=np.int64)
        self.owners = np.zeros(0, dtype=np.int32)
        self.peers = np.zeros(0, dtype=np.int32)
        self.names: dict[str, int] = {}
        self.matrix = np.zeros((0, DIM), dtype=np.float32)
        self.scales: np.ndarray | None = None
        # Per prompt script: each row's level against unrelated probes, and their spread.
        self.calibration: dict[str, tuple[np.ndarray, float]] = {}

    @property
    def rows(self) -> int:
        return int(self.ids.shape[0])

    def changed(self) -> bool:
        (version,) = self.con.execute("PRAGMA data_version").fetchone()
        fresh = bool(int(version) != self.version)
        self.version = int(version)
        return fresh

    def reload(self) -> None:
        """Read this model's vectors into memory, row by row (100,000 blobs fetched at once
        would hold 120 MB of Python objects at the peak, and the heap keeps it)."""
        import time

        self.stale = False
        self.loaded_at = time.monotonic()
        ensure_table(self.con)
        (count,) = self.con.execute(
            f"SELECT count(*) FROM {TABLE} WHERE model = ?", (self.model,)
        ).fetchone()
        first = self.con.execute(
            f"SELECT length(vec) FROM {TABLE} WHERE model = ? LIMIT 1", (self.model,)
        ).fetchone()
        dim = int(first[0]) // 2 if first else DIM  # float16: two bytes a dimension
        kinds = np.empty(count, dtype="U1")
        ids = np.empty(count, dtype=np.int64)
        owners = np.empty(count, dtype=np.int32)
        peers = np.empty(count, dtype=np.int32)
        small = count <= FLOAT_ROWS
        matrix = np.empty((count, dim), dtype=np.float32 if small else np.int8)
        scales = None if small else np.empty(count, dtype=np.float32)
        names: dict[str, int] = {}
        cursor = self.con.execute(
            f"SELECT kind, row_id, owner, peer, vec FROM {TABLE} WHERE model = ?", (self.model,)
        )
        filled = 0
        for kind, rid, owner, peer, blob in cursor:
            if filled >= count:
                break  # rows added since the count: the next reload takes them
            if len(blob) != 2 * dim:
                continue  # another model under the same name (embed_pending replaces them)
            kinds[filled] = kind
            ids[filled] = rid
            owners[filled] = names.setdefault(owner, len(names))
            peers[filled] = names.setdefault(peer, len(names))
            vec = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
            if scales is None:
                matrix[filled] = vec
            else:
                top = float(np.abs(vec).max()) or 1.0
                scales[filled] = top / 127.0
                matrix[filled] = np.round(vec * (127.0 / top)).astype(np.int8)
            filled += 1
        self.kinds, self.ids = kinds[:filled], ids[:filled]
        self.owners, self.peers = owners[:filled], peers[:filled]
        self.names, self.matrix = names, matrix[:filled]
        self.scales = None if scales is None else scales[:filled]

    def similarities(self, queries: np.ndarray) -> np.ndarray:
        """Cosine of every stored row against each query row: shape (queries, rows)."""
        if self.scales is None:
            return np.asarray(queries @ self.matrix.T, dtype=np.float32)
        out = np.empty((queries.shape[0], self.rows), dtype=np.float32)
        for start in range(0, self.rows, _CHUNK):
            block = self.matrix[start : start + _CHUNK].astype(np.float32)
            out[:, start : start + _CHUNK] = queries @ block.T
        out *= self.scales[None, :]
        return out

    def mask(self, owner: str, peers: list[str]) -> np.ndarray:
        code = self.names.get(owner)
        if code is None:
            return np.zeros(self.rows, dtype=bool)
        allowed = [self.names[p] for p in peers if p in self.names]
        return np.asarray((self.owners == code) & np.isin(self.peers, allowed), dtype=bool)

    def exact(self, positions: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """Cosines of a few rows from their float16 vectors on disk (int8 rescoring)."""
        out = np.empty((queries.shape[0], positions.shape[0]), dtype=np.float32)
        for j, pos in enumerate(positions):
            row = self.con.execute(
                f"SELECT vec FROM {TABLE} WHERE model = ? AND kind = ? AND row_id = ?",
                (self.model, str(self.kinds[pos]), int(self.ids[pos])),
            ).fetchone()
            vec = np.frombuffer(row[0], dtype=np.float16).astype(np.float32) if row else None
            out[:, j] = queries @ vec if vec is not None else -1.0
        return out

    def nearest(
        self,
        queries: np.ndarray,
        owner: str,
        peers: list[str],
        k: int,
        *,
        levels: np.ndarray,
        spread: float,
        charge: float,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(positions, strengths)``: the ``k`` rows in scope with the highest strength, and
        each one's strength per query (shape (queries, k)). A row's strength for a query is
        its cosine above that row's own level against unrelated probes (``levels``), in
        units of ``spread``; the clause queries (all rows after the first) pay ``charge``."""
        if self.rows == 0:
            return np.zeros(0, dtype=np.int64), np.zeros((queries.shape[0], 0), np.float32)
        strengths = self._strengths(self.similarities(queries), levels, spread, charge)
        best = strengths.max(axis=0)
        best[~self.mask(owner, peers)] = -np.inf
        wanted = min(self.rows, _RESCORE if self.scales is not None else k)
        top = np.argpartition(-best, wanted - 1)[:wanted]
        top = top[np.isfinite(best[top])]
        if self.scales is not None:
            exact = self.exact(top, queries)
            chosen = self._strengths(exact, levels[top], spread, charge)
        else:
            chosen = strengths[:, top]
        order = np.argsort(-chosen.max(axis=0), kind="stable")[:k]
        return top[order], chosen[:, order]

    @staticmethod
    def _strengths(
        sims: np.ndarray, levels: np.ndarray, spread: float, charge: float
    ) -> np.ndarray:
        out = (sims - levels[None, :]) / spread
        out[1:] -= charge
        return np.asarray(out, dtype=np.float32)

    def probe_levels(self, probes: np.ndarray) -> tuple[np.ndarray, float]:
        """Each row's mean cosine with the probes, and the spread of those cosines: what
        "unrelated" looks like for that row (a row that resembles everything gains nothing,
        and a prompt in another language than the row starts from that pair's own level).

        The spread is read on the memories (``spread_basis``): history rows come and go with
        how the user talks, and a unit that moved with them would move every decision."""
        if self.rows == 0:
            return np.zeros(0, dtype=np.float32), 1.0
        sims = self.similarities(probes)
        basis = sims[:, spread_basis(self.kinds)]
        return np.asarray(sims.mean(axis=0), dtype=np.float32), SPREAD_SCALE * float(basis.std())


class RemoteBatch(threading.Thread):
    """One batch of a store's pending rows embedded by the user's model, on its own
    connection (the loop's stays free for prompts); the loop reads ``done`` or ``error``."""

    def __init__(self, path: str, encoder: Embedder) -> None:
        super().__init__(daemon=True)
        self.path, self.encoder = path, encoder
        self.done = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            con = connect(self.path)
            try:
                self.done = embed_pending(con, self.encoder.encode_docs, model=self.encoder.key)
            finally:
                con.close()
        except BaseException as exc:  # read by the loop: logged once there, retried later
            self.error = exc
