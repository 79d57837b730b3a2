"""Two clones (ssh and https remotes, different paths) share recall on a real OpenViking 0.5.2.

A memory is written under the project's peer (``viking://user/<u>/peers/<peer>/memories``);
the UserPromptSubmit hook run in the *other* clone recalls it, because both clones resolve to
the same peer and the server's context search scopes peer memories by
``X-OpenViking-Actor-Peer``. A memory under the old path-based peer is still found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovhooks.ids import project_peer
from ovhooks.project import resolve
from tests.support.hooks import hook_env, run_inline
from tests.support.repos import make_clone
from tests.support.rollouts import CodexRollout, codex_payload

pytestmark = pytest.mark.real_server

MEMORY = "The widget build uses bazelisk 1.19 and must run with --config=ci on CI machines."
QUESTION = "Which bazelisk config flag does the widget build need on CI machines?"


def _write(client: Any, user: str, peer: str, text: str) -> None:
    uri = f"viking://user/{user}/peers/{peer}/memories/entities/widget_build.md"
    resp = client.post(
        "/api/v1/content/write",
        json={"uri": uri, "content": text, "mode": "replace", "wait": True},
        headers={"X-OpenViking-User": user},
    )
    resp.raise_for_status()


def _ask(url: str, user: str, work: Path, tmp_path: Path, sid: str) -> str:
    # A real server's search on a loaded CI machine can outlast recall's 1.5 s deadline; the
    # hook then answers {} (hook_deadline in its log) and this test, which is about the peer
    # scoping, fails. Latency has its own tests; here recall gets the time it needs.
    env = hook_env(
        url,
        OPENVIKING_USER=user,
        OVHOOKS_RECALL_SCORE_THRESHOLD="0.0",
        OVHOOKS_RECALL_DEADLINE_S="10",
        OVHOOKS_SESSION_START_DEADLINE_S="10",
    )
    rollout = CodexRollout(tmp_path / f"{sid}.jsonl", sid)
    rollout.environment()
    start = codex_payload("SessionStart", sid, rollout.path, work, source="startup")
    run_inline("session-start", start, env)
    prompt = codex_payload("UserPromptSubmit", sid, rollout.path, work, prompt=QUESTION)
    reply, _ = run_inline("user-prompt-submit", prompt, env)
    out = reply.get("hookSpecificOutput") or {}
    return str(out.get("additionalContext") or "")


def test_clones_share_project_memories(
    ov_server_capture: Any, capture_client: Any, ov_user: str, tmp_path: Path
) -> None:
    first = make_clone(tmp_path / "alice" / "widget", "git@github.com:Acme/Widget.git")
    second = make_clone(tmp_path / "ci" / "checkout", "https://x:tok@github.com/acme/widget")
    peer = resolve(str(first)).peer
    assert peer == resolve(str(second)).peer
    _write(capture_client, ov_user, peer, MEMORY)
    assert "--config=ci" in _ask(ov_server_capture.url, ov_user, second, tmp_path, "r1")


def test_old_path_peer_memories_still_found(
    ov_server_capture: Any, capture_client: Any, ov_user: str, tmp_path: Path
) -> None:
    clone = make_clone(tmp_path / "alice" / "widget", "git@github.com:acme/widget.git")
    _write(capture_client, ov_user, project_peer(str(clone)), MEMORY)
    assert "--config=ci" in _ask(ov_server_capture.url, ov_user, clone, tmp_path, "r2")
