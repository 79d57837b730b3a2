"""kill -9 in the middle of appends, commits and writes leaves a sound store, no lost turn.

Two real child processes share one store: a writer appends batches (printing an ack after
each returned call) and writes memory files; a committer commits the same session in a loop.
Both are killed with SIGKILL at a random moment, several rounds on the same database. After
each round the database must open, pass ``PRAGMA integrity_check``, and hold every message
whose append was acknowledged; the store must also keep working afterwards.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from ovhooks.backend.local import LocalBackend

if TYPE_CHECKING:
    from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WRITER = """
import sys
from ovhooks.backend.local import LocalBackend
backend = LocalBackend(sys.argv[1], peer="proj")
round_no = sys.argv[2]
i = 0
while True:
    batch = [
        {"role": "user", "parts": [{"type": "text", "text": f"I prefer option {round_no}-{i}-{j}"}]}
        for j in range(3)
    ]
    backend.append_messages("crash", batch)
    print(f"ack {i}", flush=True)
    if i % 7 == 0:
        backend.write(f"viking://~/memories/entities/facts/r{round_no}-{i}.md", "fact " * 50)
    i += 1
"""

COMMITTER = """
import sys
from ovhooks.transport.errors import BackendError
from ovhooks.backend.local import LocalBackend
backend = LocalBackend(sys.argv[1], peer="proj")
print("ready", flush=True)
while True:
    try:
        backend.commit("crash")
    except BackendError as exc:
        if not exc.not_found:
            raise
"""


def _spawn(code: str, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def _acked_messages(writer: subprocess.Popen[str], wanted: int) -> int:
    """Read acks until ``wanted`` batches are acknowledged; return how many were."""
    assert writer.stdout is not None
    acked = 0
    while acked < wanted:
        line = writer.stdout.readline()
        if not line:
            _, err = writer.communicate()
            pytest.fail(f"writer died early: {err}")
        acked = int(line.split()[1]) + 1
    return acked


@pytest.mark.timeout(120)
def test_kill_9_during_appends_and_commits_loses_nothing(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "store")
    rng = random.Random(1234)
    acked_texts: list[str] = []
    for round_no in range(4):
        committer = _spawn(COMMITTER, data_dir)
        assert committer.stdout is not None
        assert committer.stdout.readline().strip() == "ready"
        writer = _spawn(WRITER, data_dir, str(round_no))
        acked = _acked_messages(writer, rng.randint(5, 40))
        time.sleep(rng.random() * 0.05)  # land the kill anywhere in the next calls
        for child in (writer, committer):
            os.kill(child.pid, signal.SIGKILL)
        for child in (writer, committer):
            child.communicate()
            assert child.returncode == -signal.SIGKILL
        # The writer may have completed more batches than we read; those acked must exist.
        acked_texts += [
            f"I prefer option {round_no}-{i}-{j}" for i in range(acked) for j in range(3)
        ]

        con = sqlite3.connect(os.path.join(data_dir, "memory.db"))
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            con.execute("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')")
            con.execute("INSERT INTO archive_fts (archive_fts) VALUES ('integrity-check')")
            stored = {
                row[0]
                for row in con.execute(
                    "SELECT json_extract(parts, '$[0].text') FROM messages"
                    " WHERE session_id = 'crash'"
                )
            }
            seqs = [
                r[0]
                for r in con.execute(
                    "SELECT seq FROM messages WHERE session_id = 'crash' ORDER BY seq"
                )
            ]
        finally:
            con.close()
        missing = [t for t in acked_texts if t not in stored]
        assert not missing, f"round {round_no}: lost acknowledged messages {missing[:5]}"
        assert seqs == list(range(len(seqs))), "message sequence has gaps or repeats"

    # The store still works, and everything acked is either live or archived.
    backend = LocalBackend(data_dir, peer="proj")
    info = backend.session_info("crash")
    assert info["total_message_count"] >= len(acked_texts)
    assert info["commit_count"] > 0, "the committer never committed: the test proved nothing"
    backend.append_messages("crash", [{"role": "user", "content": "after the crashes"}])
    assert backend.commit("crash")["status"] == "accepted"
    backend.close()
