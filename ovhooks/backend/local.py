"""The embedded local store: the Backend protocol on one SQLite file, no server needed.

Layout: ``<data_dir>/memory.db`` (sessions, messages, archives, memories and two FTS5 indexes)
and ``<data_dir>/profile.md`` (the user profile, a file the user may edit by hand). Answers
have the OpenViking 0.5.2 shapes (``shared/spec/openviking-api.md`` §A), and memory URIs follow
the server's layout, so recall, commands and a later export need not know which store ran:

- ``viking://user/<user>/memories/{preferences,entities,events}/…``  user-level memories
- ``viking://user/<user>/peers/<peer>/memories/…``                  project-level memories
- ``viking://user/<user>/memories/profile.md``                      the profile file
- ``viking://user/<user>/sessions/<id>/history/archive_NNN``        commit archives

Durability: WAL journal with ``synchronous=FULL`` (a returned append survives a crash of the
process or the machine), ``busy_timeout`` for concurrent hooks, one ``BEGIN IMMEDIATE``
transaction per write call, so ``kill -9`` at any point leaves either all of a call or none.

Recall: BM25 over terms segmented by ``local_text`` (words, CJK bigrams), restricted inside
FTS5 to the user's global memories and the current project's (an indexed ``scope`` column),
then scored 0..1 in Python from how much of the query a hit covers, how specific the matched
terms are, recency and a project bonus (see ``_score``).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time

from ovhooks.backend.errors import BackendError
from ovhooks.backend.local_text import (
    fts_or_query,
    is_cjk,
    query_terms,
    term_string,
)
from ovhooks.capture.tokens import estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON
    from ovhooks.backend.local_extract import Candidate

SCHEMA_VERSION = 1
DB_NAME = "memory.db"
PROFILE_NAME = "profile.md"
MAX_BATCH = 100
MEMORY_CATEGORIES = ("preferences", "entities", "events")

# How many BM25 hits per index are rescored in Python, and how many query terms reach FTS5:
# both bound the query time whatever the store size or prompt length.
_CANDIDATES = 40
_MAX_QUERY_TERMS = 10
# A term in more than this share of a large index is a stop word for this corpus.
_COMMON_SHARE = 0.08
_COMMON_MIN_DOCS = 2000
_RECENCY_HALF_LIFE_DAYS = 90.0
_DEDUP_OVERLAP = 0.75
_UNSEEN_CJK_PAIR_WEIGHT = 0.15

_FTS_TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '_'"

_SCHEMA = (
    """CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        peer TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        next_seq INTEGER NOT NULL DEFAULT 0,
        commit_count INTEGER NOT NULL DEFAULT 0,
        last_commit_at REAL,
        memories_extracted INTEGER NOT NULL DEFAULT 0
    )""",
    # archive_no is NULL while a message is live (pending), the archive number once committed.
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        parts TEXT NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        archive_no INTEGER,
        UNIQUE (session_id, seq)
    )""",
    "CREATE INDEX messages_by_archive ON messages (session_id, archive_no, seq)",
    """CREATE TABLE archives (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        overview TEXT NOT NULL,
        abstract TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        created_at REAL NOT NULL,
        scope TEXT NOT NULL,
        terms TEXT NOT NULL,
        UNIQUE (session_id, number)
    )""",
    """CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        uri TEXT NOT NULL UNIQUE,
        owner TEXT NOT NULL,
        peer TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL,
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        abstract TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '',
        norm TEXT NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        scope TEXT NOT NULL,
        terms TEXT NOT NULL
    )""",
    "CREATE INDEX memories_by_norm ON memories (owner, norm)",
    # External-content FTS5 tables: the text lives once, in memories/archives.terms.
    f"""CREATE VIRTUAL TABLE memory_fts USING fts5(
        scope, terms, content='memories', content_rowid='id', tokenize="{_FTS_TOKENIZER}")""",
    f"""CREATE VIRTUAL TABLE archive_fts USING fts5(
        scope, terms, content='archives', content_rowid='id', tokenize="{_FTS_TOKENIZER}")""",
    "CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row')",
    "CREATE VIRTUAL TABLE archive_vocab USING fts5vocab(archive_fts, 'row')",
    # The scope column only filters; it must not weigh in BM25.
    "INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', 'bm25(0.0, 1.0)')",
    "INSERT INTO archive_fts (archive_fts, rank) VALUES ('rank', 'bm25(0.0, 1.0)')",
    """CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memory_fts (rowid, scope, terms) VALUES (new.id, new.scope, new.terms);
    END""",
    """CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, scope, terms)
            VALUES ('delete', old.id, old.scope, old.terms);
    END""",
    """CREATE TRIGGER memories_au AFTER UPDATE OF scope, terms ON memories BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, scope, terms)
            VALUES ('delete', old.id, old.scope, old.terms);
        INSERT INTO memory_fts (rowid, scope, terms) VALUES (new.id, new.scope, new.terms);
    END""",
    """CREATE TRIGGER archives_ai AFTER INSERT ON archives BEGIN
        INSERT INTO archive_fts (rowid, scope, terms) VALUES (new.id, new.scope, new.terms);
    END""",
    """CREATE TRIGGER archives_ad AFTER DELETE ON archives BEGIN
        INSERT INTO archive_fts (archive_fts, rowid, scope, terms)
            VALUES ('delete', old.id, old.scope, old.terms);
    END""",
    # Row counts for IDF without a COUNT(*) scan on every query.
    "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "INSERT INTO counters VALUES ('memories', 0), ('archives', 0)",
    """CREATE TRIGGER memories_count_ai AFTER INSERT ON memories BEGIN
        UPDATE counters SET value = value + 1 WHERE name = 'memories';
    END""",
    """CREATE TRIGGER memories_count_ad AFTER DELETE ON memories BEGIN
        UPDATE counters SET value = value - 1 WHERE name = 'memories';
    END""",
    """CREATE TRIGGER archives_count_ai AFTER INSERT ON archives BEGIN
        UPDATE counters SET value = value + 1 WHERE name = 'archives';
    END""",
    """CREATE TRIGGER archives_count_ad AFTER DELETE ON archives BEGIN
        UPDATE counters SET value = value - 1 WHERE name = 'archives';
    END""",
)


