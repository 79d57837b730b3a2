"""The command line a host's hook configuration runs: ovhooks started so that it can never
block the agent, whatever happens to it (issue 38).

Contract (every command-hook host — Codex, Claude Code, Gemini CLI, and any host added later
that runs a shell command per event — registers ``command_line(exe, hook, host)`` with its
own per-hook timeout ``host_timeout_s(hook)``):

- The host always sees "carry on": exit status 0, and on stdout either ovhooks' one JSON line
  or nothing. A missing or unrunnable ``ovhooks`` (127, 126), a crash (1), a usage error (2,
  which Claude Code and Codex read as "block"), a signal: all become exit 0 with stdout as
  ovhooks left it. stderr is discarded: Gemini CLI parses stderr when stdout is empty, and
  reads plain text with a status other than 0 or 1 as a deny.
- Bounded: ovhooks runs under ``timeout -k 1 <kill_after_s(hook)>`` when ``timeout`` is on
  PATH (GNU coreutils, busybox; it puts ovhooks in its own process group and kills that
  group, so a hung ovhooks and anything it started are gone at that time even when the host
  has already killed the shell). Each hook answers on its own well before (``hookrun``'s
  deadlines are at least a second inside ``kill_after_s``). The host's own timeout
  (``host_timeout_s``) is a second later still: the host is never the one that stops it.
- A hang costs once per host process, not once per event: when ``timeout`` had to stop
  ovhooks, a marker named after the host's pid (the shell's ``$PPID``) in
  ``$XDG_RUNTIME_DIR`` (else ``$TMPDIR``, else ``/tmp``) makes the next ``SKIP_AFTER_HANG``
  hooks of that host process answer at once without starting ovhooks; the one after that
  tries again (and clears the marker if ovhooks answered). A healthy run does this work with
  shell builtins only: a few ``stat`` calls and the ``timeout`` exec (about a millisecond).
- A marker is the host process's and no other's: it holds the count and that process's start
  time as ``ps -o lstart= -p PID`` prints it (``START_OF_HOST``), and a marker whose start
  differs is a dead process's whose pid came back (pids wrap at 32768 on Linux: a marker left
  by a host that exited mid-skip silenced up to 19 hooks of a later, healthy one). Such a
  marker is cleared and ovhooks runs. ``ps`` runs only when a marker is written or found
  counting; without ``ps`` (or its ``lstart``) both sides read an empty start and the pid
  alone names the process, as before.
- The command holds no ``${...}`` and only ``ovh_``-prefixed shell variables: Gemini CLI
  substitutes environment variables in its settings strings before the shell runs them.

Shim hosts (Pi, OpenCode) apply the same rules in their own runtime (``hosts/shims/``) with
``kill_after_s`` as the bound on each process. On Windows the bare command is returned.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Seconds after which the launcher kills ovhooks, per hook command: the hook's own deadline
# plus a margin for a loaded machine. Recall and session start answer within
# ``recall_deadline_s``/``session_start_deadline_s`` (1.5 s by default) of starting; the tool
# hooks within 2 s; the others hand their work to a detached worker at once, and get 5 s
# only so that the inline mode of tests and debugging (``OVHOOKS_DETACH=0``) can finish.
# The first hang in a host process costs one of these; later hooks skip (``SKIP_AFTER_HANG``).
KILL_AFTER_S: dict[str, int] = {
    "session-start": 4,
    "user-prompt-submit": 4,
    "subagent-start": 4,
    "pre-tool-use": 3,
    "post-tool-use": 3,
    "stop": 6,
    "subagent-stop": 6,
    "pre-compact": 6,
    "post-compact": 6,
    "session-end": 6,
    "directory-added": 6,
}
DEFAULT_KILL_AFTER_S = 6
# How many hooks of one host process answer at once after a hang before ovhooks is tried again.
SKIP_AFTER_HANG = 19
MARKER_NAME = "ovhooks-hung-"
# The host process's start as a marker holds it after the count: ``ps``'s words joined by one
# space (mcp_launch.sh and OpenCode's plugin compute it the same way; a test holds them to it).
START_OF_HOST = "$(echo $(ps -o lstart= -p $PPID 2>/dev/null))"


def kill_after_s(hook: str) -> int:
    return KILL_AFTER_S.get(hook, DEFAULT_KILL_AFTER_S)


def host_timeout_s(hook: str) -> int:
    """The timeout to register with the host for ``hook`` (seconds; Gemini wants ms)."""
    return kill_after_s(hook) + 1


def command_line(executable: str, hook: str, host: str, *, posix: bool | None = None) -> str:
    """The shell command a host runs for ``hook``: ``executable`` (already shell-quoted, as
    ``hostconfig.hook_executable`` gives it) wrapped so that it fails open (module doc)."""
    bare = f"{executable} {hook} --host {host}"
    if not (os.name != "nt" if posix is None else posix):
        return bare
    skip = SKIP_AFTER_HANG
    # No ``${...}`` and no short variable names: Gemini CLI substitutes environment variables
    # in settings.json strings (``${NAME}``, ``$NAME``) before the shell sees the command.
    marker = (
        'ovh_d=$XDG_RUNTIME_DIR; [ -d "$ovh_d" ] || ovh_d=$TMPDIR; [ -d "$ovh_d" ] || ovh_d=/tmp; '
        f'ovh_m="$ovh_d/{MARKER_NAME}$PPID"'
    )
    # ovh_n: hooks skipped since the last hang (1..skip, with this host's start ovh_i: skip
    # this one too); 0 or anything else (a dead host's marker): run, and clear a marker
    # that is not 0. 124 is timeout's status when it stopped ovhooks, 137 when it killed it.
    return (
        f'{marker}; ovh_n=0; [ -f "$ovh_m" ] && read -r ovh_n ovh_i <"$ovh_m" 2>/dev/null; '
        f"case $ovh_n in {_one_to(skip)}) ovh_c={START_OF_HOST}; "
        '[ "$ovh_i" = "$ovh_c" ] && { echo "$((ovh_n+1)) $ovh_c" >"$ovh_m" 2>/dev/null; exit 0; }; '
        "ovh_n=gone;; esac; "
        f"if command -v timeout >/dev/null; then timeout -k 1 {kill_after_s(hook)} {bare}; "
        f"else {bare}; fi 2>/dev/null; "
        f'case $? in 124|137) echo "1 {START_OF_HOST}" >"$ovh_m";; '
        '*) [ "$ovh_n" = 0 ] || echo 0 >"$ovh_m";; esac 2>/dev/null; exit 0'
    )


def _one_to(last: int) -> str:
    """A ``case`` pattern matching the numbers 1..``last`` (``last`` < 100)."""
    if last < 10:
        return f"[1-{last}]"
    tens, ones = divmod(last, 10)
    patterns = ["[1-9]", *(f"{t}[0-9]" for t in range(1, tens)), f"{tens}[0-{ones}]"]
    return "|".join(patterns)


def executable_of(command: str) -> str:
    """The ovhooks executable a registered hook command starts (``""`` when none is found):
    the word before the hook name, in the launcher's form and in the bare one."""
    import shlex
    from itertools import pairwise

    from ovhooks.hosts.base import EVENT_NAMES

    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        words = command.split()
    for before, word in pairwise(words):
        if word in EVENT_NAMES:
            return before
    return words[0] if words else ""


