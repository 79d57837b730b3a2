"""Doctor checks added for hosts and teams, one function each (issue 16).

Each returns one ``Check`` and reads only what it names, so the doctor package split can
move them as they are.
"""

from __future__ import annotations

import os

from ovhooks.commands.doctor import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor import Check
    from ovhooks.config import Settings


def check_project(settings: Settings, cwd: str) -> Check:
    """Which project peer this folder's memories go to, and where that came from."""
    from ovhooks.project import resolve

    identity = resolve(cwd, actor_peer=settings.actor_peer)
    details = identity.as_dict()
    if identity.warnings:
        return check(
            "project",
            "warn",
            f"project {identity.peer or '(none)'} from {identity.source}; "
            + "; ".join(identity.warnings),
            "move credentials and URLs out of committed files (.ovhooks.local.toml is local)",
            **details,
        )
    summary = f"project {identity.peer or '(none)'} from {identity.source}"
    if identity.legacy_peer:
        summary += f" (memories under the old path peer {identity.legacy_peer} are still read)"
    return check("project", "ok", summary, **details)


def _codex_features(environ: Mapping[str, str]) -> dict[str, object] | None:
    import tomllib

    from ovhooks.commands import hostconfig

    try:
        with open(hostconfig.codex_config_toml(environ), "rb") as fh:
            doc = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    features = doc.get("features")
    return features if isinstance(features, dict) else {}


def check_codex_native_memories(environ: Mapping[str, str]) -> Check:
    """Codex's own "Memories" (``[features] memories``, off by default in 0.169) beside ovhooks
    put two memory blocks in front of the model, often saying the same things."""
    features = _codex_features(environ)
    if features is None:
        return check("codex-memories", "skip", "no readable Codex config.toml")
    if features.get("memories") is True:
        return check(
            "codex-memories",
            "warn",
            "Codex's native memories are on: they inject memory context beside ovhooks', "
            "overlapping and costing tokens twice",
            "turn one off: `codex features disable memories` (or OVHOOKS_RECALL=0)",
            enabled=True,
        )
    return check("codex-memories", "ok", "Codex's native memories are off", enabled=False)


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
    from ovhooks.backend.errors import BackendError

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


STALE_CAPTURE_S = 24 * 3600  # a host used this long after the last capture means it stopped
_SCAN_LIMIT = 400  # directories looked at per host, newest first


def _newest_file(root: str, suffix: str, depth: int) -> float:
    """The newest mtime of a ``suffix`` file under ``root`` within ``depth`` levels, walking the
    newest-named directories first (Codex nests by date, Claude by project)."""
    newest = 0.0
    budget = [_SCAN_LIMIT]

    def walk(folder: str, level: int) -> None:
        nonlocal newest
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError:
            return
        for entry in entries:
            if budget[0] <= 0:
                return
            try:
                if entry.is_dir(follow_symlinks=False) and level < depth:
                    budget[0] -= 1
                    walk(entry.path, level + 1)
                elif entry.name.endswith(suffix):
                    newest = max(newest, entry.stat().st_mtime)
            except OSError:
                continue

    walk(root, 0)
    return newest


def host_last_used(host: str, environ: Mapping[str, str]) -> float:
    """When the host last wrote a transcript (0: never, or no transcripts found)."""
    from ovhooks.commands import hostconfig

    if host == "codex":
        return _newest_file(
            os.path.join(hostconfig.codex_home(environ), "sessions"), ".jsonl", depth=3
        )
    return _newest_file(os.path.join(hostconfig.claude_dir(environ), "projects"), ".jsonl", 1)


