"""Doctor's check for the hosts ovhooks reaches through a shim file (Pi, OpenCode): the file
is in place in some scope, is ovhooks' own, and the command it starts still exists."""

from __future__ import annotations

import json
import os

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.result import check
from ovhooks.fsutil import read_text_file
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.commands.doctor.result import Check


def shim_command(text: str) -> list[str] | None:
    """The argv written into an installed shim, or None when the file is not ovhooks'."""
    from ovhooks.commands.install.shim_file import MARKER

    for line in text.splitlines():
        at = line.find(MARKER)
        if at < 0 or " = " not in line[:at]:
            continue
        literal = line[line.index(" = ") + 3 : at].strip().rstrip(";")
        try:
            argv = json.loads(literal)
        except (ValueError, RecursionError):
            return []
        return [str(a) for a in argv] if isinstance(argv, list) else []
    return None


def host_dir(host: str, environ: Mapping[str, str]) -> str:
    return hostconfig.config_dir(host, environ)


def openviking_integration(host: str, environ: Mapping[str, str]) -> str:
    """Where OpenViking's own Pi extension or OpenCode plugin is installed, or ``""``.

    Both would write every turn into the same OpenViking session (``pi-<id>``, ``oc-<id>``)
    as ovhooks does: the memory would get each turn twice. Its installer puts the Pi
    extension in ``extensions/openviking`` (and ``packages`` in ``settings.json``), the
    OpenCode plugin in ``plugins/openviking[.js]`` or the ``plugin`` list of its config.
    """
    base = host_dir(host, environ)
    spec = host_spec(host)
    places = [os.path.join(base, *path.split("/")) for path in spec.rivals]
    configs = [os.path.join(base, *path.split("/")) for path in spec.rival_configs]
    for place in places:
        if os.path.exists(place):
            return place
    for config in configs:
        try:
            text = read_text_file(config, 1 << 20, errors="replace")
        except OSError:
            continue
        if "openviking" in text.lower():
            return config
    return ""


def check_shim_host(host: str, environ: Mapping[str, str], cwd: str) -> Check:
    name = f"hooks:{host}"
    label = host_spec(host).label
    what = host_spec(host).shim_noun
    scopes: list[dict[str, Any]] = []
    notes: list[str] = []
    status, fix = "ok", ""
    for scope in hostconfig.SCOPES:
        path = hostconfig.hooks_file(host, scope, environ, cwd)
        if scope == "project" and path == hostconfig.hooks_file(host, "user", environ, cwd):
            continue
        try:
            argv = shim_command(read_text_file(path, 1 << 20, errors="replace"))
        except OSError:
            continue
        if argv is None:
            notes.append(f"{scope}: {path} is not ovhooks' {what}")
            continue
        scopes.append({"scope": scope, "path": path, "command": argv})
        exe = argv[0] if argv else ""
        if not exe or (os.path.isabs(exe) and not os.path.exists(exe)):
            status, fix = "fail", f"run `ovhooks install {host} --scope {scope}` again"
            notes.append(f"{scope}: the {what} runs {exe or '(nothing)'}, which does not exist")
    if not scopes:
        base = host_dir(host, environ)
        if not os.path.isdir(base):
            return check(
                name, "skip", f"{label} not found ({base} does not exist)", installed=False
            )
        summary = f"{what} missing: ovhooks is not installed for {label}"
        if notes:
            summary += "; " + "; ".join(notes)
        return check(name, "fail", summary, f"run `ovhooks install {host}`", installed=False)
    summary = f"{what} installed ({', '.join(s['scope'] for s in scopes)} scope)"
    other = openviking_integration(host, environ)
    if other and status == "ok":
        status = "warn"
        fix = (
            f"keep one: remove OpenViking's {label} {what} ({other}) or `ovhooks uninstall {host}`"
        )
        notes.append(
            f"OpenViking's own {label} {what} is installed too: each turn would be stored twice"
        )
    if notes:
        summary += "; " + "; ".join(notes)
    return check(name, status, summary, fix, installed=True, scopes=scopes)
