"""The HTTP client: envelope parsing, identity headers, transports, timeouts."""

from __future__ import annotations

import socket
import time

import pytest

from ovhooks.backend.openviking import OpenVikingBackend, identity_headers, parse_envelope, quote
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError
from ovhooks.transport.http import HttpClient, Request, Response, split_url
from tests.support.fake_openviking import FakeOpenViking


def _settings(**env: str):
    return load_settings(
        {
            "HOME": "/nonexistent",
            "OVHOOKS_CONFIG": "/nonexistent.toml",
            "OPENVIKING_CLI_CONFIG_FILE": "/nonexistent.conf",
            **env,
        }
    )


def test_envelope_result_and_errors() -> None:
    assert parse_envelope(200, b'{"status":"ok","result":{"a":1}}', "x") == {"a": 1}
    with pytest.raises(BackendError) as err:
        parse_envelope(
            404,
            b'{"status":"error","error":{"code":"NOT_FOUND","message":"Session s not found"}}',
            "x",
        )
    assert err.value.not_found and not err.value.retryable and err.value.code == "NOT_FOUND"
    with pytest.raises(BackendError) as err:
        parse_envelope(200, b'{"status":"error","error":{"code":"INTERNAL","message":"x"}}', "x")
    assert err.value.kind == "http"
    with pytest.raises(BackendError) as err:
        parse_envelope(200, b"<html>login</html>", "x")
    assert err.value.kind == "bad_response" and err.value.retryable
    with pytest.raises(BackendError) as err:
        parse_envelope(502, b"<html>bad gateway</html>", "x")
    assert err.value.status == 502 and err.value.retryable
    assert parse_envelope(200, b'{"status":"ok","healthy":true}', "x") == {
        "status": "ok",
        "healthy": True,
    }


@pytest.mark.parametrize(
    ("env", "sent", "not_sent"),
    [
        # a user key fixes identity on the server: tenant headers are never sent
        (
            {"OPENVIKING_API_KEY": "user-key-123456", "OPENVIKING_USER": "bob"},
            {"Authorization", "X-API-Key"},
            {"X-OpenViking-User", "X-OpenViking-Account"},
        ),
        # trusted mode: root key plus both tenant headers
        (
            {
                "OPENVIKING_API_KEY": "root-key-123456",
                "OPENVIKING_ACCOUNT": "acme",
                "OPENVIKING_USER": "bob",
            },
            {"Authorization", "X-OpenViking-Account", "X-OpenViking-User"},
            set(),
        ),
        # dev server (no key): tenant headers select the user
        ({"OPENVIKING_USER": "alice"}, {"X-OpenViking-User"}, {"Authorization", "X-API-Key"}),
        # explicit api_key mode wins over account/user being set
        (
            {
                "OPENVIKING_API_KEY": "k-123456789",
                "OPENVIKING_ACCOUNT": "a",
                "OPENVIKING_USER": "u",
                "OVHOOKS_AUTH_MODE": "api_key",
            },
            {"X-API-Key"},
            {"X-OpenViking-Account", "X-OpenViking-User"},
        ),
    ],
)
def test_identity_header_policy(env: dict[str, str], sent: set[str], not_sent: set[str]) -> None:
    headers = identity_headers(_settings(**env), "-work-proj")
    assert sent <= set(headers)
    assert not (not_sent & set(headers))
    assert headers["X-OpenViking-Actor-Peer"] == "-work-proj"


def test_quote_matches_path_segment_rules() -> None:
    assert quote("cx-a.b_c-1") == "cx-a.b_c-1"
    assert quote("viking://user/a b") == "viking%3A%2F%2Fuser%2Fa%20b"
    assert quote("记忆") == "%E8%AE%B0%E5%BF%86"


def test_split_url() -> None:
    assert split_url("http://127.0.0.1:1933") == ("http", "127.0.0.1", 1933, "/")
    assert split_url("https://h/x?y=1") == ("https", "h", 443, "/x?y=1")
    assert split_url("http://[::1]:80/p")[1:3] == ("::1", 80)
    for bad in ("ftp://x", "127.0.0.1:1933", "http://:80", "http://h:notaport"):
        with pytest.raises(BackendError):
            split_url(bad)


