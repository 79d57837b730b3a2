"""The breaker's note words the same classification the commands use
(``backend.errors.failure_kind``), briefly."""

from __future__ import annotations

import pytest

from ovhooks.recall import failure_reason
from ovhooks.transport.errors import BackendError, failure_kind


@pytest.mark.parametrize(
    ("error", "kind", "note"),
    [
        (BackendError("unreachable", "connection refused"), "unreachable", "unreachable"),
        (BackendError("timeout", "read timed out"), "timeout", "not answering in time"),
        (
            BackendError("http", "bad key", status=401),
            "unauthenticated",
            "refusing our credentials (HTTP 401)",
        ),
        (
            BackendError("http", "forbidden", status=403),
            "permission_denied",
            "refusing our credentials (HTTP 403)",
        ),
        (
            BackendError("tls", "certificate verify failed"),
            "tls",
            "failing (tls: certificate verify failed)",
        ),
        (
            BackendError("http", "boom", status=500),
            "server_error",
            "failing (http (HTTP 500): boom)",
        ),
    ],
)
def test_the_breaker_note_follows_the_one_classification(
    error: BackendError, kind: str, note: str
) -> None:
    assert failure_kind(error) == kind
    assert failure_reason(error) == note
