"""The local store's SQLite file: schema, connection, transactions, and the small helpers
every part of the store shares (errors in the Backend's terms, scope tokens, times).

Durability: WAL journal with ``synchronous=FULL`` (a returned append survives a crash of the
process or the machine), ``busy_timeout`` for concurrent hooks, one ``BEGIN IMMEDIATE``
transaction per write call, so ``kill -9`` at any point leaves either all of a call or none.
"""

from __future__ import annotations

# The C module itself, not the ``sqlite3`` package: that one imports ``sqlite3.dbapi2``, whose
# date/time adapters and converters pull in ``datetime`` (~1.4 ms of a hook's start-up, with
# ``_sqlite3`` itself 0.8). The store uses only ``connect``, ``Connection`` and the exceptions,
# all of them ``_sqlite3``'s own (``sqlite3`` re-exports them), never a date or time value or
# ``detect_types``. Every module of the store imports it the same way.
import _sqlite3 as sqlite3
import time

from ovhooks.transport.errors import LOCAL_STORE, BackendError

SCHEMA_VERSION = 2
DB_NAME = "memory.db"
PROFILE_NAME = "profile.md"
MAX_BATCH = 100
MEMORY_CATEGORIES = ("preferences", "entities", "events")

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

# Version 2: the history layer. What the user said and a commit did not promote, one
# statement per row under its archive, so recall finds it even though it is no memory.
_SCHEMA_V2 = (
    """CREATE TABLE history (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        archive_no INTEGER NOT NULL,
        text TEXT NOT NULL,
        created_at REAL NOT NULL,
        scope TEXT NOT NULL,
        terms TEXT NOT NULL
    )""",
    "CREATE INDEX history_by_archive ON history (session_id, archive_no)",
    f"""CREATE VIRTUAL TABLE history_fts USING fts5(
        scope, terms, content='history', content_rowid='id', tokenize="{_FTS_TOKENIZER}")""",
    "CREATE VIRTUAL TABLE history_vocab USING fts5vocab(history_fts, 'row')",
    "INSERT INTO history_fts (history_fts, rank) VALUES ('rank', 'bm25(0.0, 1.0)')",
    """CREATE TRIGGER history_ai AFTER INSERT ON history BEGIN
        INSERT INTO history_fts (rowid, scope, terms) VALUES (new.id, new.scope, new.terms);
        UPDATE counters SET value = value + 1 WHERE name = 'history';
    END""",
    """CREATE TRIGGER history_ad AFTER DELETE ON history BEGIN
        INSERT INTO history_fts (history_fts, rowid, scope, terms)
            VALUES ('delete', old.id, old.scope, old.terms);
        UPDATE counters SET value = value - 1 WHERE name = 'history';
    END""",
    "INSERT INTO counters VALUES ('history', 0)",
)


BUSY = "BUSY"


def not_found(what: str) -> BackendError:
    return BackendError("http", what, 404, "NOT_FOUND")


def invalid(what: str, code: str = "INVALID_ARGUMENT") -> BackendError:
    return BackendError("http", what, 400, code)


def db_error(exc: Exception) -> BackendError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        # Another process held the write lock past busy_timeout: the transaction was rolled
        # back, nothing of it applied; a writer may simply try again (``code`` says so).
        return BackendError("timeout", f"local store busy: {text}", code=BUSY)
    return BackendError("unreachable", f"local store failed: {text}", code=LOCAL_STORE)


def iso_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def scope_token(owner: str, peer: str) -> str:
    """The FTS5 token that scopes a row to a user (``peer`` empty) or a user's project.

    A CRC is enough: the SQL around the match re-checks owner and peer exactly.
    """
    digest = crc32(f"{owner}\0{peer}".encode())
    return f"zscope{digest:08x}{'p' if peer else 'g'}"


def crc32(data: bytes) -> int:
    """``zlib.crc32(data)``, computed bit by bit: every recall takes a scope token or two, of a
    few dozen bytes (~25 µs each), and importing zlib costs that hook ~0.35 ms."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def first_line(text: str, limit: int = 200) -> str:
    """The first non-empty line without Markdown heading or bullet marks: an abstract."""
    for raw in text.splitlines():
        line = raw.strip().lstrip("#").strip()
        if line.startswith(("- ", "* ")):
            line = line[2:].strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


class Transaction:
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


def open_db(path: str, data_dir: str) -> sqlite3.Connection:
    """A connection to ``path`` in WAL mode with the schema in place."""
    import os

    try:
        from ovhooks.fsutil import ensure_dir, private_file

        # The database and its -wal/-shm (SQLite gives those the database's mode) hold
        # conversations and memories: 0600 in a 0700 directory, whatever the umask.
        ensure_dir(data_dir)
        for file_path in (path, path + "-wal", path + "-shm"):
            if file_path == path or os.path.exists(file_path):
                private_file(file_path)
        con = sqlite3.connect(path, timeout=5.0, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise BackendError("unreachable", f"cannot open {path}: {exc}", code=LOCAL_STORE) from None
    try:
        con.execute("PRAGMA busy_timeout = 5000")
        if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA synchronous = FULL")
        if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _create_schema(con)
    except sqlite3.Error as exc:
        con.close()
        raise db_error(exc) from None
    return con


def _create_schema(con: sqlite3.Connection) -> None:
    with Transaction(con):
        # Another process may have created it while this one waited for the lock.
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version >= SCHEMA_VERSION:
            return
        # A store made by version 1 gains the history tables; its old archives have no
        # history rows (their text is still in the messages), new commits fill it.
        for statement in (*(_SCHEMA if version < 1 else ()), *_SCHEMA_V2):
            con.execute(statement)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


# The viewer lists memories by scope and category a page at a time: this index answers its
# counts and pages without reading the rows (100,000 memories: milliseconds, not seconds).
# Made by the viewer when it first lists (``ensure_listing_index``), not by every hook's open:
# a store nobody views never pays for it.
LISTING_INDEX = (
    "CREATE INDEX IF NOT EXISTS memories_by_scope ON memories (owner, peer, category, id)"
)


def ensure_listing_index(con: sqlite3.Connection) -> None:
    try:
        con.execute(LISTING_INDEX)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
