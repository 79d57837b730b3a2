"""search / read / ls / remember / forget, and commit / sweep / flush: behaviour and --json."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ovhooks.commands.errors import ExitCode
from ovhooks.commands.memory import memory_uri, search_results, slug
from ovhooks.session.store import StateStore, new_state
from tests.support.cli import (
    ENVELOPE,
    ERROR_ENVELOPE,
    NUM,
    OPT_STR,
    check_schema,
    run_cli,
    run_json,
)
from tests.support.fake_openviking import FakeOpenViking

MEM = "viking://user/default/memories/preferences/default/pnpm.md"


@pytest.fixture
def env(fake_ov: FakeOpenViking) -> dict[str, str]:
    return {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}


class FindingFake(FakeOpenViking):
    """The fake with scored ``find`` hits (the base fake always finds nothing)."""

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[dict[str, Any]] = []

    def _route(self, method, path, query, body):
        if path == "/api/v1/search/find":
            threshold = (body or {}).get("score_threshold") or 0
            memories = [h for h in self.hits if h["score"] >= threshold]
            return self._ok(
                {"memories": memories, "resources": [], "skills": [], "total": len(memories)}
            )
        return super()._route(method, path, query, body)


@pytest.fixture
def finder() -> Iterator[FindingFake]:
    server = FindingFake()
    server.hits = [
        {"uri": MEM, "score": 0.91, "abstract": "prefers pnpm", "level": 2},
        {"uri": "viking://user/default/memories/.abstract.md", "score": 0.95, "abstract": "x"},
        {
            "uri": "viking://user/default/memories/events/2026/01/01/x.md",
            "score": 0.7,
            "abstract": "something else",
        },
    ]
    server.files[MEM] = "The user prefers pnpm.\n"
    server.start()
    yield server
    server.stop()


def test_remember_read_ls_forget_round_trip(fake_ov: FakeOpenViking, env: dict[str, str]) -> None:
    code, doc = run_json("remember", "The user prefers pnpm over npm.", env=env)
    assert code == 0
    check_schema(doc, {**ENVELOPE, "uri": str, "kind": str, "bytes": int})
    uri = doc["uri"]
    assert uri.startswith("viking://user/default/memories/preferences/default/")
    assert fake_ov.files[uri] == "The user prefers pnpm over npm.\n"
    code, again = run_json("remember", "The user prefers pnpm over npm.", env=env)
    assert again["uri"] == uri, "the same text must not make a duplicate"

    code, doc = run_json("read", uri, env=env)
    assert code == 0
    check_schema(doc, {**ENVELOPE, "uri": str, "level": str, "content": str})
    assert doc["content"].startswith("The user prefers pnpm")

    code, doc = run_json("ls", env=env)
    assert code == 0
    check_schema(
        doc, {**ENVELOPE, "uri": str, "entries": [{"uri": str, "is_dir": bool, "abstract": str}]}
    )
    assert doc["uri"] == "viking://user/default/memories"
    assert [e["uri"] for e in doc["entries"]] == [uri]

    code, doc = run_json("forget", uri, env=env)
    assert code == 0
    check_schema(doc, {**ENVELOPE, "deleted": [str], "candidates": list, "confirmed": bool})
    assert uri not in fake_ov.files


def test_remember_events_are_filed_by_date() -> None:
    now = time.mktime((2026, 3, 4, 12, 0, 0, 0, 0, 0))
    uri = memory_uri("alice", "We shipped v2 today", kind="events", name=None, now=now)
    assert uri.startswith("viking://user/alice/memories/events/2026/03/04/we-shipped-v2-today-")
    assert memory_uri("alice", "x", kind="preferences", name="Editor Choice", now=now) == (
        "viking://user/alice/memories/preferences/alice/editor-choice.md"
    )
    assert slug("!!!") == "memory"


def test_read_missing_uri_is_not_found(env: dict[str, str]) -> None:
    code, doc = run_json("read", "viking://user/default/memories/nope.md", env=env)
    assert code == 4
    check_schema(doc, ERROR_ENVELOPE)


def test_forget_refuses_non_memory_uris(env: dict[str, str]) -> None:
    code, doc = run_json("forget", "viking://resources/manual.md", env=env)
    assert code == 2 and doc["error"]["code"] == "usage"


def test_search_drops_skeleton_nodes_and_sorts(finder: FindingFake) -> None:
    env = {"OPENVIKING_URL": finder.url, "OVHOOKS_BACKEND": "openviking"}
    code, doc = run_json("search", "package manager", env=env)
    assert code == 0
    check_schema(
        doc,
        {
            **ENVELOPE,
            "query": str,
            "results": [{"uri": str, "kind": str, "score": (float, type(None)), "abstract": str}],
        },
    )
    assert doc["results"][0]["uri"] == MEM
    assert not any(r["uri"].endswith(".abstract.md") for r in doc["results"])


def test_search_names_the_query_by_its_scrubbed_head(finder: FindingFake) -> None:
    env = {"OPENVIKING_URL": finder.url, "OVHOOKS_BACKEND": "openviking"}
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    code, doc = run_json("search", f"package manager {token} " + "x" * 200_000, env=env)
    assert code == 0
    assert doc["query"].startswith("package manager [REDACTED")
    assert token not in doc["query"] and len(doc["query"]) <= 80


def test_forget_by_query_needs_confirmation_then_deletes(finder: FindingFake) -> None:
    env = {"OPENVIKING_URL": finder.url, "OVHOOKS_BACKEND": "openviking"}
    code, doc = run_json("forget", "--query", "pnpm", env=env)
    assert code == 5
    check_schema(
        doc,
        {
            **ERROR_ENVELOPE,
            "candidates": [{"uri": str, "score": NUM}],
            "deleted": list,
            "confirmed": bool,
        },
    )
    assert [c["uri"] for c in doc["candidates"]] == [MEM], "only hits above the bar"
    assert MEM in finder.files
    code, doc = run_json("forget", "--query", "pnpm", "--yes", env=env)
    assert code == 0 and doc["deleted"] == [MEM] and doc["confirmed"] is True
    assert MEM not in finder.files


@pytest.mark.parametrize("bar", ["0.3", "nan", "-inf", "inf", "2"])
def test_forget_by_query_refuses_a_low_or_meaningless_bar(finder: FindingFake, bar: str) -> None:
    env = {"OPENVIKING_URL": finder.url, "OVHOOKS_BACKEND": "openviking"}
    code, doc = run_json("forget", "--query", "pnpm", "--min-score", bar, "--yes", env=env)
    assert code == 2 and MEM in finder.files, doc
    assert "--min-score" in doc["error"]["message"]


@pytest.mark.parametrize("bar", ["nan", "inf", "-1", "2"])
def test_search_refuses_a_bar_that_is_no_score(finder: FindingFake, bar: str) -> None:
    env = {"OPENVIKING_URL": finder.url, "OVHOOKS_BACKEND": "openviking"}
    code, doc = run_json("search", "pnpm", "--min-score", bar, env=env)
    assert code == 2 and "--min-score" in doc["error"]["message"], doc


def test_search_results_shape() -> None:
    hits = search_results(
        {
            "memories": [{"uri": "a", "score": 0.5}],
            "resources": [{"uri": "b", "score": 0.9}],
            "skills": None,
        }
    )
    assert [(h["uri"], h["kind"]) for h in hits] == [("b", "resource"), ("a", "memory")]


def test_server_down_is_one_line_and_exit_3(fake_ov: FakeOpenViking, env: dict[str, str]) -> None:
    from tests.support.cli import run_cli

    fake_ov.refuse()
    result = run_cli("search", "anything", env=env)
    assert result.exit_code == 3
    assert "Traceback" not in result.output + result.stderr
    assert "unreachable" in result.stderr
    code, doc = run_json("search", "anything", env=env)
    assert code == 3
    check_schema(doc, ERROR_ENVELOPE)
    assert doc["error"]["code"] == "server_unreachable"


# --- commit / sweep / flush ------------------------------------------------------------------
LIFECYCLE_SCHEMA = {
    **ENVELOPE,
    "results": [
        {"key": str, "queued": int, "sent": int, "commits": int, "remaining": int, "error": OPT_STR}
    ],
}


def _session_with_turns(tmp_path: Path, fake: FakeOpenViking, *, idle_s: float) -> str:
    """A Codex session whose turns were sent but not committed."""
    from tests.support.hooks import hook_env, run_inline
    from tests.support.rollouts import CodexRollout, codex_payload

    sid = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
    rollout = CodexRollout(tmp_path / "rollout.jsonl", sid)
    rollout.turn(1)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    run_inline(
        "stop",
        codex_payload("Stop", sid, rollout.path, work),
        hook_env(fake.url),
        now=time.time() - idle_s,
    )
    return f"cx-{sid}"


def test_commit_latest_session(
    fake_ov: FakeOpenViking, env: dict[str, str], tmp_path: Path
) -> None:
    key = _session_with_turns(tmp_path, fake_ov, idle_s=0)
    code, doc = run_json("commit", env=env)
    assert code == 0, doc
    check_schema(doc, LIFECYCLE_SCHEMA)
    assert doc["results"][0]["key"] == key and doc["results"][0]["commits"] == 1
    assert fake_ov.sessions[key]["commit_count"] == 1
    code, doc = run_json("commit", "nope-not-a-session", env=env)
    assert code == 4
    check_schema(doc, ERROR_ENVELOPE)


def test_a_user_name_from_bytes_that_are_not_utf8_is_refused_clearly(
    fake_ov: FakeOpenViking, env: dict[str, str]
) -> None:
    # Decoded with surrogates, it failed the body's UTF-8 encoding: "unexpected
    # UnicodeEncodeError (a bug in ovhooks)", and the same in every worker run.
    undecodable = os.fsdecode(b"\xff\xfeuser")
    env = {**env, "OPENVIKING_API_KEY": "k-0123456789abcdef", "OPENVIKING_USER": undecodable}
    code, doc = run_json("remember", "the parser is a Pratt parser", env=env)
    assert code not in (0, ExitCode.INTERNAL), doc
    assert doc["error"]["code"] == "server_config", doc
    assert "not valid Unicode" in doc["error"]["message"], doc
    assert [r for r in fake_ov.requests if r["method"] != "GET"] == []


def test_commit_names_why_the_worker_failed(
    fake_ov: FakeOpenViking, env: dict[str, str], tmp_path: Path
) -> None:
    # The worker cannot take the session's lock (a file where the locks folder should be,
    # as a read-only state folder does): the log may be unwritable too, so the command
    # itself says why instead of "see the log".
    key = _session_with_turns(tmp_path, fake_ov, idle_s=0)
    locks = Path(os.environ["OVHOOKS_STATE_DIR"]) / "locks"
    shutil.rmtree(locks, ignore_errors=True)
    locks.write_text("not a folder")
    code, doc = run_json("commit", key, env=env)
    assert code == ExitCode.INCOMPLETE, doc
    error = doc["results"][0]["error"]
    assert error.startswith("the worker failed: ") and "locks" in error, error
    assert fake_ov.sessions[key]["commit_count"] == 0


def test_sweep_commits_only_idle_sessions(
    fake_ov: FakeOpenViking, env: dict[str, str], tmp_path: Path
) -> None:
    key = _session_with_turns(tmp_path, fake_ov, idle_s=0)
    code, doc = run_json("sweep", env=env)
    assert code == 0 and doc["results"] == [], "an active session is not swept"
    code, doc = run_json("sweep", "--ttl", "0", "--dry-run", env=env)
    assert code == 0
    check_schema(doc, {**LIFECYCLE_SCHEMA, "plan": [str]})
    assert any("/commit" in line for line in doc["plan"])
    assert fake_ov.sessions[key]["commit_count"] == 0
    code, doc = run_json("sweep", "--ttl", "0", env=env)
    assert code == 0 and doc["results"][0]["commits"] == 1
    assert fake_ov.sessions[key]["commit_count"] == 1


def test_flush_reports_what_stays_queued(fake_ov: FakeOpenViking, env: dict[str, str]) -> None:
    from ovhooks.outbox.queue import Outbox

    state = os.environ["OVHOOKS_STATE_DIR"]
    StateStore(state).save(new_state("cx-q1", "codex", "q1", time.time()))
    Outbox(StateStore(state), "cx-q1").enqueue(
        "append", "cx-q1", [{"role": "user", "content": "hi"}]
    )
    fake_ov.refuse()
    code, doc = run_json("flush", env=env)
    assert code == 7
    check_schema(doc, LIFECYCLE_SCHEMA)
    assert doc["results"][0]["remaining"] == 1 and doc["results"][0]["error"]
    fake_ov.restart()
    code, doc = run_json("flush", env=env)
    assert code == 0 and doc["results"][0]["sent"] == 1
    code, doc = run_json("flush", env=env)
    assert code == 0 and doc["results"] == []


def test_remember_scrubs_the_text_and_the_uri_slug(
    fake_ov: FakeOpenViking, env: dict[str, str]
) -> None:
    token = "glpat-" + "Zx8Qm2Lr7Tv4Kp9Wn3Bc"
    code, doc = run_json("remember", f"my gitlab token is {token} for the deploy job", env=env)
    assert code == 0
    assert token not in doc["uri"] and token.lower() not in doc["uri"]
    assert "zx8qm2lr7tv4kp9wn3bc" not in doc["uri"]
    assert all(token not in text for text in fake_ov.files.values())
    assert any("[REDACTED:" in text for text in fake_ov.files.values())


# --- the pure steps of ls and forget ------------------------------------------------------------
def test_ls_entries_drop_skeleton_nodes_and_name_every_key() -> None:
    from ovhooks.commands.memory import ls_entries

    entries = ls_entries(
        [
            {"uri": "viking://user/u/memories/.overview.md", "isDir": False},
            {"uri": "viking://user/u/memories/events", "isDir": True, "size": 0},
            {"uri": "viking://user/u/memories/preferences/u/a.md", "abstract": None, "size": 12},
        ]
    )
    assert entries == [
        {"uri": "viking://user/u/memories/events", "is_dir": True, "size": 0, "abstract": ""},
        {
            "uri": "viking://user/u/memories/preferences/u/a.md",
            "is_dir": False,
            "size": 12,
            "abstract": "",
        },
    ]


def test_forget_candidates_are_memories_at_or_over_the_bar() -> None:
    from ovhooks.commands.errors import CommandError, ExitCode
    from ovhooks.commands.forget import forget_candidates

    found = {
        "memories": [
            {"uri": "viking://user/u/memories/a.md", "score": 0.8},
            {"uri": "viking://user/u/memories/b.md", "score": 0.79},
            {"uri": "viking://user/u/memories/.abstract.md", "score": 0.99},
            {"uri": "viking://user/other/memories/c.md", "score": 0.99},
            {"uri": "viking://user/u/memories/../../x.md", "score": 0.99},
        ],
        "resources": [{"uri": "viking://resources/r.md", "score": 0.95}],
    }
    assert [h["uri"] for h in forget_candidates(found, "x", 0.8, "u")] == [
        "viking://user/u/memories/a.md"
    ]
    with pytest.raises(CommandError) as caught:
        forget_candidates(found, "x", 0.9, "u")
    assert caught.value.code == ExitCode.NOT_FOUND and "'x'" in caught.value.message


def test_remember_refuses_what_is_not_a_memory(
    fake_ov: FakeOpenViking, env: dict[str, str]
) -> None:
    from ovhooks.rules.limits import MEMORY_MAX_BYTES

    code, doc = run_json("remember", "é" * (MEMORY_MAX_BYTES // 2 + 1), env=env)
    assert (code, doc["error"]["code"]) == (2, "usage"), doc
    assert f"{MEMORY_MAX_BYTES + 2:,} bytes" in doc["error"]["message"]
    assert fake_ov.writes() == []
    code, doc = run_json("remember", "é" * (MEMORY_MAX_BYTES // 2), env=env)
    assert code == 0 and fake_ov.files[doc["uri"]] == "é" * (MEMORY_MAX_BYTES // 2) + "\n"


def test_ls_says_when_the_folder_holds_more_than_it_shows() -> None:
    """The local store (real SQLite, the test's own state folder): 7 memories listed 5 at a
    time; the JSON says ``more`` and the text ends on the line that says so; a limit that
    covers the folder says nothing of the kind."""
    env = {"OVHOOKS_BACKEND": "local"}
    for n in range(7):
        assert run_cli("remember", f"fact number {n} about the ls limit", env=env).exit_code == 0
    code, doc = run_json("ls", "-r", "--limit", "5", env=env)
    assert code == 0
    assert len(doc["entries"]) == 5 and doc["more"] is True
    text = run_cli("ls", "-r", "--limit", "5", env=env).stdout
    assert "the first 5 entries; the folder holds more" in text
    code, doc = run_json("ls", "-r", "--limit", "100", env=env)
    assert doc["more"] is False and len([e for e in doc["entries"] if not e["is_dir"]]) == 7
    assert "holds more" not in run_cli("ls", "-r", env=env).stdout
    result = run_cli("ls", "--limit", "0", env=env)
    assert result.exit_code == 2 and "limit 0 is below 1" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "bad \udcff fact"),
        ("remember", "fine", "--uri", "viking://user/default/memories/\udcff.md"),
        ("remember", "fine", "--name", "\udcff"),
        ("read", "viking://user/default/\udcff"),
        ("ls", "viking://user/\udcff"),
        ("forget", "viking://user/default/memories/\udcff.md"),
        ("export", "--to", "openviking", "--url", "http://\udcff"),
    ],
)
def test_an_argument_that_is_not_utf8_is_a_usage_error(args: tuple[str, ...]) -> None:
    """Bytes that are not UTF-8 on the command line arrive as lone surrogates: a clear usage
    error, never "unexpected UnicodeEncodeError (a bug in ovhooks)"."""
    code, doc = run_json(*args)
    assert code == 2 and "not valid UTF-8" in doc["error"]["message"], doc


def test_a_damaged_local_store_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "memory.db").write_bytes(b"not a database at all\n" * 100)
    env = {"OVHOOKS_DATA_DIR": str(tmp_path), "OPENVIKING_URL": None, "OVHOOKS_BACKEND": None}
    for args in (("search", "deploy"), ("remember", "we deploy on Tuesdays")):
        code, doc = run_json(*args, env=env)
        message, fix = doc["error"]["message"], doc["error"]["fix"]
        assert code == 3 and message.startswith("the local memory store failed:"), doc
        assert "OVHOOKS_DATA_DIR" in fix and "OpenViking" not in message + fix, doc
