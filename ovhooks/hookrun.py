"""The hook boundary: argv, stdin, environment and clock in; one JSON line out; exit 0.

Every path ends in a host-valid reply: bad input, a broken config, a dead server, a bug in a
handler, or the deadline firing. ``sys.stdin``, the environment and the clock's "now" are
read here once and passed to the handlers; below them, the HTTP transport still reads
``os.environ`` (proxy variables, as curl reads them), and the local store, the log and file
housekeeping read the clock themselves.
"""

from __future__ import annotations

import os
import sys
import time

from ovhooks.hosts.base import (
    EVENT_NAMES,
    HOSTS,
    Reply,
    adapt_payload,
    decode_payload,
    detect_host,
    render_reply,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event

# Events that answer the host with what they found, under the setting that bounds that work
# (the slack covers process start-up before the deadline's reference point).
_DEADLINE_EVENTS = {
    "UserPromptSubmit": "recall_deadline_s",
    "SessionStart": "session_start_deadline_s",
    "SubagentStart": "recall_deadline_s",
}
_DEADLINE_SLACK_S = 0.25
# Every other hook answers at least a second before the fail-open launcher would kill it
# (hosts/launch.py ``kill_after_s``; the host's own timeout is a second later), even when it
# works inline (OVHOOKS_DETACH=0) or a read blocks: neither must be the one that stops it.
HOST_TIMEOUT_DEADLINES_S = {
    "Stop": 5.0,
    "SubagentStop": 5.0,
    "PreCompact": 5.0,
    "PostCompact": 5.0,
    "SessionEnd": 5.0,
    "PreToolUse": 2.0,
    "PostToolUse": 2.0,
    "DirectoryAdded": 5.0,
}

HOOK_COMMANDS = frozenset(EVENT_NAMES)
# A host writes its event (a few kilobytes, a pasted prompt at most a few megabytes) and
# closes the pipe. Past this size the event is not read on (memory stays bounded: a hook fed
# /dev/zero grew 0.7 GB a second); a pipe left open ends the read this long after the last
# byte once what came is a whole event, and at the latest after ``STDIN_WAIT_S``.
MAX_STDIN_BYTES = 16 << 20
STDIN_WAIT_S = 1.0
_STDIN_QUIET_S = 0.05


class _DeadlineExceeded(BaseException):
    """Raised by the alarm; a BaseException so no handler's ``except Exception`` eats it."""


def _handler(command: str) -> Callable[[Event, HookContext], Reply]:
    module = command.replace("-", "_")
    mod = __import__(f"ovhooks.events.{module}", fromlist=["handle"])
    handle: Callable[[Event, HookContext], Reply] = mod.handle
    return handle


def parse_flags(argv: Sequence[str]) -> tuple[str | None, bool, list[str]]:
    """``--host X`` / ``--host=X`` and ``--dry-run``; anything else is reported, not fatal."""
    host = None
    dry_run = False
    unknown: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--host" and i + 1 < len(args):
            host = args[i + 1]
            i += 2
            continue
        if arg.startswith("--host="):
            host = arg.split("=", 1)[1]
        elif arg == "--dry-run":
            dry_run = True
        else:
            unknown.append(arg)
        i += 1
    if host is not None and host not in HOSTS:
        unknown.append(f"--host {host}")
        host = None
    return host, dry_run, unknown


def run_hook(
    command: str,
    argv: Sequence[str],
    stdin: bytes,
    environ: Mapping[str, str],
    *,
    now: float,
    started: float,
) -> tuple[str, str]:
    """Run one hook; returns (stdout line, stderr text). Never raises."""
    event_name = EVENT_NAMES[command]
    host_flag, dry_run, unknown = parse_flags(argv)
    payload = decode_payload(stdin)
    host = host_flag or detect_host(payload, environ)
    payload = adapt_payload(host, event_name, payload, environ)
    stderr = ""
    ctx: HookContext | None = None
    try:
        from ovhooks.events.context import HookContext
        from ovhooks.hosts.base import Event
        from ovhooks.settings.config import load_settings

        # The defaults' deadline holds while the settings are read (a config file the size
        # of a log once took a hook 13 s), then the user's own.
        disarm = _arm_deadline(event_name, None, started)
        try:
            settings = load_settings(environ)
        finally:
            disarm()
        plan = None
        if dry_run:
            from ovhooks.dryrun.plan import Plan
            from ovhooks.dryrun.record import PlannedHookContext

            plan = Plan()
            ctx = PlannedHookContext(
                settings, plan, host=host, now=now, started=started, environ=environ
            )
        else:
            ctx = HookContext(settings, host=host, now=now, started=started, environ=environ)
        if unknown:
            ctx.log.error("hook_bad_arguments", command=command, args=unknown)
        if not payload:
            ctx.log.info("hook_empty_payload", command=command, stdin_bytes=len(stdin))
        event = Event(host, event_name, payload)
        disarm = _arm_deadline(event_name, settings, started)
        try:
            reply = _handler(command)(event, ctx)
        finally:
            disarm()
            ctx.discard()
        # What each hook did, for OVHOOKS_LOG_LEVEL=debug (sizes only: no text of the reply).
        ctx.log.debug(
            "hook_ran",
            command=command,
            host=host,
            session=event.session_id,
            ms=round((time.monotonic() - started) * 1000, 1),
            context_chars=len(reply.context or ""),
            message=bool(reply.system_message),
            fields=sorted(reply.specific),
        )
        if plan is not None:
            stderr = plan.render()
    except _DeadlineExceeded:
        reply = Reply()
        if ctx is not None:
            ctx.log.error("hook_deadline", command=command)
    except Exception as exc:
        reply = Reply()
        _log_crash(ctx, command, exc, environ)
    try:
        out = render_reply(host, event_name, reply)
    except Exception as exc:  # pragma: no cover (render_reply only builds dicts)
        _log_crash(ctx, command, exc, environ)
        out = "{}"
    from ovhooks.redact import redact_known_secrets

    # Whatever a server put in a message (an echoed request head...), our key stays out.
    return redact_known_secrets(out), redact_known_secrets(stderr)


def _arm_deadline(event_name: str, settings: object, started: float) -> Callable[[], None]:
    """Raise ``_DeadlineExceeded`` when the event's budget is spent; ``settings`` ``None``:
    the budget of the default settings."""
    field = _DEADLINE_EVENTS.get(event_name)
    if field is not None:
        seconds = _seconds(settings, field) + _DEADLINE_SLACK_S
    else:
        seconds = HOST_TIMEOUT_DEADLINES_S.get(event_name, 0.0)
        # A longer budget for debugging with OVHOOKS_DETACH=0 against hosts given longer
        # timeouts (or none, by hand): the inline worker then gets that long.
        override = _seconds(settings, "hook_deadline_s")
        if 0 < override < float("inf"):
            seconds = override
    if not seconds or not hasattr(os, "fork"):  # SIGALRM: POSIX only
        return lambda: None
    # The C module (built in, already loaded at start-up), not ``signal``: that one wraps the
    # same functions to turn numbers into enums, building its IntEnum classes on import
    # (~0.5 ms of every hook). Only numbers and a handler are passed here.
    if TYPE_CHECKING:
        import signal
    else:
        import _signal as signal

    budget = seconds - (time.monotonic() - started)

    def fire(_signum: int, _frame: object) -> None:
        raise _DeadlineExceeded

    signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, budget))

    def disarm() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)

    return disarm


