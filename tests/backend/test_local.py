"""The embedded local store against the Backend protocol's shapes and promises."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import zlib
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local.schema import crc32, scope_token
from ovhooks.transport.errors import BackendError

if TYPE_CHECKING:
    from pathlib import Path

THRESHOLD = 0.55  # the default recall_score_threshold in ovhooks/settings/config.py
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def local_backend(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    """A fresh store in ``tmp_path/data``; parametrise indirectly with ``{"user", "peer"}``."""
    options = getattr(request, "param", None) or {}
    backend = LocalBackend(
        str(tmp_path / "data"),
        user=options.get("user", "default"),
        peer=options.get("peer", "proj-a"),
    )
    yield backend
    backend.close()


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"type": "text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "parts": [{"type": "text", "text": text}]}


def recalled(backend: LocalBackend, query: str) -> list[str]:
    result = backend.search_context(query, score_threshold=THRESHOLD)
    return [entry["text"] for entry in result["entries"]]


# --- sessions -----------------------------------------------------------------------------


def test_append_returns_the_server_shape_and_counts(local_backend: LocalBackend) -> None:
    first = local_backend.append_messages("s1", [user("hello there"), assistant("hi")])
    assert set(first) == {"session_id", "message_count", "added", "pending_tokens"}
    assert (first["session_id"], first["message_count"], first["added"]) == ("s1", 2, 2)
    second = local_backend.append_messages("s1", [{"role": "user", "content": "缩进用两个空格"}])
    assert second["message_count"] == 3
    # CJK-aware: 7 CJK characters count 1.5 tokens each.
    assert second["pending_tokens"] - first["pending_tokens"] >= 10


def test_append_is_atomic_when_a_message_is_invalid(local_backend: LocalBackend) -> None:
    local_backend.append_messages("s1", [user("kept")])
    with pytest.raises(BackendError) as err:
        local_backend.append_messages("s1", [user("lost"), {"role": "user"}])
    assert err.value.status == 400
    assert local_backend.session_info("s1")["message_count"] == 1


def test_append_rejects_more_than_a_hundred_messages(local_backend: LocalBackend) -> None:
    with pytest.raises(BackendError) as err:
        local_backend.append_messages("s1", [user(f"m{i}") for i in range(101)])
    assert err.value.status == 400


def test_commit_unknown_session_is_not_found(local_backend: LocalBackend) -> None:
    with pytest.raises(BackendError) as err:
        local_backend.commit("nope")
    assert (err.value.kind, err.value.status, err.value.code) == ("http", 404, "NOT_FOUND")
    assert err.value.not_found and not err.value.retryable


def test_commit_archives_then_skips_when_nothing_is_pending(local_backend: LocalBackend) -> None:
    local_backend.append_messages("s1", [user("Please fix the parser."), assistant("Done.")])
    result = local_backend.commit("s1")
    assert result["status"] == "accepted" and result["archived"] is True
    assert result["task_id"]
    assert result["archive_uri"] == "viking://user/default/sessions/s1/history/archive_001"
    assert set(result["memories_extracted"]) >= {"total", "preferences", "entities", "events"}
    skipped = local_backend.commit("s1")
    assert skipped["status"] == "skipped" and skipped["archived"] is False
    assert skipped["task_id"] is None and skipped["archive_uri"] is None
    info = local_backend.session_info("s1")
    assert info["commit_count"] == 1 and info["message_count"] == 0
    assert info["total_message_count"] == 2 and info["pending_tokens"] == 0
    assert info["last_commit_at"]


def test_newest_mark_survives_commits(local_backend: LocalBackend) -> None:
    """A message's ``turn_id`` is kept in its metadata, live and archived alike."""
    with pytest.raises(BackendError) as err:
        local_backend.newest_mark("s1", "ovh1:")
    assert err.value.not_found
    local_backend.append_messages("s1", [user("no mark here")])
    assert local_backend.newest_mark("s1", "ovh1:") is None
    marked = [{**user(f"turn {i}"), "turn_id": f"ovh1:a:{i}"} for i in range(3)]
    local_backend.append_messages("s1", [*marked, {**user("x"), "turn_id": "other:1"}])
    assert local_backend.newest_mark("s1", "ovh1:") == "ovh1:a:2"
    local_backend.commit("s1", keep_recent_count=1)
    local_backend.append_messages("s1", [user("after the commit, unmarked")])
    local_backend.commit("s1")
    assert local_backend.newest_mark("s1", "ovh1:") == "ovh1:a:2"
    local_backend.append_messages("s1", [{**user("later"), "turn_id": "ovh1:b:0"}])
    assert local_backend.newest_mark("s1", "ovh1:") == "ovh1:b:0"


