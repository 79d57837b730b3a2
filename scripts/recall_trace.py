"""Every candidate of one evaluation prompt, with the evidence recall weighed and its decision
(``recall_eval.py --trace``): the viewer's "why this memory" run in-process against the same
store and settings the hook processes used, while the store (and a server) is still up.

A row says which labelled memories each candidate shows, so a miss reads as "not among the
candidates", or "a candidate, dropped because ...", with the numbers. Nothing is marked as
shown to any session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def trace_prompt(
    env: Mapping[str, str],
    cwd: str,
    text: str,
    shows: Callable[[str, str], list[str]],
) -> dict[str, Any]:
    """The trace of ``text`` asked from ``cwd``; ``shows(uri, text)`` names the memories a
    candidate shows."""
    import time

    from ovhooks.backend.factory import make_backend
    from ovhooks.project import resolve
    from ovhooks.recall import recall_for_prompt, server_key
    from ovhooks.recall.calibrate import LexicalEvidence, strength
    from ovhooks.recall.state import ServerState
    from ovhooks.recall.trace import Trace, explain
    from ovhooks.settings.config import load_settings

    settings = load_settings(env)
    backend = make_backend(settings, peer=resolve(cwd).peer)
    trace = Trace()
    outcome = recall_for_prompt(
        text,
        recent_user_texts=(),
        session_key=f"eval-trace-{time.monotonic_ns()}",
        ov_session_id=None,
        backend=backend,
        settings=settings,
        now=time.time(),
        trace=trace,
    )
    doc = ServerState(settings.state_dir, server_key(backend, settings)).calibration()
    from ovhooks.lexical.text import script_of

    group = doc.get(script_of(text)) if isinstance(doc, dict) else None
    lexical = LexicalEvidence(text)
    rows = []
    for row in explain(trace):
        cand = row.candidate
        item: dict[str, Any] = {
            "uri": cand.uri,
            "shows": shows(cand.uri, cand.text),
            "score": round(cand.score, 4),
            "decision": row.decision,
            "reason": row.reason,
            "units": round(lexical.units(cand.text), 2) if cand.text else None,
            "bridged": cand.bridged,
            "text": cand.text[:1000],
        }
        if isinstance(group, dict) and "loc" in group:
            item["strength"] = round(strength(cand.score, group), 2)
        if cand.evidence:
            item["evidence"] = cand.evidence
        rows.append(item)
    return {
        "reason": outcome.reason,
        "calibration": group,
        "candidates": rows,
    }


def probe_tops(env: Mapping[str, str], cwd: str, probes: list[str]) -> dict[str, float | None]:
    """The best candidate score of each probe prompt, searched the way the calibration
    searches its probes (``recall.probing``): to weigh other probe sets offline."""
    import time

    from ovhooks.backend.factory import make_backend
    from ovhooks.project import resolve
    from ovhooks.recall import server_key
    from ovhooks.recall.retrieve import retrieve
    from ovhooks.recall.state import ServerState
    from ovhooks.settings.config import load_settings

    settings = load_settings(env)
    backend = make_backend(settings, peer=resolve(cwd).peer)
    server = ServerState(settings.state_dir, server_key(backend, settings))
    out: dict[str, float | None] = {}
    for probe in probes:
        found = retrieve(
            probe, backend=backend, settings=settings, server=server, now=time.time(), threshold=0.0
        )
        out[probe] = max((c.score for c in found), default=None)
    return out
