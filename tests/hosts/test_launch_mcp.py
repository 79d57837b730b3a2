"""The memory server's launcher (``hosts.launch.mcp_argv``), run by real shells against
stand-in servers: a healthy one talks to the host through it unchanged; one that never gets
ready is stopped after ``MCP_READY_S`` and leaves the hook launcher's marker; a marker the
hooks left, or a missing executable, ends it at once."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ovhooks.commands.install.mcp_config import server_argv
from ovhooks.commands.install.mcp_json import is_ours
from ovhooks.hosts import launch
from tests.support.standins import alive, started_at

SHELLS = [s for s in ("sh", "bash", "dash") if shutil.which(s)]
ECHO_SERVER = """#!/usr/bin/env python3
import os, sys
open(os.environ["OVHOOKS_MCP_READY"], "w").close()
for line in sys.stdin:
    sys.stdout.write("echo " + line)
    sys.stdout.flush()
"""


def _server(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bin" / "ovhooks"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body)
    path.chmod(0o755)
    return str(path)


def _argv(shell: str, exe: str) -> list[str]:
    argv = launch.mcp_argv([exe, "mcp"], posix=True)
    return [shell, *argv[1:]]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}


def _launch(shell: str, exe: str, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    """The launcher run to its end with stdin already closed."""
    return subprocess.run(
        _argv(shell, exe),
        input=b"",
        capture_output=True,
        env=_env(tmp_path),
        timeout=30,
        check=False,
    )


def _marker(tmp_path: Path, pid: int) -> Path:
    return tmp_path / f"{launch.MARKER_NAME}{pid}"


@pytest.mark.parametrize("shell", SHELLS)
def test_a_healthy_server_talks_through_it_and_ends_with_its_stdin(
    shell: str, tmp_path: Path
) -> None:
    exe = _server(tmp_path, ECHO_SERVER)
    proc = subprocess.Popen(
        _argv(shell, exe),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=_env(tmp_path),
    )
    assert proc.stdin is not None and proc.stdout is not None
    for n in range(3):  # several exchanges: stdin reaches the server, not /dev/null
        proc.stdin.write(b'{"id": %d}\n' % n)
        proc.stdin.flush()
        assert proc.stdout.readline() == b'echo {"id": %d}\n' % n
    proc.stdin.close()
    assert proc.wait(10) == 0
    assert not list(tmp_path.glob("ovhooks-mcp-ready-*")), "the ready file is left behind"
    assert not list(tmp_path.glob(f"{launch.MARKER_NAME}*"))


@pytest.mark.parametrize("shell", SHELLS)
def test_a_server_that_never_gets_ready_is_stopped_and_marks_the_host(
    shell: str, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    # a server that started a child of its own: both go (the child held the pipe open)
    exe = _server(tmp_path, f"#!/bin/sh\nsleep 60 &\necho $! $$ >{pid_file}\nwait\n")
    started = time.monotonic()
    proc = subprocess.Popen(
        _argv(shell, exe), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env(tmp_path)
    )
    out, _ = proc.communicate(timeout=30)
    seconds = time.monotonic() - started
    assert (proc.returncode, out) == (0, b"")  # the host sees a server that ended
    assert launch.MCP_READY_S <= seconds < launch.MCP_READY_S + 1.5, seconds
    time.sleep(0.2)
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) == 2 and not [p for p in pids if alive(p)], "it outlived its launcher"
    # the marker of the host process (here: this test), read by the hook launcher
    assert _marker(tmp_path, os.getpid()).read_text() == f"1 {started_at(os.getpid())}\n"


@pytest.mark.parametrize("shell", SHELLS)
def test_a_hang_the_hooks_found_ends_it_at_once(shell: str, tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    exe = _server(tmp_path, f"#!/bin/sh\necho start >>{starts}\nexec sleep 60\n")
    left = f"3 {started_at(os.getpid())}\n"  # this host's hooks skipping after a hang
    _marker(tmp_path, os.getpid()).write_text(left)
    started = time.monotonic()
    proc = _launch(shell, exe, tmp_path)
    assert proc.returncode == 0 and time.monotonic() - started < 1.0
    assert not starts.exists(), "the server was started despite the marker"
    assert _marker(tmp_path, os.getpid()).read_text() == left  # the hooks' count is theirs


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("left", ["3\n", "3 Thu Jan  1 00:00:07 1970\n"])
def test_a_marker_a_dead_host_left_under_this_pid_does_not_stop_it(
    shell: str, left: str, tmp_path: Path
) -> None:
    """A counting marker with another start (or none) is a dead host's whose pid came back."""
    _marker(tmp_path, os.getpid()).write_text(left)
    proc = subprocess.run(
        _argv(shell, _server(tmp_path, ECHO_SERVER)),
        input=b"ping\n",
        capture_output=True,
        env=_env(tmp_path),
        timeout=30,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, b"echo ping\n")


