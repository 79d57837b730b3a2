"""Recall on the local store: BM25 candidates from FTS5, scored 0..1 in Python.

BM25 over terms segmented by ``text`` (words, CJK bigrams), restricted inside FTS5 to the
user's global memories and the current project's (an indexed ``scope`` column), then scored in
Python from how much of the query a hit covers, how specific the matched terms are, recency
and a project bonus (see ``_score``).
"""

from __future__ import annotations

import math
import sqlite3
import time

from ovhooks.backend.local.schema import db_error, scope_token
from ovhooks.backend.local.text import fts_or_query, is_cjk, query_terms
from ovhooks.capture.tokens import estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ovhooks.backend.base import JSON
    from ovhooks.backend.local import LocalBackend

# How many BM25 hits per index are rescored in Python, and how many query terms reach FTS5:
# both bound the query time whatever the store size or prompt length.
_CANDIDATES = 40
_MAX_QUERY_TERMS = 10
# A term in more than this share of a large index is a stop word for this corpus.
_COMMON_SHARE = 0.08
_COMMON_MIN_DOCS = 2000
_RECENCY_HALF_LIFE_DAYS = 90.0
_UNSEEN_CJK_PAIR_WEIGHT = 0.15


def _idf(df: int, total: int) -> float:
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def _score(
    query: list[str],
    weights: dict[str, float],
    doc_terms: set[str],
    *,
    bm25: float,
    age_days: float,
    bonus: float,
) -> float:
    """A 0..1 score, comparable to the server's ``(1 + cos) / 2`` range for real hits.

    - coverage: the share of the query's weight the hit contains (a term's weight is its
      IDF relative to the rarest possible, so a match on "the" counts little);
    - evidence: saturating in the matched weight, so two specific matches beat one;
    - BM25 breaks ties between equal coverage (term frequency, shorter entries);
    - recency (half-life 90 days) and ``bonus`` (1 for a memory of this project, 0.5 for a
      user-level memory, 0 for an archive overview) nudge, never dominate.
    An unrelated text never gets here (no FTS hit); one weak word in a long prompt scores
    about 0.5, under the default 0.55 threshold; two specific words score above it.
    """
    total = sum(weights[t] for t in query) or 1.0
    matched = sum(weights[t] for t in query if t in doc_terms)
    coverage = matched / total
    evidence = 1.0 - math.exp(-matched / 1.5)
    strength = -bm25 / (-bm25 + 4.0) if bm25 < 0 else 0.0
    relevance = 0.45 * coverage + 0.45 * evidence + 0.1 * strength
    recency = 0.5 ** (max(0.0, age_days) / _RECENCY_HALF_LIFE_DAYS)
    score = 0.15 + 0.7 * relevance + 0.1 * recency + 0.05 * bonus
    return float(round(min(1.0, score), 4))


class _Hit:
    __slots__ = ("abstract", "category", "kind", "score", "tags", "text", "uri")

    def __init__(
        self,
        kind: str,
        uri: str,
        *,
        category: str,
        text: str,
        abstract: str,
        tags: str,
        score: float,
    ) -> None:
        self.kind = kind
        self.uri = uri
        self.category = category
        self.text = text
        self.abstract = abstract
        self.tags = tags
        self.score = score


def scope_tokens(store: LocalBackend, peer: str) -> list[str]:
    scopes = [scope_token(store.user, "")]
    if peer:
        scopes.append(scope_token(store.user, peer))
    return scopes


def rank_index(
    store: LocalBackend, con: sqlite3.Connection, table: str, query: list[str], peer: str
) -> list[tuple[int, float, dict[str, float]]]:
    """BM25 candidates ``(rowid, bm25, term weights)`` from one index, scoped to ``peer``."""
    vocab = f"{table}_vocab"
    marks = ",".join("?" * len(query))
    df = dict(
        con.execute(f"SELECT term, doc FROM {vocab} WHERE term IN ({marks})", query).fetchall()
    )
    counter = "memories" if table == "memory" else "archives"
    total = con.execute("SELECT value FROM counters WHERE name = ?", (counter,)).fetchone()[0]
    total = max(int(total), 1)
    rarest = _idf(1, total) or 1.0
    # A CJK pair found nowhere in the index is mostly a cut across two words ("件应" in
    # "文件应该"): it says little about the question, so it barely dilutes the coverage.
    weights = {
        t: min(1.0, _idf(df[t], total) / rarest)
        if t in df
        else (_UNSEEN_CJK_PAIR_WEIGHT if is_cjk(t[0]) else 1.0)
        for t in query
    }
    present = sorted((t for t in query if t in df), key=lambda t: df[t])
    if not present:
        return []
    if total >= _COMMON_MIN_DOCS:
        specific = [t for t in present if df[t] <= total * _COMMON_SHARE]
        present = specific or present[:1]
    chosen = present[:_MAX_QUERY_TERMS]
    scopes = " OR ".join(f'"{s}"' for s in scope_tokens(store, peer))
    match = f"scope : ({scopes}) AND terms : ({fts_or_query(chosen)})"
    rows = con.execute(
        f"SELECT rowid, rank FROM {table}_fts WHERE {table}_fts MATCH ? ORDER BY rank LIMIT ?",
        (match, _CANDIDATES),
    ).fetchall()
    return [(int(rowid), float(rank), weights) for rowid, rank in rows]