def test_commit_keep_recent_count_leaves_the_tail_live(local_backend: LocalBackend) -> None:
    local_backend.append_messages("s1", [user(f"turn number {i}") for i in range(5)])
    local_backend.commit("s1", keep_recent_count=2)
    context = local_backend.session_context("s1", 10_000)
    texts = [m["parts"][0]["text"] for m in context["messages"]]
    assert texts == ["turn number 3", "turn number 4"]
    assert local_backend.commit("s1")["archive_uri"].endswith("archive_002")


def test_session_context_after_commit(local_backend: LocalBackend) -> None:
    local_backend.append_messages(
        "s1",
        [
            user("Add retries to the HTTP client."),
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool", "tool_name": "Edit", "tool_input": {"file_path": "http.py"}}
                ],
            },
        ],
    )
    local_backend.commit("s1")
    local_backend.append_messages("s1", [user("Now the docs.")])
    context = local_backend.session_context("s1", 128_000)
    assert set(context) >= {
        "latest_archive_overview",
        "pre_archive_abstracts",
        "messages",
        "estimatedTokens",
        "stats",
    }
    assert "Add retries to the HTTP client." in context["latest_archive_overview"]
    assert "http.py" in context["latest_archive_overview"]
    assert [m["role"] for m in context["messages"]] == ["user"]
    assert context["messages"][0]["parts"] == [{"type": "text", "text": "Now the docs."}]
    assert context["stats"]["totalArchives"] == 1
    assert (
        local_backend.read("viking://user/default/sessions/s1/history/archive_001", "overview")
        == context["latest_archive_overview"]
    )


def test_session_context_respects_the_token_budget(local_backend: LocalBackend) -> None:
    local_backend.append_messages("s1", [user("x" * 400) for _ in range(10)])
    context = local_backend.session_context("s1", 250)
    assert 0 < len(context["messages"]) < 10
    assert context["estimatedTokens"] <= 250


def test_session_info_unknown_is_not_found(local_backend: LocalBackend) -> None:
    with pytest.raises(BackendError) as err:
        local_backend.session_info("nope")
    assert err.value.not_found


# --- promotion and recall -----------------------------------------------------------------


def test_english_preference_is_recalled_in_a_later_session(tmp_path: Path) -> None:
    first = LocalBackend(str(tmp_path), peer="proj-a")
    first.append_messages(
        "s1",
        [user("I prefer tabs over spaces for indentation in Python."), assistant("Noted.")],
    )
    assert first.commit("s1")["memories_extracted"]["preferences"] == 1
    first.close()
    # A new process on another project still sees a user-level preference.
    later = LocalBackend(str(tmp_path), peer="proj-b")
    texts = recalled(later, "What indentation should the Python code use?")
    assert "I prefer tabs over spaces for indentation in Python." in texts


@pytest.mark.parametrize(
    "statement",
    [
        "In this repository I always indent with tabs, never spaces",
        "Use two spaces, never tabs, in the YAML files",
        "I prefer indenting with four spaces",
    ],
)
def test_a_question_about_how_to_indent_asks_about_indentation(
    tmp_path: Path, statement: str
) -> None:
    """Issue 39's first complaint: "how should I indent …" got nothing where "what
    indentation …" got the memory. The verb's forms name the topic as the noun does."""
    backend = LocalBackend(str(tmp_path), peer="proj")
    uri = f"{backend.memories_root}/preferences/indent.md"
    backend.write(uri, statement + "\n", mode="replace")
    for question in (
        "How should I indent the new config loader module?",
        "is this file indented the way we do it here?",
        "what are our indenting rules?",
        "what indentation style do we use here?",
    ):
        assert recalled(backend, question) == [statement + "\n"], question
    # a prompt that merely says "spaces" is not a question about indentation
    assert recalled(backend, "allow spaces in user names") == []


