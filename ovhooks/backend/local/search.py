"""Recall on the local store: FTS5 finds candidates, ``evidence`` decides what they are worth.

Two indexes answer: memories (what commits promoted and what was written) and the history
layer (what the user said that no memory holds, one statement per row under its archive).
Both are restricted inside FTS5 to the user's global rows and the current project's (an
indexed ``scope`` column). Only the query's most specific terms reach FTS5 (at most ten),
and only the best 40 hits per index are scored, so the time stays bounded whatever the store
size or prompt length. A history hit shows the statement itself under its archive's URI.
"""

from __future__ import annotations

import _sqlite3 as sqlite3  # not the sqlite3 package: see schema.py
import time

from ovhooks.backend.local.hits import Hit
from ovhooks.backend.local.schema import db_error, scope_token
from ovhooks.capture.tokens import estimate_tokens
from ovhooks.lexical.evidence import evidence, query_names, score, term_weights
from ovhooks.lexical.text import fts_or_query, query_terms, terms
from ovhooks.settings.readback import text as stored_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ovhooks.backend.base import JSON
    from ovhooks.backend.local.store import LocalStore

_CANDIDATES = 40
_MAX_QUERY_TERMS = 10
# Entries a context search returns: the best lexical ones within the token budget; or, rated
# by meaning, every candidate the decision weighs: FTS5's hits (up to ``_CANDIDATES`` memories
# and as many archives) and the service's rows (``semantic_recall.SEARCH_K``, twice at most).
MAX_ENTRIES = 10
MAX_RATED = 128
# What the user said but no commit promoted is weaker evidence than a memory: it may have
# been a passing remark. It needs this much more to pass.
_HISTORY_PENALTY = 0.25


def scope_tokens(store: LocalStore, peer: str) -> list[str]:
    scopes = [scope_token(store.user, "")]
    if peer:
        scopes.append(scope_token(store.user, peer))
    return scopes


def _statistics(
    con: sqlite3.Connection, query: list[str], history: bool
) -> tuple[dict[str, int], int]:
    """Document frequencies of the query's terms and the number of rows, over both indexes
    (one vocabulary: a term common in what was said is common, promoted or not)."""
    marks = ",".join("?" * len(query))
    df: dict[str, int] = {}
    tables = ("memory", "history") if history else ("memory",)
    for table in tables:
        for term, doc in con.execute(
            f"SELECT term, doc FROM {table}_vocab WHERE term IN ({marks})", query
        ):
            df[term] = df.get(term, 0) + int(doc)
    names = ("memories", "history") if history else ("memories",)
    total = sum(
        int(value)
        for (value,) in con.execute(
            f"SELECT value FROM counters WHERE name IN ({','.join('?' * len(names))})", names
        )
    )
    return df, max(total, 1)


def _matches(
    store: LocalStore,
    con: sqlite3.Connection,
    table: str,
    chosen: list[str],
    peer: str,
    only: dict[str, list[int]] | None = None,
) -> list[int]:
    """Row ids of the best BM25 hits of ``chosen`` in one index, scoped to ``peer`` (or the
    rows ``only`` names: the semantic service's candidates, rated here like the rest)."""
    if only is not None:
        return list(only.get(table, ()))
    if not chosen:
        return []
    scopes = " OR ".join(f'"{s}"' for s in scope_tokens(store, peer))
    match = f"scope : ({scopes}) AND terms : ({fts_or_query(chosen)})"
    rows = con.execute(
        f"SELECT rowid FROM {table}_fts WHERE {table}_fts MATCH ? ORDER BY rank LIMIT ?",
        (match, _CANDIDATES),
    ).fetchall()
    return [int(rowid) for (rowid,) in rows]


