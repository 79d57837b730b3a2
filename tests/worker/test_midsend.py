"""Exactly once after a kill mid-send: the store applied the batch, the worker never heard.

The real worker is killed right after the store applied and answered an append, before it
recorded the answer (``applied:N``). Then comes our own commit, a commit the store makes on
its own (twice), an idle sweep, or a recovery only after the in-flight window (see
``tests/support/midsend.py``); the commits archive the batch, so the live tail no longer
shows it. Once drained, the store must hold every turn once, in order; and since the store
can answer for the batch at once, the first ovhooks run after the kill must leave nothing
queued behind it (no turn waits for the window). Both hosts; the local store, the fake
server and the real OpenViking 0.5.2 server.

The default run takes one follow-up per host and store; ``OVHOOKS_FULL_CAMPAIGN=1`` runs
every follow-up after every kill point, with 3 and 60 turns (two batches), and
``OVHOOKS_CAMPAIGN_REPORT=path`` appends the figures.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import pytest

from tests.support.campaign import Scenario
from tests.support.midsend import FOLLOW_UPS, Store, follow_up
from tests.worker.test_crashes import CAMPAIGN_TIMEOUT, FULL, report

if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.fake_openviking import FakeOpenViking

STORES = ["local", "fake", pytest.param("real", marks=pytest.mark.real_server)]
# The bound of the issue: no turn waits more than this behind a batch the store can answer for.
WAIT_BOUND_S = 30.0


def _store(request: pytest.FixtureRequest, kind: str, fake: FakeOpenViking) -> tuple[str, str]:
    """(backend, url of a real server or "") for ``kind``."""
    if kind == "real":
        return "openviking", str(request.getfixturevalue("ov_server_capture").url)
    return ("local" if kind == "local" else "openviking"), ""


def _cases(host_index: int, store_index: int) -> list[tuple[int, int, str]]:
    """(turns, applied append to kill after, follow-up): all of them, or one in turn."""
    if FULL:
        return [
            (turns, n, how)
            for turns in (3, 60)
            for n in range(1, (2 * turns + 99) // 100 + 1)
            for how in FOLLOW_UPS
        ]
    return [(3, 1, FOLLOW_UPS[(2 * store_index + host_index) % len(FOLLOW_UPS)])]


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("host", ["codex", "claude"])
@pytest.mark.parametrize("kind", STORES)
def test_a_kill_after_the_store_applied_then_commits_sweeps_and_late_recoveries(
    request: pytest.FixtureRequest, fake_ov: FakeOpenViking, tmp_path: Path, host: str, kind: str
) -> None:
    backend, url = _store(request, kind, fake_ov)
    started = time.monotonic()
    failures, waits = [], []
    cases = _cases(["codex", "claude"].index(host), ["local", "fake", "real"].index(kind))
    for turns, n, how in cases:
        # the default request timeout: a loaded CI machine made the real server slower than 5 s
        s = Scenario(
            tmp_path / f"{turns}-{n}-{how}",
            host=host,
            backend=backend,
            fake=fake_ov,
            url=url,
            timeout_s=15.0,
        )
        s.add_turns(turns, late_reply=host == "claude")
        store = Store(s, url)
        assert s.stop(fault=f"applied:{n}") == -9
        killed = time.monotonic()
        follow_up(s, store, how)
        # the store holds the batch: the first run after the kill settles it and drains
        left = s.queued()
        waits.append(time.monotonic() - killed)
        s.settle()
        verdict = store.verdict()
        if verdict != (0, 0, 0) or left:
            failures.append((turns, n, how, verdict, left, _errors(s)))
    report(
        "mid_send",
        host=host,
        store=kind,
        runs=len(cases),
        failures=len(failures),
        max_wait_s=round(max(waits), 2),
        seconds=round(time.monotonic() - started, 1),
    )
    assert not failures, failures[:5]
    assert max(waits) < WAIT_BOUND_S


def _errors(s: Scenario) -> list[str]:
    """The last errors ovhooks logged for the scenario (why a queue was left)."""
    try:
        lines = (s.state_dir / "logs" / "ovhooks.log").read_text().splitlines()
    except OSError:
        return []
    return [line[:300] for line in lines if '"level": "error"' in line][-3:]


def test_the_injector_kills_after_the_store_applied(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """Guards the campaign: ``applied:1`` dies with the batch on the server, still in flight."""
    s = Scenario(tmp_path, host="codex", backend="openviking", fake=fake_ov)
    s.add_turns(2)
    assert s.stop(fault="applied:1") == -9
    assert s.received() == s.expected()  # the server has it all...
    assert s.queued() == 1  # ... and the worker never recorded it
    os.environ.pop("OVHOOKS_FAULT", None)
    Store(s).commit()
    s.cli("flush")
    assert s.queued() == 0 and s.verdict() == (0, 0, 0)
