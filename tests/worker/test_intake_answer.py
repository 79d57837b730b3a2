"""A Stop that carries no reply, on a host whose file lags behind it (Copilot CLI).

Copilot CLI 1.0.102 fires Stop before it has written the turn to its ``events.jsonl``: the
worker reads again until the newest turn is answered, and no longer than it was told.
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
