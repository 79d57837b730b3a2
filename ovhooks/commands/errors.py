"""Exit codes, the error type human commands raise, and backend failures worded for people.

``backend_failure`` words ``backend.errors.failure_kind`` for people: with recall's breaker
note (``recall.failure_reason``) the one mapping from a ``BackendError`` to what the user is
told.

Every command ends through ``output.boundary``: a ``CommandError`` becomes one line (or a JSON
error document) and its exit code; anything unexpected becomes one line plus the log path,
never a traceback (a traceback can carry an API key in its frame locals).
"""

from __future__ import annotations

from enum import IntEnum

from ovhooks.transport.errors import LOCAL_STORE, failure_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.transport.errors import BackendError


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


def usage_error(message: str, fix: str) -> CommandError:
    """Bad arguments: exit code 2, JSON error code ``usage``."""
    return CommandError(message, fix=fix, code=ExitCode.USAGE, slug="usage")


def utf8_text(value: str, what: str) -> str:
    """``value`` if it is text UTF-8 can carry; a usage error otherwise (an argument or stdin
    of bytes that are not UTF-8 arrives as lone surrogates, which no file, database or
    request can hold)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise usage_error(f"{what} is not valid UTF-8 text", "pass it as UTF-8 text") from None
    return value


# --- the one mapping from backend failures to what the user is told -------------------------
# ``failure_kind`` sorts a BackendError into what the user must look at; every place that
# words a failure for people (this module's ``backend_failure`` for commands, doctor's checks,
# recall's note) branches on it instead of re-reading ``kind``/``status``/``code`` itself.


def not_an_openviking_answer(exc: BackendError) -> bool:
    """The URL answers, but not as an OpenViking server: HTML or other non-JSON, or no such
    route (404/405). Asked where any server would answer (``/health``), this means a wrong URL.
    """
    return (
        exc.kind == "bad_response"
        or exc.status in (404, 405)
        or (exc.kind == "http" and "non-JSON" in exc.message)
    )


_SERVER_FIX = (
    "start the OpenViking server, or set OPENVIKING_URL to where it runs "
    "(`ovhooks doctor` checks the whole set-up)"
)
_NETWORK_FIX = "`ovhooks doctor` names the route, the CAs and the setting to correct"
LOCAL_STORE_FIX = (
    "`ovhooks doctor` checks the local store's folder (OVHOOKS_DATA_DIR); a memory.db that is "
    "damaged can be moved aside, and memory starts again from an empty store"
)
# failure kind -> (message, fix, exit code, JSON error code). ``{where}`` is " at URL" when
# the URL is known; ``{message}`` the server's words, ``{exc}`` the whole error.
_COMMAND_MESSAGES: dict[str, tuple[str, str, ExitCode, str]] = {
    "unreachable": (
        "memory server unreachable{where}: {message}",
        _SERVER_FIX,
        ExitCode.SERVER,
        "server_unreachable",
    ),
    "timeout": (
        "memory server unreachable{where}: {message}",
        _SERVER_FIX,
        ExitCode.SERVER,
        "server_unreachable",
    ),
    "tls": (
        "cannot talk to the memory server{where}: {message}",
        _NETWORK_FIX,
        ExitCode.SERVER,
        "server_tls",
    ),
    "config": (
        "cannot talk to the memory server{where}: {message}",
        _NETWORK_FIX,
        ExitCode.SERVER,
        "server_config",
    ),
    "too_large": (
        "cannot talk to the memory server{where}: {message}",
        _NETWORK_FIX,
        ExitCode.SERVER,
        "server_too_large",
    ),
    "redirect": (
        "cannot talk to the memory server{where}: {message}",
        _NETWORK_FIX,
        ExitCode.SERVER,
        "server_redirect",
    ),
    "unauthenticated": (
        "the server rejected the API key{where}",
        "check OPENVIKING_API_KEY (or api_key in ovcli.conf); `ovhooks status` shows "
        "where the key comes from",
        ExitCode.SERVER,
        "unauthenticated",
    ),
    "permission_denied": (
        "permission denied{where}: {message}",
        "use a user key (a root key cannot read tenant data in api_key mode), "
        "or run `ovhooks doctor`",
        ExitCode.SERVER,
        "permission_denied",
    ),
    "not_found": (
        "not found: {message}",
        "check the URI with `ovhooks ls`",
        ExitCode.NOT_FOUND,
        "not_found",
    ),
    "server_error": (
        "the memory server failed: {exc}",
        "run `ovhooks doctor`",
        ExitCode.SERVER,
        "server_error",
    ),
}
# A command that meets a trusted-mode server without tenant headers reports it as the
# server's failure, with doctor to name the fix (doctor's identity check words it itself).
_COMMAND_MESSAGES["tenant_missing"] = _COMMAND_MESSAGES["server_error"]


def backend_failure(exc: Exception, *, url: str = "") -> CommandError:
    """Turn a ``BackendError`` into a message a person can act on."""
    from ovhooks.transport.errors import BackendError

    if not isinstance(exc, BackendError):  # pragma: no cover (callers pass BackendErrors)
        return CommandError(str(exc), code=ExitCode.ERROR)
    if exc.code == LOCAL_STORE:  # no server to start: the store's own file or folder
        return CommandError(
            f"the local memory store failed: {exc.message.removeprefix('local store failed: ')}",
            fix=LOCAL_STORE_FIX,
            code=ExitCode.SERVER,
            slug="local_store",
        )
    template, fix, code, slug = _COMMAND_MESSAGES[failure_kind(exc)]
    where = f" at {url}" if url else ""
    message = template.format(where=where, message=exc.message, exc=exc)
    return CommandError(message, fix=fix, code=code, slug=slug)