class QueryTerms:
    """What a query brings to every candidate it rates, computed once per prompt: its terms,
    the glossary's translations, the names it writes, and each term's weight in the store."""

    __slots__ = ("chosen", "found", "named", "order", "translated", "weights")

    def __init__(self, store: LocalStore, query: str, history: bool) -> None:
        # Concepts are added to documents only: a question about "indentation" finds "tabs",
        # but a prompt that merely says "spaces" does not become a question about indentation.
        from ovhooks.lexical.glossary import expand

        found = query_terms(query)
        self.order = terms(query)
        self.translated = expand(query, found)
        self.named = query_names(query)
        self.found = found + self.translated
        con = store.db()
        df, total = _statistics(con, self.found, history) if self.found else ({}, 1)
        present = [t for t in self.found if t in df]
        self.weights = term_weights(self.found, df, total)
        # The most specific terms reach FTS5; equal weights keep the prompt's order.
        self.chosen = sorted(present, key=lambda t: -self.weights[t])[:_MAX_QUERY_TERMS]


def search(
    store: LocalStore,
    query: str,
    peer: str,
    *,
    archives: bool,
    only: dict[str, list[int]] | None = None,
    prepared: QueryTerms | None = None,
) -> list[Hit]:
    """Hits for ``query``: FTS5's best matches, or the rows ``only`` names (by index).
    ``prepared``: the query's terms and weights when an earlier search of this prompt made
    them (the rows only the embedding service found are rated with the same weights)."""
    q = prepared if prepared is not None else QueryTerms(store, query, archives)
    if not q.chosen and only is None:
        return []
    found, order, weights, translated, named = q.found, q.order, q.weights, q.translated, q.named
    chosen = q.chosen
    now = time.time()
    con = store.db()
    hits: list[Hit] = []

    def rate(
        doc: str, content: str, age_days: float, bonus: float, penalty: float
    ) -> tuple[float, bool]:
        """The score, and whether the text shares any term with the query at all."""
        units, share = evidence(found, order, weights, doc.split(), content, translated, named)
        return score(units - penalty, share, age_days=age_days, bonus=bonus), units > 0.0

    ids = _matches(store, con, "memory", chosen, peer, only)
    if ids:
        marks = ",".join("?" * len(ids))
        for rid, uri, peer_of, category, stored, abstract, tags, updated, doc in con.execute(
            "SELECT id, uri, peer, category, content, abstract, tags, updated_at, terms"
            f" FROM memories WHERE id IN ({marks}) AND +owner = ?",
            [*ids, store.user],
        ):
            if peer_of not in ("", peer):
                continue  # a scope-token collision; never show another project's memory
            bonus = 1.0 if peer and peer_of == peer else 0.5
            # A row another tool wrote (a BLOB for the text, a string for the time) is rated
            # and shown like any other, not a TypeError that fails recall for the prompt.
            content = stored_text(stored)
            value, shared = rate(doc, content, _age_days(now, updated), bonus, 0.0)
            hits.append(
                Hit(
                    "memory",
                    uri,
                    category=stored_text(category),
                    text=content,
                    abstract=stored_text(abstract),
                    tags=stored_text(tags),
                    score=value,
                    rid=int(rid),
                    shared=shared,
                )
            )
    if archives:
        hits.extend(_history_hits(store, con, chosen, peer, rate, now, only))
    # Highest score first; the URI breaks ties so the order is stable run to run.
    hits.sort(key=lambda h: (-h.score, h.uri))
    return hits


def _history_hits(
    store: LocalStore,
    con: sqlite3.Connection,
    chosen: list[str],
    peer: str,
    rate: Callable[[str, str, float, float, float], tuple[float, bool]],
    now: float,
    only: dict[str, list[int]] | None = None,
) -> list[Hit]:
    """The best statement of each archive that matches: what the user said that no memory
    holds, shown under its archive's URI."""
    ids = _matches(store, con, "history", chosen, peer, only)
    if not ids:
        return []
    best: dict[str, Hit] = {}
    marks = ",".join("?" * len(ids))
    # ``+s.peer``: the history of this project's sessions only (and the user's own
    # sessions outside any project), as the scope token already chose.
    for rid, sid, number, stored, created, doc in con.execute(
        "SELECT h.id, h.session_id, h.archive_no, h.text, h.created_at, h.terms"
        " FROM history h JOIN sessions s ON s.session_id = h.session_id"
        f" WHERE h.id IN ({marks}) AND +s.owner = ? AND s.peer IN ('', ?)"
        " ORDER BY h.id",
        [*ids, store.user, peer],
    ):
        text = stored_text(stored)
        value, shared = rate(doc, text, _age_days(now, created), 0.0, _HISTORY_PENALTY)
        uri = store.archive_uri(sid, number)
        kept = best.get(uri)
        # One statement per archive: the best, the earlier one on a tie.
        if kept is None or value > kept.score:
            best[uri] = Hit(
                "archive",
                uri,
                category="archive",
                text=text,
                abstract=text,
                tags="",
                score=value,
                rid=int(rid),
                shared=shared,
            )
    return list(best.values())


