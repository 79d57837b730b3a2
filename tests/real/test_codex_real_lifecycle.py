"""The whole Codex lifecycle against the real OpenViking 0.5.2 server (capture-only profile).

start → prompts → stops → compact → more turns → end → next session: every turn reaches the
server exactly once, in order, with no injected block or host boilerplate, across two
commits; the next session's startup leaves the ended one alone.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support import ov_server
from tests.support.hooks import assert_host_valid, hook_env, run_inline
from tests.support.rollouts import CodexRollout, codex_payload


def _messages(client: httpx.Client, user: str, session_id: str) -> list[dict[str, Any]]:
    """Every message of the session: archived ones in archive order, then live ones.

    Archives are read from their ``messages.jsonl`` (phase 1 of a commit writes it); the
    archive route needs a working-memory overview, which the capture-only profile never has.
    """
    info = client.get(f"/api/v1/sessions/{session_id}").json()["result"]
    out: list[dict[str, Any]] = []
    for n in range(1, int(info.get("commit_count") or 0) + 1):
        uri = f"viking://user/{user}/sessions/{session_id}/history/archive_{n:03d}/messages.jsonl"
        archive = client.get("/api/v1/content/read", params={"uri": uri})
        assert archive.status_code == 200, archive.text
        out.extend(
            json.loads(line) for line in archive.json()["result"].splitlines() if line.strip()
        )
    live = client.get(f"/api/v1/sessions/{session_id}/context", params={"token_budget": 128000})
    out.extend(live.json()["result"]["messages"])
    # The context route also replays messages of archives whose commit task is still
    # running. The server gives every appended message its own id, so the same id twice is
    # one message read twice; a message sent twice would carry two ids and still show.
    seen: set[str] = set()
    unique = []
    for message in out:
        if message.get("id") not in seen:
            seen.add(str(message.get("id")))
            unique.append(message)
    return unique


def _text(message: dict[str, Any]) -> str:
    return " ".join(
        str(p.get("text", "")) for p in message.get("parts", []) if p.get("type") == "text"
    )


def test_codex_lifecycle_against_real_server(
    ov_server_capture: ov_server.OvServer,
    capture_client: httpx.Client,
    ov_user: str,
    tmp_path: Path,
) -> None:
    # Inline hooks against a real server: on a loaded machine a Stop or a commit can pass
    # the 5 s hook deadline and leave its write queued, and this test is about the lifecycle's
    # outcome (the hooks' budgets have their own tests), so the hooks get the time they need.
    env = hook_env(ov_server_capture.url, OPENVIKING_USER=ov_user, OVHOOKS_HOOK_DEADLINE_S="60")
    work = tmp_path / "work"
    work.mkdir()
    sid = f"real-{int(time.time() * 1000)}"
    ov_sid = f"cx-{sid}"
    rollout = CodexRollout(tmp_path / "rollout.jsonl", sid)

    def hook(command: str, event: str, **extra: Any) -> dict[str, Any]:
        reply, _ = run_inline(command, codex_payload(event, sid, rollout.path, work, **extra), env)
        assert_host_valid("codex", event, reply)
        return reply

    hook("session-start", "SessionStart", source="startup")
    rollout.environment()
    rollout.developer('<openviking-context source="session-start">profile</openviking-context>')
    hook(
        "user-prompt-submit",
        "UserPromptSubmit",
        prompt="Question number 1: how should the parser handle nested lists?",
    )
    rollout.turn(1)
    hook("stop", "Stop")
    rollout.user("Run the tests please")
    rollout.shell("pytest -q", "3 passed")
    rollout.assistant("All 3 tests pass.")
    hook("stop", "Stop")
    hook("pre-compact", "PreCompact", trigger="auto")
    rollout.compaction()
    hook("post-compact", "PostCompact", trigger="auto")
    hook("session-start", "SessionStart", source="compact")
    rollout.turn(2)
    hook("stop", "Stop")
    hook("session-end", "SessionEnd", reason="other")

    info = capture_client.get(f"/api/v1/sessions/{ov_sid}").json()["result"]
    assert info["commit_count"] == 2, info
    messages = _messages(capture_client, ov_user, ov_sid)
    texts = [_text(m) for m in messages]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert "Question number 1" in texts[0] and "Answer number 1" in texts[1]
    assert "Run the tests please" in texts[2] and "All 3 tests pass" in texts[3]
    assert "Question number 2" in texts[4] and "Answer number 2" in texts[5]
    joined = "\n".join(texts)
    for leaked in ("openviking-context", "environment_context", "summary of earlier work"):
        assert leaked not in joined
    tools = [p for m in messages for p in m.get("parts", []) if p.get("type") == "tool"]
    assert any("pytest -q" in str(p.get("tool_input")) for p in tools)

    # the next session starts: the ended session is not committed again
    other = CodexRollout(tmp_path / "other.jsonl", sid + "-next")
    reply, _ = run_inline(
        "session-start",
        codex_payload("SessionStart", sid + "-next", other.path, work, source="startup"),
        env,
    )
    assert_host_valid("codex", "SessionStart", reply)
    assert capture_client.get(f"/api/v1/sessions/{ov_sid}").json()["result"]["commit_count"] == 2