def test_chinese_preference_is_recalled_in_a_later_session(tmp_path: Path) -> None:
    first = LocalBackend(str(tmp_path), peer="proj-a")
    first.append_messages("s1", [user("以后请用两个空格缩进，我喜欢这样。")])
    assert first.commit("s1")["memories_extracted"]["total"] == 1
    later = LocalBackend(str(tmp_path), peer="proj-a")
    assert "以后请用两个空格缩进，我喜欢这样。" in recalled(later, "代码缩进用几个空格？")


def test_unrelated_queries_recall_nothing(local_backend: LocalBackend) -> None:
    local_backend.append_messages(
        "s1", [user("I prefer tabs over spaces for indentation."), user("我喜欢用两个空格缩进。")]
    )
    local_backend.commit("s1")
    assert recalled(local_backend, "How do I configure a Kubernetes ingress?") == []
    assert recalled(local_backend, "今天天气怎么样") == []
    # One shared common word in a long prompt is not enough either.
    long_prompt = (
        "Refactor the billing module so invoices are generated asynchronously and "
        "emailed to customers, with spaces allowed in names"
    )
    assert recalled(local_backend, long_prompt) == []


def test_questions_and_assistant_statements_are_not_promoted(local_backend: LocalBackend) -> None:
    local_backend.append_messages(
        "s1",
        [user("Do you prefer tabs or spaces?"), assistant("I always prefer spaces myself.")],
    )
    assert local_backend.commit("s1")["memories_extracted"]["total"] == 0


def test_repeated_and_near_duplicate_preferences_are_one_memory(
    local_backend: LocalBackend,
) -> None:
    local_backend.append_messages("s1", [user("I prefer tabs over spaces for indentation.")])
    local_backend.commit("s1")
    local_backend.append_messages("s2", [user("I prefer tabs over spaces for indentation!")])
    assert local_backend.commit("s2")["memories_extracted"]["total"] == 0
    local_backend.append_messages(
        "s3", [user("I really prefer tabs over spaces for indentation in every file.")]
    )
    result = local_backend.commit("s3")["memories_extracted"]
    assert (result["total"], result["merged"]) == (0, 1)
    prefs = [
        e
        for e in local_backend.ls(local_backend.memories_root, recursive=True)
        if not e["isDir"] and "/preferences/" in e["uri"]
    ]
    assert len(prefs) == 1
    # The newest wording wins.
    assert "every file" in local_backend.read(prefs[0]["uri"])
    # A contradicting statement is not a duplicate.
    local_backend.append_messages("s4", [user("I prefer spaces over tabs for YAML files.")])
    assert local_backend.commit("s4")["memories_extracted"]["total"] == 1


def test_project_memories_stay_in_their_project(tmp_path: Path) -> None:
    a = LocalBackend(str(tmp_path), peer="proj-a")
    a.append_messages("s1", [user("We decided to use pnpm for the frontend workspace.")])
    a.commit("s1")
    assert any("pnpm" in t for t in recalled(a, "install frontend deps with pnpm"))
    b = LocalBackend(str(tmp_path), peer="proj-b")
    assert recalled(b, "install frontend deps with pnpm") == []


