"""Doctor's double-ingestion check: ``openviking-server ingest`` beside ovhooks stores every
conversation twice (its config, its running processes, and the sessions it made)."""

from __future__ import annotations

import os

from ovhooks.commands.doctor.result import check
from ovhooks.fsutil import read_text_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor.result import Check

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

    from ovhooks.settings.layout import home_dir

    path = environ.get("OPENVIKING_CONFIG_FILE") or os.path.join(
        home_dir(environ), ".openviking", "ov.conf"
    )
    try:
        doc = json.loads(read_text_file(path))
    except (OSError, ValueError, RecursionError):
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
        from ovhooks.transport.errors import BackendError

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
