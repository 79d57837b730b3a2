"""import: past transcripts reach the store exactly as live capture would have sent them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import ENVELOPE, OPT_STR, check_schema, run_cli, run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_inline

CODEX_SID = "01a201de-87c7-7a30-ba45-7a6cf1e11575"
CLAUDE_SID = "d35d66ca-7371-459e-9033-a440c89c7c20"

IMPORT_SCHEMA = {
    **ENVELOPE,
    "host": str,
    "dry_run": bool,
    "plan": [str],
    "totals": {
        "files": int,
        "imported": int,
        "up_to_date": int,
        "failed": int,
        "messages": int,
        "sent": int,
        "commits": int,
    },
    "results": [
        {
            "path": str,
            "session": str,
            "key": str,
            "status": str,
            "messages": int,
            "sent": int,
            "commits": int,
            "remaining": int,
            "error": OPT_STR,
        }
    ],
}


# Where the fixtures were recorded. The project folder they name is moved beside the placed
# transcript: resolving a project reads files in it (.git, .ovhooks.toml ...), and a test must
# not read /tmp/e2e-probe, outside the repository (it fails from a clone in /tmp).
RECORDED_WORK = "/tmp/e2e-probe/work-"


def work_root(transcript: Path) -> str:
    return f"{transcript.parent}/work-"


def place(host: str, host_samples: Path, root: Path) -> Path:
    """Put the fixture transcript where the host keeps it (name carries the session id), its
    project folder moved into the test's own temp dir."""
    if host == "codex":
        folder = root / "sessions" / "2026" / "11" / "22"
        name = f"rollout-2026-11-22T06-08-10-{CODEX_SID}.jsonl"
        source = host_samples / "codex" / "rollout-transcript.trimmed.jsonl"
    else:
        folder = root / "projects" / "-tmp-e2e-probe-work-claude"
        name = f"{CLAUDE_SID}.jsonl"
        source = host_samples / "claude" / "session-transcript.trimmed.jsonl"
    folder.mkdir(parents=True)
    text = source.read_text(encoding="utf-8")
    (folder / name).write_text(text.replace(RECORDED_WORK, work_root(folder / name)), "utf-8")
    (folder / name).chmod(0o644)
    return folder / name


def stop_payload(host: str, host_samples: Path, transcript: Path) -> dict[str, Any]:
    """The recorded Stop payload, for a Stop fired at the end of ``transcript`` as it is now:
    Claude's ``last_assistant_message`` is the last reply in the file."""
    payload: dict[str, Any] = json.loads(
        (host_samples / host / "hook-payloads" / "Stop.json").read_text()
    )
    payload["transcript_path"] = str(transcript)
    payload["cwd"] = str(payload["cwd"]).replace(RECORDED_WORK, work_root(transcript))
    if host == "claude":
        for line in transcript.read_text().splitlines():
            record = json.loads(line)
            content = (record.get("message") or {}).get("content")
            if record.get("type") == "assistant" and isinstance(content, list):
                texts = [c["text"] for c in content if c.get("type") == "text"]
                if texts:
                    payload["last_assistant_message"] = "\n".join(texts)
    return payload


