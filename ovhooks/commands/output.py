"""One way out for every human/agent command: Rich text for people, one JSON document for
agents (``--json``), and the error boundary that turns failures into a line and an exit code.

JSON documents always carry ``ok`` (bool) and ``command`` (str). Failures add
``error: {code, message, fix}`` and ``exit_code``; nothing else about them is printed.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import IO, Annotated, cast

import typer

from ovhooks.commands.errors import CommandError, ExitCode, backend_failure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from rich.console import Console

JSON_HELP = "Print one JSON document on stdout (stable keys; for scripts and agents)."
# Every command's ``--json`` flag: ``as_json: JsonFlag = False``. ``boundary`` reads it by name.
JsonFlag = Annotated[bool, typer.Option("--json", help=JSON_HELP)]


class Output:
    """Where a command's results go. Human text goes to stdout; notes go to stderr."""

    def __init__(self, command: str, *, as_json: bool) -> None:
        self.command = command
        self.as_json = as_json
        self._console: Console | None = None
        self._err: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = human_console(sys.stdout)
        return self._console

    @property
    def err(self) -> Console:
        if self._err is None:
            self._err = human_console(sys.stderr)
        return self._err

    def emit(self, doc: dict[str, Any], render: Callable[[Console], None] | None = None) -> None:
        """The command's result: a JSON document, or ``render`` for people."""
        if self.as_json:
            print_json({"ok": True, "command": self.command, **doc})
        elif render is not None:
            render(self.console)

    def note(self, text: str) -> None:
        """Progress or advice for people; silent in JSON mode (stdout stays one document)."""
        if not self.as_json:
            self.err.print(text)


# C0 and C1 control characters but tab, line feed and carriage return (which Rich drops)
_WRITTEN_OUT = {
    c: f"\\x{c:02x}"
    for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0))
}


def shown(text: str) -> str:
    """``text`` with its control characters written out (``\\x1b``), for a terminal: stored
    text (a memory, a session id a host sent) must not move the cursor, set the title or
    write the clipboard (OSC 52) of the user reading it. ``--json`` escapes them anyway."""
    return text.translate(_WRITTEN_OUT)


def human_console(stream: Any) -> Console:
    """A Rich console on ``stream`` (secrets redacted on the way out) that shows every text it
    prints through ``shown``; Rich's own styling codes are added after, untouched."""
    from rich.console import Console
    from rich.segment import Segment

    class Shown(Console):
        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            return super()._render_buffer(
                s if s.control else Segment(shown(s.text), s.style) for s in buffer
            )

    return Shown(file=_redacting(stream), highlight=False, soft_wrap=True)


class _Redacting:
    """A text stream that keeps our API key and header credentials out of what it writes."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from ovhooks.redact import redact_known_secrets

        self._stream.write(redact_known_secrets(text))
        return len(text)  # what the caller gave, as a text stream reports

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        return int(self._stream.fileno())

    @property
    def encoding(self) -> str:
        return str(getattr(self._stream, "encoding", "utf-8") or "utf-8")


def _redacting(stream: Any) -> IO[str]:
    return cast("IO[str]", _Redacting(stream))


def redact_std_streams() -> None:
    """Every line the CLI writes leaves without our key: Click's own usage errors (which quote
    the arguments, before any command loaded the settings that name the key), Typer's help,
    a command writing ``sys.stdout`` itself. The environment's key is known from the start;
    a configuration file's once the command loads its settings."""
    from ovhooks.redact import remember_environment

    remember_environment(os.environ)
    if not isinstance(sys.stdout, _Redacting):
        sys.stdout = _redacting(sys.stdout)
    if not isinstance(sys.stderr, _Redacting):
        sys.stderr = _redacting(sys.stderr)


