"""The one mapping from backend failures to what people are told (``commands/errors.py``).

The errors are made the way the backend makes them (``parse_envelope`` on a server's answer,
``BackendError`` as the transport raises it), so the classification is checked against the
failures users actually meet, not hand-picked attributes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ovhooks.backend.openviking import parse_envelope
from ovhooks.commands.errors import (
    ExitCode,
    backend_failure,
    not_an_openviking_answer,
    usage_error,
)
from ovhooks.transport.errors import BackendError, failure_kind
from tests.support.cli import run_cli

KINDS = (
    "unreachable",
    "timeout",
    "tls",
    "config",
    "too_large",
    "redirect",
    "unauthenticated",
    "permission_denied",
    "tenant_missing",
    "not_found",
    "server_error",
)


def answered(status: int, body: object | str) -> BackendError:
    """The error ``parse_envelope`` raises for a server's answer."""
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    with pytest.raises(BackendError) as caught:
        parse_envelope(status, raw, "find")
    return caught.value


def envelope(code: str, message: str) -> dict[str, object]:
    return {"status": "error", "error": {"code": code, "message": message}}


CASES = [
    (BackendError("unreachable", "connection refused by 127.0.0.1:1933"), "unreachable"),
    (BackendError("timeout", "find to 127.0.0.1:1933 timed out"), "timeout"),
    (BackendError("tls", "certificate verify failed"), "tls"),
    (BackendError("config", "unsupported server URL 'ftp://x'"), "config"),
    (BackendError("too_large", "answer over 8 MiB"), "too_large"),
    (BackendError("http", "too many redirects", 302, "REDIRECT"), "redirect"),
    (answered(401, envelope("UNAUTHENTICATED", "Invalid API key")), "unauthenticated"),
    (answered(401, "<html>401 Authorization Required</html>"), "unauthenticated"),
    (
        answered(403, envelope("PERMISSION_DENIED", "ROOT API keys cannot access tenant data")),
        "permission_denied",
    ),
    (
        answered(
            400,
            envelope(
                "INVALID_ARGUMENT",
                "Trusted mode requests must include X-OpenViking-Account and X-OpenViking-User",
            ),
        ),
        "tenant_missing",
    ),
    (answered(404, envelope("NOT_FOUND", "no such file")), "not_found"),
    (answered(200, envelope("NOT_FOUND", "no such session")), "not_found"),
    (answered(400, envelope("INVALID_ARGUMENT", "limit must be positive")), "server_error"),
    (answered(502, "<html>Bad Gateway</html>"), "server_error"),
    (answered(500, envelope("INTERNAL", "boom")), "server_error"),
    (answered(200, "not json at all"), "server_error"),
]


@pytest.mark.parametrize(("exc", "kind"), CASES, ids=[str(c[0])[:50] for c in CASES])
def test_each_failure_is_sorted_into_what_the_user_must_look_at(
    exc: BackendError, kind: str
) -> None:
    assert failure_kind(exc) == kind


def test_every_kind_has_a_message_for_commands() -> None:
    seen = {kind for _exc, kind in CASES}
    assert seen == set(KINDS)
    for exc, _kind in CASES:
        failure = backend_failure(exc, url="http://127.0.0.1:1933")
        assert failure.message and failure.fix and failure.slug
        assert failure.code in (ExitCode.SERVER, ExitCode.NOT_FOUND)


# What commands print and which JSON error code and exit code they use: scripts and agents
# branch on these, so they are pinned as they were before the mapping became one table.
@pytest.mark.parametrize(
    ("exc", "message", "slug", "code"),
    [
        (
            BackendError("unreachable", "connection refused"),
            "memory server unreachable at http://h:1: connection refused",
            "server_unreachable",
            ExitCode.SERVER,
        ),
        (
            BackendError("timeout", "timed out"),
            "memory server unreachable at http://h:1: timed out",
            "server_unreachable",
            ExitCode.SERVER,
        ),
        (
            BackendError("tls", "handshake failed"),
            "cannot talk to the memory server at http://h:1: handshake failed",
            "server_tls",
            ExitCode.SERVER,
        ),
        (
            BackendError("http", "too many redirects", 302, "REDIRECT"),
            "cannot talk to the memory server at http://h:1: too many redirects",
            "server_redirect",
            ExitCode.SERVER,
        ),
        (
            answered(401, envelope("UNAUTHENTICATED", "Invalid API key")),
            "the server rejected the API key at http://h:1",
            "unauthenticated",
            ExitCode.SERVER,
        ),
        (
            answered(403, envelope("PERMISSION_DENIED", "no")),
            "permission denied at http://h:1: find: no",
            "permission_denied",
            ExitCode.SERVER,
        ),
        (
            answered(404, envelope("NOT_FOUND", "gone")),
            "not found: find: gone",
            "not_found",
            ExitCode.NOT_FOUND,
        ),
        (
            answered(400, envelope("INVALID_ARGUMENT", "Trusted mode requests must include")),
            "the memory server failed: http (HTTP 400): find: Trusted mode requests must include",
            "server_error",
            ExitCode.SERVER,
        ),
        (
            answered(500, envelope("INTERNAL", "{not a format field}")),
            "the memory server failed: http (HTTP 500): find: {not a format field}",
            "server_error",
            ExitCode.SERVER,
        ),
    ],
)
def test_command_messages(exc: BackendError, message: str, slug: str, code: ExitCode) -> None:
    failure = backend_failure(exc, url="http://h:1")
    assert (failure.message, failure.slug, failure.code) == (message, slug, code)


