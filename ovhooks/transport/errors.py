"""The one error type every backend raises (kept import-free for the hooks' hot path)."""

from __future__ import annotations

# ``BackendError.code`` of a failure of the local store itself (its database or folder):
# worded for the store, not for a server that is not there (``commands.errors``).
LOCAL_STORE = "LOCAL_STORE"


class BackendError(Exception):
    """A request the store could not serve.

    ``kind`` is one of: ``unreachable`` (connection refused, DNS, a proxy that failed: the
    request did not reach the server), ``unanswered`` (a request that changes something went
    out whole and the connection closed before any answer: it may have been applied),
    ``timeout``, ``tls`` (handshake failed, certificate not trusted), ``http`` (a non-2xx
    answer, an error envelope, a redirect not followed: ``code`` ``REDIRECT``),
    ``bad_response`` (not JSON, HTML, wrong shape), ``too_large`` (an answer past the size
    cap), ``config`` (a request that cannot be made as configured: a header value with a line
    break or outside latin-1, an unusable CA bundle or proxy setting, a bad URL).
    ``status`` is the HTTP status (0 when there was none). ``code`` is the server's error code
    (``NOT_FOUND``, ``UNAUTHENTICATED`` ...) when it sent one.
    """

    def __init__(self, kind: str, message: str, status: int = 0, code: str = "") -> None:
        # The message may quote a server's answer, which may echo our request's headers.
        from ovhooks.redact import redact_known_secrets

        message = redact_known_secrets(message)
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message

    @property
    def retryable(self) -> bool:
        """True when trying again later may succeed (outage, overload, timeout)."""
        if self.kind in ("unreachable", "unanswered", "timeout", "bad_response", "tls"):
            return True
        return self.status in (408, 409, 425, 429) or self.status >= 500

    @property
    def not_found(self) -> bool:
        return self.status == 404 or self.code == "NOT_FOUND"

    def __str__(self) -> str:
        where = f" (HTTP {self.status})" if self.status else ""
        return f"{self.kind}{where}: {self.message}"


def failure_kind(exc: BackendError) -> str:
    """What went wrong, for people: ``unreachable``, ``timeout``, a network set-up problem
    (``tls``, ``config``, ``too_large``, ``redirect``), ``unauthenticated`` (401),
    ``permission_denied`` (403), ``tenant_missing`` (trusted mode without the tenant
    headers), ``not_found``, or ``server_error`` (anything else the server answered)."""
    if exc.kind in ("unreachable", "timeout"):
        return exc.kind
    if exc.kind == "unanswered":  # for people, a server that dropped us is not reachable
        return "unreachable"
    if exc.code == "REDIRECT":
        return "redirect"
    if exc.kind in ("tls", "config", "too_large"):
        return exc.kind
    if exc.status == 401:
        return "unauthenticated"
    if exc.status == 403:
        return "permission_denied"
    if exc.not_found:
        return "not_found"
    if exc.status == 400 and "trusted" in exc.message.lower():
        return "tenant_missing"
    return "server_error"
