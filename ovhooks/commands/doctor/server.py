"""Doctor's server checks: reachable and its version (``/health``), and every subsystem ready
(``/ready``). A failure names its cause: down, wrong URL, route or TLS, too slow, or broken."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings
    from ovhooks.transport.errors import BackendError


def url_fix(settings: Settings) -> str:
    return (
        f"set OPENVIKING_URL to the server's root URL, e.g. http://127.0.0.1:1933 (no /api/v1); "
        f"the URL now comes from {settings.sources.get('url', 'default')}"
    )


def _route_fix(exc: BackendError, settings: Settings) -> str:
    if exc.kind == "tls":
        return (
            "set OVHOOKS_CA_BUNDLE to the PEM file of the CA that signed the server's "
            "certificate (the network check names the CAs in use)"
        )
    if exc.code == "REDIRECT":
        return "set OPENVIKING_URL to the address the server redirects to, if you trust it"
    if exc.kind == "too_large":
        return "the server's answer is unexpectedly large: check OPENVIKING_URL"
    return "correct the setting named above; " + url_fix(settings)


def _health_failed(settings: Settings, exc: BackendError) -> Check:
    from ovhooks.commands.errors import backend_failure, not_an_openviking_answer

    # The command-wide mapping classifies the failure; doctor words it for the server check.
    slug = backend_failure(exc).slug
    url = settings.url
    if settings.backend != "openviking":  # the local store has no server to start
        summary = f"the local memory store failed: {exc.message}"
        fix = (
            f"make {settings.data_dir} a folder you can write (OVHOOKS_DATA_DIR names "
            "another); a damaged memory.db can be moved aside, memory then starts empty"
        )
        return check("server", "fail", summary, fix, error=exc.kind)
    if exc.kind == "unreachable":
        summary = f"server down or wrong URL: {exc.message}"
        fix = "start the OpenViking server (`openviking-server`), or " + url_fix(settings)
        return check("server", "fail", summary, fix, url=url, error=exc.kind)
    if slug.startswith("server_") and slug not in ("server_unreachable", "server_error"):
        route = slug.removeprefix("server_")  # tls, config, too_large or redirect
        fix = _route_fix(exc, settings)
        return check("server", "fail", f"{url}: {exc.message}", fix, url=url, error=route)
    if exc.kind == "timeout":
        summary = f"no answer from {url} in time: {exc.message}"
        fix = "check that the server is not stuck (restart it), or " + url_fix(settings)
        return check("server", "fail", summary, fix, url=url, error=exc.kind)
    if not_an_openviking_answer(exc):
        summary = f"wrong URL: {url} answers, but not as an OpenViking server ({exc})"
        return check("server", "fail", summary, url_fix(settings), url=url, error="not_openviking")
    return check(
        "server",
        "fail",
        f"the server answered with an error: {exc}",
        "look at the server's log; restart it if it keeps failing",
        url=url,
        error=exc.kind,
    )


def _health_verdict(settings: Settings, health: dict[str, Any]) -> Check:
    if health.get("status") == "error" or not ({"healthy", "version"} & set(health)):
        # /health is not enveloped: an error document or a stranger's JSON means the URL
        # points somewhere else (a path prefix, another service).
        return check(
            "server",
            "fail",
            f"wrong URL: {settings.url}/health did not answer as an OpenViking server does",
            url_fix(settings),
            url=settings.url,
            error="not_openviking",
        )
    version = str(health.get("version") or "unknown")
    if settings.backend != "openviking":
        summary = f"local store in {settings.data_dir}, version {version}"
        return check("server", "ok", summary, url=None, version=version)
    if health.get("healthy") is False:
        summary = f"{settings.url} reports itself unhealthy (version {version})"
        fix = "look at the server's log"
        return check("server", "warn", summary, fix, url=settings.url, version=version)
    summary = f"{settings.url} is up, version {version}"
    return check("server", "ok", summary, url=settings.url, version=version)


def check_server(settings: Settings, backend: Backend) -> tuple[Check, dict[str, Any] | None]:
    """The server check, and the ``/health`` document when the server answered as one."""
    from ovhooks.transport.errors import BackendError

    try:
        health = backend.health()
    except BackendError as exc:
        return _health_failed(settings, exc), None
    verdict = _health_verdict(settings, health)
    return verdict, (None if verdict["status"] == "fail" else health)


def _state(value: object) -> str:
    if isinstance(value, dict):
        return str(value.get("status") or value.get("error") or "unknown")
    return str(value)


def _healthy(value: object) -> bool:
    """A subsystem's answer: ``"ok"``, or (0.5.2's agfs) ``{"status": "ok", "checks": {...}}``."""
    if isinstance(value, dict):
        inner = value.get("checks")
        nested_ok = all(_healthy(v) for v in inner.values()) if isinstance(inner, dict) else True
        return value.get("status") in ("ok", "ready") and nested_ok
    return value in ("ok", "not_configured", "disabled")


def check_ready(settings: Settings, backend: Backend) -> Check:
    """The server's ``/ready``: every subsystem it reports (storage, vectors, embedding)."""
    if settings.backend != "openviking":
        return check("ready", "skip", "the local store has no server")
    ready = getattr(backend, "ready", None)
    if ready is None:
        return check("ready", "skip", "this backend cannot ask /ready")
    from ovhooks.transport.errors import BackendError

    try:
        doc = ready()
    except BackendError as exc:
        if exc.status == 404:
            return check("ready", "skip", "the server has no /ready (older than 0.5)")
        return check(
            "ready", "fail", f"server not ready: {exc}", "see the server's log", error=str(exc)
        )
    checks = doc.get("checks") if isinstance(doc.get("checks"), dict) else {}
    bad = {k: _state(v) for k, v in (checks or {}).items() if not _healthy(v)}
    if doc.get("status") != "ready" or bad:
        names = ", ".join(f"{k}={v}" for k, v in sorted(bad.items())) or str(doc.get("status"))
        return check(
            "ready", "fail", f"server not ready: {names}", "see the server's log", checks=checks
        )
    return check("ready", "ok", f"server ready ({len(checks or {})} subsystems)", checks=checks)
