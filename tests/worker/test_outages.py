"""Outages, hangs, a full disk and a read-only state dir: still exactly once, told once.

Real Stop hooks and real worker processes against the fake server's failure modes. The
default run is short; ``OVHOOKS_FULL_CAMPAIGN=1`` runs the issue's full figures (200 Stops at
20 % 5xx, a 50-Stop refusal, 30 s hangs applied late and never).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.campaign import Scenario
from tests.support.fake_openviking import FakeOpenViking
from tests.worker.test_crashes import CAMPAIGN_TIMEOUT, FULL, report

NOTICE = "memory writes are failing"


def _stops(s: Scenario, n: int) -> int:
    """``n`` turns, each followed by the real Stop hook; returns how many outage notices."""
    notices = 0
    for _ in range(n):
        s.add_turns(1, late_reply=s.host == "claude")
        reply = s.stop_hook()
        notices += NOTICE in str(reply.get("systemMessage") or "")
    return notices


def _writes_held(
    root: Path, fake_ov: FakeOpenViking, *, window_s: float, timeout_s: float
) -> Scenario:
    """A Codex session on the fake server, whose failure mode (the caller sets it) holds up
    writes only: the reads that settle a batch in flight are answered at once."""
    fake_ov.writes_only = True
    return Scenario(
        root,
        host="codex",
        backend="openviking",
        fake=fake_ov,
        window_s=window_s,
        timeout_s=timeout_s,
    )


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("host", ["codex", "claude"])
def test_a_refusal_is_told_once_and_loses_nothing(
    fake_ov: FakeOpenViking, tmp_path: Path, host: str
) -> None:
    s = Scenario(tmp_path, host=host, backend="openviking", fake=fake_ov)
    stops = 50 if FULL else 8
    assert _stops(s, 2) == 0
    fake_ov.refuse()
    try:
        notices = _stops(s, stops)
    finally:
        fake_ov.restart()
    s.settle()
    report("refusal", host=host, stops=stops, notices=notices, verdict=s.verdict())
    assert notices == 1  # old code: once per Stop while workers could not record it
    assert s.verdict() == (0, 0, 0)


@CAMPAIGN_TIMEOUT
def test_intermittent_5xx_loses_nothing_and_is_one_outage(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    s = Scenario(tmp_path, host="codex", backend="openviking", fake=fake_ov)
    stops = 200 if FULL else 15
    fake_ov.fail_rate = 0.2
    try:
        notices = _stops(s, stops)
    finally:
        fake_ov.fail_rate = 0.0
    s.settle()
    failed = sum(1 for r in fake_ov.requests if r["method"] == "POST") - len(s.expected()) // 2
    report("5xx", stops=stops, notices=notices, verdict=s.verdict(), extra_posts=failed)
    assert notices <= 1
    assert s.verdict() == (0, 0, 0)


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("applied", ["late", "never"])
def test_a_hanging_write_is_never_sent_twice(
    fake_ov: FakeOpenViking, tmp_path: Path, applied: str
) -> None:
    """The client gives up; the server applies the batch later (or never). Issue 13 window 3."""
    hang_s, timeout_s, window_s = (30.0, 5.0, 40.0) if FULL else (3.0, 1.0, 5.0)
    s = _writes_held(tmp_path, fake_ov, window_s=window_s, timeout_s=timeout_s)
    fake_ov.mode = "slow" if applied == "late" else "hang"
    fake_ov.delay_s = hang_s
    fake_ov.hang_s = hang_s
    started = time.monotonic()
    try:
        _stops(s, 1)  # times out: the batch stays in flight
        while time.monotonic() - started < hang_s + 0.5:
            _stops(s, 1)  # each later Stop re-checks, never resends, queues its own turn
            time.sleep(0.3)
    finally:
        fake_ov.mode = "ok"
        fake_ov.writes_only = False
        fake_ov.delay_s = 0.0
    deadline = time.monotonic() + window_s + 10
    while s.queued() and time.monotonic() < deadline:
        s.stop()
        time.sleep(0.5)
    s.settle()
    report(
        "hang",
        applied=applied,
        hang_s=hang_s,
        verdict=s.verdict(),
        seconds=round(time.monotonic() - started, 1),
    )
    assert s.verdict() == (0, 0, 0)


def test_at_most_one_waiting_worker_during_a_hang(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    s = Scenario(
        tmp_path, host="codex", backend="openviking", fake=fake_ov, timeout_s=4.0, forked=False
    )
    s.env["OVHOOKS_DETACH"] = "1"
    fake_ov.writes_only = True
    fake_ov.mode = "hang"
    fake_ov.hang_s = 4.0
    try:
        _stops(s, 12)
        time.sleep(1.0)
        workers = _workers_of(s)
    finally:
        fake_ov.mode = "ok"
        fake_ov.writes_only = False
    deadline = time.monotonic() + 30
    while _workers_of(s) and time.monotonic() < deadline:
        time.sleep(0.2)
    s.env["OVHOOKS_DETACH"] = "0"
    time.sleep(float(s.env["OVHOOKS_INFLIGHT_WINDOW_S"]))
    s.settle()
    assert workers <= 2  # one running, at most one waiting (old code: one per Stop)
    assert s.verdict() == (0, 0, 0)


def _workers_of(s: Scenario) -> int:
    mark = f"OVHOOKS_STATE_DIR={s.state_dir}".encode()
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if mark in fh.read().split(b"\0"):
                    count += 1
        except OSError:
            continue
    return count


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("backend", ["openviking", "local"])
@pytest.mark.parametrize("effect", ["enospc", "erofs"])
def test_full_disk_and_read_only_state_lose_and_repeat_nothing(
    fake_ov: FakeOpenViking, tmp_path: Path, backend: str, effect: str
) -> None:
    """Every write of a Stop fails from the N-th on (disk full / remounted read-only)."""
    failures = []
    cases = [(h, n) for h in ("codex", "claude") for n in range(1, 13)]
    for host, n in cases if FULL else [("codex", 2), ("claude", 7)]:
        s = Scenario(tmp_path / f"{host}-{n}", host=host, backend=backend, fake=fake_ov)
        s.add_turns(2)
        s.stop()
        s.add_turns(2, late_reply=host == "claude")
        kind = "write" if effect == "enospc" else "open"
        s.stop(fault=f"{kind}:{n}:{effect}")
        s.stop(fault=f"{kind}:1:{effect}")  # still full / read-only on the next Stop
        s.settle()  # space freed / writable again
        if s.verdict() != (0, 0, 0):
            failures.append((host, n, s.verdict(), s.received()))
    assert not failures, failures


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_real_full_disk_then_a_read_only_one(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    """The same on a real 256 KiB tmpfs: filled up, then remounted read-only, then freed."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(mnt)]
    if subprocess.run(mount, capture_output=True, check=False).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        s = Scenario(
            tmp_path / "sc",
            host="claude",
            backend="openviking",
            fake=fake_ov,
            state_dir=mnt / "state",
        )
        s.add_turns(2)
        s.stop()
        filler = mnt / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"x" * 4096):
                pass
        except OSError:
            pass  # full
        finally:
            os.close(fd)
        s.add_turns(3, late_reply=True)
        s.stop_hook()
        s.stop_hook()
        assert s.received() == s.expected()[:4]  # nothing could be queued, so nothing sent
        filler.unlink()
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        s.add_turns(1, late_reply=True)
        s.stop_hook()
        assert s.received() == s.expected()[:4]
        subprocess.run(["mount", "-o", "remount,rw", str(mnt)], check=True)
        s.settle()
        assert s.verdict() == (0, 0, 0)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@CAMPAIGN_TIMEOUT
