"""export --to openviking against the real OpenViking 0.5.2 server (capture-only profile).

A local store built the way users build one (Codex hooks on the local backend, plus a
``remember``) goes to the server: every session arrives once with the same archives, every
memory file is readable at its URI, and a second export sends nothing.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx

from ovhooks.backend.local import LocalBackend
from tests.support import ov_server
from tests.support.cli import run_json
from tests.support.hooks import run_inline
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore


def _server_texts(client: httpx.Client, user: str, session_id: str) -> list[str]:
    """Every message text of the session: archives (their messages.jsonl) then live ones."""
    info = client.get(f"/api/v1/sessions/{session_id}").json()["result"]
    messages: list[dict[str, Any]] = []
    for n in range(1, int(info["commit_count"]) + 1):
        uri = f"viking://user/{user}/sessions/{session_id}/history/archive_{n:03d}/messages.jsonl"
        archive = client.get("/api/v1/content/read", params={"uri": uri})
        assert archive.status_code == 200, archive.text
        messages.extend(json.loads(x) for x in archive.json()["result"].splitlines() if x.strip())
    archived_ids = {m.get("id") for m in messages}
    context = client.get(
        f"/api/v1/sessions/{session_id}/context", params={"token_budget": 128000}
    ).json()["result"]
    # the context route may replay an archive whose commit task still runs: same ids
    messages.extend(m for m in context["messages"] if m.get("id") not in archived_ids)
    return [
        " ".join(str(p.get("text", "")) for p in m.get("parts", []) if p.get("type") == "text")
        for m in messages
    ]


def test_export_local_store_to_real_server(
    ov_server_capture: ov_server.OvServer,
    capture_client: httpx.Client,
    ov_user: str,
    tmp_path: Path,
) -> None:
    data_dir = Path(os.environ["OVHOOKS_DATA_DIR"])
    local = LocalStore(data_dir)
    env = local.env(OPENVIKING_USER=ov_user)
    work = tmp_path / "work"
    work.mkdir()
    stamp = int(time.time() * 1000)

    # session 1: a preference, a compaction (commit), more turns, the end (commit)
    s1 = f"exp1-{stamp}"
    r1 = CodexRollout(tmp_path / "r1.jsonl", s1)

    def hook(sid: str, rollout: CodexRollout, command: str, event: str, **extra: Any) -> None:
        run_inline(command, codex_payload(event, sid, rollout.path, work, **extra), env)

    hook(s1, r1, "session-start", "SessionStart", source="startup")
    r1.user("Remember: in this repo I always use tabs, never spaces")
    r1.assistant("Noted: tabs for indentation in this repo.")
    r1.turn(1)
    hook(s1, r1, "stop", "Stop")
    hook(s1, r1, "pre-compact", "PreCompact", trigger="auto")
    r1.compaction()
    r1.turn(2)
    hook(s1, r1, "stop", "Stop")
    hook(s1, r1, "session-end", "SessionEnd", reason="other")
    # session 2: still live
    s2 = f"exp2-{stamp}"
    r2 = CodexRollout(tmp_path / "r2.jsonl", s2)
    hook(s2, r2, "session-start", "SessionStart", source="startup")
    for i in range(3, 6):
        r2.turn(i)
    hook(s2, r2, "stop", "Stop")
    code, doc = run_json(
        "remember",
        "The deploy target is Fly.io in region ams.",
        env={"OPENVIKING_USER": ov_user, "OVHOOKS_BACKEND": "local"},
    )
    assert code == 0, doc

    backend = LocalBackend(str(data_dir), user=ov_user)
    try:
        backend.write(backend.profile_uri, "# Profile\n\n- Prefers short answers.\n")
        sessions = {s["session_id"]: s for s in backend.export_sessions()}
        memories = {uri: content for uri, _peer, content in backend.export_memories()}
    finally:
        backend.close()
    assert set(sessions) == {f"cx-{s1}", f"cx-{s2}"}
    assert sessions[f"cx-{s1}"]["commit_count"] == 2
    assert any("tabs" in c for c in memories.values()), "the commit promoted the preference"
    assert f"viking://user/{ov_user}/memories/profile.md" in memories
    assert any("/peers/" in uri for uri in memories), "a project memory, under its peer"
    assert len(memories) >= 3

    export_env = {"OPENVIKING_USER": ov_user}
    url = ov_server_capture.url
    code, doc = run_json("export", "--to", "openviking", "--url", url, env=export_env)
    assert code == 0, doc
    assert doc["totals"]["commits"] == 2 and doc["totals"]["memories"] == len(memories)

    before: dict[str, Any] = {}
    for sid, session in sessions.items():
        # The export's commits are tasks the server runs after answering: while one archives
        # the session, its info can read as null (seen once in a full CI run).
        ov_server.wait_for_session_commits(capture_client, sid, at_least=session["commit_count"])
        info = capture_client.get(f"/api/v1/sessions/{sid}").json()["result"]
        before[sid] = info
        live = sum(1 for _seq, archive in session["seqs"] if archive is None)
        assert info["total_message_count"] == len(session["seqs"]), info
        assert info["message_count"] == live, info
        assert info["commit_count"] == session["commit_count"], info
        assert _server_texts(capture_client, ov_user, sid) == local.texts(sid)
    for uri, content in memories.items():
        read = capture_client.get("/api/v1/content/read", params={"uri": uri})
        assert read.status_code == 200, (uri, read.text)
        # 0.5.2 gives the text back without its final newline
        assert read.json()["result"].rstrip("\n") == content.rstrip("\n")

    code, again = run_json("export", "--to", "openviking", "--url", url, env=export_env)
    assert code == 0, again
    assert again["totals"]["up_to_date"] is True and again["totals"]["requests"] == 0
    for sid, session in sessions.items():
        ov_server.wait_for_session_commits(capture_client, sid, at_least=session["commit_count"])
        info = capture_client.get(f"/api/v1/sessions/{sid}").json()["result"]
        for key in ("total_message_count", "message_count", "commit_count"):
            assert info[key] == before[sid][key], (sid, key)
