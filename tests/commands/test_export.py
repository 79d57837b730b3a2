"""export --to openviking: the local store reaches the server once, resumably, in order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.commands.export import server_uri, session_steps
from tests.support.cli import ENVELOPE, ERROR_ENVELOPE, check_schema, run_cli, run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_inline
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore

PEER = "p-demo"

EXPORT_SCHEMA = {
    **ENVELOPE,
    "to": str,
    "url": str,
    "dry_run": bool,
    "progress_file": str,
    "totals": {
        "sessions": int,
        "sessions_sent": int,
        "messages": int,
        "commits": int,
        "memories": int,
        "requests": int,
        "failed": int,
        "up_to_date": bool,
    },
    "sessions": [{"session_id": str, "messages": int, "commits": int}],
    "memories": [str],
    "failed": [{"kind": str, "target": str, "error": str}],
}


def _msg(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "text": text}], "created_at": "2026-01-01"}


def _turns(session: str, first: int, count: int) -> list[dict[str, Any]]:
    out = []
    for i in range(first, first + count):
        role = "user" if i % 2 == 0 else "assistant"
        out.append(_msg(role, f"{session} message {i}"))
    return out


def local_backend() -> LocalBackend:
    return LocalBackend(os.environ["OVHOOKS_DATA_DIR"], user="default", peer=PEER)


@pytest.fixture
def store() -> LocalBackend:
    """Two sessions and some memories: cx-a has archives of 3 and 2 messages and 2 live ones
    (a preference among them, promoted at commit); cx-b has 250 live messages (3 batches)."""
    local = local_backend()
    local.append_messages("cx-a", _turns("a", 0, 2))
    local.append_messages("cx-a", [_msg("user", "Remember: in this repo I always use tabs")])
    local.commit("cx-a")
    local.append_messages("cx-a", _turns("a", 3, 2))
    local.commit("cx-a")
    local.append_messages("cx-a", _turns("a", 5, 2))
    for first in range(0, 250, 100):
        local.append_messages("cx-b", _turns("b", first, min(100, 250 - first)))
    local.write(f"{local.memories_root}/preferences/default/editor.md", "Uses helix.\n")
    local.write(f"{local.memory_root_for(PEER)}/entities/facts/db.md", "Postgres 16.\n")
    local.write(local.profile_uri, "# Profile\n\n- Prefers short answers.\n")
    local.close()
    return local


def local_texts(session: str) -> list[str]:
    return LocalStore(Path(os.environ["OVHOOKS_DATA_DIR"])).texts(session)


def local_memories() -> dict[str, str]:
    local = local_backend()
    try:
        return {uri: content for uri, _peer, content in local.export_memories()}
    finally:
        local.close()


def export(url: str, *extra: str) -> tuple[int, dict[str, Any]]:
    return run_json("export", "--to", "openviking", "--url", url, *extra)


def session_writes(fake: FakeOpenViking, session: str) -> list[tuple[str, int]]:
    """(append|commit, messages or keep_recent) for the session, in request order."""
    out = []
    for r in fake.requests:
        if r["path"] == f"/api/v1/sessions/{session}/messages/batch":
            out.append(("append", len(r["body"]["messages"])))
        elif r["path"] == f"/api/v1/sessions/{session}/commit":
            out.append(("commit", int((r["body"] or {}).get("keep_recent_count", 0))))
    return out


def assert_server_matches_local(fake: FakeOpenViking) -> None:
    for session in ("cx-a", "cx-b"):
        assert fake.texts(session) == local_texts(session), session
    assert [len(a) for a in fake.sessions["cx-a"]["archives"]] == [3, 2]
    assert len(fake.sessions["cx-a"]["messages"]) == 2
    assert fake.sessions["cx-b"]["archives"] == [] and fake.sessions["cx-b"]["commit_count"] == 0
    assert fake.files == local_memories()


# --- planning (pure) --------------------------------------------------------------------


def test_plan_sends_archives_then_live_and_skips_what_was_sent() -> None:
    seqs = [(0, 1), (1, 1), (2, 2), (3, None), (4, None)]
    fresh = session_steps("s", "", seqs, done_seq=-1, done_archives=0)
    assert [(s.kind, s.seqs, s.number) for s in fresh] == [
        ("append", [0, 1], 0),
        ("commit", [], 1),
        ("append", [2], 0),
        ("commit", [], 2),
        ("append", [3, 4], 0),
    ]
    # seq 0..3 were sent live by an earlier export and archive 1 committed; 0..2 then got
    # archived locally as archive 2: commit it keeping seq 3 live on the server
    later = [(0, 1), (1, 1), (2, 2), (3, None), (4, None)]
    steps = session_steps("s", "", later, done_seq=3, done_archives=1)
    assert [(s.kind, s.seqs, s.keep_recent) for s in steps] == [
        ("commit", [], 1),
        ("append", [4], 0),
    ]
    assert session_steps("s", "", later, done_seq=4, done_archives=2) == []


def test_plan_batches_at_most_100_messages() -> None:
    steps = session_steps("s", "", [(i, None) for i in range(250)], done_seq=-1, done_archives=0)
    assert [len(s.seqs) for s in steps] == [100, 100, 50]


def test_memory_uris_move_to_the_server_user() -> None:
    uri = "viking://user/default/memories/preferences/default/x.md"
    assert server_uri(uri, "default", "alice") == (
        "viking://user/alice/memories/preferences/default/x.md"
    )
    assert server_uri(uri, "default", "default") == uri
    assert server_uri("viking://user/bob/memories/x.md", "default", "alice").startswith(
        "viking://user/bob/"
    )


# --- the command --------------------------------------------------------------------------


def test_export_sends_every_session_and_memory_once_in_order(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    check_schema(doc, EXPORT_SCHEMA)
    assert_server_matches_local(fake_ov)
    assert session_writes(fake_ov, "cx-a") == [
        ("append", 3),
        ("commit", 0),
        ("append", 2),
        ("commit", 0),
        ("append", 2),
    ]
    assert session_writes(fake_ov, "cx-b") == [("append", 100), ("append", 100), ("append", 50)]
    assert any("tabs" in text for text in fake_ov.files.values()), "the promoted preference"
    assert "viking://user/default/memories/profile.md" in fake_ov.files
    writes = [r for r in fake_ov.requests if r["path"] == "/api/v1/content/write"]
    assert sorted(r["body"]["uri"] for r in writes) == sorted(local_memories())
    # each session goes out as its project peer, as the hooks send it
    for r in fake_ov.requests:
        if "/sessions/" in r["path"]:
            assert r["headers"].get("X-OpenViking-Actor-Peer") == PEER
    assert doc["totals"] == {
        "sessions": 2,
        "sessions_sent": 2,
        "messages": 257,
        "commits": 2,
        "memories": len(local_memories()),
        "requests": len(fake_ov.requests),
        "failed": 0,
        "up_to_date": False,
    }


def test_second_export_sends_nothing(store: LocalBackend, fake_ov: FakeOpenViking) -> None:
    assert export(fake_ov.url)[0] == 0
    before = len(fake_ov.requests)
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    assert len(fake_ov.requests) == before, fake_ov.requests[before:]
    assert doc["totals"]["up_to_date"] is True and doc["totals"]["requests"] == 0
    assert_server_matches_local(fake_ov)


def test_later_local_turns_and_commits_follow_incrementally(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    assert export(fake_ov.url)[0] == 0
    local = local_backend()
    # cx-a's two live messages (already on the server) plus one new get archived locally,
    # keeping the new one live; then one more live message and an edited memory
    local.append_messages("cx-a", _turns("a", 7, 1))
    local.commit("cx-a", keep_recent_count=1)
    local.append_messages("cx-a", _turns("a", 8, 1))
    local.write(f"{local.memories_root}/preferences/default/editor.md", "Uses helix 25.\n")
    local.close()
    before = len(fake_ov.requests)
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    sent = [(r["path"].rsplit("/", 1)[-1], r["body"]) for r in fake_ov.requests[before:]]
    # archive 3 (seq 5, 6) was all sent live already: only its commit, keeping nothing live
    # after it; then the two new live messages; then the edited memory
    assert [path for path, _ in sent] == ["commit", "batch", "write"]
    assert sent[0][1] == {}
    assert [m["parts"][0]["text"] for m in sent[1][1]["messages"]] == [
        "a message 7",
        "a message 8",
    ]
    assert sent[2][1]["content"] == "Uses helix 25.\n"
    assert fake_ov.texts("cx-a") == local_texts("cx-a")
    assert [len(a) for a in fake_ov.sessions["cx-a"]["archives"]] == [3, 2, 2]


def test_commit_keeps_live_what_an_earlier_export_sent_after_the_archive(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    assert export(fake_ov.url)[0] == 0
    local = local_backend()
    local.commit("cx-a", keep_recent_count=1)  # archives seq 5, keeps seq 6 (both sent)
    local.close()
    before = len(fake_ov.requests)
    assert export(fake_ov.url)[0] == 0
    new = fake_ov.requests[before:]
    assert [(r["path"], r["body"]) for r in new] == [
        ("/api/v1/sessions/cx-a/commit", {"keep_recent_count": 1})
    ]


class FailingAfter(FakeOpenViking):
    """Answers 500 from the request numbered ``fail_at`` on; with ``apply_first`` that one
    request is carried out before its answer is lost (a timeout after the server acted)."""

    def __init__(self, fail_at: int, *, apply_first: bool = False) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.apply_first = apply_first

    def _dispatch(self, handler: Any, raw: bytes) -> None:
        with self.lock:
            n = len(self.requests) + 1
            if n >= self.fail_at and self.mode == "ok":
                self.mode = "error500"
                if self.apply_first:
                    self._route(*self._parse_for_apply(handler, raw))
        super()._dispatch(handler, raw)

    @staticmethod
    def _parse_for_apply(handler: Any, raw: bytes) -> tuple[str, str, dict[str, str], Any]:
        import json
        from urllib.parse import parse_qs, urlsplit

        split = urlsplit(handler.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        return handler.command, split.path, query, json.loads(raw) if raw else None


# The export's requests: 1 whoami, 2 append cx-a (3), 3 commit, 4 append (2), 5 commit,
# 6 append (2 live), 7-9 cx-b's three batches, 10.. the memory files.
@pytest.mark.parametrize("fail_at", [1, 2, 3, 5, 7, 9, 11])
@pytest.mark.parametrize("apply_first", [False, True], ids=["not-applied", "answer-lost"])
def test_interrupted_export_resumes_and_sends_each_message_once(
    store: LocalBackend, fail_at: int, apply_first: bool
) -> None:
    fake = FailingAfter(fail_at, apply_first=apply_first)
    fake.start()
    try:
        code, doc = export(fake.url)
        assert code == 3, doc
        check_schema(doc, ERROR_ENVELOPE)
        assert "run the same command again" in doc["error"]["fix"]
        fake.mode = "ok"
        fake.fail_at = 10**9
        code, doc = export(fake.url)
        assert code == 0, doc
        assert_server_matches_local(fake)
        code, doc = export(fake.url)
        assert doc["totals"]["up_to_date"] is True
    finally:
        fake.stop()


class Refusing(FakeOpenViking):
    """Answers 400 to anything about ``refused`` (a session id or a memory URI)."""

    def __init__(self, refused: str) -> None:
        super().__init__()
        self.refused = refused

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if self.refused and (
            f"/sessions/{self.refused}/" in path or (body or {}).get("uri") == self.refused
        ):
            return self._err(400, "INVALID_ARGUMENT", "refused")
        return super()._route(method, path, query, body)


def test_an_item_refused_for_good_does_not_block_the_rest(store: LocalBackend) -> None:
    fake = Refusing("cx-a")
    fake.start()
    try:
        code, doc = export(fake.url)
        assert code == 7, doc
        check_schema(doc, EXPORT_SCHEMA)
        # cx-a's first batch was refused; the rest of cx-a waits, everything else went over
        assert doc["failed"] == [
            {"kind": "append", "target": "cx-a", "error": doc["failed"][0]["error"]}
        ]
        assert "cx-a" not in fake.sessions and fake.texts("cx-b") == local_texts("cx-b")
        assert fake.files == local_memories()
        assert len(session_writes(fake, "cx-a")) == 1
        fake.refused = ""
        code, doc = export(fake.url)
        assert code == 0, doc
        assert doc["totals"]["messages"] == 7 and doc["totals"]["memories"] == 0
        assert_server_matches_local(fake)
    finally:
        fake.stop()


def test_a_progress_file_not_understood_stops_the_export(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    code, doc = export(fake_ov.url, "--dry-run")
    progress = Path(doc["progress_file"])
    progress.parent.mkdir(parents=True)
    progress.write_text('{"v": 99}')
    code, doc = export(fake_ov.url)
    assert code == 1 and doc["error"]["code"] == "bad_progress", doc
    assert fake_ov.writes() == []


def test_dry_run_sends_nothing_and_keeps_no_progress(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    code, doc = export(fake_ov.url, "--dry-run")
    assert code == 0, doc
    check_schema(doc, EXPORT_SCHEMA)
    assert fake_ov.requests == []
    assert doc["dry_run"] is True and doc["totals"]["messages"] == 257
    assert doc["totals"]["commits"] == 2 and doc["totals"]["memories"] == len(local_memories())
    assert not Path(doc["progress_file"]).exists()
    # after a partial export, a dry run leaves the progress file as it was
    partial = FailingAfter(3)
    partial.start()
    try:
        assert export(partial.url)[0] == 3
        progress = Path(export(partial.url, "--dry-run")[1]["progress_file"])
        saved = progress.read_bytes()
        before = len(partial.requests)
        code, doc = export(partial.url, "--dry-run")
        assert code == 0 and len(partial.requests) == before
        assert progress.read_bytes() == saved
        assert 0 < doc["totals"]["messages"] < 257
    finally:
        partial.stop()


def test_human_output_and_errors(store: LocalBackend, fake_ov: FakeOpenViking) -> None:
    result = run_cli("export", "--to", "openviking", "--url", fake_ov.url)
    assert result.exit_code == 0, result.output
    assert "sent 257 message(s) in 2 session(s), 2 commit(s)" in result.stdout
    again = run_cli("export", "--to", "openviking", "--url", fake_ov.url)
    assert "nothing to export" in again.stdout
    code, doc = run_json("export", "--to", "mem0")
    assert code == 2 and doc["error"]["code"] == "usage"
    fake_ov.stop()
    # another spelling of the (now stopped) server: a progress file of its own, all to send
    code, doc = export(f"http://localhost:{fake_ov.port}")
    assert code == 3 and doc["error"]["code"] == "server_unreachable"


def test_no_local_store_is_an_error_not_an_empty_export(fake_ov: FakeOpenViking) -> None:
    code, doc = export(fake_ov.url)
    assert code == 4 and doc["error"]["code"] == "not_found"
    assert not Path(os.environ["OVHOOKS_DATA_DIR"], "memory.db").exists()
    assert fake_ov.requests == []


def test_url_and_identity_come_from_the_settings(
    store: LocalBackend, fake_ov: FakeOpenViking
) -> None:
    code, doc = run_json("export", "--to", "openviking", env={"OPENVIKING_URL": fake_ov.url})
    assert code == 0 and doc["url"] == fake_ov.url
    assert fake_ov.texts("cx-b") == local_texts("cx-b")
    # no user configured: the memory files go under the user the server says the caller is
    assert "/api/v1/system/status" in [r["path"] for r in fake_ov.requests]


def test_live_capture_continues_on_the_server_without_duplicates(
    tmp_path: Path, fake_ov: FakeOpenViking
) -> None:
    local = LocalStore(Path(os.environ["OVHOOKS_DATA_DIR"]))
    work = tmp_path / "work"
    work.mkdir()
    rollout = CodexRollout(tmp_path / "r.jsonl", "s1")

    def hook(command: str, event: str, env: dict[str, str], **extra: Any) -> None:
        payload = codex_payload(event, "s1", rollout.path, work, **extra)
        run_inline(command, payload, env)

    hook("session-start", "SessionStart", local.env(), source="startup")
    rollout.turn(1)
    hook("stop", "Stop", local.env())
    rollout.turn(2)
    hook("stop", "Stop", local.env())
    assert len(local.texts("cx-s1")) == 4
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    server_env = hook_env(fake_ov.url)  # OPENVIKING_URL + OVHOOKS_BACKEND=openviking
    rollout.turn(3)
    hook("stop", "Stop", server_env)
    hook("stop", "Stop", server_env)
    assert [t.split(":")[0] for t in fake_ov.texts("cx-s1")] == [
        f"{kind} number {i}" for i in (1, 2, 3) for kind in ("Question", "Answer")
    ]
    assert len(local.texts("cx-s1")) == 4, "nothing more went to the local store"


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("how", ["flag", "env", "default"])
def test_no_server_names_what_to_set_and_which_server_it_tried(
    store: LocalBackend, how: str
) -> None:
    """Issue 11: the fix named neither OPENVIKING_URL nor --url."""
    url = f"http://127.0.0.1:{_closed_port()}"
    if how == "default" and _listening(1933):
        pytest.skip("something listens on the default port 1933 here")
    args = ["export", "--to", "openviking"] + (["--url", url] if how == "flag" else [])
    env = {"OPENVIKING_URL": url} if how == "env" else {}
    code, doc = run_json(*args, env=env)
    assert code == 3, doc
    fix = doc["error"]["fix"]
    assert "--url" in fix and "OPENVIKING_URL" in fix, fix
    if how == "flag":
        assert f"--url {url}" in fix
    elif how == "env":
        assert url in fix and "env:OPENVIKING_URL" in fix
    else:
        assert "no server configured" in fix


def test_a_batch_the_server_applies_late_is_not_exported_twice(
    store: LocalBackend, fake_ov: FakeOpenViking, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client gives up, the server applies the batch later: checked, never resent."""
    import time

    monkeypatch.setenv("OVHOOKS_REQUEST_TIMEOUT_S", "0.5")
    monkeypatch.setenv("OVHOOKS_INFLIGHT_WINDOW_S", "60")
    fake_ov.writes_only, fake_ov.mode, fake_ov.delay_s = True, "slow", 1.5
    code, _doc = export(fake_ov.url)
    assert code == 3  # timed out
    posts = sum(1 for r in fake_ov.requests if r["method"] == "POST")
    code, doc = export(fake_ov.url)
    assert code == 7 and "may still be applied" in doc["error"]["message"], doc
    assert sum(1 for r in fake_ov.requests if r["method"] == "POST") == posts  # not resent
    fake_ov.mode, fake_ov.delay_s = "ok", 0.0
    time.sleep(1.6)  # the original lands
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    assert_server_matches_local(fake_ov)


