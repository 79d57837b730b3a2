"""An embedding server's choice read again with the local signal (``recall.rescoring``), the
service answering through its real socket protocol (a canned answerer stands in for the
model): what is added after the server's choice, and that the server's decision stands
without an answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ovhooks.recall.calibrate import LONG_PROMPT_LIFT
from ovhooks.recall.rank import Candidate
from ovhooks.recall.rescoring import with_local_signal
from ovhooks.semantic import fusion, socket_path
from tests.support.fake_backend import make_settings
from tests.support.semantic import CannedService, hold_off_starts

M = "viking://user/default/memories/entities/project"
# Server strength = (score - loc) / scale: a score of 0.5 + s/100 has strength s.
CALIBRATION = {"loc": 0.5, "scale": 0.01}


def server_score(strength: float) -> float:
    return CALIBRATION["loc"] + strength * CALIBRATION["scale"]


STRONG_PICK = Candidate(
    f"{M}/strong.md", "entities", server_score(fusion.STRONG + 1), "The deploy goes to Fly.io."
)
WEAK_PICK = Candidate(
    f"{M}/weak.md", "entities", server_score(2.0), "We switched the console port."
)
CROSS = Candidate(f"{M}/cross.md", "entities", server_score(-1.0), "部署之前必须先跑集成测试。")
NOISE = Candidate(f"{M}/noise.md", "entities", server_score(0.5), "Lunch is at noon.")
POOL = [STRONG_PICK, WEAK_PICK, CROSS, NOISE]
PROMPT = "where does the deploy go, and what must run before it?"


def settings_for(tmp_path: Path, **changes: Any) -> Any:
    wanted: dict[str, Any] = {"semantic": True, "semantic_deadline_ms": 3000.0, **changes}
    return make_settings(str(tmp_path / "state"), **wanted)


def run(settings: Any, chosen: list[Candidate]) -> list[str]:
    out = with_local_signal(chosen, POOL, PROMPT, settings, CALIBRATION, exclude=(), max_items=3)
    return [c.uri for c in out]


def test_a_strong_other_script_match_is_added_after_the_server_choice(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    # Local strengths, in pool order: the Chinese memory strong once weighed (x1.4), the
    # server's picks weaker, the noise nothing. The picks stay first, in the server's order.
    cross = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.2
    local = [-2.0, 1.0, cross, 0.0]
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": local})
    try:
        got = run(settings, [STRONG_PICK, WEAK_PICK])
    finally:
        service.close()
    assert got == [STRONG_PICK.uri, WEAK_PICK.uri, CROSS.uri]
    [request] = service.requests
    assert request["op"] == "score" and len(request["docs"]) == len(POOL)


def test_a_match_far_below_the_best_local_strength_is_not_added(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    cross = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.2
    # the server's pick is what the local model finds by far the most related
    local = [cross * fusion.CROSS_SCRIPT_SCALE + fusion.MARGIN + 1.0, 1.0, cross, 0.0]
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": local})
    try:
        assert run(settings, [STRONG_PICK]) == [STRONG_PICK.uri]
    finally:
        service.close()


def test_without_an_answer_the_server_choice_stands(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    # a service that answers something unusable, then none at all (a start stamp keeps
    # the hook from launching a real one)
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": [1.0]})
    try:
        assert run(settings, [STRONG_PICK, WEAK_PICK]) == [STRONG_PICK.uri, WEAK_PICK.uri]
    finally:
        service.close()
    hold_off_starts(settings.state_dir)
    assert run(settings, [STRONG_PICK, WEAK_PICK]) == [STRONG_PICK.uri, WEAK_PICK.uri]


def test_with_semantics_off_nothing_is_asked(tmp_path: Path) -> None:
    settings = settings_for(tmp_path).replace(semantic=False)
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": []})
    try:
        assert run(settings, [WEAK_PICK]) == [WEAK_PICK.uri]
    finally:
        service.close()
    assert service.requests == []


def reread_fresh_pool(settings: Any, local: list[float]) -> tuple[list[Candidate], list[Candidate]]:
    """``(pool, result)``: fresh copies of ``POOL`` (they gain evidence), the strong pick
    chosen, re-read with the service answering ``local`` strengths."""
    pool = [Candidate(c.uri, c.category, c.score, c.text) for c in POOL]
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": local})
    try:
        out = with_local_signal(
            pool[:1], pool, PROMPT, settings, CALIBRATION, exclude=(), max_items=3
        )
    finally:
        service.close()
    return pool, out


def test_the_local_signals_evidence_reaches_why_this_memory(tmp_path: Path) -> None:
    """Each re-read candidate carries what the local model said of it: the viewer's trace
    shows the strength of an added one and why another was not added."""
    from ovhooks.recall.trace import INJECTED, Trace, explain

    settings = settings_for(tmp_path)
    cross = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.2
    local = [-2.0, 1.0, cross, 0.0]
    pool, out = reread_fresh_pool(settings, local)
    by_uri = {c.uri: c for c in pool}
    assert [c.uri for c in out] == [STRONG_PICK.uri, CROSS.uri]
    assert by_uri[CROSS.uri].evidence == {
        "semantic": round(cross, 3),
        "server": -1.0,
        "cross_script": True,
        "bridged": False,
        "decision": "semantic",
        "reason": "",
    }
    assert (by_uri[STRONG_PICK.uri].evidence or {})["decision"] == "server"
    assert (by_uri[NOISE.uri].evidence or {})["reason"] == "below_best"
    trace = Trace()
    trace.candidates, trace.kept, trace.shown = pool, out, (STRONG_PICK.uri, CROSS.uri)
    rows = {r.candidate.uri: r for r in explain(trace)}
    assert rows[CROSS.uri].decision == INJECTED
    assert rows[CROSS.uri].reason.endswith(f"(semantic: lexical -, meaning {cross:.1f})")
    assert rows[NOISE.uri].reason == "the local model did not add it: below best"


def test_a_same_script_candidate_both_models_find_strong_is_added(tmp_path: Path) -> None:
    """In the prompt's own script the local signal adds a candidate only where the mean of
    the two models' strengths reaches ``rescore.BOTH_MEAN``; the other one, as strong
    locally but nothing to the server, is not added, and the trace says why."""
    from ovhooks.recall.trace import Trace, explain
    from ovhooks.semantic.rescore import BOTH_MEAN

    settings = settings_for(tmp_path)
    both = 2 * BOTH_MEAN - 2.0 + 0.1  # with the weak pick's server strength of 2.0
    local = [-2.0, both, 0.0, both - 1.0]
    pool, out = reread_fresh_pool(settings, local)
    by_uri = {c.uri: c for c in pool}
    assert [c.uri for c in out] == [STRONG_PICK.uri, WEAK_PICK.uri]
    assert (by_uri[WEAK_PICK.uri].evidence or {})["decision"] == "semantic"
    assert (by_uri[NOISE.uri].evidence or {})["reason"] == "both_models_weak"
    trace = Trace()
    trace.candidates, trace.kept, trace.shown = pool, out, (STRONG_PICK.uri, WEAK_PICK.uri)
    rows = {r.candidate.uri: r for r in explain(trace)}
    assert rows[NOISE.uri].reason == (
        "the local model did not add it: in the prompt's own language, and the two models "
        "together not strongly enough"
    )


def test_a_long_task_prompt_asks_one_more_spread_of_an_addition(tmp_path: Path) -> None:
    """The same local strength that adds the Chinese memory to a short question does not
    add it to a task of several parts; one spread more does. (The server's weak pick stands
    close enough that the memory is not a distinct best either.)"""
    long_prompt = (
        "Tidy the deploy scripts this week. Move the old configs into the archive folder. "
        "Fix the broken links in the runbook. Check where the deploy goes, and what must run "
        "before it."
    )
    just = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.2
    more = (fusion.STRONG + LONG_PROMPT_LIFT) / fusion.CROSS_SCRIPT_SCALE + 0.2
    got = []
    for n, (prompt, cross) in enumerate(((PROMPT, just), (long_prompt, just), (long_prompt, more))):
        settings = settings_for(tmp_path / str(n))  # a socket of its own for each answer
        local = [-2.0, 4.0, cross, 0.0]
        service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": local})
        try:
            out = with_local_signal(
                [STRONG_PICK], POOL, prompt, settings, CALIBRATION, exclude=(), max_items=3
            )
        finally:
            service.close()
        got.append([c.uri for c in out])
    assert got == [
        [STRONG_PICK.uri, CROSS.uri],
        [STRONG_PICK.uri],
        [STRONG_PICK.uri, CROSS.uri],
    ]