def test_without_a_url_the_message_names_none() -> None:
    failure = backend_failure(BackendError("unreachable", "refused"))
    assert failure.message == "memory server unreachable: refused"


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (answered(200, "<html>welcome to nginx</html>"), True),
        (answered(404, "<html>Not Found</html>"), True),
        (answered(405, envelope("METHOD_NOT_ALLOWED", "no")), True),
        (answered(502, "<html>Bad Gateway</html>"), True),
        (answered(500, envelope("INTERNAL", "boom")), False),
        (answered(401, envelope("UNAUTHENTICATED", "Invalid API key")), False),
        (BackendError("unreachable", "refused"), False),
    ],
)
def test_an_answer_not_from_openviking_is_recognised(exc: BackendError, expected: bool) -> None:
    assert not_an_openviking_answer(exc) is expected


def test_usage_error_is_exit_code_2() -> None:
    error = usage_error("unknown level 'x'", "use abstract, overview or full")
    assert (error.code, error.slug, error.fix) == (
        ExitCode.USAGE,
        "usage",
        "use abstract, overview or full",
    )


def test_every_failure_of_a_command_becomes_one_command_error(tmp_path: Path) -> None:
    import os

    from ovhooks.commands.errors import CommandError
    from ovhooks.commands.output import command_failure

    own = CommandError("no session 'x' is known here", code=ExitCode.NOT_FOUND, slug="not_found")
    assert command_failure("commit", own) is own
    server = command_failure("search", BackendError("unreachable", "refused"))
    assert (server.slug, server.code) == ("server_unreachable", ExitCode.SERVER)
    state_dir = os.environ["OVHOOKS_STATE_DIR"]
    denied = PermissionError(13, "Permission denied", os.path.join(state_dir, "sessions"))
    unusable = command_failure("status", denied)
    assert (unusable.slug, unusable.code) == ("state_dir", ExitCode.ERROR)
    elsewhere = PermissionError(13, "Permission denied", str(tmp_path / "other"))
    try:
        raise elsewhere
    except PermissionError as exc:
        bug = command_failure("status", exc)
    assert (bug.slug, bug.code) == ("internal", ExitCode.INTERNAL)
    assert "PermissionError" in bug.message and "ovhooks.log" in bug.message


def test_stored_text_cannot_drive_the_readers_terminal() -> None:
    # A memory holding escape sequences (an OSC 52 clipboard write, a screen clear) was
    # printed raw by `search` and `read`; now its controls are written out, while Rich's own
    # styling still reaches a terminal.
    from ovhooks.commands.output import human_console, shown

    assert shown("plain, 中文 and tabs\tstay") == "plain, 中文 and tabs\tstay"
    assert shown("a\x1b]52;c;ZXZpbA==\x07b\x9bc\x00") == "a\\x1b]52;c;ZXZpbA==\\x07b\\x9bc\\x00"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    human_console(screen).print("[bold]0.52[/] deploy \x1b[2Jnote")
    assert "\x1b[2J" not in screen.getvalue() and "\\x1b[2Jnote" in screen.getvalue()
    assert "\x1b[1m0.52" in screen.getvalue()  # bold, from Rich itself
    env = {"OVHOOKS_SEMANTIC": "off", "OVHOOKS_BACKEND": "local"}
    assert run_cli("remember", "deploy note \x1b]52;c;ZXZpbA==\x07 ok", env=env).exit_code == 0
    found = run_cli("search", "deploy", env=env).stdout
    assert "deploy note \\x1b]52;c;ZXZpbA==" in found and "\x1b" not in found