def search(store: LocalBackend, query: str, peer: str, *, archives: bool) -> list[_Hit]:
    # Concepts are added to documents only: a question about "indentation" finds "tabs",
    # but a prompt that merely says "spaces" does not become a question about indentation.
    terms = query_terms(query)
    if not terms:
        return []
    now = time.time()
    hits: list[_Hit] = []
    con = store.db()
    ranked = rank_index(store, con, "memory", terms, peer)
    if ranked:
        by_id = {rowid: (bm25, w) for rowid, bm25, w in ranked}
        marks = ",".join("?" * len(by_id))
        for mid, uri, peer_of, category, content, abstract, tags, updated, doc in con.execute(
            "SELECT id, uri, peer, category, content, abstract, tags, updated_at, terms"
            f" FROM memories WHERE id IN ({marks}) AND +owner = ?",
            [*by_id, store.user],
        ):
            if peer_of not in ("", peer):
                continue  # a scope-token collision; never show another project's memory
            bm25, weights = by_id[mid]
            score = _score(
                terms,
                weights,
                set(doc.split()),
                bm25=bm25,
                age_days=(now - updated) / 86400.0,
                bonus=1.0 if peer and peer_of == peer else 0.5,
            )
            hits.append(
                _Hit(
                    "memory",
                    uri,
                    category=category,
                    text=content,
                    abstract=abstract,
                    tags=tags,
                    score=score,
                )
            )
    if archives:
        ranked = rank_index(store, con, "archive", terms, peer)
        by_id = {rowid: (bm25, w) for rowid, bm25, w in ranked}
        if by_id:
            marks = ",".join("?" * len(by_id))
            for aid, sid, number, overview, abstract, created, doc in con.execute(
                "SELECT a.id, a.session_id, a.number, a.overview, a.abstract, a.created_at,"
                " a.terms FROM archives a JOIN sessions s ON s.session_id = a.session_id"
                f" WHERE a.id IN ({marks}) AND +s.owner = ? AND +s.peer = ?",
                [*by_id, store.user, peer],
            ):
                bm25, weights = by_id[aid]
                score = _score(
                    terms,
                    weights,
                    set(doc.split()),
                    bm25=bm25,
                    age_days=(now - created) / 86400.0,
                    bonus=0.0,
                )
                hits.append(
                    _Hit(
                        "archive",
                        store.archive_uri(sid, number),
                        category="archive",
                        text=overview,
                        abstract=abstract,
                        tags="",
                        score=score,
                    )
                )
    # Highest score first; the URI breaks ties so the order is stable run to run.
    hits.sort(key=lambda h: (-h.score, h.uri))
    return hits


def search_context(
    store: LocalBackend,
    query: str,
    *,
    session_id: str | None = None,
    score_threshold: float = 0.0,
    max_tokens: int | None = None,
    exclude_uris: Sequence[str] = (),
) -> JSON:
    # session_id is accepted for the protocol; the server uses it for LLM query planning,
    # which a lexical store has no use for.
    started = time.perf_counter()
    try:
        hits = search(store, query, store.peer, archives=True)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    excluded = set(exclude_uris)
    budget = max(64, min(32000, max_tokens)) if max_tokens else 32000
    used = 0
    entries: list[JSON] = []
    rendered: list[str] = []
    for hit in hits:
        if hit.score < score_threshold or hit.uri in excluded:
            continue
        cost = estimate_tokens(hit.text)
        if used + cost > budget:
            continue
        used += cost
        entries.append(
            {
                "uri": hit.uri,
                "category": hit.category,
                "score": hit.score,
                "detail": "full",
                "text": hit.text,
                "abstract": hit.abstract,
                "origin": hit.kind,
            }
        )
        uri_attr = hit.uri.replace("&", "&amp;").replace('"', "&quot;")
        rendered.append(
            f'<memory uri="{uri_attr}" type="{hit.category}" score="{hit.score:.2f}"'
            f' detail="full">{hit.text}</memory>'
        )
        if len(entries) >= 10:
            break
    return {
        "entries": entries,
        "rendered": "\n".join(rendered),
        "stats": {
            "backend": "local",
            "candidates": len(hits),
            "returned": len(entries),
            "used_tokens": used,
            "max_tokens": budget,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    }


def find(
    store: LocalBackend,
    query: str,
    *,
    target_uri: str = "",
    limit: int = 10,
    score_threshold: float | None = None,
) -> JSON:
    target = store.expand(target_uri) if target_uri else ""
    peer = store.peer
    marker = f"{store.user_root}/peers/"
    if target.startswith(marker):
        peer = target[len(marker) :].split("/", 1)[0]
    try:
        hits = search(store, query, peer, archives=False)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    memories: list[JSON] = []
    for hit in hits:
        if score_threshold is not None and hit.score < score_threshold:
            continue
        if target and not (hit.uri == target or hit.uri.startswith(target + "/")):
            continue
        memories.append(
            {
                "context_type": "memory",
                "uri": hit.uri,
                "level": 2,
                "score": hit.score,
                "abstract": hit.abstract,
                "tags": hit.tags,
            }
        )
        if len(memories) >= max(1, limit):
            break
    return {"memories": memories, "resources": [], "skills": [], "total": len(memories)}
