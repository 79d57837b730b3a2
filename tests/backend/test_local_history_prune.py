"""A store written before the history layer left out requests and questions: its old rows
are checked a batch per commit, in the commit's own transaction, and go."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend, sessions
from ovhooks.lexical.text import term_string

OLD_ROWS = (
    "can you add a management command to purge cancelled slots older than 90 days?",
    "please fix the incomplete pattern warnings in Unify.hs",
    "the booking API returns 500 when a provider has no schedule set, can you look?",
    "帮我加一个商品上架的自定义消息",
    "the nightly export is broken again",
)
KEPT = (OLD_ROWS[2], OLD_ROWS[4])


def _old_store(tmp_path: Path) -> LocalBackend:
    """A store with one commit, then history rows as the previous release wrote them and no
    record of any check (that release had none)."""
    store = LocalBackend(str(tmp_path / "data"))
    store.append_messages("s-old", [{"role": "user", "content": "the db runs on port 5433"}])
    store.commit("s-old")
    con = store.db()
    (scope,) = con.execute("SELECT scope FROM archives LIMIT 1").fetchone()
    con.executemany(
        "INSERT INTO history (session_id, archive_no, text, created_at, scope, terms)"
        " VALUES ('s-old', 1, ?, 0, ?, ?)",
        [(text, scope, term_string(text)) for text in OLD_ROWS],
    )
    con.execute("DELETE FROM counters WHERE name = 'history_checked'")
    return store


def _history(store: LocalBackend) -> list[str]:
    return [t for (t,) in store.db().execute("SELECT text FROM history ORDER BY id")]


def _indexed(store: LocalBackend, word: str) -> int:
    (count,) = (
        store.db()
        .execute("SELECT count(*) FROM history_fts WHERE history_fts MATCH ?", (f"terms:{word}",))
        .fetchone()
    )
    return int(count)


def test_a_commit_removes_the_old_requests_and_questions_and_keeps_reports(
    tmp_path: Path,
) -> None:
    store = _old_store(tmp_path)
    try:
        assert _indexed(store, term_string("purge")) == 1
        store.append_messages("s-new", [{"role": "user", "content": "the cache lives in redis 7"}])
        store.commit("s-new")
        assert [t for t in _history(store) if t in OLD_ROWS] == list(KEPT)
        assert _indexed(store, term_string("purge")) == 0
        (count,) = (
            store.db().execute("SELECT value FROM counters WHERE name = 'history'").fetchone()
        )
        assert count == len(_history(store))
        # every row is checked now, this commit's own rows included
        (checked,) = (
            store.db()
            .execute("SELECT value FROM counters WHERE name = 'history_checked'")
            .fetchone()
        )
        (top,) = store.db().execute("SELECT max(id) FROM history").fetchone()
        assert checked == top
    finally:
        store.close()


def test_a_big_backlog_is_checked_a_batch_per_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions, "HISTORY_CHECK_BATCH", 2)
    store = _old_store(tmp_path)
    try:
        store.append_messages("s-1", [{"role": "user", "content": "staging is on k8s 1.29"}])
        store.commit("s-1")
        left = [t for t in _history(store) if t in OLD_ROWS]
        # the first two old rows were checked (both requests: gone); the rest wait
        assert left == list(OLD_ROWS[2:])
        for i in range(2, 5):
            store.append_messages(f"s-{i}", [{"role": "user", "content": f"node {i} is fine"}])
            store.commit(f"s-{i}")
        assert [t for t in _history(store) if t in OLD_ROWS] == list(KEPT)
    finally:
        store.close()
