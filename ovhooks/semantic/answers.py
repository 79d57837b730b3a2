"""What the service answers: a prompt's nearest rows in a local store (``search``), the
strength of given texts against a prompt (``score``, for an OpenViking server's candidates),
and what it is doing (``ping``). The encoder and the stores are the service's; the arithmetic
is here."""

from __future__ import annotations

import os

import numpy as np

from ovhooks.lexical.text import script_of
from ovhooks.semantic import MODEL_KEY
from ovhooks.semantic.clauses import clauses, extra_max
from ovhooks.semantic.index import StoreIndex
from ovhooks.semantic.model import PROBES
from ovhooks.semantic.vectors import count_pending, drop_orphans, ensure_table, has_store_tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.semantic.model import Embedder as Encoder

MAX_HITS = 32
# The spread of probe scores never counts as less than this (cosine units): a few probes
# that happen to agree must not turn noise-sized differences into strong evidence.
COSINE_SPREAD_FLOOR = 0.02
MAX_DOCS = 64


class Stores:
    """The local stores this service has been asked about, each loaded once."""

    def __init__(self) -> None:
        self.open: dict[str, StoreIndex] = {}
        # Rows still waiting for a vector: of every kept model (``pending``, what ``status``
        # shows), and per model (``counts``, keyed by path and model).
        self.pending: dict[str, int] = {}
        self.counts: dict[tuple[str, str], int] = {}
        self.versions: dict[str, int] = {}

    def get(self, path: str) -> StoreIndex | None:
        path = os.path.abspath(path)
        index = self.open.get(path)
        if index is None:
            if not os.path.isfile(path):
                return None
            index = StoreIndex(path)
            if not has_store_tables(index.con):
                index.con.close()
                return None
            self.open[path] = index
            self.pending[path] = -1
        return index


def calibrate(index: StoreIndex, probe_vectors: np.ndarray) -> None:
    """Per script of the prompt, each row's level against that script's unrelated probes."""
    scripts = np.array([script_of(p) for p in PROBES])
    index.calibration = {}
    for script in ("en", "zh"):
        chosen = probe_vectors[scripts == script]
        if chosen.shape[0]:
            levels, spread = index.probe_levels(chosen)
            index.calibration[script] = (levels, max(spread, COSINE_SPREAD_FLOOR))


# Vectors the service embedded itself are loaded once a backfill is done, or this often
# while it goes on (a reload reads every vector: ~1-2 s at 100,000 rows).
STALE_RELOAD_S = 30.0


def refresh(index: StoreIndex, probe_vectors: np.ndarray, *, pending: int = 0) -> None:
    """Reload when another connection wrote, or when this service's own new vectors are
    due (``pending`` rows of the store still wait)."""
    import time

    changed = index.changed()
    due = index.stale and (pending == 0 or time.monotonic() - index.loaded_at > STALE_RELOAD_S)
    if changed or due:
        ensure_table(index.con)  # a search may come before the indexer made it
        drop_orphans(index.con)
        index.reload()
        calibrate(index, probe_vectors)
        _give_back_memory()


def _give_back_memory() -> None:
    """Return the heap freed by a reload to the system (glibc keeps it otherwise): the
    service's resident size is bounded (300 MiB at 100,000 rows)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def search(
    request: dict[str, Any], encoder: Encoder, stores: Stores, probe_vectors: np.ndarray
) -> dict[str, Any]:
    """The prompt's strongest rows in scope, each with its strength above the probes."""
    index = stores.get(str(request.get("db") or ""))
    if index is None:
        return {"ok": False, "error": "no_store"}
    if index.version is None:
        refresh(index, probe_vectors)  # first use; later changes are picked up between requests
    if index.rows == 0:
        return {"ok": False, "error": "empty"}
    prompt = str(request.get("text") or "")
    levels, spread = index.calibration[script_of(prompt)]
    parts = clauses(prompt)
    vectors = encoder.encode([prompt, *parts])
    peers = [str(p) for p in request.get("peers") or [""]]
    k = max(1, min(MAX_HITS, int(request.get("k") or 16)))
    charge = extra_max(len(parts) + 1) if parts else 0.0
    positions, strengths = index.nearest(
        vectors,
        str(request.get("owner") or ""),
        peers,
        k,
        levels=levels,
        spread=spread,
        charge=charge,
    )
    hits: list[dict[str, Any]] = []
    for j, pos in enumerate(positions):
        whole = float(strengths[0, j])
        part = float(strengths[1:, j].max()) if parts else whole
        hits.append(
            {
                "kind": str(index.kinds[pos]),
                "id": int(index.ids[pos]),
                "cos": round(whole * spread + float(levels[pos]), 4),
                "level": round(float(levels[pos]), 4),
                "strength": round(max(whole, part), 3),
                "via": "clause" if part > whole else "whole",
            }
        )
    hits.sort(key=lambda h: (-h["strength"], h["kind"], h["id"]))
    return {
        "ok": True,
        "hits": hits,
        "spread": round(spread, 4),
        "clauses": len(parts),
        "rows": index.rows,
    }