def test_export_scrubs_what_the_local_store_kept(fake_ov: FakeOpenViking) -> None:
    """Text stored before today's rules (or written around the scrubber) is scrubbed again
    on its way to the server: messages, memory content and memory URIs."""
    token = "hf_" + "QmXrTzVbNcLkJhGfDsAzPoIuYtReWqZxCv"
    local = local_backend()
    local.append_messages("cx-s", [_msg("user", f"use HF_TOKEN={token} for the download")])
    local.write(f"{local.memories_root}/preferences/default/{token}.md", f"token {token}\n")
    local.close()
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    sent = json.dumps([r["body"] for r in fake_ov.requests]) + json.dumps(fake_ov.files)
    assert token not in sent and "QmXrTzVb" not in sent
    assert "download" in sent


def test_a_memory_keeps_its_uri_unless_the_uri_holds_a_secret(fake_ov: FakeOpenViking) -> None:
    """README: same memory URIs. A name that ends in remember's hash made a placeholder the
    scrubber keeps in text look like a key, and the memory arrived as '[REDACTED:…].md'."""
    from ovhooks.commands.memory_ops import memory_uri

    local = local_backend()
    text = "docs use the placeholder sk-proj-abcdefghijklmnopqrst"
    placeholder = memory_uri(local.user, "sk-proj-abcdefghijklmnopqrst", kind="x", name=None, now=0)
    local.write(placeholder, text + "\n")
    token = "hf_" + "QmXrTzVbNcLkJhGfDsAzPoIuYtReWqZxCv"
    secret = f"{local.memories_root}/preferences/default/{token.lower()}-a1b2c3.md"
    local.write(secret, "a token\n")
    local.close()
    code, doc = export(fake_ov.url)
    assert code == 0, doc
    assert fake_ov.files[placeholder] == text + "\n"
    named = [uri for uri in fake_ov.files if uri.endswith("-a1b2c3.md")]
    assert named == [f"{local.memories_root}/preferences/default/redacted-a1b2c3.md"], named