@pytest.mark.parametrize("mode", ["gateway504", "hang"])
def test_a_background_worker_waits_out_a_lost_answer_and_resends_itself(
    fake_ov: FakeOpenViking, tmp_path: Path, mode: str
) -> None:
    """A write the server never applies, answered late by a gateway's 504 or not at all,
    after the client gave up: the worker itself waits out the window, finds the batch not
    taken and sends it, and a Stop queued behind it goes too, with no later hook. No turn
    waits longer than the window (30 s by default) behind the lost answer."""
    import threading

    hang_s, timeout_s, window_s = (32.0, 15.0, 30.0) if FULL else (2.5, 1.0, 3.0)
    s = _writes_held(tmp_path, fake_ov, window_s=window_s, timeout_s=timeout_s)
    s.env.update(OVHOOKS_DETACH="1", OVHOOKS_WORKER_LOCK_WAIT_S=str(window_s + 30))
    fake_ov.mode = mode
    fake_ov.hang_s = hang_s
    s.add_turns(2)
    started = time.monotonic()
    first = threading.Thread(target=s.stop)  # the worker a Stop hands its job to
    first.start()
    while not any(r["method"] == "POST" for r in fake_ov.requests):
        time.sleep(0.01)
    fake_ov.mode = "ok"  # the server is fine again; the first write is never applied
    s.add_turns(1)
    second = threading.Thread(target=s.stop)  # a later Stop, queued behind it
    second.start()
    first.join()
    second.join()
    elapsed = time.monotonic() - started
    report("lost_answer", mode=mode, window_s=window_s, seconds=round(elapsed, 1))
    assert s.queued() == 0 and s.verdict() == (0, 0, 0)
    assert elapsed < window_s + 10


def test_a_batch_sent_after_a_wait_is_stamped_when_it_is_sent(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """Real Stop hooks with detached workers, a server that applies writes late. A worker
    waits out the batch before its own and then sends its own: the batch must carry the time
    it is sent. Stamped with the hook's event time (the worker's clock was frozen there), the
    next worker took the server's window as over and sent it again, and the server stored
    it twice (a fault campaign's Qwen sessions; the same on every host)."""
    window_s, timeout_s, delay_s = 3.0, 1.0, 2.5
    s = _writes_held(tmp_path, fake_ov, window_s=window_s, timeout_s=timeout_s)
    s.env.update(OVHOOKS_DETACH="1", OVHOOKS_WORKER_LOCK_WAIT_S="30")
    fake_ov.mode, fake_ov.delay_s = "slow", delay_s
    started = time.monotonic()

    def stop_at(seconds: float) -> None:
        time.sleep(max(0.0, started + seconds - time.monotonic()))
        s.add_turns(1)
        s.stop_hook()

    stop_at(0.0)  # its batch arrives, is applied at 2.5 s; the client gave up at 1 s
    stop_at(1.2)  # waits that batch out, then sends its own at about 3 s
    stop_at(4.3)  # that one is in flight (applied at about 5.5 s): wait, never resend
    deadline = time.monotonic() + 20
    while s.queued() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(delay_s + 0.5)  # any second copy would land by now
    fake_ov.mode, fake_ov.delay_s, fake_ov.writes_only = "ok", 0.0, False
    s.settle()
    assert s.verdict() == (0, 0, 0), s.received()
