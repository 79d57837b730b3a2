"""The viewer's request guard: Host, Origin, token, cookie and CSRF rules (pure)."""

from __future__ import annotations

import pytest

from ovhooks.ui import guard

SECRETS = guard.Secrets("start-token", "cookie-value", "csrf-value")
HOSTS = guard.allowed_hosts("127.0.0.1", 4242)
SIGNED = {"host": "127.0.0.1:4242", "cookie": f"{guard.COOKIE}=cookie-value"}


def judge(method: str, headers: dict[str, str], token: str = "") -> guard.Verdict:
    return guard.judge(method, headers, token, SECRETS, HOSTS)


@pytest.mark.parametrize(
    "host", ["127.0.0.1:4242", "localhost:4242", "[::1]:4242", "LOCALHOST:4242"]
)
def test_loopback_hosts_with_the_bound_port_are_served(host: str) -> None:
    assert judge("GET", {**SIGNED, "host": host}).ok


@pytest.mark.parametrize(
    "host",
    [
        "",
        "evil.example:4242",
        "127.0.0.1:4243",
        "127.0.0.1",
        "localhost.evil.example:4242",
        "[::1]",
        "0.0.0.0:4242",
        "127.0.0.1:4242.evil",
    ],
)
def test_any_other_host_is_refused_before_the_token_is_looked_at(host: str) -> None:
    verdict = judge("GET", {"host": host}, token="start-token")
    assert verdict.status == 421


def test_a_bind_address_given_by_the_user_is_served_too() -> None:
    hosts = guard.allowed_hosts("192.0.2.7", 80)
    assert "192.0.2.7:80" in hosts and "127.0.0.1:80" in hosts
    assert "[2001:db8::1]:80" in guard.allowed_hosts("2001:db8::1", 80)


def test_without_cookie_or_token_nothing_is_served() -> None:
    assert judge("GET", {"host": "127.0.0.1:4242"}).status == 403
    assert judge("GET", {"host": "127.0.0.1:4242"}, token="wrong").status == 403
    wrong_cookie = {"host": "127.0.0.1:4242", "cookie": f"{guard.COOKIE}=guess"}
    assert judge("GET", wrong_cookie).status == 403


def test_the_start_token_signs_a_browser_in() -> None:
    verdict = judge("GET", {"host": "127.0.0.1:4242"}, token="start-token")
    assert verdict.status == 303 and verdict.login


def test_the_start_token_signs_in_once() -> None:
    secrets = guard.Secrets("start-token", "cookie-value", "csrf-value")
    host = {"host": "127.0.0.1:4242"}
    assert guard.judge("GET", host, "start-token", secrets, HOSTS).status == 303
    assert secrets.spend() and not secrets.spend()
    spent = guard.judge("GET", host, "start-token", secrets, HOSTS)
    assert spent.status == 403 and spent.reason == guard.SPENT
    signed = {**host, "cookie": f"{guard.COOKIE}=cookie-value"}
    assert guard.judge("GET", signed, "", secrets, HOSTS).ok  # the cookie it gave still works


def test_racing_requests_with_the_token_get_one_cookie_between_them() -> None:
    import threading

    secrets = guard.Secrets("start-token", "cookie-value", "csrf-value")
    won: list[bool] = []
    barrier = threading.Barrier(8)

    def claim() -> None:
        barrier.wait()
        won.append(secrets.spend())

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False] * 7 + [True]


def test_the_token_does_not_sign_in_a_post() -> None:
    assert judge("POST", {"host": "127.0.0.1:4242"}, token="start-token").status == 403


def test_a_foreign_origin_is_refused_even_with_the_cookie() -> None:
    assert judge("GET", {**SIGNED, "origin": "http://evil.example"}).status == 403
    assert judge("GET", {**SIGNED, "origin": "http://127.0.0.1:4242"}).ok
    assert judge("GET", {**SIGNED, "origin": "null"}).status == 403


def test_a_post_needs_the_csrf_token() -> None:
    assert judge("POST", SIGNED).status == 403
    assert judge("POST", {**SIGNED, "x-csrf-token": "nope"}).status == 403
    assert judge("POST", {**SIGNED, "x-csrf-token": "csrf-value"}).ok


def test_a_cross_site_post_is_refused_even_with_the_csrf_token() -> None:
    headers = {**SIGNED, "x-csrf-token": "csrf-value", "sec-fetch-site": "cross-site"}
    assert judge("POST", headers).status == 403
    assert judge("POST", {**headers, "sec-fetch-site": "same-origin"}).ok


def test_cookie_parsing_finds_ours_among_others() -> None:
    assert guard.cookie_value(f"a=1; {guard.COOKIE}=xyz; b=2") == "xyz"
    assert guard.cookie_value("a=1; b") == ""


def test_fresh_secrets_differ_every_start() -> None:
    one, two = guard.Secrets.fresh(), guard.Secrets.fresh()
    assert len({one.token, one.cookie, one.csrf, two.token, two.cookie, two.csrf}) == 6
    assert len(one.token) >= 32


def test_every_answer_forbids_remote_code_and_framing() -> None:
    headers = dict(guard.SECURITY_HEADERS)
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert headers["Referrer-Policy"] == "no-referrer"
