"""Doctor's hook checks, one per host: ovhooks registered in each scope, every event present,
the command the hooks run still on disk, then the checks the host asks for by name
(``HostSpec.doctor``: Codex's feature flag and trust, Gemini CLI's settings)."""

from __future__ import annotations

import os

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.result import check
from ovhooks.hosts.launch import executable_of
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.commands.doctor.result import Check, Registration


def registrations(
    host: str, environ: Mapping[str, str], cwd: str
) -> tuple[list[Registration], list[str]]:
    """Where ovhooks' hooks are registered for ``host``, and the files that could not be read."""
    from ovhooks.commands.errors import CommandError
    from ovhooks.commands.install.files import read_json_doc
    from ovhooks.commands.install.hooks_json import our_handlers, wrapped

    found: list[Registration] = []
    problems: list[str] = []
    for scope in hostconfig.SCOPES:
        path = hostconfig.hooks_file(host, scope, environ, cwd)
        if scope == "project" and path == hostconfig.hooks_file(host, "user", environ, cwd):
            continue
        try:
            doc, _text = read_json_doc(path)
        except CommandError as exc:
            problems.append(exc.message)
            continue
        handlers = our_handlers(wrapped(doc, host_spec(host).hooks_at_top))
        if handlers:
            found.append((scope, path, handlers))
    return found, problems


def _not_registered(host: str, problems: list[str], environ: Mapping[str, str]) -> Check:
    name = f"hooks:{host}"
    label = hostconfig.host_label(host)
    if problems:
        fix = f"fix the file, then run `ovhooks install {host}`"
        return check(name, "fail", "; ".join(problems), fix)
    host_dir = hostconfig.config_dir(host, environ)
    if not os.path.isdir(host_dir):
        summary = f"{label} not found ({host_dir} does not exist)"
        return check(name, "skip", summary, installed=False)
    return check(
        name,
        "fail",
        f"hooks missing: ovhooks is not registered with {label}",
        f"run `ovhooks install {host}`",
        installed=False,
    )


def check_host(host: str, environ: Mapping[str, str], cwd: str) -> Check:
    if host_spec(host).install == "shim":
        from ovhooks.commands.doctor.shims import check_shim_host

        return check_shim_host(host, environ, cwd)
    found, problems = registrations(host, environ, cwd)
    if not found:
        return _not_registered(host, problems, environ)
    wanted = {event for event, *_ in hostconfig.HOOK_TABLE[host]}
    notes: list[str] = []
    status = "ok"
    fix = ""
    scopes: list[dict[str, Any]] = []
    for scope, path, handlers in found:
        scopes.append({"scope": scope, "path": path, "events": sorted({h[0] for h in handlers})})
        missing = sorted(wanted - {h[0] for h in handlers})
        if missing:
            status, fix = "warn", f"run `ovhooks install {host} --scope {scope}` again"
            notes.append(f"{scope}: missing {', '.join(missing)}")
        for _event, _gi, _hi, command in handlers:
            exe = executable_of(command)
            if os.path.isabs(exe) and not os.path.exists(exe):
                status, fix = "fail", f"run `ovhooks install {host} --scope {scope}` again"
                notes.append(f"{scope}: the hooks run {exe}, which no longer exists")
                break
    summary = f"registered ({', '.join(str(s['scope']) for s in scopes)} scope)"
    for name in host_spec(host).doctor:
        status, fix, extra = _host_check(name, environ, cwd, found, status, fix)
        notes.extend(extra)
    if notes:
        summary += "; " + "; ".join(notes)
    return check(f"hooks:{host}", status, summary, fix, installed=True, scopes=scopes)


def _host_check(
    name: str,
    environ: Mapping[str, str],
    cwd: str,
    found: list[Registration],
    status: str,
    fix: str,
) -> tuple[str, str, list[str]]:
    """One of the checks a host asks for (``HostSpec.doctor``), worsening status and fix."""
    if name == "codex_feature_and_trust":
        from ovhooks.commands.doctor.codex import check_feature_and_trust

        return check_feature_and_trust(environ, found, status, fix)
    if name == "gemini_settings":
        from ovhooks.commands.doctor.gemini import check_settings

        return check_settings(environ, cwd, found, status, fix)
    return status, fix, []  # a check this ovhooks does not have (the other doctor names)


def no_host_at_all(host_checks: list[Check]) -> Check | None:
    """The extra failure when no host checked has ovhooks' hooks (each alone only skipped)."""
    if host_checks and all(c["status"] == "skip" for c in host_checks):
        return check(
            "hooks",
            "fail",
            "hooks missing: no host has ovhooks' hooks",
            f"run `ovhooks install HOST` ({', '.join(hostconfig.HOSTS[:-1])} or "
            f"{hostconfig.HOSTS[-1]})",
        )
    return None
