"""transport/http.py against real loopback servers: TLS, proxies, IPv6, redirects, deadlines,
big answers, header validation, keep-alive. The paths through hooks, the worker and doctor
are in test_http_paths.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ovhooks.transport.errors import BackendError
from ovhooks.transport.http import HttpClient, Request
from ovhooks.transport.proxy import bypasses, proxy_for
from tests.support.transport_rig import OK_JSON, ScriptedServer, fake_server, make_ca, proxy

REPO = Path(__file__).resolve().parents[2]


def get(
    client: HttpClient, url: str, timeout: float = 5.0, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    resp = client(Request("GET", url, headers or {}, None, timeout))
    return resp.status, json.loads(resp.body) if resp.body else None


def post(client: HttpClient, url: str, doc: object, timeout: float = 5.0) -> int:
    body = json.dumps(doc).encode()
    resp = client(Request("POST", url, {"Content-Type": "application/json"}, body, timeout))
    return resp.status


# --- TLS ------------------------------------------------------------------------------------------
def test_https_with_the_ca_bundle_setting(tmp_path: Path) -> None:
    ca = make_ca(tmp_path)
    with fake_server(ca=ca) as server:
        client = HttpClient(ca_bundle=str(ca.pem), environ={})
        assert get(client, server.url + "/health")[0] == 200
        with pytest.raises(BackendError) as err:
            get(HttpClient(environ={}), server.url + "/health")
    assert err.value.kind == "tls" and err.value.retryable
    assert "not trusted" in err.value.message and "OVHOOKS_CA_BUNDLE" in err.value.message


@pytest.mark.timeout(30)  # a regression blocks in OpenSSL: fail it soon
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_ca_bundle_that_is_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    ca = make_ca(tmp_path)
    # blocked forever without the check
    with fake_server(ca=ca) as server, pytest.raises(BackendError) as err:
        get(HttpClient(ca_bundle=str(fifo), environ={}), server.url + "/health")
    assert err.value.kind == "config" and "not a regular file" in err.value.message


def test_https_honours_ssl_cert_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ca = make_ca(tmp_path)
    # OpenSSL reads SSL_CERT_FILE when the default store is loaded, i.e. per new context
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.pem))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    from ovhooks.transport import tls

    monkeypatch.setattr(tls, "_contexts", {})
    with fake_server(ca=ca) as server:
        assert get(HttpClient(environ={}), server.url + "/health")[0] == 200
    assert tls.ca_source("", os.environ) == ("SSL_CERT_FILE", str(ca.pem))


def test_unreadable_ca_bundle_is_a_config_error(tmp_path: Path) -> None:
    with fake_server(ca=make_ca(tmp_path)) as server, pytest.raises(BackendError) as err:
        get(HttpClient(ca_bundle=str(tmp_path / "missing.pem")), server.url + "/health")
    assert err.value.kind == "config" and not err.value.retryable


@pytest.mark.parametrize(
    ("host", "module"),
    [
        ("127.0.0.1", "ssl"),  # plain http never loads TLS
        # a name, not an address: resolved without the idna codec (with stringprep, ~2 ms of
        # a hook's start-up)
        ("localhost", "encodings.idna"),
    ],
)
def test_a_plain_request_leaves_a_costly_module_out(host: str, module: str) -> None:
    with fake_server() as server:
        url = server.url.replace("127.0.0.1", host)
        code = (
            "import sys\n"
            "from ovhooks.transport.http import HttpClient, Request\n"
            f"r = HttpClient(environ={{}})(Request('GET', '{url}/health', {{}}, None, 5))\n"
            f"print(r.status, {module!r} in sys.modules)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
        )
    assert out.stdout.split() == ["200", "False"]


def test_a_malformed_host_name_is_unreachable_not_a_crash() -> None:
    # An empty label: the idna codec raised UnicodeError here, which no caller expected.
    with pytest.raises(BackendError) as err:
        get(HttpClient(environ={}), "http://bad..example:9/health")
    assert err.value.kind == "unreachable"


# --- proxies --------------------------------------------------------------------------------------
def test_https_goes_through_a_connect_tunnel(tmp_path: Path) -> None:
    ca = make_ca(tmp_path)
    with fake_server(ca=ca) as server, proxy(require_auth="Basic dTpwQHNz") as tunnel:
        env = {"HTTPS_PROXY": f"http://u:p%40ss@127.0.0.1:{tunnel.port}"}
        client = HttpClient(ca_bundle=str(ca.pem), environ=env)
        assert get(client, server.url + "/health")[0] == 200
        assert post(client, server.url + "/api/v1/sessions/s/messages", {"role": "user"}) == 200
    assert tunnel.seen == [f"CONNECT localhost:{server.port}"]  # one tunnel, kept alive
    assert tunnel.auth_seen == ["Basic dTpwQHNz"]


def test_http_goes_through_the_proxy_in_absolute_form() -> None:
    with fake_server() as server, proxy() as fwd:
        client = HttpClient(environ={"http_proxy": fwd.url, "HTTPS_PROXY": "http://nowhere:1"})
        assert get(client, server.url + "/health")[0] == 200
    assert fwd.seen == [f"GET {server.url}/health"]


def test_no_proxy_sends_loopback_direct_and_a_refused_proxy_is_reported() -> None:
    with fake_server() as server:
        refused = {"HTTP_PROXY": "http://127.0.0.1:9"}  # nothing listens on port 9
        with pytest.raises(BackendError) as err:
            get(HttpClient(environ=refused), server.url + "/health")
        assert "proxy http://127.0.0.1:9 (from HTTP_PROXY)" in err.value.message
        client = HttpClient(environ={**refused, "NO_PROXY": "localhost,127.0.0.1"})
        assert get(client, server.url + "/health")[0] == 200


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "bypassed"),
    [
        ("example.com", "example.com", 443, True),
        ("example.com", "api.example.com", 443, True),
        (".example.com", "example.com", 443, True),  # curl strips the leading dot
        ("*.example.com", "api.example.com", 443, True),
        ("example.com", "badexample.com", 443, False),
        ("example.com", "example.com.evil.org", 443, False),
        ("example.com:8443", "example.com", 8443, True),
        ("example.com:8443", "example.com", 443, False),
        ("10.0.0.0/8", "10.20.30.40", 80, True),
        ("10.0.0.0/8", "11.0.0.1", 80, False),
        ("fd00::/8", "fd12::1", 80, True),
        ("::1", "::1", 1933, True),
        ("[::1]:1933", "::1", 1933, True),
        ("[::1]:1933", "::1", 80, False),
        ("localhost, 127.0.0.1", "127.0.0.1", 1933, True),
        ("*", "anything.org", 80, True),
        ("https://example.com", "example.com", 80, False),  # scheme given: http differs
        ("", "example.com", 80, False),
    ],
)
def test_no_proxy_rules(no_proxy: str, host: str, port: int, bypassed: bool) -> None:
    scheme = "https" if port == 443 else "http"
    assert bypasses(no_proxy, scheme, host, port) is bypassed


def test_proxy_variables_precedence_and_unsupported_schemes() -> None:
    env = {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"}
    found = proxy_for("https", "h", 443, env)
    assert found is not None and (found.host, found.source) == ("lower", "https_proxy")
    found = proxy_for("http", "h", 80, {"ALL_PROXY": "proxy.corp:3128"})
    assert found is not None and (found.host, found.port) == ("proxy.corp", 3128)
    # httpoxy: in a CGI process HTTP_PROXY may come from a client's "Proxy:" header
    assert proxy_for("http", "h", 80, {"HTTP_PROXY": "http://x:1", "REQUEST_METHOD": "GET"}) is None
    with pytest.raises(BackendError) as err:
        proxy_for("https", "h", 443, {"ALL_PROXY": "socks5://127.0.0.1:1080"})
    assert err.value.kind == "config" and "socks5" in err.value.message


# --- IPv6 -----------------------------------------------------------------------------------------
def test_ipv6_literal_gets_a_bracketed_host_header() -> None:
    with fake_server(host="::1") as server:
        assert get(HttpClient(environ={}), server.url + "/health")[0] == 200
        assert server.requests[-1]["headers"]["Host"] == f"[::1]:{server.port}"


# --- redirects ------------------------------------------------------------------------------------
def test_307_and_308_on_the_same_origin_are_followed_with_the_body() -> None:
    with fake_server() as server:
        for status in (307, 308):
            server.redirect_status = status
            sid = f"s{status}"
            assert post(HttpClient(), server.url + f"/api/v1/sessions/{sid}/messages", {"a": 1})
            assert server.sessions[sid]["messages"] == [{"a": 1}]


@pytest.mark.parametrize("status", [301, 302, 303, 307])
def test_other_redirects_are_a_clear_error_naming_the_location(status: int) -> None:
    with fake_server() as server, fake_server() as elsewhere:
        server.redirect_status = status
        if status == 307:
            server.redirect_base = elsewhere.url  # cross-origin
        with pytest.raises(BackendError) as err:
            get(HttpClient(), server.url + "/health")
    assert err.value.code == "REDIRECT" and err.value.status == status
    assert not err.value.retryable  # never retried as an "empty answer"
    expected = (elsewhere.url if status == 307 else server.url) + "/moved/health"
    assert expected in err.value.message


# --- deadline, big answers ------------------------------------------------------------------------
@pytest.mark.parametrize("tls", [False, True])
def test_one_deadline_covers_a_trickling_answer(tmp_path: Path, tls: bool) -> None:
    ca = make_ca(tmp_path) if tls else None
    with fake_server(ca=ca) as server:
        server.mode = "trickle"
        client = HttpClient(ca_bundle=str(ca.pem) if ca else "", environ={})
        start = time.monotonic()
        with pytest.raises(BackendError) as err:
            get(client, server.url + "/health", timeout=1.0)
        elapsed = time.monotonic() - start
    assert err.value.kind == "timeout"
    assert elapsed <= 1.0 + 0.1, f"deadline overshot: {elapsed:.3f} s"


def test_deadline_covers_the_tls_handshake() -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never speaks TLS
    try:
        url = f"https://127.0.0.1:{listener.getsockname()[1]}/health"
        start = time.monotonic()
        with pytest.raises(BackendError) as err:
            get(HttpClient(environ={}), url, timeout=0.5)
        assert err.value.kind == "timeout" and time.monotonic() - start <= 0.6
    finally:
        listener.close()


@pytest.mark.parametrize("chunked", [False, True])
def test_a_40_mib_answer_is_read_linearly(chunked: bool) -> None:
    with fake_server() as server:
        server.mode, server.chunked = "big", chunked
        client = HttpClient(environ={})
        get(client, server.url + "/health")  # warm: the server builds its payload once
        start = time.monotonic()
        resp = client(Request("GET", server.url + "/health", {}, None, 10.0))
        elapsed = time.monotonic() - start
    assert len(resp.body) >= 40 * 1024 * 1024
    # target 0.3 s; the bound leaves room for a loaded 2-core CI machine (old code: 9.4 s)
    assert elapsed < 1.5, f"40 MiB took {elapsed:.2f} s"


@pytest.mark.parametrize("chunked", [False, True])
def test_an_answer_past_the_cap_is_a_clear_error(chunked: bool) -> None:
    with fake_server() as server:
        server.mode, server.chunked, server.big_bytes = "big", chunked, 3 * 1024 * 1024
        with pytest.raises(BackendError) as err:
            get(HttpClient(max_body=1024 * 1024, environ={}), server.url + "/health")
    assert err.value.kind == "too_large" and not err.value.retryable
    assert "1.0 MiB cap" in err.value.message


# --- header values --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("sk-secret\r\nX-Injected: yes", "line break"),
        ("sk-secret\nX-Injected: yes", "line break"),
        ("sk-ключ-secret", "outside latin-1"),
        ("sk-\x00secret", "control character"),
    ],
)
def test_bad_header_values_are_refused_before_sending(value: str, reason: str) -> None:
    with fake_server() as server:
        with pytest.raises(BackendError) as err:
            get(HttpClient(), server.url + "/health", headers={"X-API-Key": value})
        assert server.requests == []
    assert err.value.kind == "config" and not err.value.retryable
    assert reason in err.value.message and "X-API-Key" in err.value.message
    assert "secret" not in str(err.value)


def test_latin1_header_values_are_sent() -> None:
    with fake_server() as server:
        assert (
            get(HttpClient(), server.url + "/health", headers={"X-OpenViking-User": "josé"})[0]
            == 200
        )


# --- keep-alive -----------------------------------------------------------------------------------
def test_one_connection_serves_many_requests_and_reconnects_when_closed() -> None:
    with fake_server() as server:
        client = HttpClient()
        for i in range(5):
            post(client, server.url + "/api/v1/sessions/k/messages", {"n": i})
        assert len(server.connections) == 1
        server.connections[0].shutdown(socket.SHUT_RDWR)  # the server drops the idle connection
        time.sleep(0.05)
        post(client, server.url + "/api/v1/sessions/k/messages", {"n": 5})
        assert len(server.connections) == 2
        assert [m["n"] for m in server.sessions["k"]["messages"]] == list(range(6))


@pytest.mark.parametrize(("method", "retried"), [("GET", True), ("POST", False)])
def test_an_answerless_close_is_retried_only_for_idempotent_requests(
    method: str, retried: bool
) -> None:
    def script(conn: socket.socket, index: int) -> None:
        with conn:
            server.read_request(conn)
            conn.sendall(OK_JSON)  # first answer, connection kept
            if index == 0:
                server.read_request(conn)  # the second request arrives... and is dropped
                return
            while server.read_request(conn):
                conn.sendall(OK_JSON)

    server = ScriptedServer(script)
    try:
        client = HttpClient()
        body = None if method == "GET" else b"{}"
        client(Request(method, server.url + "/x", {}, body, 5.0))
        if retried:
            assert client(Request(method, server.url + "/x", {}, body, 5.0)).status == 200
        else:
            with pytest.raises(BackendError) as err:
                client(Request(method, server.url + "/x", {}, body, 5.0))
            # not "unreachable" (never reached, safe to send again): it may have been applied
            assert err.value.kind == "unanswered" and "unanswered" in err.value.message
    finally:
        server.close()
    assert len(server.requests) == (3 if retried else 2)  # a POST is never sent twice


def test_a_kept_connection_is_not_reused_after_fork() -> None:
    with fake_server() as server:
        client = HttpClient()
        get(client, server.url + "/health")
        pid = os.fork()
        if pid == 0:  # pragma: no cover (child)
            try:
                get(client, server.url + "/health")
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        get(client, server.url + "/health")
        assert status == 0 and len(server.connections) == 2


# --- URL pieces ---------------------------------------------------------------------------------
def test_url_pieces() -> None:
    from ovhooks.transport.url import host_header, resolve, split_url

    assert split_url("https://[::1]/x") == ("https", "::1", 443, "/x")
    assert split_url("http://H?q=1") == ("http", "h", 80, "/?q=1")
    assert host_header("http", "::1", 1933) == "[::1]:1933"
    assert host_header("https", "example.com", 443) == "example.com"
    base = "http://h:1/api/v1/x?y=1"
    assert resolve(base, "/moved/x") == "http://h:1/moved/x"
    assert resolve(base, "//other:2/p") == "http://other:2/p"
    assert resolve(base, "z") == "http://h:1/api/v1/z"
    assert resolve(base, "https://s/p") == "https://s/p"
    for bad in ("http://::1:80/", "http://h:0/", "http://h:99999/", "http://[::1/"):
        with pytest.raises(BackendError) as err:
            split_url(bad)
        assert err.value.kind == "config"


def test_a_scripted_server_leaves_no_thread_behind() -> None:
    # A thread left blocked in accept() outlived its test and, in a whole-suite run, later
    # accepted a connection meant for another server that had the same descriptor number.
    def script(conn: socket.socket, index: int) -> None:
        with conn:
            while server.read_request(conn):
                conn.sendall(OK_JSON)

    server = ScriptedServer(script)
    client = HttpClient()
    assert client(Request("GET", server.url + "/x", {}, None, 5.0)).status == 200
    server.close()  # the client still holds its kept-alive connection
    assert not server.running()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://127.0.0.1:notaport/v1?api_key=QSECRET123", "bad host or port"),
        ("ftp://127.0.0.1/v1?token=QSECRET123", "unsupported server URL"),
        ("http://127.0.0.1:1/v1 HTTP/1.0\r\nX-Injected: 1", "a space or a line break"),
        ("http://127.0.0.1:1/v1\n", "a space or a line break"),
    ],
)
def test_a_bad_url_is_refused_without_its_query(url: str, says: str) -> None:
    """Its query may carry a credential (an endpoint's api_key); a line break would end the
    request line and start a header of its own (the request was sent that way)."""
    from ovhooks.transport.url import split_url

    with pytest.raises(BackendError) as refused:
        split_url(url)
    assert refused.value.kind == "config" and says in refused.value.message
    assert "QSECRET123" not in refused.value.message