def test_a_fact_is_found_by_the_question_the_user_asked_before_it(
    local_backend: LocalBackend,
) -> None:
    """The lead of a statement (what the user said just before it) is searchable with the
    memory; the memory's text stays the statement alone, and no other memory merges on it."""
    local_backend.append_messages(
        "s1",
        [
            user(
                "the lidar topic shows nothing in rviz? that's QoS. the driver publishes "
                "best-effort, so subscribers have to use SensorDataQoS"
            )
        ],
    )
    local_backend.commit("s1")
    fact = "the driver publishes best-effort, so subscribers have to use SensorDataQoS"
    result = local_backend.search_context("why is rviz not showing the lidar topic?")
    memories = [e for e in result["entries"] if e["origin"] == "memory"]
    assert [e["text"] for e in memories] == [fact]
    # without the lead, the question shares no word with the fact
    bare = LocalBackend(os.path.join(local_backend.data_dir, "bare"), peer="proj-a")
    try:
        bare.write(f"{bare.memories_root}/entities/facts/qos.md", fact)
        assert bare.search_context("why is rviz not showing the lidar topic?")["entries"] == []
    finally:
        bare.close()


def test_a_merged_statement_brings_its_lead(local_backend: LocalBackend) -> None:
    """A near-duplicate statement replaces the memory's text; its lead's words become
    searchable with it (any score: what counts here is that the words are indexed)."""
    local_backend.append_messages("s1", [user("the nightly export runs as the etl user on db-7")])
    local_backend.commit("s1")
    question = "why do I get EACCES on the dump job?"
    assert memory_texts(local_backend, question) == []
    local_backend.append_messages(
        "s2",
        [user(f"{question} the nightly export runs as the etl user on db-7 now")],
    )
    local_backend.commit("s2")
    assert local_backend.session_info("s2")["memories_extracted"]["total"] == 0  # merged
    assert memory_texts(local_backend, question) == [
        "the nightly export runs as the etl user on db-7 now"
    ]


def memory_texts(backend: LocalBackend, query: str) -> list[str]:
    entries = backend.search_context(query, score_threshold=0.0)["entries"]
    return [e["text"] for e in entries if e["origin"] == "memory"]


def test_project_memory_ranks_above_an_equal_user_memory(local_backend: LocalBackend) -> None:
    local_backend.write(f"{local_backend.memories_root}/entities/facts/db.md", "database port 5433")
    project_root = local_backend.memory_root_for("proj-a")
    local_backend.write(f"{project_root}/entities/facts/db.md", "database port 5433")
    entries = local_backend.search_context("database port")["entries"]
    assert [e["uri"] for e in entries[:2]] == [
        f"{project_root}/entities/facts/db.md",
        f"{local_backend.memories_root}/entities/facts/db.md",
    ]


def test_search_context_shape_budget_and_exclusions(local_backend: LocalBackend) -> None:
    root = local_backend.memories_root
    local_backend.write(f"{root}/preferences/a.md", "prefer ruff for linting " + "x " * 300)
    local_backend.write(f"{root}/preferences/b.md", "prefer ruff format over black")
    result = local_backend.search_context("ruff linting format")
    assert set(result) == {"entries", "rendered", "stats"}
    entry = result["entries"][0]
    assert set(entry) >= {"uri", "category", "score", "detail", "text", "abstract"}
    assert entry["detail"] == "full" and entry["category"] == "preferences"
    assert 0.0 < entry["score"] <= 1.0
    assert result["rendered"].startswith("<memory uri=")
    small = local_backend.search_context("ruff linting format", max_tokens=64)
    assert [e["uri"] for e in small["entries"]] == [f"{root}/preferences/b.md"]
    excluded = local_backend.search_context(
        "ruff linting format", exclude_uris=[f"{root}/preferences/b.md"]
    )
    assert f"{root}/preferences/b.md" not in [e["uri"] for e in excluded["entries"]]


def test_find_shape_and_target(local_backend: LocalBackend) -> None:
    root = local_backend.memories_root
    local_backend.write(f"{root}/preferences/ed.md", "I use neovim as my editor")
    local_backend.write(f"{root}/entities/facts/ed.md", "the editor config lives in dotfiles")
    result = local_backend.find("editor")
    assert set(result) == {"memories", "resources", "skills", "total"}
    assert result["total"] == 2
    hit = result["memories"][0]
    assert set(hit) == {"context_type", "uri", "level", "score", "abstract", "tags"}
    assert (hit["context_type"], hit["level"]) == ("memory", 2)
    only = local_backend.find("editor", target_uri=f"{root}/preferences", limit=5)
    assert [m["uri"] for m in only["memories"]] == [f"{root}/preferences/ed.md"]
    assert local_backend.find("editor", score_threshold=0.999)["total"] == 0
    assert local_backend.find("the of and")["total"] == 0