def print_json(doc: dict[str, Any]) -> None:
    from ovhooks.redact import redact_known_secrets

    text = json.dumps(doc, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(redact_known_secrets(text) + "\n")
    sys.stdout.flush()


def _log_path_and_log(command: str, exc: BaseException) -> str:
    """Write the traceback to the log (only there); return the log's path."""
    import traceback

    from ovhooks.log import Log
    from ovhooks.settings.config import load_settings

    try:
        settings = load_settings(os.environ)
        log = Log(settings.state_dir, "error", component="cli")
        log.error(
            "command_crashed",
            command=command,
            error=type(exc).__name__,
            trace=traceback.format_exc(limit=20),
        )
        return log.path
    except Exception:
        return "(log unavailable)"


def _within(path: object, directory: str) -> bool:
    if not isinstance(path, str) or not directory:
        return False
    path, directory = os.path.abspath(path), os.path.abspath(directory)
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def state_dir_failure(exc: OSError) -> CommandError | None:
    """An OSError on the state directory (a path under a file, permission denied, full disk)
    as the ordinary error it is: the user's set-up, with doctor's fix, not a bug."""
    from ovhooks.settings.config import load_settings

    try:
        state_dir = load_settings(os.environ).state_dir
    except Exception:
        return None
    if not (_within(exc.filename, state_dir) or _within(exc.filename2, state_dir)):
        return None
    from ovhooks.commands.doctor import state_dir_fix

    reason = exc.strerror or type(exc).__name__
    return CommandError(
        f"state directory unusable: {state_dir} ({reason}: {exc.filename})",
        fix=state_dir_fix(state_dir),
        code=ExitCode.ERROR,
        slug="state_dir",
    )


def report_error(command: str, as_json: bool, error: CommandError) -> None:
    if as_json:
        print_json(
            {
                "ok": False,
                "command": command,
                "error": {"code": error.slug, "message": error.message, "fix": error.fix},
                "exit_code": int(error.code),
            }
        )
        return
    from rich.markup import escape

    err = human_console(sys.stderr)
    err.print(f"[bold red]error:[/] {escape(error.message)}")
    if error.fix:
        err.print(f"[bold]fix:[/] {escape(error.fix)}")


def command_failure(command: str, exc: Exception) -> CommandError:
    """What any failure of a command tells the user: its own ``CommandError``, a backend
    failure worded by ``errors.backend_failure``, an unusable state directory, or else a bug
    (the traceback goes to the log, never to the screen). Call it inside the ``except``."""
    if isinstance(exc, CommandError):
        return exc
    from ovhooks.transport.errors import BackendError

    if isinstance(exc, BackendError):
        return backend_failure(exc)
    unusable = state_dir_failure(exc) if isinstance(exc, OSError) else None
    if unusable is not None:  # no log either: it would live in that same dir
        return unusable
    path = _log_path_and_log(command, exc)
    return CommandError(
        f"unexpected {type(exc).__name__} (a bug in ovhooks); details in {path}",
        fix="please report it with the log excerpt",
        code=ExitCode.INTERNAL,
        slug="internal",
    )


def boundary(command: str) -> Callable[[Callable[..., int | None]], Callable[..., None]]:
    """Wrap a command: its int return is the exit code; failures never show a traceback.

    The wrapped function must take an ``as_json`` keyword (the ``--json`` flag).
    """

    def wrap(fn: Callable[..., int | None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> None:
            try:
                code = fn(*args, **kwargs)
            except (typer.Exit, typer.Abort):
                raise
            except KeyboardInterrupt:
                raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
            except Exception as exc:
                failure = command_failure(command, exc)
                report_error(command, bool(kwargs.get("as_json")), failure)
                raise typer.Exit(int(failure.code)) from None
            raise typer.Exit(int(code or 0))

        return run

    return wrap


def age(seconds: float | None) -> str:
    """``just now``, ``5m ago``: how long ago something happened."""
    if seconds is None:
        return "never"
    if seconds < 0:
        return "in the future"
    if seconds < 10:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{int(seconds)}s ago"
