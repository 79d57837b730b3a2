"""DirectoryAdded: turns captured after it go to the added directory's project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.hosts.base import Event
from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import assert_host_valid, run_inline
from tests.support.repos import make_clone
from tests.support.stores import FakeServerStore

FIXTURE = Path(__file__).parent.parent / "fixtures" / "claude-2.1.330" / "directory-added.json"


def _payload(event: str, transcript: ClaudeTranscript, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": transcript.session_id,
        "transcript_path": str(transcript.path),
        "cwd": transcript.cwd,
        "hook_event_name": event,
        **extra,
    }


def test_recorded_payload_parses() -> None:
    payload = json.loads(FIXTURE.read_text(encoding="utf-8"))
    event = Event("claude", "DirectoryAdded", payload)
    assert event.directory.endswith("/work/nested") and event.source == "register_repo_root"


def test_turns_after_directory_added_go_to_the_added_project(tmp_path: Path) -> None:
    outer = make_clone(tmp_path / "mono", "git@github.com:acme/mono.git")
    nested = make_clone(outer / "libs" / "parser", "https://github.com/acme/parser.git")
    server = FakeOpenViking().start()
    try:
        store = FakeServerStore(server)
        env = store.env()
        t = ClaudeTranscript(tmp_path / "claude", "s1", outer)
        run_inline(
            "session-start", _payload("SessionStart", t, source="startup"), env, host="claude"
        )
        t.turn(1)
        run_inline("stop", _payload("Stop", t), env, host="claude")
        reply, _ = run_inline(
            "directory-added",
            _payload("DirectoryAdded", t, directory=str(nested), source="slash_command"),
            env,
            host="claude",
        )
        assert reply == {}
        assert_host_valid("claude", "DirectoryAdded", reply)
        t.turn(2)
        run_inline("stop", _payload("Stop", t), env, host="claude")
        peers = [(m.get("peer_id"), m["parts"][0]["text"][:17]) for m in server.messages("cc-s1")]
    finally:
        server.stop()
    assert peers == [
        ("github-com-acme-mono", "Question number 1"),
        ("github-com-acme-mono", "Answer number 1: "),
        ("github-com-acme-parser", "Question number 2"),
        ("github-com-acme-parser", "Answer number 2: "),
    ]


def test_a_relative_or_missing_directory_changes_nothing(tmp_path: Path) -> None:
    t = ClaudeTranscript(tmp_path / "claude", "s2", tmp_path)
    for directory in ("", "relative/dir"):
        reply, _ = run_inline(
            "directory-added",
            _payload("DirectoryAdded", t, directory=directory),
            {},
            host="claude",
        )
        assert reply == {}
