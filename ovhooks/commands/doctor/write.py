"""Doctor's ``--write-test``: one message appended to a scratch session and read back."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor.result import Check


def check_write(backend: Backend, now: float) -> Check:
    """Append one message to a scratch session (never committed) and read it back."""
    import secrets

    from ovhooks.transport.errors import BackendError

    session = f"ovhooks-doctor-{int(now)}-{secrets.token_hex(3)}"
    text = f"ovhooks doctor write test {session}"
    try:
        backend.append_messages(
            session, [{"role": "user", "parts": [{"type": "text", "text": text}]}]
        )
        info = backend.session_info(session)
    except BackendError as exc:
        return check(
            "write",
            "fail",
            f"write-and-read round trip failed: {exc}",
            "fix the failures above first; then see the server's log",
            session=session,
        )
    count = info.get("message_count", info.get("total_message_count"))
    if not isinstance(count, int) or count < 1:
        return check(
            "write",
            "fail",
            f"wrote to {session} but read back {count!r} messages",
            "see the server's log",
            session=session,
        )
    return check(
        "write",
        "ok",
        f"wrote and read back a message in scratch session {session} (never committed)",
        session=session,
    )
