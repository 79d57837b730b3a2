"""``ovhooks semantic``: the embedding service behind recall by meaning — its state, and
starting it (optionally waiting until it is warm and every row has its vector) or stopping it."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ovhooks.commands.common import settings_from
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@boundary("semantic")
def semantic(
    start: Annotated[bool, typer.Option("--start", help="Start the service if none runs.")] = False,
    wait: Annotated[
        float,
        typer.Option("--wait", help="With --start: wait up to S seconds for warm, 0 pending."),
    ] = 0.0,
    stop: Annotated[bool, typer.Option("--stop", help="Ask the service to exit.")] = False,
    as_json: JsonFlag = False,
) -> int:
    """Show the embedding service: model, state (off, stopped, loading, warm, broken), rows
    still waiting for a vector, memory in use.

    JSON keys: enabled, model, state, pending, rss_mib, error, socket, serving (the model
    answering), embed (the user's own model from OVHOOKS_EMBED_URL: url, model, api, key_env,
    key, state, error, calibration; null when none is configured).
    """
    import os

    from ovhooks.semantic import client
    from ovhooks.semantic.report import semantic_status

    if not 0 <= wait < float("inf"):  # NaN compares false
        from ovhooks.commands.errors import usage_error

        raise usage_error(f"--wait {wait} is not a number of seconds", "give 0 or more, e.g. 60")
    settings = settings_from()
    db = os.path.join(settings.data_dir, "memory.db") if settings.backend == "local" else ""
    if stop:
        client.request(settings.state_dir, {"op": "stop"}, 2.0)
    elif start and settings.semantic:
        if db:
            client.nudge(settings.state_dir, db, idle_s=settings.semantic_idle_s, force=True)
        else:
            client.start(settings.state_dir, idle_s=settings.semantic_idle_s, force=True)
        end = time.monotonic() + wait
        while time.monotonic() < end:
            doc = semantic_status(settings)
            if doc["state"] == "broken" or (doc["state"] == "warm" and not doc["pending"]):
                break
            if db:
                client.request(settings.state_dir, {"op": "index", "db": db}, 1.0)
            time.sleep(0.5)
    doc = semantic_status(settings)
    Output("semantic", as_json=as_json).emit(doc, _render(doc))
    return 1 if doc["state"] == "broken" else 0


def _render(doc: dict[str, Any]) -> Any:
    def render(console: Any) -> None:
        console.print(describe(doc))

    return render


def describe(doc: dict[str, Any]) -> str:
    """One line for people (also ``status``)."""
    if not doc["enabled"]:
        return "recall by meaning: off (OVHOOKS_SEMANTIC=off)"
    parts = [f"recall by meaning: {doc['model']} {doc['state']}"]
    embed = doc.get("embed")
    if embed:
        parts.append(f"your model {embed['model']} at {embed['url']}: {embed['state']}")
        if embed.get("error"):
            parts.append(f"({embed['error']})")
    if doc["state"] not in ("stopped", "off") and doc.get("serving"):
        parts.append(f"serving {doc['serving']}")
    if doc.get("pending") is not None:
        parts.append(f"{doc['pending']} rows pending")
    if doc.get("rss_mib") is not None:
        parts.append(f"{doc['rss_mib']} MiB")
    if doc.get("error"):
        parts.append(str(doc["error"]))
    return ", ".join(parts)
