"""A forked Claude session (2.1.330) does not send its parent's turns again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ovhooks.transcripts.claude import records_to_turns
from ovhooks.transcripts.fork import copied_uuids
from ovhooks.transcripts.reader import read_new
from tests.support.hooks import run_inline
from tests.support.stores import LocalStore

FIXTURES = Path(__file__).parent.parent / "fixtures" / "claude-2.1.330"
PARENT = "13889cd5-f4ed-4caf-96a1-623dc2d3fced"
FORK = "c9d48496-fb52-4e77-bf6f-3e2943b3a641"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-work"
    folder.mkdir(parents=True)
    for sid in (PARENT, FORK):
        shutil.copy(FIXTURES / f"{sid}.jsonl", folder / f"{sid}.jsonl")
    return folder


def _turns(path: Path) -> list[Any]:
    return records_to_turns(read_new(str(path), {}).records)


def test_the_reader_reads_the_2_1_330_format() -> None:
    parent = [(t.role, t.text) for t in _turns(FIXTURES / f"{PARENT}.jsonl")]
    assert parent == [
        ("user", "hello first turn, I prefer tabs"),
        ("assistant", "STUB-REPLY #1"),
        ("user", "second turn RUNSHELL please"),
        ("assistant", "STUB-REPLY #3"),
    ]


@pytest.mark.parametrize("parent_present", [True, False])
def test_copied_uuids_are_exactly_the_parents_turns(project: Path, parent_present: bool) -> None:
    if not parent_present:
        (project / f"{PARENT}.jsonl").unlink()
    fork = project / f"{FORK}.jsonl"
    copied = copied_uuids(read_new(str(fork), {}).records, FORK, str(fork))
    own = [t.text for t in _turns(fork) if t.uid not in copied]
    assert own == ["fork turn here", "STUB-REPLY #4", "after add dir", "STUB-REPLY #5"]


def test_a_session_that_is_not_a_fork_copies_nothing(project: Path) -> None:
    parent = project / f"{PARENT}.jsonl"
    assert copied_uuids(read_new(str(parent), {}).records, PARENT, str(parent)) == set()


def _payload(event: str, sid: str, path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": sid,
        "transcript_path": str(path),
        "cwd": str(path.parent),
        "hook_event_name": event,
        **extra,
    }


def test_fork_session_captures_only_its_own_turns(project: Path, tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "data")
    env = store.env()
    parent, fork = project / f"{PARENT}.jsonl", project / f"{FORK}.jsonl"
    for command, event, sid, path, extra in (
        ("session-start", "SessionStart", PARENT, parent, {"source": "startup"}),
        ("stop", "Stop", PARENT, parent, {}),
        ("session-start", "SessionStart", FORK, fork, {"source": "fork"}),
        ("stop", "Stop", FORK, fork, {}),
    ):
        run_inline(command, _payload(event, sid, path, **extra), env, host="claude")
    assert store.texts(f"cc-{PARENT}")[0] == "hello first turn, I prefer tabs"
    forked = store.texts(f"cc-{FORK}")
    assert forked[0] == "fork turn here"
    assert not any("first turn" in t or "RUNSHELL" in t for t in forked)


def test_recorded_fork_payload_says_fork() -> None:
    payloads = json.loads((FIXTURES / "hook-payloads.json").read_text(encoding="utf-8"))
    starts = [p for p in payloads if p["event"] == "SessionStart"]
    fork_start = next(p for p in starts if p["payload"]["source"] == "fork")
    assert fork_start["payload"]["session_id"] == FORK
    assert fork_start["transcript_bytes"] == -1  # why a cursor set at SessionStart cannot work