def use_state(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OVHOOKS_STATE_DIR", str(tmp_path / name))


def env_for(host: str, root: Path, url: str) -> dict[str, str]:
    var = "CODEX_HOME" if host == "codex" else "CLAUDE_CONFIG_DIR"
    return {var: str(root), "OPENVIKING_URL": url, "OVHOOKS_BACKEND": "openviking"}


def ov_id(host: str) -> str:
    return f"cx-{CODEX_SID}" if host == "codex" else f"cc-{CLAUDE_SID}"


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_import_sends_exactly_what_live_capture_sends(
    host: str, host_samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / host
    transcript = place(host, host_samples, root)
    # live: the Stop hook on the whole transcript
    use_state(tmp_path, "state-live", monkeypatch)
    live = FakeOpenViking().start()
    try:
        run_inline(
            "stop", stop_payload(host, host_samples, transcript), hook_env(live.url), host=host
        )
        live_messages = live.messages(ov_id(host))
    finally:
        live.stop()
    assert live_messages, "live capture sent nothing: the comparison would be empty"
    # import into a fresh state and a fresh server
    use_state(tmp_path, "state-import", monkeypatch)
    server = FakeOpenViking().start()
    try:
        code, doc = run_json("import", host, env=env_for(host, root, server.url))
        imported = server.messages(ov_id(host))
        paths = [r["path"] for r in server.writes()]
    finally:
        server.stop()
    assert code == 0, doc
    check_schema(doc, IMPORT_SCHEMA)
    assert doc["totals"]["imported"] == 1 and doc["results"][0]["key"] == ov_id(host)
    # the same messages; each send marks them with its own capture's name (outbox.send.marked)
    assert _unmarked(imported) == _unmarked(live_messages)
    assert all(m["turn_id"].startswith("ovh1:") for m in imported + live_messages)
    assert all("/commit" not in p for p in paths), "a session still in use is left open"


def _unmarked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "turn_id"} for m in messages]


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_live_stop_after_import_sends_only_new_turns(
    host: str, host_samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / host
    transcript = place(host, host_samples, root)
    full = transcript.read_bytes().splitlines(keepends=True)
    # what live capture sends for the whole conversation
    use_state(tmp_path, "state-live", monkeypatch)
    live = FakeOpenViking().start()
    try:
        run_inline(
            "stop", stop_payload(host, host_samples, transcript), hook_env(live.url), host=host
        )
        expected = live.messages(ov_id(host))
    finally:
        live.stop()
    # import the first turns, then the conversation goes on and a live Stop fires; the cut
    # sits where a Stop would fire (Codex: after task_complete; Claude: after the reply)
    cut = {"codex": 16, "claude": 20}[host]
    transcript.write_bytes(b"".join(full[:cut]))
    use_state(tmp_path, "state-mixed", monkeypatch)
    server = FakeOpenViking().start()
    try:
        code, doc = run_json("import", host, env=env_for(host, root, server.url))
        assert code == 0, doc
        first = list(server.messages(ov_id(host)))
        transcript.write_bytes(b"".join(full))
        run_inline(
            "stop", stop_payload(host, host_samples, transcript), hook_env(server.url), host=host
        )
        combined = server.messages(ov_id(host))
        code, again = run_json("import", host, env=env_for(host, root, server.url))
        after_reimport = server.messages(ov_id(host))
    finally:
        server.stop()
    assert first and len(first) < len(expected)
    assert _unmarked(combined) == _unmarked(expected), "import + live Stop = one live capture"
    assert after_reimport == combined, "importing again sends nothing"
    assert again["totals"]["up_to_date"] == 1


def test_dry_run_sends_and_changes_nothing(
    host_samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "codex"
    place("codex", host_samples, root)
    server = FakeOpenViking().start()
    try:
        code, doc = run_json("import", "codex", "--dry-run", env=env_for("codex", root, server.url))
        writes = server.writes()
    finally:
        server.stop()
    assert code == 0
    check_schema(doc, IMPORT_SCHEMA)
    assert doc["results"][0]["status"] == "dry_run" and doc["results"][0]["messages"] > 0
    assert any("messages/batch" in line for line in doc["plan"])
    assert writes == []
    state = Path(os.environ["OVHOOKS_STATE_DIR"])
    assert not (state / "sessions").exists() or not any((state / "sessions").iterdir())


def test_idle_sessions_are_committed_and_since_filters(host_samples: Path, tmp_path: Path) -> None:
    root = tmp_path / "codex"
    transcript = place("codex", host_samples, root)
    old = 1_700_000_000
    os.utime(transcript, (old, old))
    server = FakeOpenViking().start()
    try:
        env = env_for("codex", root, server.url)
        code, skipped = run_json("import", "codex", "--since", "7d", env=env)
        assert code == 0 and skipped["totals"]["files"] == 0
        code, doc = run_json("import", "codex", "--since", "2023-01-01", env=env)
        commits = [r for r in server.writes() if r["path"].endswith("/commit")]
    finally:
        server.stop()
    assert code == 0 and doc["totals"]["commits"] == 1 and len(commits) == 1


def test_server_down_leaves_work_queued_and_exit_code_says_so(
    host_samples: Path, tmp_path: Path
) -> None:
    root = tmp_path / "codex"
    place("codex", host_samples, root)
    server = FakeOpenViking().start()
    server.refuse()
    code, doc = run_json("import", "codex", env=env_for("codex", root, server.url))
    assert code == 7
    assert doc["results"][0]["status"] == "failed" and doc["results"][0]["remaining"] >= 1
    server.restart()
    try:
        code, flushed = run_json("flush", env=env_for("codex", root, server.url))
        assert server.messages(ov_id("codex"))
    finally:
        server.stop()
    assert code == 0 and flushed["results"][0]["remaining"] == 0


def test_unknown_path_is_a_clear_error(tmp_path: Path) -> None:
    code, doc = run_json("import", "codex", str(tmp_path / "nope"))
    assert code == 4 and doc["error"]["code"] == "not_found"


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_nothing_found_says_where_it_looked(host: str, tmp_path: Path) -> None:
    env = {"CODEX_HOME": str(tmp_path / "cx"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    result = run_cli("import", host, env=env)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    where = tmp_path / ("cx/sessions" if host == "codex" else "cc/projects")
    assert str(where) in text, text
    assert ("CODEX_HOME" if host == "codex" else "CLAUDE_CONFIG_DIR") in text
    empty = tmp_path / "empty"
    empty.mkdir()
    assert str(empty) in " ".join(run_cli("import", host, str(empty)).output.split())


def test_totals_count_each_status_and_sum_the_work() -> None:
    from ovhooks.commands.importer import totals_of

    def row(status: str, messages: int, sent: int, commits: int) -> dict[str, Any]:
        return {"status": status, "messages": messages, "sent": sent, "commits": commits}

    results = [row("imported", 4, 4, 1), row("up_to_date", 0, 0, 0), row("failed", 3, 1, 0)]
    assert totals_of(results) == {
        "files": 3,
        "imported": 1,
        "up_to_date": 1,
        "failed": 1,
        "messages": 7,
        "sent": 5,
        "commits": 1,
    }
    assert totals_of([])["files"] == 0


def test_select_reads_the_environment_it_is_given(host_samples: Path, tmp_path: Path) -> None:
    from ovhooks.commands.import_scan import select

    root = tmp_path / "codex"
    transcript = place("codex", host_samples, root)
    environ = {"CODEX_HOME": str(root), "HOME": str(tmp_path / "elsewhere")}
    found = select("codex", [], None, now=0.0, environ=environ)
    assert [t.path for t in found] == [str(transcript)]
    assert found[0].session_id and found[0].host == "codex"
    mtime = transcript.stat().st_mtime
    assert select("codex", [], "1d", now=mtime + 2 * 86400, environ=environ) == []
    assert len(select("codex", [], "3d", now=mtime + 2 * 86400, environ=environ)) == 1


@pytest.mark.timeout(60)  # a regression hangs on the FIFO or the loops: fail it soon
def test_a_folder_with_a_fifo_a_device_link_and_link_loops_is_scanned_once_at_once(
    tmp_path: Path,
) -> None:
    # A FIFO blocked the scan forever, a link to /dev/zero was read without bound, three
    # links to . and .. made the recursive glob run on without end, and one of them counted
    # the same transcript 41 times.
    from ovhooks.commands.import_scan import select

    project = tmp_path / "projects" / "-tmp-x"
    project.mkdir(parents=True)
    good = project / f"{CLAUDE_SID}.jsonl"
    good.write_text(json.dumps({"type": "user", "cwd": "/w", "message": {"content": "hi"}}))
    os.mkfifo(project / "fifo.jsonl")
    (project / "zero.jsonl").symlink_to("/dev/zero")
    for name, target in (("l1", "."), ("l2", "."), ("l3", "..")):
        (project / name).symlink_to(target)
    found = select("claude", [str(tmp_path / "projects")], None, now=0.0, environ={})
    assert [t.path for t in found] == [str(good)]
    code, doc = run_json("import", "claude", str(project / "fifo.jsonl"), "--dry-run")
    assert code == 1 and "not a regular file" in doc["error"]["message"]


def test_a_transcript_whose_first_line_is_huge_is_not_read_whole(tmp_path: Path) -> None:
    from ovhooks.commands import import_scan

    path = tmp_path / f"{CLAUDE_SID}.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"cwd": "/w", "x": "' + b"y" * (import_scan._HEAD_LINE_MAX + 10) + b'"}\n')
        fh.write(json.dumps({"cwd": "/second"}).encode() + b"\n")
    found = import_scan.identify("claude", str(path))
    assert found is not None and found.cwd == ""  # the head stopped at the long line


def test_a_since_date_out_of_the_platforms_range_is_a_usage_error() -> None:
    code, doc = run_json("import", "claude", "--since", "0001-01-01", "--dry-run")
    assert code == 2 and "cannot read --since" in doc["error"]["message"], doc
