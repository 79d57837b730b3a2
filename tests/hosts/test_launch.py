"""The fail-open launcher (hosts/launch.py), run by real shells against stand-in executables:
whatever the "ovhooks" it starts does, the host sees exit 0 and ovhooks' stdout or nothing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ovhooks.commands import hostconfig
from ovhooks.hosts import launch
from tests.support.standins import alive, started_at

SHELLS = [s for s in ("sh", "bash", "dash") if shutil.which(s)]


def _stub(tmp_path: Path, body: str) -> str:
    """An executable standing in for ovhooks; it notes each start in ``starts``."""
    path = tmp_path / "bin" / "ovhooks"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\necho start >>{shlex.quote(str(tmp_path / 'starts'))}\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _starts(tmp_path: Path) -> int:
    path = tmp_path / "starts"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _run(
    shell: str, command: str, tmp_path: Path, stdin: bytes = b"{}"
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    started = time.monotonic()
    proc = subprocess.run(
        [shell, "-c", command], check=False, input=stdin, capture_output=True, env=env, timeout=30
    )
    return proc, time.monotonic() - started


@pytest.mark.parametrize("shell", SHELLS)
def test_a_healthy_ovhooks_answers_through_it_unchanged(shell: str, tmp_path: Path) -> None:
    exe = _stub(tmp_path, 'cat >"$0.stdin"; echo "{\\"ok\\": \\"$*\\"}"')
    proc, _ = _run(shell, launch.command_line(exe, "stop", "gemini"), tmp_path, b'{"p": 1}')
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout == b'{"ok": "stop --host gemini"}\n'
    assert Path(exe + ".stdin").read_bytes() == b'{"p": 1}'  # the payload reached it


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("crash", "echo 'Traceback (most recent call last): boom' >&2; exit 1"),
        ("usage error", "echo 'No such command' >&2; exit 2"),  # Claude and Codex: block
        ("not executable", None),
        ("signal", "kill -SEGV $$"),
        ("killed", "kill -9 $$"),
    ],
)
def test_a_broken_ovhooks_means_carry_on(
    shell: str, case: str, body: str | None, tmp_path: Path
) -> None:
    exe = _stub(tmp_path, body or "exit 0")
    if body is None:
        os.chmod(exe, 0o644)
    proc, _ = _run(shell, launch.command_line(exe, "user-prompt-submit", "gemini"), tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b""), case


@pytest.mark.parametrize("shell", SHELLS)
def test_a_missing_ovhooks_means_carry_on(shell: str, tmp_path: Path) -> None:
    for exe in (str(tmp_path / "moved-venv" / "bin" / "ovhooks"), "ovhooks-not-on-path"):
        proc, _ = _run(shell, launch.command_line(exe, "session-start", "codex"), tmp_path)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.mark.skipif(not shutil.which("timeout"), reason="needs timeout(1)")
@pytest.mark.parametrize("shell", SHELLS)
def test_a_hung_ovhooks_is_killed_with_its_children_then_skipped(
    shell: str, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    exe = _stub(tmp_path, f"sleep 60 & echo $! >>{pids}; echo $$ >>{pids}; sleep 60")
    command = launch.command_line(exe, "pre-tool-use", "claude")
    proc, seconds = _run(shell, command, tmp_path)
    assert (proc.returncode, proc.stdout) == (0, b"")
    kill_after = launch.kill_after_s("pre-tool-use")
    assert kill_after <= seconds < kill_after + 1.5
    started = pids.read_text().split()
    assert len(started) == 2
    time.sleep(0.2)
    assert not [pid for pid in started if alive(int(pid))], "a hung process outlived the hook"
    # the same host process's next hooks answer at once, without starting ovhooks
    for _ in range(launch.SKIP_AFTER_HANG):
        proc, seconds = _run(shell, command, tmp_path)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
        assert seconds < 0.5
    assert _starts(tmp_path) == 1
    # then it is tried again: healthy now, it answers, and the marker is cleared
    _stub(tmp_path, 'echo "{}"')
    for _ in range(2):
        proc, _ = _run(shell, command, tmp_path)
        assert proc.stdout == b"{}\n"
    assert _starts(tmp_path) == 3


@pytest.mark.skipif(not shutil.which("timeout"), reason="needs timeout(1)")
def test_the_marker_holds_the_count_and_the_host_process_start(tmp_path: Path) -> None:
    exe = _stub(tmp_path, "sleep 60")
    command = launch.command_line(exe, "pre-tool-use", "claude")
    _run("sh", command, tmp_path)
    marker = tmp_path / f"{launch.MARKER_NAME}{os.getpid()}"  # the shell's parent: this test
    start = started_at(os.getpid())
    assert start, "ps -o lstart= gave nothing here"
    assert marker.read_text() == f"1 {start}\n"
    _run("sh", command, tmp_path)  # skipped: the count goes on, the start stays
    assert marker.read_text() == f"2 {start}\n"
    assert _starts(tmp_path) == 1


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    "left", ["3 Thu Jan  1 00:00:07 1970", "3", "19 someone else", "3 " + "x" * 300]
)
def test_a_marker_a_dead_host_left_under_this_pid_does_not_silence_it(
    shell: str, left: str, tmp_path: Path
) -> None:
    """Pids come back (32768 on Linux): a host that exited while its hooks were skipping
    left a counting marker under a pid a later host now has. That host's hooks run, and the
    first clears the marker."""
    marker = tmp_path / f"{launch.MARKER_NAME}{os.getpid()}"
    marker.write_text(left + "\n")
    exe = _stub(tmp_path, 'echo "{}"')
    command = launch.command_line(exe, "user-prompt-submit", "codex")
    for _ in range(2):
        proc, _ = _run(shell, command, tmp_path)
        assert (proc.returncode, proc.stdout) == (0, b"{}\n")
    assert _starts(tmp_path) == 2
    assert marker.read_text() == "0\n"


def test_the_host_timeout_is_a_second_after_the_kill_which_is_after_the_deadline() -> None:
    from ovhooks import hookrun
    from ovhooks.hosts.base import EVENT_NAMES

    for hook, event in EVENT_NAMES.items():
        assert launch.host_timeout_s(hook) == launch.kill_after_s(hook) + 1
        fixed = hookrun.HOST_TIMEOUT_DEADLINES_S.get(event)
        if fixed is not None:
            assert fixed <= launch.kill_after_s(hook) - 1.0, hook
        else:  # recall and session start: their settings' defaults, with hookrun's slack
            assert launch.kill_after_s(hook) - 1.0 >= 1.5 + 0.25, hook
    assert launch.kill_after_s("a-future-hook") == launch.DEFAULT_KILL_AFTER_S


@pytest.mark.parametrize(
    "exe", ["/v/bin/ovhooks", "'/a b/ovhooks'", "ovhooks", "/usr/bin/python3 -m ovhooks"]
)
def test_the_registered_command_is_recognised_and_names_its_executable(exe: str) -> None:
    command = launch.command_line(exe, "stop", "codex")
    assert hostconfig.is_ovhooks_command(command)
    assert launch.executable_of(command) == shlex.split(exe)[-1]
    assert launch.executable_of(f"{exe} stop --host codex") == shlex.split(exe)[-1]
    assert launch.executable_of("") == ""
    assert launch.executable_of("notify.sh 'unbalanced") == "notify.sh"


def test_windows_gets_the_bare_command() -> None:
    assert launch.command_line("ovhooks", "stop", "codex", posix=False) == (
        "ovhooks stop --host codex"
    )


def test_the_skip_pattern_counts_one_to_the_limit() -> None:
    for last in (5, 19, 42):
        pattern = launch._one_to(last)
        matched = [
            n
            for n in range(0, 100)
            if subprocess.run(
                ["sh", "-c", f"case {n} in {pattern}) exit 0;; esac; exit 1"], check=False
            ).returncode
            == 0
        ]
        assert matched == list(range(1, last + 1)), (last, pattern)


def test_the_command_survives_geminis_settings_substitution() -> None:
    """Gemini CLI replaces ``${NAME}`` and ``$NAME`` in settings.json strings with the
    environment's values before the shell sees them: the command uses neither braces nor
    names a user's environment could hold, only its own ``ovh_`` ones and the shell's."""
    import re

    command = launch.command_line("/v/bin/ovhooks", "stop", "gemini")
    assert "${" not in command
    names = set(re.findall(r"\$(\w+)", command))
    assert names == {
        *("ovh_d", "ovh_m", "ovh_n", "ovh_i", "ovh_c"),
        *("PPID", "XDG_RUNTIME_DIR", "TMPDIR"),
    }, names


@pytest.mark.parametrize("name", ["pi_extension.ts", "opencode_plugin.js"])
def test_the_shims_bound_each_hook_as_the_launcher_does(name: str) -> None:
    import re

    from ovhooks.commands.install.shim_file import template

    text = template(name)
    table = text[text.index("const TIMEOUT_MS") : text.index("};", text.index("const TIMEOUT_MS"))]
    bounds = {
        key.strip('"'): int(ms)
        for key, ms in re.findall(r'^\s*("?[\w-]+"?): (\d+),$', table, flags=re.MULTILINE)
    }
    assert bounds, table
    assert bounds == {hook: launch.kill_after_s(hook) * 1000 for hook in bounds}
    assert f"const SKIP_AFTER_HANG = {launch.SKIP_AFTER_HANG};" in text