# --- content ------------------------------------------------------------------------------


def test_remember_read_and_forget(local_backend: LocalBackend) -> None:
    uri = "viking://~/memories/preferences/shell.md"
    full = f"{local_backend.memories_root}/preferences/shell.md"
    written = local_backend.write(uri, "# Shell\nUse fish as the login shell.\n")
    assert written["uri"] == full and written["context_type"] == "memory"
    assert local_backend.read(full) == "# Shell\nUse fish as the login shell.\n"
    assert local_backend.read(full, "abstract") == "Shell"
    assert local_backend.find("fish shell")["memories"][0]["uri"] == full
    with pytest.raises(BackendError) as err:
        local_backend.write(full, "again", mode="create")
    assert err.value.status == 409
    local_backend.write(full, "Also zsh on servers.", mode="append")
    assert local_backend.read(full).endswith("shell.\nAlso zsh on servers.")
    assert local_backend.delete(full)["uri"] == full
    with pytest.raises(BackendError) as err:
        local_backend.read(full)
    assert err.value.not_found
    assert local_backend.find("fish shell")["total"] == 0
    with pytest.raises(BackendError) as err:
        local_backend.delete(full)
    assert err.value.not_found


def test_write_outside_memories_is_rejected(local_backend: LocalBackend) -> None:
    with pytest.raises(BackendError) as err:
        local_backend.write("viking://resources/doc.md", "text")
    assert (err.value.status, err.value.code) == (400, "INVALID_URI")


def test_delete_directory_needs_recursive(local_backend: LocalBackend) -> None:
    local_backend.write(f"{local_backend.memories_root}/events/a.md", "release on friday")
    with pytest.raises(BackendError) as err:
        local_backend.delete(f"{local_backend.memories_root}/events")
    assert err.value.status == 400


def test_profile_is_an_editable_file(local_backend: LocalBackend) -> None:
    profile_uri = "viking://user/default/memories/profile.md"
    with pytest.raises(BackendError):
        local_backend.read(profile_uri)
    local_backend.write(profile_uri, "# Profile\n- Backend developer\n")
    path = os.path.join(local_backend.data_dir, "profile.md")
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == "# Profile\n- Backend developer\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- Prefers Rust\n")  # the user edits it by hand
    assert local_backend.read(profile_uri).endswith("- Prefers Rust\n")
    assert local_backend.read(profile_uri, "abstract") == "Profile"
    listing = local_backend.ls(local_backend.memories_root)
    assert profile_uri in [e["uri"] for e in listing]
    local_backend.delete(profile_uri)
    assert not os.path.exists(path)


def test_ls_virtual_tree(local_backend: LocalBackend) -> None:
    root = local_backend.memories_root
    listing = local_backend.ls(root)
    assert [e["uri"] for e in listing] == [
        f"{root}/entities",
        f"{root}/events",
        f"{root}/preferences",
    ]
    assert all(set(e) == {"uri", "size", "isDir", "modTime", "abstract"} for e in listing)
    local_backend.write(f"{root}/preferences/ada/editor.md", "Uses helix")
    top = {e["uri"]: e for e in local_backend.ls(f"{root}/preferences")}
    assert top[f"{root}/preferences/ada"]["isDir"] is True
    deep = {e["uri"]: e for e in local_backend.ls(f"{root}/preferences", recursive=True)}
    leaf = deep[f"{root}/preferences/ada/editor.md"]
    assert (leaf["isDir"], leaf["size"], leaf["abstract"]) == (False, 10, "Uses helix")
    assert leaf["modTime"].endswith("Z")
    assert local_backend.ls(f"{root}/events") == []
    with pytest.raises(BackendError) as err:
        local_backend.ls(f"{root}/nothing-here")
    assert err.value.not_found


