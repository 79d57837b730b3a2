"""A Stop that carries no reply, on a host whose file lags behind it (Copilot CLI).

Copilot CLI 1.0.102 fires Stop before it has written the turn to its ``events.jsonl``: the
worker reads again until the newest turn is answered, and no longer than it was told. A new
session's file may not exist yet at all when Stop or SessionEnd fires: the worker waits for it.
The transcript is the one recorded from the real CLI (tests/fixtures/copilot).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from ovhooks.log import Log
from ovhooks.transcripts.copilot import records_to_turns
from ovhooks.worker import intake

RECORDED = Path(__file__).parents[1] / "fixtures" / "copilot" / "session-1.jsonl"
# the first session of the recording: its start, two hooks, the user's message (line 5)
# and, from line 6 on, what Copilot writes a moment after Stop fires
LINES = RECORDED.read_text(encoding="utf-8").splitlines(keepends=True)[:22]
ASKED = 6


def _write(path: Path, lines: list[str]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(lines)


def test_the_worker_waits_for_the_answer_the_host_writes_after_stop(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, LINES[:ASKED])
    log = Log(str(tmp_path / "state"), "debug")
    first = intake._read(str(path), {}, 0, "cp-x", log)
    assert first is not None
    assert not intake._answered(records_to_turns(first.records))  # the prompt alone
    late = threading.Timer(0.2, _write, (path, LINES[ASKED:]))
    late.start()
    started = time.monotonic()
    found = intake._read_until(
        str(path), {}, records_to_turns, intake._answered, 3.0, "answer", "cp-x", log
    )
    late.join()
    assert found is not None
    _read, turns = found
    assert [t.role for t in turns][:1] == ["user"] and turns[-1].role == "assistant"
    assert 0.15 < time.monotonic() - started < 2.0  # it read again as soon as it was there


def test_an_answer_that_never_comes_costs_only_the_wait(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, LINES[:ASKED])
    log = Log(str(tmp_path / "state"), "info")
    started = time.monotonic()
    waited = intake._read_until(
        str(path), {}, records_to_turns, intake._answered, 0.3, "answer", "cp-x", log
    )
    assert waited is None
    assert 0.3 <= time.monotonic() - started < 1.5
    logged = (tmp_path / "state" / "logs" / "ovhooks.log").read_text()
    assert "answer_not_in_transcript" in logged


def test_a_turn_is_answered_only_when_the_assistant_spoke_last() -> None:
    turns = records_to_turns([(i, json.loads(line)) for i, line in enumerate(LINES)])
    assert intake._answered(turns)
    assert not intake._answered([t for t in turns if t.role == "user"])
    assert not intake._answered([])


def _late_file_session(tmp_path: Path, command: str, name: str) -> list[str]:
    """Run Copilot's ``command`` hook inline while its events.jsonl does not exist yet; the
    recorded session is written 0.3 s into the hook. Returns the log's lines."""
    from tests.support.hooks import hook_env, log_lines, run_inline

    fixtures = RECORDED.parent / "hook-payloads"
    payload = json.loads((fixtures / name).read_text())
    home = tmp_path / "copilot-home"
    path = home / "session-state" / payload["session_id"] / "events.jsonl"
    path.parent.mkdir(parents=True)
    if "transcript_path" in payload:  # Stop names it; SessionEnd leaves it to COPILOT_HOME
        payload["transcript_path"] = str(path)
    payload["cwd"] = str(tmp_path)
    late = threading.Timer(0.3, _write, (path, LINES))
    env = hook_env(
        OVHOOKS_BACKEND="local",
        OVHOOKS_SEMANTIC="off",
        OVHOOKS_LOG_LEVEL="debug",
        COPILOT_HOME=str(home),
    )
    late.start()
    try:
        run_inline(command, payload, env, host="copilot")
    finally:
        late.join()
    return log_lines()


def test_a_stop_before_copilot_wrote_its_file_still_captures_the_turn(tmp_path: Path) -> None:
    # Seen with the real CLI: a one-prompt session's Stop and SessionEnd both came before
    # Copilot's first write, the worker found no file, and the session was never captured.
    lines = _late_file_session(tmp_path, "stop", "Stop.json")
    assert not [line for line in lines if "transcript_missing" in line], lines
    from tests.support.hooks import session_state

    state = session_state("cp-174f707a-342d-424f-8bec-15c474cfa61a")
    assert int(state["cursor"]["turns"]) >= 2, state["cursor"]


def test_a_session_end_before_copilot_wrote_its_file_still_reads_it(tmp_path: Path) -> None:
    lines = _late_file_session(tmp_path, "session-end", "SessionEnd.json")
    assert not [line for line in lines if "transcript_missing" in line], lines


def test_a_file_that_comes_after_every_hook_is_read_and_committed_by_the_idle_sweep(
    tmp_path: Path,
) -> None:
    # The worst case of a late host: no wait (OVHOOKS_REPLY_WAIT_S=0) and the file written
    # only after Stop and SessionEnd. The session is marked, and the background sweep of a
    # later worker run (past the idle TTL) captures and commits it: nothing lost.
    from ovhooks.log import Log as RunLog
    from ovhooks.settings.config import load_settings
    from ovhooks.worker.run import run_jobs
    from tests.support.hooks import hook_env, run_inline, session_state

    home = tmp_path / "copilot-home"
    sid = "174f707a-342d-424f-8bec-15c474cfa61a"
    path = home / "session-state" / sid / "events.jsonl"
    path.parent.mkdir(parents=True)
    env = hook_env(
        OVHOOKS_BACKEND="local",
        OVHOOKS_SEMANTIC="off",
        OVHOOKS_REPLY_WAIT_S="0",
        COPILOT_HOME=str(home),
    )
    fixtures = RECORDED.parent / "hook-payloads"
    now = time.time()
    for command, name in (("stop", "Stop.json"), ("session-end", "SessionEnd.json")):
        payload = json.loads((fixtures / name).read_text())
        payload.update(cwd=str(tmp_path), transcript_path=str(path))
        run_inline(command, payload, env, host="copilot", now=now)
    key = f"cp-{sid}"
    marked = session_state(key)
    assert "transcript_unread_since" in marked and int(marked.get("commit_count") or 0) == 0
    _write(path, LINES)
    settings = load_settings(env)
    later = now + settings.idle_ttl_s + 1
    run_jobs(settings, [], log=RunLog(settings.state_dir, "info"), clock=lambda: later)
    swept = session_state(key)
    assert "transcript_unread_since" not in swept
    assert int(swept["cursor"]["turns"]) >= 2 and int(swept.get("commit_count") or 0) == 1