def _seconds(settings: object, name: str) -> float:
    """The setting ``name`` in seconds, from ``settings`` or, when ``None``, its default."""
    if settings is None:
        from ovhooks.settings.config import default_of

        value = default_of(name)
    else:
        value = getattr(settings, name)
    return float(value) if isinstance(value, (int, float)) else 0.0


def _log_crash(
    ctx: HookContext | None, command: str, exc: BaseException, environ: Mapping[str, str]
) -> None:
    import traceback

    trace = traceback.format_exc(limit=12)
    from ovhooks.redact import describe_exception

    error = describe_exception(exc)
    try:
        if ctx is not None:
            ctx.log.error("hook_crashed", command=command, error=error, trace=trace)
            return
        from ovhooks.log import Log
        from ovhooks.settings.layout import user_dir

        state_dir = environ.get("OVHOOKS_STATE_DIR") or user_dir("state", environ)
        Log(state_dir, "error").error("hook_crashed", command=command, error=error, trace=trace)
    except Exception:
        pass


def main(command: str, argv: Sequence[str]) -> int:
    """Entry for ``ovhooks <hook-command>``: the only place that reads stdin and the clock."""
    started = time.monotonic()
    now = time.time()
    stdin = read_stdin(started)
    out, err = run_hook(command, argv, stdin, os.environ, now=now, started=started)
    if err:
        try:
            sys.stderr.write(err)
        except (OSError, ValueError):
            pass
    try:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    return 0


def read_stdin(started: float) -> bytes:
    """The event on stdin, bounded in size (``MAX_STDIN_BYTES``: nothing is kept past it)
    and in time (``STDIN_WAIT_S`` from ``started``, less once a whole event has come)."""
    if sys.stdin is None:
        return b""
    if os.name == "nt":  # pragma: no cover (select takes sockets only there): size alone
        try:
            data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
        except (OSError, ValueError):
            return b""
        return data if len(data) <= MAX_STDIN_BYTES else b""
    try:
        fd = sys.stdin.fileno()
        import select
    except (OSError, ValueError, ImportError):  # pragma: no cover (no descriptor, no select)
        return b""
    chunks: list[bytes] = []
    size = 0
    late_until = 0.0
    try:
        while True:
            # past the wait, what is already in the pipe is still read (a loaded machine may
            # start the read late), but nothing new is waited for: only an event already
            # coming goes on while it keeps coming (a host blocked writing an event larger
            # than the pipe's 64 KiB refills it only after each read), until a quiet gap, and
            # at the latest STDIN_WAIT_S after the wait ran out for this read
            now = time.monotonic()
            left = max(0.0, STDIN_WAIT_S - (now - started))
            if chunks and left <= 0:
                late_until = late_until or now + STDIN_WAIT_S
                wait = min(_STDIN_QUIET_S, max(0.0, late_until - now))
            else:
                wait = min(left, _STDIN_QUIET_S) if chunks else left
            if not select.select([fd], [], [], wait)[0]:
                if left <= 0 or _whole_event(chunks):
                    break
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_STDIN_BYTES:
                return b""
            chunks.append(chunk)
    except (OSError, ValueError):
        pass
    return b"".join(chunks)


def _whole_event(chunks: list[bytes]) -> bool:
    """Whether what came so far is one whole JSON value (a pipe the host left open)."""
    import json

    try:
        json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        return False
    return True
