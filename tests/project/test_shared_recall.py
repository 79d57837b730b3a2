"""Two clones of one repository, at different paths and over ssh and https, are one project."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.ids import project_peer
from ovhooks.project import resolve
from tests.support.hooks import run_inline
from tests.support.repos import make_clone
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore

SSH = "git@github.com:Acme/Widget.git"
HTTPS = "https://alice:ghp_notreal@github.com/acme/widget"
MEMORY = "The widget build uses bazelisk 1.19 and must run with --config=ci on CI machines."
QUESTION = "Which bazelisk config flag does the widget build need on CI machines?"


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path]:
    first = make_clone(tmp_path / "home" / "alice" / "src" / "widget", SSH)
    second = make_clone(tmp_path / "ci" / "build-7" / "checkout", HTTPS)
    return first, second


def _stop(store: Any, tmp_path: Path, work: Path, sid: str) -> None:
    rollout = CodexRollout(tmp_path / f"{sid}.jsonl", sid)
    rollout.environment()
    rollout.turn(1)
    for event, command in (("SessionStart", "session-start"), ("Stop", "stop")):
        extra = {"source": "startup"} if event == "SessionStart" else {}
        run_inline(command, codex_payload(event, sid, rollout.path, work, **extra), store.env())


def test_both_clones_send_their_turns_under_one_peer(
    store: Any, clones: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = clones
    _stop(store, tmp_path, first / "pkg", "s1")
    _stop(store, tmp_path, second, "s2")
    peer = resolve(str(first)).peer
    assert peer == "github-com-acme-widget"
    if store.name == "openviking":
        sent = [m.get("peer_id") for sid in ("cx-s1", "cx-s2") for m in store.server.messages(sid)]
        assert sent and set(sent) == {peer}
        headers = {
            value
            for r in store.server.requests
            if "/messages" in str(r["path"])  # the writes; a read may act as the old peer
            for name, value in (r.get("headers") or {}).items()
            if name.lower() == "x-openviking-actor-peer"
        }
        assert headers == {peer}
    else:
        assert store.texts("cx-s1") and store.texts("cx-s2")


def _seed(data_dir: Path, peer: str, text: str) -> None:
    backend = LocalBackend(str(data_dir), user="default", peer=peer)
    backend.write(f"viking://~/peers/{peer}/memories/entities/build.md", text)


def _ask(store: Any, work: Path, tmp_path: Path, sid: str) -> str:
    rollout = CodexRollout(tmp_path / f"{sid}.jsonl", sid)
    rollout.environment()
    run_inline(
        "session-start",
        codex_payload("SessionStart", sid, rollout.path, work, source="startup"),
        store.env(),
    )
    reply, _ = run_inline(
        "user-prompt-submit",
        codex_payload("UserPromptSubmit", sid, rollout.path, work, prompt=QUESTION),
        store.env(),
    )
    out = reply.get("hookSpecificOutput") or {}
    return str(out.get("additionalContext") or "")


def test_a_memory_of_one_clone_is_recalled_in_the_other(
    clones: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = clones
    store = LocalStore(Path(os.environ.get("OVHOOKS_DATA_DIR") or tmp_path / "data"))
    _seed(store.data_dir, resolve(str(first)).peer, MEMORY)
    assert "--config=ci" in _ask(store, second, tmp_path, "s9")


def test_memories_under_the_old_path_peer_are_still_recalled(
    clones: tuple[Path, Path], tmp_path: Path
) -> None:
    first, _second = clones
    store = LocalStore(tmp_path / "data")
    old_peer = project_peer(str(first))
    assert resolve(str(first)).legacy_peer == old_peer
    _seed(store.data_dir, old_peer, MEMORY)
    assert "--config=ci" in _ask(store, first, tmp_path, "s3")


def test_a_repository_without_remote_keeps_its_path_peer(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "plain", None)
    identity = resolve(str(clone / "sub"))
    assert identity.peer == project_peer(str(clone))
    assert identity.legacy_peer == "" and identity.source == "project path"
