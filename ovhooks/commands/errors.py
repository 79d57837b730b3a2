"""Exit codes and the one error type human commands raise.

Every command ends through ``output.boundary``: a ``CommandError`` becomes one line (or a JSON
error document) and its exit code; anything unexpected becomes one line plus the log path,
never a traceback (a traceback can carry an API key in its frame locals).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What ``ovhooks <command>`` exits with. Scripts and agents may branch on these."""

    OK = 0
    ERROR = 1  # the command could not do its job; the message says how to fix it
    USAGE = 2  # bad arguments (Typer/Click also use 2 for these)
    SERVER = 3  # the memory store could not be reached or refused the request
    NOT_FOUND = 4  # the URI, session or file named does not exist
    NEEDS_CONFIRMATION = 5  # a destructive action was not confirmed (pass --yes)
    CHECKS_FAILED = 6  # doctor found at least one failing check
    INCOMPLETE = 7  # flush/import/commit left work queued (it will be retried)
    INTERNAL = 70  # a bug in ovhooks (EX_SOFTWARE); the traceback is in the log
    INTERRUPTED = 130  # Ctrl-C


class CommandError(Exception):
    """Something the user (or the calling agent) must fix; ``fix`` says how."""

    def __init__(
        self,
        message: str,
        *,
        fix: str = "",
        code: ExitCode = ExitCode.ERROR,
        slug: str = "error",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.code = code
        self.slug = slug


def backend_failure(exc: Exception, *, url: str = "") -> CommandError:
    """Turn a ``BackendError`` into a message a person can act on."""
    from ovhooks.backend.errors import BackendError

    if not isinstance(exc, BackendError):  # pragma: no cover (callers pass BackendErrors)
        return CommandError(str(exc), code=ExitCode.ERROR)
    where = f" at {url}" if url else ""
    if exc.kind in ("unreachable", "timeout"):
        return CommandError(
            f"memory server unreachable{where}: {exc.message}",
            fix="start the OpenViking server, or set OPENVIKING_URL to where it runs "
            "(`ovhooks doctor` checks the whole set-up)",
            code=ExitCode.SERVER,
            slug="server_unreachable",
        )
    if exc.kind in ("tls", "config", "too_large") or exc.code == "REDIRECT":
        return CommandError(
            f"cannot talk to the memory server{where}: {exc.message}",
            fix="`ovhooks doctor` names the route, the CAs and the setting to correct",
            code=ExitCode.SERVER,
            slug="server_" + (exc.code.lower() if exc.code == "REDIRECT" else exc.kind),
        )
    if exc.status == 401:
        return CommandError(
            f"the server rejected the API key{where}",
            fix="check OPENVIKING_API_KEY (or api_key in ovcli.conf); `ovhooks status` shows "
            "where the key comes from",
            code=ExitCode.SERVER,
            slug="unauthenticated",
        )
    if exc.status == 403:
        return CommandError(
            f"permission denied{where}: {exc.message}",
            fix="use a user key (a root key cannot read tenant data in api_key mode), "
            "or run `ovhooks doctor`",
            code=ExitCode.SERVER,
            slug="permission_denied",
        )
    if exc.not_found:
        return CommandError(
            f"not found: {exc.message}",
            fix="check the URI with `ovhooks ls`",
            code=ExitCode.NOT_FOUND,
            slug="not_found",
        )
    return CommandError(
        f"the memory server failed: {exc}",
        fix="run `ovhooks doctor`",
        code=ExitCode.SERVER,
        slug="server_error",
    )
