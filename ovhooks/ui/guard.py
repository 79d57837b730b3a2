"""Who may talk to the viewer: pure checks of one request, no I/O.

The viewer runs on the user's machine with the user's memory behind it, so a web page the
user happens to visit must not reach it (DNS rebinding, cross-site requests), and nobody else
on the machine may use it without the token printed at start:

- the Host header must name the loopback address and port the server is bound to (a rebinding
  attack arrives with the attacker's host name);
- every request carries the session cookie, or the start token in ``?token=``: the token is
  swapped for the cookie once (then redirected to a URL without it) and refused afterwards, so
  a URL left in a shell history, a log or a screenshot opens nothing;
- a request that changes anything is a POST with the CSRF token in ``X-CSRF-Token``, and an
  ``Origin`` (when the browser sends one) equal to the viewer's own; ``Sec-Fetch-Site`` other
  than ``same-origin``/``none`` is refused too.
"""

from __future__ import annotations

import hmac
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

COOKIE = "ovhooks_ui"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = ("GET", "HEAD")
SPENT = (
    "this sign-in URL was already used (it works once): use the browser it signed in, "
    "or restart `ovhooks ui` for a new one"
)

# Sent with every answer: nothing from elsewhere runs, nothing frames the page, the token in a
# URL never leaks through a Referer, nothing is cached.
SECURITY_HEADERS = (
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)


class Secrets:
    """The start token (printed once, good for one sign-in), the cookie value and the CSRF
    token of one run."""

    __slots__ = ("_lock", "cookie", "csrf", "spent", "token")

    def __init__(self, token: str, cookie: str, csrf: str) -> None:
        self.token = token
        self.cookie = cookie
        self.csrf = csrf
        self.spent = False
        self._lock = threading.Lock()

    def spend(self) -> bool:
        """Use the start token up: True for the one caller that did (the server is threaded,
        so two requests racing with the same URL get one cookie between them)."""
        with self._lock:
            if self.spent:
                return False
            self.spent = True
            return True

    @classmethod
    def fresh(cls) -> Secrets:
        import secrets

        return cls(secrets.token_urlsafe(24), secrets.token_urlsafe(32), secrets.token_urlsafe(24))


def allowed_hosts(bind: str, port: int) -> frozenset[str]:
    """Host header values this server answers to: its loopback names with its port, and the
    address it was told to bind when that is not loopback (``--bind``, at the user's word)."""
    names = set(LOOPBACK_NAMES)
    if bind not in ("127.0.0.1", "::1", "localhost", ""):
        names.add(f"[{bind}]" if ":" in bind else bind)
    return frozenset(f"{name}:{port}" for name in names)


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def cookie_value(header: str) -> str:
    """The viewer's cookie from a ``Cookie`` header ("" when absent)."""
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name == COOKIE:
            return value
    return ""


class Verdict:
    """What to do with a request: serve it, set the cookie and redirect, or refuse it."""

    __slots__ = ("login", "reason", "status")

    def __init__(self, status: int, reason: str = "", *, login: bool = False) -> None:
        self.status = status  # 200 = go on, 303 = cookie + redirect, 4xx = refuse
        self.reason = reason
        self.login = login

    @property
    def ok(self) -> bool:
        return self.status == 200


# Headers a request may carry once: the checks read one value, and the spec refuses a second
# Host (RFC 9112 3.2).
SINGLE_HEADERS = ("host", "origin", "cookie")


def judge(
    method: str,
    headers: Mapping[str, str],
    query_token: str,
    secrets: Secrets,
    hosts: frozenset[str],
) -> Verdict:
    """The verdict on one request. ``headers`` keys are lower case."""
    host = headers.get("host", "")
    if host.lower() not in hosts:
        return Verdict(421, "unknown Host (only the loopback address is served)")
    origin = headers.get("origin", "")
    if origin and origin.lower() not in {f"http://{h}" for h in hosts}:
        return Verdict(403, "foreign Origin")
    site = headers.get("sec-fetch-site", "")
    if method not in SAFE_METHODS and site not in ("", "same-origin", "none"):
        return Verdict(403, "cross-site request")
    cookie = cookie_value(headers.get("cookie", ""))
    signed_in = bool(cookie) and same(cookie, secrets.cookie)
    if not signed_in:
        if method == "GET" and query_token and same(query_token, secrets.token):
            if secrets.spent:
                return Verdict(403, SPENT)
            return Verdict(303, login=True)
        return Verdict(403, "missing or wrong token: open the URL `ovhooks ui` printed")
    if method not in SAFE_METHODS:
        csrf = headers.get("x-csrf-token", "")
        if not csrf or not same(csrf, secrets.csrf):
            return Verdict(403, "missing or wrong CSRF token")
    return Verdict(200)