def _ago(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{int(seconds // 86400)} days ago"
    if seconds >= 2 * 3600:
        return f"{int(seconds // 3600)} hours ago"
    return f"{max(0, int(seconds // 60))} min ago"


def check_capture_activity(
    host: str, state_dir: str, environ: Mapping[str, str], now: float
) -> Check:
    """The last capture for ``host`` against the host's own last use: hooks that silently stopped
    firing (untrusted, uninstalled, a host upgrade) show as "capture stopped N days ago"."""
    from ovhooks.commands.status import session_rows

    label = "Codex" if host == "codex" else "Claude Code"
    try:
        rows = session_rows(state_dir, now, 0)
    except OSError:  # the state-dir check reports an unusable state directory
        rows = []
    captures = [
        float(r["last_activity_at"])
        for r in rows
        if r["host"] == host and r["last_activity_at"] is not None
    ]
    last_capture = max(captures, default=0.0)
    used = host_last_used(host, environ)
    details = {"last_capture_at": last_capture or None, "host_last_used_at": used or None}
    name = f"capture:{host}"
    if not last_capture and not used:
        return check(name, "skip", f"no {label} sessions seen", **details)
    if not last_capture:
        return check(
            name,
            "warn",
            f"{label} was used {_ago(now - used)} but ovhooks never captured a turn from it",
            f"run `ovhooks doctor` after one {label} turn; check the hooks above",
            **details,
        )
    if used - last_capture > STALE_CAPTURE_S:
        return check(
            name,
            "warn",
            f"{label}: capture stopped {_ago(now - last_capture)} "
            f"({label} was used {_ago(now - used)})",
            f"check that ovhooks' {host} hooks are installed and trusted; see `ovhooks status`",
            **details,
        )
    return check(name, "ok", f"{label}: last capture {_ago(now - last_capture)}", **details)


INGEST_MARKERS = ("__codex__", "__claude__")


def _ingest_processes() -> list[str]:
    """Command lines of running ``openviking-server ingest`` processes (Linux /proc)."""
    found: list[str] = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for pid in pids[:5000]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read(4096).split(b"\0")
        except OSError:
            continue
        words = [a.decode("utf-8", "replace") for a in argv if a]
        if "ingest" in words and any(os.path.basename(w) == "openviking-server" for w in words):
            found.append(" ".join(words)[:200])
    return found


def _ingest_in_config(environ: Mapping[str, str]) -> str:
    """The server config file when it turns the transcript importer on, else ``""``."""
    import json

    path = environ.get("OPENVIKING_CONFIG_FILE") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".openviking", "ov.conf"
    )
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return ""
    ingest = doc.get("ingest") if isinstance(doc, dict) else None
    if isinstance(ingest, dict) and ingest.get("enabled", True) is not False:
        return path
    return ""


def check_double_ingestion(
    environ: Mapping[str, str], backend: Backend | None, *, scan_processes: bool = True
) -> Check:
    """``openviking-server ingest`` reads the same Codex/Claude logs ovhooks captures and files
    them under its own session ids (``<prefix>__codex__<id>``): every turn is stored twice."""
    reasons: list[str] = []
    config = _ingest_in_config(environ)
    if config:
        reasons.append(f"{config} turns the transcript importer on")
    if scan_processes:
        reasons += [f"running: {cmd}" for cmd in _ingest_processes()[:2]]
    if backend is not None and getattr(backend, "name", "") != "local":
        from ovhooks.backend.errors import BackendError

        try:
            items = backend.ls("viking://~/sessions", limit=500)
        except BackendError:
            items = []
        imported = [
            str(i.get("uri"))
            for i in items
            if isinstance(i, dict) and any(m in str(i.get("uri")) for m in INGEST_MARKERS)
        ]
        if imported:
            reasons.append(f"{len(imported)} server session(s) were made by the importer")
    if reasons:
        return check(
            "double-ingestion",
            "warn",
            "openviking-server ingest stores the same conversations ovhooks captures: "
            + "; ".join(reasons),
            "use one of the two: stop the importer (or point it elsewhere), or uninstall "
            "ovhooks' capture (OVHOOKS_CAPTURE=0)",
            reasons=reasons,
        )
    return check("double-ingestion", "ok", "no transcript importer seen beside ovhooks")