def _age_days(now: float, stored: object) -> float:
    """Days since ``stored``; 0 (new) for a time that is not a number."""
    return (now - stored) / 86400.0 if isinstance(stored, int | float) else 0.0


def _searcher() -> Callable[..., list[Hit]]:
    """``search`` for one prompt's fused recall: the query's terms and weights are made by
    the first call and rated with again for the rows only the embedding service found, so
    every candidate of a prompt is weighed in one vocabulary (both indexes)."""
    made: list[QueryTerms] = []

    def run(
        store: LocalStore,
        query: str,
        peer: str,
        *,
        archives: bool,
        only: dict[str, list[int]] | None = None,
    ) -> list[Hit]:
        if not made:
            made.append(QueryTerms(store, query, True))
        return search(store, query, peer, archives=archives, only=only, prepared=made[0])

    return run


def search_context(
    store: LocalStore,
    query: str,
    *,
    session_id: str | None = None,
    score_threshold: float = 0.0,
    max_tokens: int | None = None,
    exclude_uris: Sequence[str] = (),
    prompt: str | None = None,
) -> JSON:
    """Lexical hits, each rated by meaning too when the store has a ``semantic`` link and the
    embedding service answers in time (``semantic_recall``).

    Rated hits come back with their ``evidence`` and undecided, below the threshold too:
    recall's decision (``recall.decision``) judges them together, so none is rendered as
    context. Without an answer the lexical score is all there is, and ``score_threshold``
    and the token budget apply here as on a server."""
    # session_id is accepted for the protocol; the server uses it for LLM query planning,
    # which a lexical store has no use for.
    started = time.perf_counter()
    try:
        if store.semantic is not None and prompt:
            from ovhooks.backend.local.semantic_recall import fused_search

            hits, semantic_state = fused_search(store, query, prompt, _searcher())
        else:
            hits, semantic_state = search(store, query, store.peer, archives=True), "off"
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    rated = semantic_state == "fused"
    excluded = set(exclude_uris)
    budget = max(64, min(32000, max_tokens)) if max_tokens else 32000
    used = 0
    entries: list[JSON] = []
    rendered: list[str] = []
    for hit in hits:
        if hit.uri in excluded:
            continue
        if not rated:
            # Decided here, lexically: the threshold and the budget apply, and the entry is
            # context too. Rated entries are candidates only (recall decides on them).
            if hit.score < score_threshold:
                continue
            cost = estimate_tokens(hit.text)
            if used + cost > budget:
                continue
            used += cost
            uri_attr = hit.uri.replace("&", "&amp;").replace('"', "&quot;")
            rendered.append(
                f'<memory uri="{uri_attr}" type="{hit.category}" score="{hit.score:.2f}"'
                f' detail="full">{hit.text}</memory>'
            )
        entries.append(
            {
                "uri": hit.uri,
                "category": hit.category,
                "score": hit.score,
                "detail": "full",
                "text": hit.text,
                "abstract": hit.abstract,
                "origin": hit.kind,
                **({"evidence": hit.evidence.as_dict()} if hit.evidence else {}),
            }
        )
        if len(entries) >= (MAX_RATED if rated else MAX_ENTRIES):
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
            "semantic": semantic_state,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    }


def find(
    store: LocalStore,
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
