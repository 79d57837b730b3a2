"""Doctor's run: which checks apply, in which order, and the result document they make.

Order: configuration and backend, the project, the route to the server (OpenViking only), the
server, the same request as a hook makes it, auth and identity (and ``--write-test``) when the
server answered, the hooks per host, the memory tools server per host (started and asked
for its tools), Codex's own memories, ``/ready``, capture activity per
host, double ingestion, the state directory, the queue and recent errors. Nothing is printed
here: ``command`` renders the document this module returns.
"""

from __future__ import annotations

import time

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.result import check, counts
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings


def _server_checks(
    settings: Settings,
    environ: Mapping[str, str],
    backend: Backend,
    *,
    write_test: bool,
    now: float,
) -> tuple[list[Check], dict[str, Any] | None]:
    """Route, server, hook path, auth, identity and the write test; and ``/health``'s answer
    (None when the server check failed, so the checks that need a server are skipped)."""
    from ovhooks.commands.doctor import identity, network, server, write

    openviking = settings.backend == "openviking"
    checks = [network.check_network(settings, environ)] if openviking else []
    verdict, health = server.check_server(settings, backend)
    checks.append(verdict)
    if openviking:
        outcome = "ok" if health is not None else str(verdict["details"].get("error"))
        timeout = float(getattr(backend, "_timeout", settings.request_timeout_s))
        peer = str(getattr(backend, "peer", ""))
        checks.append(network.check_hook_path(settings, peer, outcome, timeout))
    if health is None:
        for name in ("auth", "identity", *(("write",) if write_test else ())):
            checks.append(check(name, "skip", "skipped: the server check failed"))
        return checks, None
    if openviking:
        checks.append(identity.check_auth(settings, health))
    who, _user = identity.check_identity(settings, backend)
    checks.append(who)
    if write_test and who["status"] == "fail":
        checks.append(check("write", "skip", "skipped: the identity check failed"))
    elif write_test:
        checks.append(write.check_write(backend, now))
    return checks, health


def _host_checks(hosts: tuple[str, ...], environ: Mapping[str, str], cwd: str) -> list[Check]:
    from ovhooks.commands.doctor import codex, hooks, mcp

    checks = [_or_failed(f"hooks:{h}", hooks.check_host, h, environ, cwd) for h in hosts]
    none_at_all = hooks.no_host_at_all(checks)
    if none_at_all is not None:
        checks.append(none_at_all)
    from ovhooks.commands.install.mcp_config import MCP_HOSTS

    checks.extend(
        _or_failed(f"mcp:{host}", mcp.check_mcp, host, environ)
        for host in hosts
        if host in MCP_HOSTS
    )
    if any("codex_native_memories" in host_spec(host).doctor for host in hosts):
        checks.append(_or_failed("codex-memories", codex.check_codex_native_memories, environ))
    return checks


def _or_failed(name: str, run: Callable[..., Check], *args: Any) -> Check:
    """The check, or a failed one saying why it could not be made: a host file that cannot
    be read (HOME a file, a folder where a file belongs) stopped the whole report."""
    from ovhooks.commands.errors import CommandError

    try:
        return run(*args)
    except CommandError as exc:
        return check(name, "fail", exc.message, exc.fix)


def run_checks(
    settings: Settings,
    environ: Mapping[str, str],
    cwd: str,
    backend_factory: Callable[[], Backend],
    *,
    write_test: bool = False,
    hosts: tuple[str, ...] = hostconfig.HOSTS,
    now: float | None = None,
) -> list[Check]:
    """Every check that applies, in the order the report shows them."""
    from ovhooks.commands.doctor import (
        activity,
        config,
        ingestion,
        queue,
        semantic,
        server,
        state_dir,
    )

    now = time.time() if now is None else now
    checks = [config.check_config(settings), config.check_backend_choice(settings)]
    checks.append(config.check_project(settings, cwd))
    backend = backend_factory()
    found, health = _server_checks(settings, environ, backend, write_test=write_test, now=now)
    checks.extend(found)
    checks.extend(_host_checks(hosts, environ, cwd))
    if health is not None:
        checks.append(server.check_ready(settings, backend))
    checks.extend(
        activity.check_capture_activity(h, settings.state_dir, environ, now) for h in hosts
    )
    answered = backend if health is not None else None
    checks.append(ingestion.check_double_ingestion(environ, answered))
    checks.append(state_dir.check_state_dir(settings.state_dir))
    checks.append(queue.check_queue(settings.state_dir))
    checks.append(queue.check_recent_errors(settings.state_dir, now))
    checks.append(semantic.check_semantic(settings))
    return checks


def result(settings: Settings, checks: list[Check]) -> dict[str, Any]:
    """The document ``doctor --json`` prints (beside ``ok`` and ``command``)."""
    tally = counts(checks)
    return {
        "ok": tally["fail"] == 0,
        "backend": settings.backend,
        "why_backend": settings.why_backend,
        "checks": checks,
        "counts": tally,
    }