@pytest.mark.parametrize(
    ("url", "environ", "where"),
    [
        ("http://127.0.0.1:9", {}, "export used --url http://127.0.0.1:9:"),
        (None, {}, "export used no server configured, so the default http://127.0.0.1:1933:"),
        (
            None,
            {"OPENVIKING_URL": "http://127.0.0.1:9"},
            "export used http://127.0.0.1:9 from env:OPENVIKING_URL:",
        ),
    ],
)
def test_a_stopped_export_says_what_went_over_and_which_server(
    url: str | None, environ: dict[str, str], where: str
) -> None:
    from ovhooks.commands.export import stopped_failure
    from ovhooks.settings.config import load_settings
    from ovhooks.transport.errors import BackendError

    settings = load_settings({**os.environ, **environ})
    target = (url or settings.url).rstrip("/")
    done = {"messages": 120, "commits": 2, "memories": 0}
    failure = stopped_failure(
        BackendError("unreachable", "connection refused"),
        done,
        target=target,
        url=url,
        settings=settings,
    )
    assert failure.message == (
        f"memory server unreachable at {target}: connection refused (export stopped after "
        "120 message(s), 2 commit(s), 0 memory file(s))"
    )
    assert failure.fix.startswith(where), failure.fix
    assert failure.slug == "server_unreachable"
