"""What ``status`` and ``doctor`` say about recall by meaning: on or off, the model, whether
the service is warm, how many rows still wait for a vector, and its memory."""

from __future__ import annotations

import os

from ovhooks.semantic import MODEL_KEY, socket_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.settings.config import Settings


def semantic_status(settings: Settings) -> dict[str, Any]:
    """``{enabled, model, state, pending, rss_mib, error, socket, serving, embed}``; ``state``
    is ``off``, ``stopped`` (starts on the next prompt), ``loading``, ``warm`` or ``broken``.
    ``serving`` is the model answering for the local store (or texts sent), ``embed`` the
    user's own model (``None`` when none is configured): endpoint, model, and ``state``
    (``ok``, ``unreachable``, ``checking``, or ``not running`` with no service to ask)."""
    doc: dict[str, Any] = {
        "enabled": bool(settings.semantic),
        "model": MODEL_KEY,
        "state": "off",
        "pending": None,
        "rss_mib": None,
        "error": "",
        "socket": socket_path(settings.state_dir),
        "serving": MODEL_KEY,
        "embed": _configured(settings),
    }
    if not settings.semantic:
        return doc
    from ovhooks.semantic.client import ping

    answer, reason = ping(settings.state_dir)
    if answer is None:
        doc["state"] = "stopped"
        doc["error"] = "" if reason == "absent" else reason
        if settings.backend == "local":
            doc["pending"] = _pending_offline(settings)
        return doc
    _serving(doc, answer, settings)
    doc["state"] = str(answer.get("state") or "unknown")
    doc["error"] = str(answer.get("error") or "")
    doc["rss_mib"] = answer.get("rss_mib")
    stores = answer.get("stores") or {}
    db = os.path.abspath(os.path.join(settings.data_dir, "memory.db"))
    mine = stores.get(db) if isinstance(stores, dict) else None
    if isinstance(mine, dict) and int(mine.get("pending", -1)) >= 0:
        doc["pending"] = int(mine["pending"])
    elif settings.backend == "local":
        doc["pending"] = _pending_offline(settings)
    return doc


def _configured(settings: Settings) -> dict[str, Any] | None:
    from ovhooks.semantic.remote import spec_from

    spec = spec_from(settings)
    if spec is None:
        return None
    return {**spec.describe(), "key": spec.key, "state": "not running", "error": ""}


def _serving(doc: dict[str, Any], answer: dict[str, Any], settings: Settings) -> None:
    """What the running service says about who answers and the user's model."""
    stores = answer.get("stores") or {}
    db = os.path.abspath(os.path.join(settings.data_dir, "memory.db"))
    mine = stores.get(db) if isinstance(stores, dict) else None
    if isinstance(mine, dict) and mine.get("model"):
        doc["serving"] = str(mine["model"])
    elif answer.get("serving"):
        doc["serving"] = str(answer["serving"])
    running = answer.get("embed")
    configured = doc["embed"]
    if not isinstance(running, dict) or running.get("state", "off") == "off":
        if configured is not None:  # started before the setting: the next start reads it
            configured["state"] = "not in use (restart: ovhooks semantic --stop)"
        return
    if configured is None or running.get("key") != configured["key"]:
        doc["embed"] = {**running, "state": "configured differently (ovhooks semantic --stop)"}
        return
    doc["embed"] = {**configured, **running}


def _pending_offline(settings: Settings) -> int | None:
    """Rows without a vector of each kept model, counted in the store itself."""
    import sqlite3

    path = os.path.join(settings.data_dir, "memory.db")
    if not os.path.isfile(path):
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error:
        return None
    try:
        from ovhooks.semantic.vectors import count_pending

        pending = count_pending(con)
        if settings.embed_url:  # the user's model embeds every row too
            from ovhooks.semantic.remote import spec_from

            spec = spec_from(settings)
            pending += count_pending(con, spec.key) if spec is not None else 0
        return pending
    except sqlite3.Error:
        return None
    finally:
        con.close()