class DocVectors:
    """The vectors of texts a server sent as candidates, kept for the next prompts: the
    same memories come back again and again, and encoding 25 of them costs 20-40 ms of a
    hook's 80 ms deadline. Bounded: least recently used first out (``CACHED_DOCS`` vectors
    of 2 kB, keyed by a 16-byte digest of the text)."""

    def __init__(self, limit: int) -> None:
        from collections import OrderedDict

        self.limit = limit
        self.vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def encode(self, encoder: Encoder, docs: list[str]) -> np.ndarray:
        from hashlib import blake2b

        keys = [blake2b(d.encode(), digest_size=16).digest() for d in docs]
        missing = [i for i, k in enumerate(keys) if k not in self.vectors]
        if missing:
            fresh = encoder.encode_docs([docs[i] for i in missing])
            for row, i in enumerate(missing):
                self.vectors[keys[i]] = fresh[row]
        for k in keys:
            self.vectors.move_to_end(k)
        out = np.stack([self.vectors[k] for k in keys])
        while len(self.vectors) > self.limit:
            self.vectors.popitem(last=False)
        return out


CACHED_DOCS = 4096


def score(
    request: dict[str, Any],
    encoder: Encoder,
    probe_vectors: np.ndarray,
    cache: DocVectors | None = None,
) -> dict[str, Any]:
    """Strengths of the given texts (a server's candidates) for the prompt.

    No store to calibrate against: each text is read against the probes' similarity to that
    same text (a text that resembles everything gains nothing), in units of the spread of
    all probe similarities of the prompt's script."""
    prompt = str(request.get("text") or "")
    docs = [str(d) for d in (request.get("docs") or [])][:MAX_DOCS]
    if not docs:
        return {"ok": True, "strengths": [], "cos": []}
    parts = clauses(prompt)
    queries = encoder.encode([prompt, *parts])
    doc_vectors = cache.encode(encoder, docs) if cache is not None else encoder.encode_docs(docs)
    cos = queries @ doc_vectors.T
    script = script_of(prompt)
    same = [i for i, p in enumerate(PROBES) if script_of(p) == script]
    probe_cos = probe_vectors[same] @ doc_vectors.T
    level = probe_cos.mean(axis=0)
    scale = max(float(probe_cos.std()), COSINE_SPREAD_FLOOR)
    charge = extra_max(len(parts) + 1) if parts else 0.0
    strengths: list[float] = []
    for j in range(len(docs)):
        z_whole = (float(cos[0, j]) - float(level[j])) / scale
        z_part = (float(cos[1:, j].max()) - float(level[j])) / scale - charge if parts else -9.0
        strengths.append(round(max(z_whole, z_part), 3))
    return {"ok": True, "strengths": strengths, "cos": [round(float(c), 4) for c in cos[0]]}


def store_summary(stores: Stores) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, index in stores.open.items():
        by_model = {key: n for (where, key), n in stores.counts.items() if where == path}
        out[path] = {
            "rows": index.rows,
            "pending": stores.pending.get(path, -1),
            "model": index.model,
            "pending_by_model": by_model,
        }
    return out


def update_pending(
    stores: Stores, *, force: bool = False, models: tuple[str, ...] = (MODEL_KEY,)
) -> int:
    """Pending rows of every store for each of ``models``, counted again only where another
    connection wrote since the last count (a count joins every row with its vector: ~1 s at
    100,000 rows, and the service answers nothing meanwhile) or a model has no count yet.
    Our own inserts do not change ``data_version``; the indexer subtracts what it embedded."""
    total = 0
    for path, index in stores.open.items():
        (version,) = index.con.execute("PRAGMA data_version").fetchone()
        stale = force or stores.pending.get(path, -1) < 0 or stores.versions.get(path) != version
        if stale or any((path, model) not in stores.counts for model in models):
            for model in models:
                stores.counts[(path, model)] = count_pending(index.con, model)
            stores.versions[path] = int(version)
        stores.pending[path] = sum(stores.counts[(path, model)] for model in models)
        total += max(0, stores.pending[path])
    return total


def rss_mib() -> float:
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            pages = int(fh.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 1048576, 1)
    except (OSError, ValueError, IndexError):
        import resource

        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