@pytest.mark.parametrize("shell", SHELLS)
def test_a_missing_or_crashing_server_ends_it_at_once(shell: str, tmp_path: Path) -> None:
    crashing = _server(tmp_path, "#!/bin/sh\necho boom >&2\nexit 1\n")
    for exe in (str(tmp_path / "gone" / "ovhooks"), crashing):
        started = time.monotonic()
        proc = _launch(shell, exe, tmp_path)
        assert proc.returncode == 0 and proc.stdout == b""
        assert time.monotonic() - started < 1.5
    assert not list(tmp_path.glob(f"{launch.MARKER_NAME}*")), "a crash is not a hang"


def test_the_real_server_answers_through_it(ovhooks_bin: str, tmp_path: Path) -> None:
    """``ovhooks mcp`` marks itself ready: its handshake comes back at once, not after the
    launcher's bound."""
    started = time.monotonic()
    request = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
    )
    proc = subprocess.run(
        server_argv(ovhooks_bin),
        input=request,
        capture_output=True,
        env=_env(tmp_path),
        timeout=30,
        check=False,
    )
    assert b'"serverInfo"' in proc.stdout, proc.stderr
    assert time.monotonic() - started < launch.MCP_READY_S


def test_registrations_stay_recognisable_and_windows_gets_the_bare_argv() -> None:
    argv = server_argv("/opt/ov/bin/ovhooks")
    assert argv == ["sh", launch.MCP_LAUNCHER, "/opt/ov/bin/ovhooks", "mcp"]
    assert launch.launched_argv(argv) == ["/opt/ov/bin/ovhooks", "mcp"]
    assert is_ours({"command": argv[0], "args": argv[1:]})
    assert is_ours({"command": "/opt/ov/bin/ovhooks", "args": ["mcp"]})  # an older install
    assert launch.mcp_argv(["ovhooks", "mcp"], posix=False) == ["ovhooks", "mcp"]


def test_the_script_keeps_launch_py_s_numbers() -> None:
    """mcp_launch.sh spells out MCP_READY_S (in tenths), SKIP_AFTER_HANG and MARKER_NAME."""
    script = Path(launch.MCP_LAUNCHER).read_text()
    assert f"-gt {launch.MCP_READY_S * 10} ]" in script
    assert f"case $ovh_n in {launch._one_to(launch.SKIP_AFTER_HANG)})\n" in script
    assert script.count(launch.START_OF_HOST) == 2  # read against, and written with, the hang
    assert f'ovh_m="$ovh_d/{launch.MARKER_NAME}$PPID"' in script
    assert f'{launch.READY_VARIABLE}="$ovh_r" $ovh_s "$@"' in script


def test_opencodes_plugin_names_the_marker_as_the_launchers_do() -> None:
    """OpenCode's plugin reads and writes the hang marker the memory server's launcher uses
    (its own pid, the launcher's $PPID), in the same folders in the same order."""
    from ovhooks.commands.install.shim_file import template

    plugin = template("opencode_plugin.js")
    assert f"`{launch.MARKER_NAME}${{process.pid}}`" in plugin
    assert '[process.env.XDG_RUNTIME_DIR, process.env.TMPDIR, "/tmp"]' in plugin
    script = Path(launch.MCP_LAUNCHER).read_text()
    assert (
        'ovh_d=$XDG_RUNTIME_DIR\n[ -d "$ovh_d" ] || ovh_d=$TMPDIR\n[ -d "$ovh_d" ] || ovh_d=/tmp'
        in script
    )


@pytest.mark.timeout(30)  # a regression hangs: fail it soon
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_link_at_the_ready_marker_neither_blocks_nor_writes_elsewhere(
    tmp_path: Path,
) -> None:
    # The marker's name is predictable (in a shared /tmp); a FIFO planted there blocked the
    # server before its first answer, a link made it create a file where the link pointed.
    fifo = tmp_path / "ready-fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    launch.mark_ready({launch.READY_VARIABLE: str(fifo)})  # blocked forever without the fix
    assert time.monotonic() - started < 5
    elsewhere = tmp_path / "elsewhere"
    link = tmp_path / "ready-link"
    link.symlink_to(elsewhere)
    launch.mark_ready({launch.READY_VARIABLE: str(link)})
    assert not elsewhere.exists()
    plain = tmp_path / "ready"
    launch.mark_ready({launch.READY_VARIABLE: str(plain)})
    assert plain.is_file()
