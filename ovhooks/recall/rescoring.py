"""An embedding server's candidates re-scored by the local embedding service
(``semantic.rescore`` decides; this asks the service within ``semantic_deadline_ms``).

Without an answer in time (no service yet: it is started for later prompts; loading;
broken) the server's own decision stands.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from ovhooks.recall.rank import Candidate
    from ovhooks.settings.config import Settings

_DOC_CHARS = 1000


def with_local_signal(
    chosen: list[Candidate],
    candidates: list[Candidate],
    prompt: str,
    settings: Settings,
    calibration: Mapping[str, float],
    *,
    exclude: Collection[str],
    max_items: int,
    long_prompt: bool | None = None,
) -> list[Candidate]:
    """``chosen`` (the server's rule), plus what the local signal adds after it: candidates
    in another script than the prompt on its own rules, in the prompt's script only where
    both models together are strong (``semantic.rescore``)."""
    if not settings.semantic or len(chosen) >= max_items:
        return chosen
    from ovhooks.recall.rank import dedupe_key

    taken = {dedupe_key(c) for c in chosen} | {c.uri for c in chosen}
    pool = [c for c in candidates if c.uri not in exclude]
    if not [c for c in pool if c.uri not in taken]:
        return chosen
    from ovhooks.semantic import client

    answer, reason = client.request(
        settings.state_dir,
        {"op": "score", "text": prompt[:2000], "docs": [c.text[:_DOC_CHARS] for c in pool]},
        settings.semantic_deadline_ms / 1000.0,
    )
    if answer is None:
        if reason == "absent":
            client.start(settings.state_dir, idle_s=settings.semantic_idle_s)
        return chosen
    strengths = answer.get("strengths")
    if not isinstance(strengths, list) or len(strengths) != len(pool):
        return chosen
    from ovhooks.lexical.text import script_of
    from ovhooks.recall.calibrate import LONG_PROMPT_LIFT, is_long, strength
    from ovhooks.semantic.fusion import CROSS_SCRIPT_SCALE
    from ovhooks.semantic.rescore import decide

    script = script_of(prompt)
    other_script = {c.uri for c in pool if script_of(c.text) != script}
    local = {c.uri: float(s) for c, s in zip(pool, strengths, strict=True) if _number(s)}
    # A candidate only the bridged search found has no server strength for the prompt
    # itself (``retrieve.gather``): ``decide`` does not read one for it.
    bridged = {c.uri for c in pool if c.bridged}
    server = {c.uri: strength(c.score, calibration) for c in pool if c.uri in local}
    # Weighed as the local store's fusion weighs them: a translation reaches less above the
    # probes than a same-language paraphrase does. A long task prompt lifts its whole topic
    # here as it does on the server, so an addition asks one more spread of it too
    # (replayed on both sets' dev splits: one long unrelated prompt of 31 fewer, no hit lost).
    if long_prompt is None:
        long_prompt = is_long(prompt)
    lift = LONG_PROMPT_LIFT if long_prompt else 0.0
    triples = [
        (uri, server[uri], value * (CROSS_SCRIPT_SCALE if uri in other_script else 1.0) - lift)
        for uri, value in local.items()
    ]
    by_uri = {c.uri: c for c in pool}
    out = list(chosen)
    keys, why = decide(
        [c.uri for c in chosen],
        triples,
        max_items=max_items,
        eligible=other_script,
        bridged=bridged,
        lift=lift,
    )
    for uri in keys:
        item = by_uri[uri]
        if dedupe_key(item) not in taken:
            taken.add(dedupe_key(item))
            out.append(item)
    _annotate(pool, chosen, local, server, keys, why, other_script)
    return out


def _annotate(
    pool: list[Candidate],
    chosen: list[Candidate],
    local: Mapping[str, float],
    server: Mapping[str, float],
    added: Collection[str],
    why: Mapping[str, str],
    other_script: Collection[str],
) -> None:
    """What the local signal said of each candidate, for "why this memory" (the viewer's
    trace): its strength before the cross-script weighing (as the local store reports it),
    the server's, who chose it, and why it was not added. A server's own evidence stays."""
    by_uri = {c.uri: c for c in pool}
    picked = {c.uri for c in chosen}
    for uri, value in local.items():
        item = by_uri[uri]
        if item.evidence is not None:
            continue
        decision = "server" if uri in picked else "semantic" if uri in added else "dropped"
        item.evidence = {
            "semantic": round(value, 3),
            # a bridged candidate's score answers the bridged query: no server strength
            "server": None if item.bridged else round(server[uri], 3),
            "cross_script": uri in other_script,
            "bridged": item.bridged,
            "decision": decision,
            "reason": why.get(uri, "") if decision == "dropped" else "",
        }


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
