"""The local store shared by several writers: a worker that finds it busy still delivers.

Cause of a flake (issue 22): with two sessions' workers and a ``remember`` loop on one local
store, under CPU load, a write could wait past SQLite's busy timeout (5 s) behind another
writer's transaction (a commit's extraction, a memory write). The append then failed
("database is locked", rolled back) and the worker gave up: its turns stayed queued until
some later hook, so a run that ended there was missing them. A busy store is now retried by
the worker itself (``worker.run.LOCAL_BUSY_WAIT_S``), and a rolled-back batch is known not taken.

The first test makes the store busy on purpose (a transaction held past the busy timeout);
the second is the load test: two workers per round and a ``remember`` loop, with CPU
hogs, several rounds (many more with ``OVHOOKS_FULL_CAMPAIGN=1``). Both check the store
right after the workers exit: no later hook drains for them.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING

import pytest

from tests.support.campaign import REPO, Scenario
from tests.worker.test_crashes import CAMPAIGN_TIMEOUT, FULL, report

if TYPE_CHECKING:
    from pathlib import Path


def _pair(root: Path) -> tuple[Scenario, Scenario]:
    """A Codex and a Claude session writing to one local store, from one state dir; every
    ovhooks process a new interpreter, as hosts start them (a fork of this process would
    inherit SQLite's in-process lock table from the threads of these tests)."""
    a = Scenario(root / "a", host="codex", backend="local", state_dir=root / "state", forked=False)
    b = Scenario(root / "b", host="claude", backend="local", state_dir=root / "state", forked=False)
    (root / "a" / "data").mkdir(parents=True, exist_ok=True)
    (root / "b" / "data").symlink_to(root / "a" / "data")
    b.env["OVHOOKS_DATA_DIR"] = a.env["OVHOOKS_DATA_DIR"]
    return a, b


HOLDER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("ROLLBACK")
"""


def _hold_write_lock(db: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the store's write lock for ``seconds`` (once it says so)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.timeout(120)
def test_a_worker_that_finds_the_store_busy_past_the_busy_timeout_still_delivers(
    tmp_path: Path,
) -> None:
    a, _b = _pair(tmp_path)
    a.add_turns(1)
    a.stop()  # creates the store
    assert a.verdict() == (0, 0, 0)
    holder = _hold_write_lock(tmp_path / "a" / "data" / "memory.db", 8.0)
    a.add_turns(2)
    a.stop()  # runs while another writer holds the store for longer than 5 s
    assert holder.wait(30) == 0
    assert a.queued() == 0 and a.verdict() == (0, 0, 0)


def _remember_loop(env: dict[str, str], stop: threading.Event, count: list[int]) -> None:
    while not stop.is_set():
        subprocess.run(
            [sys.executable, "-m", "ovhooks", "remember", f"The user prefers tool {count[0]}."],
            env=env,
            cwd=str(REPO),
            capture_output=True,
            check=False,
            timeout=120,
        )
        count[0] += 1


@CAMPAIGN_TIMEOUT
def test_two_workers_and_a_remember_loop_under_cpu_load_lose_nothing(tmp_path: Path) -> None:
    rounds = 20 if FULL else 2
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    failures, started, remembered = [], time.monotonic(), [0]
    try:
        for r in range(rounds):
            a, b = _pair(tmp_path / f"r{r}")
            stop = threading.Event()
            loop = threading.Thread(target=_remember_loop, args=(a.env, stop, remembered))
            loop.start()
            for step in range(3):
                a.add_turns(1 + step % 2)
                b.add_turns(2 - step % 2, late_reply=True)
                workers = [threading.Thread(target=s.stop) for s in (a, b)]
                for worker in workers:
                    worker.start()
                for worker in workers:
                    worker.join()
            stop.set()
            loop.join()
            left = (a.queued(), b.queued())
            verdicts = (a.verdict(), b.verdict())
            if left != (0, 0) or verdicts != ((0, 0, 0), (0, 0, 0)):
                failures.append((r, left, verdicts))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    report(
        "local_busy",
        rounds=rounds,
        failures=len(failures),
        remembered=remembered[0],
        seconds=round(time.monotonic() - started, 1),
    )
    assert remembered[0] > 0, "the remember loop never ran: the test proved nothing"
    assert not failures, failures
