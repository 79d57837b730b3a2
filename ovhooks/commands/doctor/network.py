"""``doctor``'s network checks: the route and CAs the hooks use, and the hooks' own budget.

Every command builds its backend with ``make_backend`` on ``transport/http.py``, the transport
the hooks use, so what ``doctor`` sees is what a hook sees. Two things can still differ, and
``doctor`` says so when they do: the time budget (a hook waits ``recall_deadline_s``, doctor
``--timeout``) and connection reuse (a hook process opens a fresh connection, commands keep
one alive). ``check_hook_path`` asks the server once more exactly as a fresh hook process
would and reports a disagreement with the server check.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings

_LOOPBACK = ("localhost", "127.", "::1")


def check_network(settings: Settings, environ: Mapping[str, str]) -> Check:
    """How the hooks reach ``settings.url``: direct or which proxy, and which CAs for https."""
    from ovhooks.commands.doctor.result import check
    from ovhooks.transport.errors import BackendError
    from ovhooks.transport.http import transport_for
    from ovhooks.transport.url import split_url

    client = transport_for(settings)
    client.environ = environ
    try:
        scheme, host, _port, _path = split_url(settings.url)
        route, source = client.route(settings.url)
    except BackendError as exc:
        return check(
            "network",
            "fail",
            f"the hooks cannot make a request: {exc.message}",
            "correct the setting named above",
            error=exc.kind,
        )
    details: dict[str, object] = {"route": route, "proxy_source": source or None}
    parts = ["direct connection" if route == "direct" else f"through the proxy {route} ({source})"]
    status, fix = "ok", ""
    if route != "direct" and host.startswith(_LOOPBACK):
        status = "warn"
        fix = f"add {host} to NO_PROXY if the server runs on this machine (curl and httpx agree)"
        parts.append("a loopback server reached through a proxy")
    if scheme == "https":
        from ovhooks.transport.tls import ca_source

        ca_from, ca_path = ca_source(settings.ca_bundle, environ)
        details.update(ca_source=ca_from, ca_path=ca_path)
        parts.append(f"TLS trusts the CAs from {ca_from} ({ca_path})")
    return check("network", status, "; ".join(parts), fix, **details)


def check_hook_path(
    settings: Settings, peer: str, doctor_outcome: str, doctor_timeout_s: float
) -> Check:
    """The server asked once as a fresh hook process would (its budget, a new connection)."""
    from ovhooks.backend.factory import make_backend
    from ovhooks.commands.doctor.result import check
    from ovhooks.transport.errors import BackendError
    from ovhooks.transport.http import transport_for

    budget = settings.recall_deadline_s
    client = transport_for(settings, keep_alive=False)
    backend = make_backend(
        settings, peer=peer, deadline=time.monotonic() + budget, transport=client
    )
    start = time.monotonic()
    try:
        backend.health()
        hook_outcome, error = "ok", ""
    except BackendError as exc:
        hook_outcome, error = exc.kind, str(exc)
    elapsed_ms = round((time.monotonic() - start) * 1000)
    details = {"hook_budget_s": budget, "elapsed_ms": elapsed_ms, "hook_outcome": hook_outcome}
    if hook_outcome == doctor_outcome == "ok":
        return check(
            "hook_path",
            "ok",
            f"a hook reaches the server the same way, in {elapsed_ms} ms "
            f"(its budget: {budget:g} s)",
            **details,
        )
    if hook_outcome == "ok":
        return check(
            "hook_path",
            "warn",
            f"disagreement: a hook reaches the server ({elapsed_ms} ms) but doctor's request "
            f"did not ({doctor_outcome})",
            "run doctor again; if it persists the server fails intermittently",
            **details,
        )
    if doctor_outcome == "ok":
        return check(
            "hook_path",
            "fail",
            f"disagreement: doctor reached the server within {doctor_timeout_s:g} s, but a hook "
            f"with its {budget:g} s budget fails: {error}",
            "the server answers too slowly for the hooks: check its load, or raise "
            "OVHOOKS_RECALL_DEADLINE_S",
            **details,
        )
    return check("hook_path", "skip", f"a hook fails the same way: {error}", **details)