# --- the memory server (``ovhooks mcp``) ---------------------------------------------------
# A host starts the MCP server itself, not through a hook, and waits for its handshake by its
# own rule (measured with a server that never answers: Copilot CLI 1.0.102 about 65 s per
# prompt whatever the entry says, Qwen Code 0.24.4 10-33 s, Gemini CLI 0.61 its entry's
# ``timeout``). So the server is registered under ``mcp_launch.sh`` (beside this module; its
# header says how), which bounds the start: ``ovhooks mcp`` creates the file named by
# ``READY_VARIABLE`` once it serves, and without it after ``MCP_READY_S`` the launcher stops
# ovhooks (its own process group, where setsid(1) exists: a child it started would hold the
# host's pipe open) and ends. It shares the hooks' hang marker, both ways (OpenCode's plugin
# reads and writes it too). A file, not an inline ``sh -c``: hosts' ``mcp list`` and config files
# show the command, and the package's own copy goes where ovhooks goes (a removed install
# fails to start at once, which the host also survives).
MCP_READY_S = 4
READY_VARIABLE = "OVHOOKS_MCP_READY"
MCP_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_launch.sh")


def mcp_argv(server_argv: list[str], *, posix: bool | None = None) -> list[str]:
    """The argv a host registers for the memory server: ``server_argv`` (``… ovhooks mcp``)
    under the bounded launcher on POSIX, bare elsewhere. ``mcp`` stays the last word."""
    if not (os.name != "nt" if posix is None else posix):
        return list(server_argv)
    return ["sh", MCP_LAUNCHER, *server_argv]


def launched_argv(argv: list[str]) -> list[str]:
    """What a registered server argv runs: the words after the launcher when it is ours
    (``mcp_argv``, whichever install put it there), else ``argv`` itself."""
    if len(argv) > 2 and argv[0] == "sh" and os.path.basename(argv[1]) == "mcp_launch.sh":
        return argv[2:]
    return argv


def mark_ready(environ: Mapping[str, str]) -> None:
    """Tell the launcher this server answers (``ovhooks mcp``, before its first read)."""
    path = environ.get(READY_VARIABLE)
    if path:
        try:
            # O_NONBLOCK: a FIFO planted at the name fails at once (ENXIO) instead of
            # blocking the server before its first answer; O_NOFOLLOW: a planted link is
            # not followed to create a file elsewhere
            flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
            os.close(os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600))
        except OSError:
            pass  # the launcher then stops a working server after MCP_READY_S
