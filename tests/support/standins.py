"""Stand-ins for ovhooks at the path a host's hooks run, and what they leave behind.

The fail-open suite (``tests/e2e/test_fail_open_hosts.py``) puts one of these at the ``--exe``
path that ``ovhooks install`` registered, so the host runs it for every hook:

- healthy: reads the payload and answers ``{}`` at once (the baseline); as the memory
  server (``mcp``), the real ``ovhooks mcp``;
- missing: no file at all (a moved venv: the shell's 127);
- broken: garbage on stdout, a traceback on stderr, exit 2: the harshest status for every
  host (Claude Code, Codex and Qwen Code read 2 as "block"; Gemini CLI reads plain text on
  stderr with a status other than 0 or 1 as a deny);
- hung: starts a child and waits forever; every process it starts writes its pid to
  ``pids`` beside it, so the check sees the child too (a launcher or shim that kills only
  the process it started, not its group, leaves the child behind), and the hook it was
  run for to ``hooks`` (how many hooks of one prompt hung, and which).
"""

from __future__ import annotations

import os
import signal
import sys
import time

# Run in this order: the two hung runs apart, each between runs whose hooks return at once,
# so that one burst of load on a shared machine cannot slow both hung runs and no baseline.
CASES = ("healthy", "hung", "missing", "hung-again", "broken")
BASELINE_CASES = ("healthy", "missing", "broken")  # hooks that return at once
HUNG_CASES = ("hung", "hung-again")

SCRIPTS = {
    # as the memory server (``<exe> mcp``, started by the host through install's launcher):
    # the real one, from this interpreter
    "healthy": f'[ "$1" = mcp ] && exec {sys.executable} -m ovhooks mcp\n'
    "cat >/dev/null\necho '{}'\n",
    "broken": (
        "echo 'Traceback: <garbage> {not json'\n"
        "echo 'Traceback (most recent call last): ovhooks is broken' >&2\nexit 2\n"
    ),
    "hung": (
        'echo "$1" >>"$(dirname "$0")/hooks"\necho $$ >>"$(dirname "$0")/pids"\n'
        'sleep 600 &\necho $! >>"$(dirname "$0")/pids"\nwait\n'
    ),
}


def put(folder: str, case: str) -> None:
    """Put the ``case`` stand-in at ``folder/ovhooks`` (nothing for ``missing``)."""
    exe = os.path.join(folder, "ovhooks")
    if os.path.exists(exe):
        os.unlink(exe)
    script = SCRIPTS.get(case.removesuffix("-again"))
    if script is None:
        return
    with open(exe, "w", encoding="utf-8") as handle:
        handle.write("#!/bin/sh\n" + script)
    os.chmod(exe, 0o755)


def recorded_pids(folder: str) -> list[int]:
    """Every pid a hung stand-in in ``folder`` wrote down (itself and its child)."""
    path = os.path.join(folder, "pids")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return [int(word) for word in handle.read().split()]


def hung_hooks(folder: str) -> list[str]:
    """The hook of every hung stand-in run in ``folder``, in the order they started."""
    path = os.path.join(folder, "hooks")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return handle.read().split()


def started_at(pid: int) -> str:
    """A process's start as the hang marker holds it (``hosts/launch.py``: ``ps -o lstart=``,
    words joined by one space; "" without ``ps``)."""
    import subprocess

    try:
        out = subprocess.run(
            ["ps", "-o", "lstart=", "-p", str(pid)],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        ).stdout
    except OSError:
        return ""
    return " ".join(out.split())


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for its parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            state = handle.read().rsplit(") ", 1)[-1][:1]
    except OSError:
        return False
    return state not in ("Z", "X")


def _mentioning(needle: str) -> list[int]:
    """Live processes whose command line mentions ``needle`` (the stand-in's folder): the
    launcher's ``timeout`` and the stand-in's shell."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if needle in cmdline and alive(int(name)):
            found.append(int(name))
    return found


def left_behind(folder: str, pids: list[int]) -> list[int]:
    """Processes of the stand-in in ``folder`` still alive: the recorded ``pids`` and any
    process whose command line names the folder."""
    living = {pid for pid in pids if alive(pid)}
    return sorted(living | set(_mentioning(folder)))


def wait_until_gone(folder: str, since: float, bound_s: float) -> list[int]:
    """Poll until no process of the stand-in in ``folder`` is left, at most ``bound_s`` after
    ``since`` (a ``time.monotonic()``): a case that leaves nothing costs one look, not the
    bound. Returns what is still alive at the bound."""
    pids = recorded_pids(folder)
    while True:
        left = left_behind(folder, pids)
        if not left or time.monotonic() >= since + bound_s:
            return left
        time.sleep(0.2)


def end(pids: list[int]) -> None:
    """Kill what a failed case left (the test's own stand-ins), so the next case starts clean."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