def test_real_socket_roundtrip_and_failures(fake_ov: FakeOpenViking) -> None:
    backend = OpenVikingBackend(_settings(OPENVIKING_URL=fake_ov.url), "peer")
    result = backend.append_messages(
        "cx-1", [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]
    )
    assert result["message_count"] == 1 and "pending_tokens" in result
    assert backend.session_info("cx-1")["message_count"] == 1
    assert backend.commit("cx-1")["status"] == "accepted"
    with pytest.raises(BackendError) as err:
        backend.commit("cx-missing")
    assert err.value.not_found
    fake_ov.mode = "html"
    with pytest.raises(BackendError) as err:
        backend.session_info("cx-1")
    assert err.value.retryable
    fake_ov.mode = "ok"
    fake_ov.refuse()
    with pytest.raises(BackendError) as err:
        backend.session_info("cx-1")
    assert err.value.kind == "unreachable"


def test_deadline_caps_a_hanging_server() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepts connections, never answers
    port = listener.getsockname()[1]
    try:
        backend = OpenVikingBackend(
            _settings(OPENVIKING_URL=f"http://127.0.0.1:{port}"), deadline=time.monotonic() + 0.3
        )
        start = time.monotonic()
        with pytest.raises(BackendError) as err:
            backend.search_context("anything")
        assert err.value.kind == "timeout"
        assert time.monotonic() - start < 0.6
    finally:
        listener.close()


def test_kept_alive_client_speaks_the_same_contract(fake_ov: FakeOpenViking) -> None:
    transport = HttpClient()
    try:
        backend = OpenVikingBackend(_settings(OPENVIKING_URL=fake_ov.url), transport=transport)
        backend.append_messages("cx-2", [{"role": "user", "content": "hello"}])
        assert backend.session_info("cx-2")["message_count"] == 1
        assert backend.health()["healthy"] is True
        assert transport.connections_opened == 1
    finally:
        transport.close()


def test_batch_falls_back_to_single_messages_on_old_servers() -> None:
    calls: list[str] = []

    def old_server(request: Request) -> Response:
        calls.append(request.url)
        if request.url.endswith("/batch"):
            return Response(404, {}, b'{"detail":"Not Found"}')
        return Response(200, {}, b'{"status":"ok","result":{"message_count":1,"pending_tokens":5}}')

    backend = OpenVikingBackend(_settings(), transport=old_server)
    result = backend.append_messages(
        "cx-3", [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    )
    assert result["pending_tokens"] == 5
    assert [u.rsplit("/", 1)[1] for u in calls] == ["batch", "messages", "messages"]


def test_newest_mark_is_found_live_then_in_the_archives(fake_ov: FakeOpenViking) -> None:
    """The evidence a batch landed survives commits: live first, then newest archive first."""
    backend = OpenVikingBackend(_settings(OPENVIKING_URL=fake_ov.url))

    def send(*marks: str) -> None:
        backend.append_messages(
            "cx-m",
            [
                {"role": "user", "content": f"text {m}", **({"turn_id": m} if m else {})}
                for m in marks
            ],
        )

    with pytest.raises(BackendError) as err:
        backend.newest_mark("cx-m", "ovh1:")
    assert err.value.not_found
    send("", "")  # messages without marks (another client, an older ovhooks)
    assert backend.newest_mark("cx-m", "ovh1:") is None
    send("ovh1:a:0", "ovh1:a:1", "other:z")
    assert backend.newest_mark("cx-m", "ovh1:") == "ovh1:a:1"
    backend.commit("cx-m")
    send("")  # an unmarked message after the commit
    backend.commit("cx-m")
    backend.commit("cx-m")  # nothing new: skipped, no archive
    assert backend.newest_mark("cx-m", "ovh1:") == "ovh1:a:1"  # read from archive_001
    send("ovh1:b:0")
    assert backend.newest_mark("cx-m", "ovh1:") == "ovh1:b:0"