def test_whoami_and_health(local_backend: LocalBackend) -> None:
    assert local_backend.whoami() == "default"
    health = local_backend.health()
    assert health["healthy"] is True and health["backend"] == "local"
    assert health["version"].startswith("local-")


@pytest.mark.parametrize("local_backend", [{"user": "ada", "peer": ""}], indirect=True)
def test_fixture_parameters_set_user_and_peer(local_backend: LocalBackend) -> None:
    assert local_backend.whoami() == "ada"
    local_backend.append_messages("s1", [user("We decided to ship on Fridays only.")])
    local_backend.commit("s1")
    # With no project peer, every memory is user-level.
    files = [
        e["uri"]
        for e in local_backend.ls("viking://user/ada", recursive=True)
        if not e["isDir"] and "/memories/" in e["uri"]
    ]
    assert files and all(u.startswith("viking://user/ada/memories/events/") for u in files)


def test_database_is_wal_with_integrity(local_backend: LocalBackend) -> None:
    local_backend.append_messages("s1", [user("hello world")])
    con = sqlite3.connect(local_backend.db_path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


def test_unopenable_store_is_a_backend_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    backend = LocalBackend(str(blocker / "data"))
    with pytest.raises(BackendError) as err:
        backend.health()
    assert err.value.kind == "unreachable"


def test_import_is_light() -> None:
    code = (
        "import sys, ovhooks.backend.local;"
        "print(sorted(m for m in ('ovhooks.backend.local.extraction',"
        " 'ovhooks.backend.local.sessions', 'pathlib', 'typing',"
        " 'dataclasses', 'logging', 'uuid', 'hashlib') if m in sys.modules))"
    )
    out = subprocess.run(
        # -S: the editable install's path finder imports pathlib at start-up, not this module.
        [sys.executable, "-S", "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == "[]"


@given(st.binary(max_size=300))
def test_scope_tokens_crc_is_zlibs(data: bytes) -> None:
    """Stores on disk hold scope tokens made with ``zlib.crc32``: the CRC computed without
    zlib (schema.crc32) must give the same, or recall would miss every existing row."""
    assert crc32(data) == zlib.crc32(data)


def test_scope_token_is_the_stored_one() -> None:
    for owner, peer in (("default", ""), ("default", "proj-a"), ("ünï", "项目-7f3a")):
        digest = zlib.crc32(f"{owner}\0{peer}".encode()) & 0xFFFFFFFF
        assert scope_token(owner, peer) == f"zscope{digest:08x}{'p' if peer else 'g'}"


def test_satisfies_the_backend_protocol(tmp_path: Path) -> None:
    from ovhooks.backend.base import Backend

    backend: Backend = LocalBackend(str(tmp_path))  # mypy checks the structural match
    assert backend.name == "local"


def test_a_version_1_store_gains_the_history_layer(tmp_path: Path) -> None:
    backend = LocalBackend(str(tmp_path))
    backend.append_messages("s1", [user("the build cache lives on ci-cache-02")])
    backend.commit("s1")
    con = backend.db()
    # what a store made before the history layer looks like
    for statement in (
        "DROP TRIGGER history_ai",
        "DROP TRIGGER history_ad",
        "DROP TABLE history_vocab",
        "DROP TABLE history_fts",
        "DROP TABLE history",
        "DELETE FROM counters WHERE name = 'history'",
        "PRAGMA user_version = 1",
    ):
        con.execute(statement)
    backend.close()
    reopened = LocalBackend(str(tmp_path))
    reopened.append_messages("s2", [user("the nightly_sync job failed again last night")])
    reopened.commit("s2")
    assert reopened.health()["version"] == "local-2"
    assert recalled(reopened, "is ci-cache-02 up?")[:1] == ["the build cache lives on ci-cache-02"]
    hits = reopened.search_context("did nightly_sync fail?", score_threshold=THRESHOLD)
    assert [e["uri"].rsplit("/", 2)[-2:] for e in hits["entries"]] == [["history", "archive_001"]]