# --- small pure helpers -------------------------------------------------------------------


def _not_found(what: str) -> BackendError:
    return BackendError("http", what, 404, "NOT_FOUND")


def _invalid(what: str, code: str = "INVALID_ARGUMENT") -> BackendError:
    return BackendError("http", what, 400, code)


def _db_error(exc: Exception) -> BackendError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return BackendError("timeout", f"local store busy: {text}")
    return BackendError("unreachable", f"local store failed: {text}")


def iso_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def scope_token(owner: str, peer: str) -> str:
    """The FTS5 token that scopes a row to a user (``peer`` empty) or a user's project.

    A CRC is enough: the SQL around the match re-checks owner and peer exactly.
    """
    import zlib

    digest = zlib.crc32(f"{owner}\0{peer}".encode()) & 0xFFFFFFFF
    return f"zscope{digest:08x}{'p' if peer else 'g'}"


def first_line(text: str, limit: int = 200) -> str:
    """The first non-empty line without Markdown heading or bullet marks: an abstract."""
    for raw in text.splitlines():
        line = raw.strip().lstrip("#").strip()
        if line.startswith(("- ", "* ")):
            line = line[2:].strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


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


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (or ``ROLLBACK`` on any exception)."""

    __slots__ = ("con",)

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def __enter__(self) -> sqlite3.Connection:
        self.con.execute("BEGIN IMMEDIATE")
        return self.con

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            try:
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        # SQLite may already have rolled back (disk full, I/O error): then there is nothing
        # to undo, and a second error must not hide the first.
        if self.con.in_transaction:
            try:
                self.con.execute("ROLLBACK")
            except sqlite3.Error:
                pass


# --- the backend --------------------------------------------------------------------------


class LocalBackend:
    """The Backend protocol on ``<data_dir>/memory.db``; ``peer`` is the project peer id."""

    name = "local"

    def __init__(self, data_dir: str, *, user: str = "default", peer: str = "") -> None:
        self.data_dir = data_dir
        self.user = user or "default"
        self.peer = peer
        self.db_path = os.path.join(data_dir, DB_NAME)
        self.profile_path = os.path.join(data_dir, PROFILE_NAME)
        self._con: sqlite3.Connection | None = None

    # --- URIs -----------------------------------------------------------------------------
    @property
    def user_root(self) -> str:
        return f"viking://user/{self.user}"

    @property
    def memories_root(self) -> str:
        return f"{self.user_root}/memories"

    @property
    def profile_uri(self) -> str:
        return f"{self.memories_root}/profile.md"

    def memory_root_for(self, peer: str) -> str:
        return f"{self.user_root}/peers/{peer}/memories" if peer else self.memories_root

    def archive_uri(self, session_id: str, number: int) -> str:
        return f"{self.user_root}/sessions/{session_id}/history/archive_{number:03d}"

    def _expand(self, uri: str) -> str:
        uri = uri.strip()
        if uri.startswith("viking://~"):
            uri = self.user_root + uri[len("viking://~") :]
        return uri.rstrip("/") if uri != "viking://" else uri

    # --- connection -----------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._con is not None:
            return self._con
        try:
            from ovhooks.fsutil import ensure_dir, private_file

            # The database and its -wal/-shm (SQLite gives those the database's mode) hold
            # conversations and memories: 0600 in a 0700 directory, whatever the umask.
            ensure_dir(self.data_dir)
            for path in (self.db_path, self.db_path + "-wal", self.db_path + "-shm"):
                if path == self.db_path or os.path.exists(path):
                    private_file(path)
            con = sqlite3.connect(self.db_path, timeout=5.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise BackendError("unreachable", f"cannot open {self.db_path}: {exc}") from None
        try:
            con.execute("PRAGMA busy_timeout = 5000")
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = FULL")
            if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                self._create_schema(con)
        except sqlite3.Error as exc:
            con.close()
            raise _db_error(exc) from None
        self._con = con
        return con

    @staticmethod
    def _create_schema(con: sqlite3.Connection) -> None:
        with _Transaction(con):
            # Another process may have created it while this one waited for the lock.
            if con.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
                return
            for statement in _SCHEMA:
                con.execute(statement)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    # --- sessions -------------------------------------------------------------------------
    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> JSON:
        from ovhooks.backend.local_extract import message_parts, parts_text

        if not session_id:
            raise _invalid("session id is empty")
        if len(messages) > MAX_BATCH:
            raise _invalid(f"at most {MAX_BATCH} messages per batch, got {len(messages)}")
        rows = []
        now = time.time()
        for message in messages:
            parts = message_parts(message)
            role = message.get("role")
            if not isinstance(role, str) or not role or not parts:
                raise _invalid("each message needs a role and content or parts")
            meta = {k: v for k, v in message.items() if k not in ("role", "parts", "content")}
            created = message.get("created_at")
            created_at = created if isinstance(created, str) and created else iso_time(now)
            tokens = estimate_tokens(parts_text(parts))
            rows.append((role, json.dumps(parts, ensure_ascii=False), meta, created_at, tokens))
        try:
            with _Transaction(self._db()) as con:
                self._ensure_session(con, session_id, now)
                next_seq = con.execute(
                    "SELECT next_seq FROM sessions WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
                con.executemany(
                    "INSERT INTO messages (session_id, seq, role, parts, meta, created_at, tokens)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            session_id,
                            next_seq + i,
                            role,
                            parts_json,
                            json.dumps(meta, ensure_ascii=False, default=str),
                            created_at,
                            tokens,
                        )
                        for i, (role, parts_json, meta, created_at, tokens) in enumerate(rows)
                    ],
                )
                con.execute(
                    "UPDATE sessions SET next_seq = ?, updated_at = ? WHERE session_id = ?",
                    (next_seq + len(rows), now, session_id),
                )
                count, pending = self._live_totals(con, session_id)
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return {
            "session_id": session_id,
            "message_count": count,
            "added": len(rows),
            "pending_tokens": pending,
        }

    def _ensure_session(self, con: sqlite3.Connection, session_id: str, now: float) -> None:
        con.execute(
            "INSERT OR IGNORE INTO sessions (session_id, owner, peer, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (session_id, self.user, self.peer, now, now),
        )

    @staticmethod
    def _live_totals(con: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        count, pending = con.execute(
            "SELECT count(*), coalesce(sum(tokens), 0) FROM messages"
            " WHERE session_id = ? AND archive_no IS NULL",
            (session_id,),
        ).fetchone()
        return int(count), int(pending)

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> JSON:
        try:
            with _Transaction(self._db()) as con:
                return self._commit(con, session_id, max(0, keep_recent_count))
        except sqlite3.Error as exc:
            raise _db_error(exc) from None

    def _commit(self, con: sqlite3.Connection, session_id: str, keep_recent: int) -> JSON:
        from ovhooks.backend.local_extract import build_overview, memory_candidates, prose

        session = con.execute(
            "SELECT peer, commit_count FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        if session is None:
            raise _not_found(f"Session {session_id} not found")
        peer, commit_count = session
        live = con.execute(
            "SELECT seq, role, parts, meta, created_at FROM messages"
            " WHERE session_id = ? AND archive_no IS NULL ORDER BY seq",
            (session_id,),
        ).fetchall()
        to_archive = live[: len(live) - keep_recent] if keep_recent else live
        if not to_archive:
            return {
                "session_id": session_id,
                "status": "skipped",
                "task_id": None,
                "archive_uri": None,
                "archived": False,
                "reason": "no_messages",
            }
        now = time.time()
        number = commit_count + 1
        con.execute(
            "UPDATE messages SET archive_no = ?"
            " WHERE session_id = ? AND archive_no IS NULL AND seq <= ?",
            (number, session_id, to_archive[-1][0]),
        )
        messages = [
            {"role": role, "parts": json.loads(parts), **json.loads(meta)}
            for _seq, role, parts, meta, _created in to_archive
        ]
        overview = build_overview(messages, f"Session {session_id}, archive {number:03d}")
        con.execute(
            "INSERT INTO archives (session_id, number, overview, abstract, message_count,"
            " created_at, scope, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                number,
                overview.text,
                overview.abstract,
                len(to_archive),
                now,
                scope_token(self.user, peer),
                term_string(overview.text),
            ),
        )
        user_texts = []
        for message in messages:
            if message["role"] != "user":
                continue
            texts = [p.get("text") for p in message["parts"] if p.get("type") == "text"]
            user_texts.append(prose("\n".join(t for t in texts if isinstance(t, str))))
        extracted = {"total": 0, "preferences": 0, "entities": 0, "events": 0, "merged": 0}
        for candidate in memory_candidates(user_texts):
            outcome = self._promote(con, candidate, peer, session_id, now)
            if outcome == "added":
                extracted["total"] += 1
                extracted[candidate.category] += 1
            elif outcome == "merged":
                extracted["merged"] += 1
        con.execute(
            "UPDATE sessions SET commit_count = ?, last_commit_at = ?, updated_at = ?,"
            " memories_extracted = memories_extracted + ? WHERE session_id = ?",
            (number, now, now, extracted["total"], session_id),
        )
        return {
            "session_id": session_id,
            "status": "accepted",
            "task_id": f"local-{os.urandom(8).hex()}",
            "archive_uri": self.archive_uri(session_id, number),
            "archived": True,
            "memories_extracted": extracted,
        }

    def _promote(
        self, con: sqlite3.Connection, candidate: Candidate, peer: str, session_id: str, now: float
    ) -> str:
        """Store one candidate: ``added``, ``merged`` (near-duplicate updated) or ``duplicate``."""
        from ovhooks.backend.local_text import normalise

        peer = peer if candidate.project else ""
        norm = normalise(candidate.text)
        if not norm:
            return "duplicate"
        same = con.execute(
            "SELECT id FROM memories WHERE owner = ? AND norm = ?", (self.user, norm)
        ).fetchone()
        if same is not None:
            con.execute("UPDATE memories SET updated_at = ? WHERE id = ?", (now, same[0]))
            return "duplicate"
        terms = term_string(candidate.text)
        near = self._near_duplicate(con, terms, peer)
        if near is not None:
            self._update_memory(con, near, candidate.text, now)
            return "merged"
        uri = self._new_memory_uri(con, candidate, peer, norm, now)
        self._insert_memory(
            con,
            uri=uri,
            peer=peer,
            category=candidate.category,
            content=candidate.text,
            tags=f"memory_type={candidate.category},source=commit,session={session_id}",
            source=session_id,
            now=now,
        )
        return "added"

    def _near_duplicate(self, con: sqlite3.Connection, terms: str, peer: str) -> int | None:
        """The id of a memory in the same scope sharing most terms with ``terms``, if any."""
        mine = set(terms.split())
        if not mine:
            return None
        scope = scope_token(self.user, peer)
        chosen = list(mine)[:_MAX_QUERY_TERMS]
        rows = con.execute(
            "SELECT m.id, m.terms FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid"
            " WHERE memory_fts MATCH ? AND +m.owner = ? AND +m.peer = ? ORDER BY rank LIMIT 5",
            (f'scope : "{scope}" AND terms : ({fts_or_query(chosen)})', self.user, peer),
        ).fetchall()
        for memory_id, other_terms in rows:
            theirs = set(other_terms.split())
            if not theirs:
                continue
            shared = len(mine & theirs)
            jaccard = shared / len(mine | theirs)
            # Same statement, or one restating the other with a few more words. Word order is
            # lost here, so "tabs over spaces" vs "spaces over tabs for YAML" must not pass:
            # containment needs nearly every term of the smaller one.
            contained = shared / min(len(mine), len(theirs))
            if jaccard >= _DEDUP_OVERLAP or (contained >= 0.9 and jaccard >= 0.5):
                return int(memory_id)
        return None

    def _new_memory_uri(
        self, con: sqlite3.Connection, candidate: Candidate, peer: str, norm: str, now: float
    ) -> str:
        import zlib

        words = norm.split()
        slug = "-".join(words)[:48].strip("-") or "memory"
        slug = f"{slug}-{zlib.crc32(norm.encode()) & 0xFFFFFFFF:08x}"
        root = self.memory_root_for(peer)
        if candidate.category == "preferences":
            folder = f"preferences/{self.user}"
        elif candidate.category == "events":
            folder = "events/" + time.strftime("%Y/%m/%d", time.gmtime(now))
        else:
            folder = f"entities/{candidate.subject or 'facts'}"
        uri = f"{root}/{folder}/{slug}.md"
        n = 1
        while con.execute("SELECT 1 FROM memories WHERE uri = ?", (uri,)).fetchone():
            n += 1
            uri = f"{root}/{folder}/{slug}-{n}.md"
        return uri

    def _insert_memory(
        self,
        con: sqlite3.Connection,
        *,
        uri: str,
        peer: str,
        category: str,
        content: str,
        tags: str,
        source: str,
        now: float,
    ) -> None:
        from ovhooks.backend.local_text import normalise

        con.execute(
            "INSERT INTO memories (uri, owner, peer, category, title, content, abstract, tags,"
            " norm, source, created_at, updated_at, scope, terms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                uri,
                self.user,
                peer,
                category,
                first_line(content, 80),
                content,
                first_line(content),
                tags,
                normalise(content),
                source,
                now,
                now,
                scope_token(self.user, peer),
                term_string(content),
            ),
        )

    @staticmethod
    def _update_memory(con: sqlite3.Connection, memory_id: int, content: str, now: float) -> None:
        from ovhooks.backend.local_text import normalise

        con.execute(
            "UPDATE memories SET content = ?, title = ?, abstract = ?, norm = ?, terms = ?,"
            " updated_at = ? WHERE id = ?",
            (
                content,
                first_line(content, 80),
                first_line(content),
                normalise(content),
                term_string(content),
                now,
                memory_id,
            ),
        )

    def session_info(self, session_id: str) -> JSON:
        try:
            con = self._db()
            row = con.execute(
                "SELECT created_at, updated_at, commit_count, last_commit_at,"
                " memories_extracted, next_seq FROM sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            if row is None:
                raise _not_found(f"Session {session_id} not found")
            count, pending = self._live_totals(con, session_id)
            last_message = con.execute(
                "SELECT max(created_at) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        created, updated, commits, last_commit, extracted, total = row
        return {
            "session_id": session_id,
            "uri": f"{self.user_root}/sessions/{session_id}",
            "message_count": count,
            "total_message_count": int(total),
            "commit_count": int(commits),
            "memories_extracted": {"total": int(extracted)},
            "last_commit_at": iso_time(last_commit) if last_commit else None,
            "pending_tokens": pending,
            "last_message_at": last_message,
            "created_at": iso_time(created),
            "updated_at": iso_time(updated),
            "user": {"account_id": "local", "user_id": self.user},
        }

    def session_context(self, session_id: str, token_budget: int) -> JSON:
        try:
            con = self._db()
            if not con.execute(
                "SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone():
                raise _not_found(f"Session {session_id} not found")
            latest = con.execute(
                "SELECT overview FROM archives WHERE session_id = ? ORDER BY number DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            total_archives = con.execute(
                "SELECT count(*) FROM archives WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            live = con.execute(
                "SELECT id, role, parts, created_at, tokens FROM messages"
                " WHERE session_id = ? AND archive_no IS NULL ORDER BY seq DESC",
                (session_id,),
            ).fetchall()
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        overview = latest[0] if latest else ""
        archive_tokens = estimate_tokens(overview)
        budget = max(0, token_budget - archive_tokens)
        kept: list[JSON] = []
        active_tokens = 0
        # Newest first until the budget is spent, then back to chronological order.
        for msg_id, role, parts, created_at, tokens in live:
            if active_tokens + tokens > budget:
                break
            active_tokens += tokens
            kept.append(
                {
                    "id": f"msg_{msg_id}",
                    "role": role,
                    "parts": json.loads(parts),
                    "created_at": created_at,
                }
            )
        kept.reverse()
        return {
            "latest_archive_overview": overview,
            "pre_archive_abstracts": [],
            "messages": kept,
            "estimatedTokens": archive_tokens + active_tokens,
            "stats": {
                "totalArchives": int(total_archives),
                "includedArchives": 1 if overview else 0,
                "droppedArchives": max(0, int(total_archives) - (1 if overview else 0)),
                "failedArchives": 0,
                "activeTokens": active_tokens,
                "archiveTokens": archive_tokens,
            },
        }

    # --- retrieval ------------------------------------------------------------------------
    def _scopes(self, peer: str) -> list[str]:
        scopes = [scope_token(self.user, "")]
        if peer:
            scopes.append(scope_token(self.user, peer))
        return scopes

    def _rank(
        self, con: sqlite3.Connection, table: str, query: list[str], peer: str
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
        scopes = " OR ".join(f'"{s}"' for s in self._scopes(peer))
        match = f"scope : ({scopes}) AND terms : ({fts_or_query(chosen)})"
        rows = con.execute(
            f"SELECT rowid, rank FROM {table}_fts WHERE {table}_fts MATCH ? ORDER BY rank LIMIT ?",
            (match, _CANDIDATES),
        ).fetchall()
        return [(int(rowid), float(rank), weights) for rowid, rank in rows]

    # In the queries below, ``+owner`` keeps SQLite from answering ``owner = ?`` with the
    # (owner, norm) index, a scan of every memory: the rows are already chosen by rowid.
    def _search(self, query: str, peer: str, *, archives: bool) -> list[_Hit]:
        # Concepts are added to documents only: a question about "indentation" finds "tabs",
        # but a prompt that merely says "spaces" does not become a question about indentation.
        terms = query_terms(query)
        if not terms:
            return []
        now = time.time()
        hits: list[_Hit] = []
        con = self._db()
        ranked = self._rank(con, "memory", terms, peer)
        if ranked:
            by_id = {rowid: (bm25, w) for rowid, bm25, w in ranked}
            marks = ",".join("?" * len(by_id))
            for mid, uri, peer_of, category, content, abstract, tags, updated, doc in con.execute(
                "SELECT id, uri, peer, category, content, abstract, tags, updated_at, terms"
                f" FROM memories WHERE id IN ({marks}) AND +owner = ?",
                [*by_id, self.user],
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
            ranked = self._rank(con, "archive", terms, peer)
            by_id = {rowid: (bm25, w) for rowid, bm25, w in ranked}
            if by_id:
                marks = ",".join("?" * len(by_id))
                for aid, sid, number, overview, abstract, created, doc in con.execute(
                    "SELECT a.id, a.session_id, a.number, a.overview, a.abstract, a.created_at,"
                    " a.terms FROM archives a JOIN sessions s ON s.session_id = a.session_id"
                    f" WHERE a.id IN ({marks}) AND +s.owner = ? AND +s.peer = ?",
                    [*by_id, self.user, peer],
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
                            self.archive_uri(sid, number),
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
        self,
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
            hits = self._search(query, self.peer, archives=True)
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
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
        self,
        query: str,
        *,
        target_uri: str = "",
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> JSON:
        target = self._expand(target_uri) if target_uri else ""
        peer = self.peer
        marker = f"{self.user_root}/peers/"
        if target.startswith(marker):
            peer = target[len(marker) :].split("/", 1)[0]
        try:
            hits = self._search(query, peer, archives=False)
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
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

    # --- content --------------------------------------------------------------------------
    def _read_profile(self) -> str | None:
        try:
            with open(self.profile_path, encoding="utf-8") as handle:
                return handle.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise BackendError("unreachable", f"cannot read {self.profile_path}: {exc}") from None

    def _archive_ref(self, uri: str) -> tuple[str, int, str] | None:
        """``(session_id, number, file)`` for an archive URI (file: "", overview, abstract)."""
        prefix = f"{self.user_root}/sessions/"
        if not uri.startswith(prefix):
            return None
        session_id, sep, rest = uri[len(prefix) :].partition("/history/archive_")
        if not sep:
            return None
        number_text, _, leaf = rest.partition("/")
        if not number_text.isdigit():
            return None
        file = {"": "", ".overview.md": "overview", ".abstract.md": "abstract"}.get(leaf)
        return None if file is None else (session_id, int(number_text), file)

    def read(self, uri: str, level: str = "full") -> str:
        if level not in ("full", "abstract", "overview"):
            raise _invalid(f"unknown read level {level!r}")
        uri = self._expand(uri)
        if uri == self.profile_uri:
            text = self._read_profile()
            if text is None:
                raise _not_found(f"File not found: {uri}")
            return first_line(text) if level == "abstract" else text
        try:
            con = self._db()
            archive = self._archive_ref(uri)
            if archive is not None:
                row = con.execute(
                    "SELECT overview, abstract FROM archives WHERE session_id = ? AND number = ?",
                    archive[:2],
                ).fetchone()
                if row is None:
                    raise _not_found(f"File not found: {uri}")
                wants_abstract = archive[2] == "abstract" or (
                    not archive[2] and level == "abstract"
                )
                return str(row[1] if wants_abstract else row[0])
            row = con.execute(
                "SELECT content, abstract FROM memories WHERE uri = ?", (uri,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        if row is None:
            raise _not_found(f"File not found: {uri}")
        return str(row[1] if level == "abstract" else row[0])

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 512) -> list[JSON]:
        uri = self._expand(uri)
        entries: dict[str, JSON] = {}

        def add(
            child: str, *, is_dir: bool, size: int = 0, mtime: float = 0.0, abstract: str = ""
        ) -> None:
            if child not in entries:
                entries[child] = {
                    "uri": child,
                    "size": size,
                    "isDir": is_dir,
                    "modTime": iso_time(mtime) if mtime else "",
                    "abstract": abstract,
                }

        def add_path(path: str, size: int, mtime: float, abstract: str) -> None:
            """A file below ``uri``: itself when recursive, else the top child under ``uri``."""
            rest = path[len(uri) + 1 :]
            segments = rest.split("/")
            for depth in range(1, len(segments)):
                if not recursive and depth > 1:
                    break
                add(uri + "/" + "/".join(segments[:depth]), is_dir=True)
            if recursive or len(segments) == 1:
                add(path, is_dir=False, size=size, mtime=mtime, abstract=abstract)

        known_dir = uri in (self.user_root, self.memories_root) or uri.startswith(
            (self.memories_root + "/", f"{self.user_root}/peers", f"{self.user_root}/sessions")
        )
        if uri == self.user_root:
            add(self.memories_root, is_dir=True)
        if uri == self.memories_root or (recursive and uri == self.user_root):
            for category in MEMORY_CATEGORIES:
                add(f"{self.memories_root}/{category}", is_dir=True)
        profile = self._read_profile()
        if profile is not None and self.profile_uri.startswith(uri + "/"):
            mtime = os.path.getmtime(self.profile_path)
            add_path(self.profile_uri, len(profile.encode()), mtime, first_line(profile))
        try:
            con = self._db()
            rows = con.execute(
                "SELECT uri, length(CAST(content AS BLOB)), updated_at, abstract FROM memories"
                " WHERE uri > ? AND uri < ? ORDER BY uri",
                (uri + "/", uri + "/\U0010ffff"),
            ).fetchall()
            sessions_root = f"{self.user_root}/sessions"
            if (
                uri == sessions_root
                or uri.startswith(sessions_root + "/")
                or (recursive and uri == self.user_root)
            ):
                archives = con.execute(
                    "SELECT a.session_id, a.number, length(CAST(a.overview AS BLOB)),"
                    " a.created_at, a.abstract FROM archives a"
                    " JOIN sessions s ON s.session_id = a.session_id WHERE s.owner = ?",
                    (self.user,),
                ).fetchall()
                for sid, number, size, created, abstract in archives:
                    path = self.archive_uri(sid, number)
                    if path.startswith(uri + "/"):
                        add_path(path, size, created, abstract)
            if (
                uri == self.user_root
                and con.execute(
                    "SELECT 1 FROM sessions WHERE owner = ? LIMIT 1", (self.user,)
                ).fetchone()
            ):
                add(sessions_root, is_dir=True)
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        for path, size, updated, abstract in rows:
            add_path(path, int(size), float(updated), abstract)
        if not entries and not known_dir:
            raise _not_found(f"Directory not found: {uri}")
        if not entries and uri.startswith(self.memories_root + "/"):
            category = uri[len(self.memories_root) + 1 :]
            if category not in MEMORY_CATEGORIES:
                raise _not_found(f"Directory not found: {uri}")
        return sorted(entries.values(), key=lambda e: str(e["uri"]))[: max(1, limit)]

    def _memory_location(self, uri: str) -> tuple[str, str]:
        """``(peer, category)`` for a writable memory URI, or a 400 ``INVALID_URI``."""
        peer = ""
        rest = ""
        if uri.startswith(self.memories_root + "/"):
            rest = uri[len(self.memories_root) + 1 :]
        elif uri.startswith(f"{self.user_root}/peers/"):
            peer, sep, rest = uri[len(self.user_root) + len("/peers/") :].partition("/memories/")
            if not sep or not peer:
                rest = ""
        segments = [s for s in rest.split("/") if s]
        if not segments or not segments[-1] or segments[-1].startswith("."):
            raise _invalid(f"the local store holds memory files only, not {uri!r}", "INVALID_URI")
        category = segments[0] if len(segments) > 1 else segments[0].removesuffix(".md")
        return peer, category

    def write(self, uri: str, content: str, *, mode: str = "replace") -> JSON:
        if mode not in ("replace", "append", "create"):
            raise _invalid(f"unknown write mode {mode!r}")
        uri = self._expand(uri)
        if uri == self.profile_uri:
            return self._write_profile(content, mode)
        peer, category = self._memory_location(uri)
        now = time.time()
        try:
            with _Transaction(self._db()) as con:
                row = con.execute(
                    "SELECT id, content FROM memories WHERE uri = ?", (uri,)
                ).fetchone()
                if row is not None and mode == "create":
                    raise BackendError("http", f"File exists: {uri}", 409, "ALREADY_EXISTS")
                if row is None:
                    self._insert_memory(
                        con,
                        uri=uri,
                        peer=peer,
                        category=category,
                        content=content,
                        tags=f"memory_type={category},source=write",
                        source="write",
                        now=now,
                    )
                    new = content
                else:
                    old = str(row[1])
                    new = content
                    if mode == "append" and old:
                        new = old + ("" if old.endswith("\n") else "\n") + content
                    self._update_memory(con, int(row[0]), new, now)
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return {
            "uri": uri,
            "root_uri": self.memory_root_for(peer),
            "context_type": "memory",
            "mode": mode,
            "written_bytes": len(content.encode()),
            "content_updated": row is None or str(row[1]) != new,
        }

    def _write_profile(self, content: str, mode: str) -> JSON:
        old = self._read_profile()
        if old is not None and mode == "create":
            raise BackendError("http", f"File exists: {self.profile_uri}", 409, "ALREADY_EXISTS")
        new = content
        if mode == "append" and old:
            new = old + ("" if old.endswith("\n") else "\n") + content
        # Write-then-rename: a crash leaves the old profile or the new one, never half of it.
        tmp = f"{self.profile_path}.{os.getpid()}.tmp"
        try:
            from ovhooks.fsutil import ensure_dir

            ensure_dir(self.data_dir)
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
                handle.write(new)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.profile_path)
        except OSError as exc:
            raise BackendError("unreachable", f"cannot write the profile: {exc}") from None
        return {
            "uri": self.profile_uri,
            "root_uri": self.memories_root,
            "context_type": "memory",
            "mode": mode,
            "written_bytes": len(content.encode()),
            "content_updated": old != new,
        }

    def delete(self, uri: str) -> JSON:
        uri = self._expand(uri)
        if uri == self.profile_uri:
            try:
                os.remove(self.profile_path)
            except FileNotFoundError:
                raise _not_found(f"File not found: {uri}") from None
            except OSError as exc:
                raise BackendError("unreachable", f"cannot delete the profile: {exc}") from None
            return {"uri": uri, "estimated_deleted_count": 1}
        try:
            with _Transaction(self._db()) as con:
                deleted = con.execute("DELETE FROM memories WHERE uri = ?", (uri,)).rowcount
                if not deleted:
                    below = con.execute(
                        "SELECT 1 FROM memories WHERE uri > ? AND uri < ? LIMIT 1",
                        (uri + "/", uri + "/\U0010ffff"),
                    ).fetchone()
                    if below is not None or uri in (self.memories_root, self.user_root):
                        raise _invalid("Cannot remove directory without --recursive")
                    raise _not_found(f"File not found: {uri}")
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return {"uri": uri, "estimated_deleted_count": deleted}

    def whoami(self) -> str:
        return self.user

    def health(self) -> JSON:
        try:
            self._db().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return {
            "status": "ok",
            "healthy": True,
            "version": f"local-{SCHEMA_VERSION}",
            "backend": "local",
            "path": self.db_path,
        }

    # --- export (read-only iteration for ``ovhooks export``) -------------------------------
    def export_sessions(self) -> list[JSON]:
        """This user's sessions, oldest first: ``{session_id, peer, commit_count, seqs}``,
        ``seqs`` listing ``(seq, archive number or None while live)`` of every message."""
        try:
            con = self._db()
            sessions = con.execute(
                "SELECT session_id, peer, commit_count FROM sessions"
                " WHERE owner = ? ORDER BY created_at, session_id",
                (self.user,),
            ).fetchall()
            out: list[JSON] = []
            for session_id, peer, commit_count in sessions:
                seqs = con.execute(
                    "SELECT seq, archive_no FROM messages WHERE session_id = ? ORDER BY seq",
                    (session_id,),
                ).fetchall()
                out.append(
                    {
                        "session_id": session_id,
                        "peer": peer,
                        "commit_count": int(commit_count),
                        "seqs": [(int(seq), archive) for seq, archive in seqs],
                    }
                )
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return out

    def export_messages(self, session_id: str, first_seq: int, last_seq: int) -> list[JSON]:
        """Messages ``first_seq..last_seq`` of a session as they were appended, in order."""
        try:
            rows = (
                self._db()
                .execute(
                    "SELECT role, parts, meta FROM messages"
                    " WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                    (session_id, first_seq, last_seq),
                )
                .fetchall()
            )
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        return [
            {"role": role, "parts": json.loads(parts), **json.loads(meta)}
            for role, parts, meta in rows
        ]

    def export_memories(self) -> list[tuple[str, str, str]]:
        """``(uri, peer, content)`` of every memory file of this user, the profile included."""
        try:
            rows = (
                self._db()
                .execute(
                    "SELECT uri, peer, content FROM memories WHERE owner = ? ORDER BY uri",
                    (self.user,),
                )
                .fetchall()
            )
        except sqlite3.Error as exc:
            raise _db_error(exc) from None
        out = [(str(uri), str(peer), str(content)) for uri, peer, content in rows]
        profile = self._read_profile()
        if profile is not None:
            out.append((self.profile_uri, "", profile))
        return out
