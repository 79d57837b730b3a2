"""Exactly once under crashes: the real worker killed before the N-th operation of each kind.

For every crash point (SIGKILL right before the N-th fsync, rename, unlink, lock, open,
send, receive or SQL write of one Stop's worker), one of four recoveries runs (next Stop,
``ovhooks flush``, another session's SessionStart replay, ``ovhooks sweep``), later Stops
settle the rest, and the tokens the backend received must equal the transcript's: 0 lost,
0 duplicated, 0 reordered. All eight hosts, each writing its own format where the host keeps
it (Claude with its late assistant record; OpenCode's SQLite store, found through
``$OPENCODE_DB`` as its plugin's payloads name none; Pi's entry tree; Gemini's ``$set``
records; Copilot's events with the prompt again in ``transformedContent``; Qwen's telemetry;
Droid's hook-run records), on both backends.

The default run takes a representative sample for every host and backend: one crash point
per kind (first, middle or last in turn) with one recovery, the pairing of kind and recovery
shifted per host and backend so that together they cover every kind with every recovery. A
combination costs 2-4 s (a Stop's worker does the same ~60 operations whatever the host; what
differs is the reader), so all sixteen run by default rather than a few hosts or one
backend: the file stays near a minute on 2 cores. ``OVHOOKS_FULL_CAMPAIGN=1`` runs every
crash point with every recovery, for 3 and 60 turns (and ``OVHOOKS_CAMPAIGN_REPORT=path``
appends the figures, each crash point with its verdict).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ovhooks.hosts.registry import HOSTS
from tests.support.campaign import KINDS, RECOVERIES, Scenario
from tests.support.fake_openviking import FakeOpenViking

# Read at import: the isolation fixtures clear OVHOOKS_* from the environment of each test.
FULL = os.environ.get("OVHOOKS_FULL_CAMPAIGN") == "1"
REPORT = os.environ.get("OVHOOKS_CAMPAIGN_REPORT", "")
COMBOS = [(h, b) for h in HOSTS for b in ("openviking", "local")]
# The full matrix runs for many minutes per test: no per-test timeout then.
CAMPAIGN_TIMEOUT = pytest.mark.timeout(0 if FULL else 300)


def report(name: str, **figures: object) -> None:
    if REPORT:
        with open(REPORT, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"test": name, **figures}) + "\n")


def _points(census: dict[str, int]) -> list[tuple[str, int]]:
    """Every crash point (full) or one per kind, first/middle/last in turn (default)."""
    out: list[tuple[str, int]] = []
    for index, kind in enumerate(KINDS):
        total = census.get(kind, 0)
        sample = (1, (total + 1) // 2, total)[index % 3]
        picks = range(1, total + 1) if FULL else ([sample] if total else [])
        out.extend((kind, n) for n in picks)
    return out


def _scenario(root: Path, host: str, backend: str, fake: FakeOpenViking, turns: int) -> Scenario:
    s = Scenario(root, host=host, backend=backend, fake=fake)
    s.add_turns(turns, late_reply=host == "claude")
    return s


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize(("host", "backend"), COMBOS)
@pytest.mark.parametrize("turns", [3, 60] if FULL else [3])
def test_kill_before_every_operation_then_recover(
    fake_ov: FakeOpenViking, tmp_path: Path, host: str, backend: str, turns: int
) -> None:
    started = time.monotonic()
    census = _scenario(tmp_path / "census", host, backend, fake_ov, turns).census()
    assert census.get("fsync") and census.get("lock")  # the injector sees the worker's work
    failures = []
    points: list[dict[str, object]] = []
    runs = 0
    shift = HOSTS.index(host) + (backend == "local")  # each host pairs kinds and recoveries anew
    for index, (kind, n) in enumerate(_points(census)):
        recoveries = RECOVERIES if FULL else (RECOVERIES[(index + shift) % len(RECOVERIES)],)
        for how in recoveries:
            runs += 1
            s = _scenario(tmp_path / f"{kind}-{n}-{how}", host, backend, fake_ov, turns)
            code = s.stop(fault=f"{kind}:{n}")
            s.recover(how)
            s.settle()
            verdict = s.verdict()
            if verdict != (0, 0, 0):
                failures.append((kind, n, how, code, verdict, s.received()))
            points.append({"kind": kind, "n": n, "recovery": how, "exit": code, "verdict": verdict})
    report(
        "crash_points",
        host=host,
        backend=backend,
        turns=turns,
        census=census,
        runs=runs,
        failures=len(failures),
        seconds=round(time.monotonic() - started, 1),
        points=points,
    )
    assert not failures, failures[:5]


def test_the_injector_really_kills(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    """Guards the campaign itself: a fault stops the worker at that point (exit -9)."""
    s = _scenario(tmp_path, "codex", "openviking", fake_ov, 3)
    assert s.stop(fault="send:1") == -9
    assert s.received() == []  # killed before sending: nothing reached the server
    assert s.queued() == 1  # ... but the capture is safe on disk
    s.settle()
    assert s.verdict() == (0, 0, 0) and s.received() == s.expected()


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("backend", ["openviking", "local"])
def test_random_external_kills(fake_ov: FakeOpenViking, tmp_path: Path, backend: str) -> None:
    import random
    import subprocess
    import sys

    rng = random.Random(1313)
    kills = 64 if FULL else len(HOSTS)
    failures = []
    started = time.monotonic()
    for i in range(kills):
        host = HOSTS[i % len(HOSTS)]
        s = _scenario(tmp_path / f"k{i}", host, backend, fake_ov, rng.choice([2, 40]))
        job = tmp_path / f"k{i}.json"
        job.write_text(json.dumps([s.stop_job()]))
        proc = subprocess.Popen(
            [sys.executable, "-m", "ovhooks", "_worker", str(job)],
            env=s.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.0, 0.6))
        proc.kill()
        proc.wait()
        s.recover(rng.choice(RECOVERIES))
        s.settle()
        if s.verdict() != (0, 0, 0):
            failures.append((i, host, s.verdict()))
    report(
        "random_kills",
        backend=backend,
        kills=kills,
        failures=len(failures),
        seconds=round(time.monotonic() - started, 1),
    )
    assert not failures, failures
