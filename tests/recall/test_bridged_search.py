"""The bridged second search on an embedding server (``recall.retrieve.gather``): when it is
sent, what it adds, and that its scores are never read as the server's strength.

HTTP is faked at the transport (``OpenVikingBackend(transport=…)``); the embedding service
answers through its real socket protocol (a canned answerer stands in for the model).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.recall import recall_for_prompt
from ovhooks.recall.state import ServerState
from ovhooks.recall.trace import Trace, explain
from ovhooks.semantic import fusion, socket_path
from ovhooks.transport.errors import BackendError
from ovhooks.transport.http import Request, Response
from tests.support.fake_backend import make_settings
from tests.support.semantic import CannedService, hold_off_starts

NOW = 1_800_000_000.0
M = "viking://user/default/memories/entities/project"
# Server strength = (score - loc) / scale, for both scripts (the scores stay over the
# recall threshold, 0.55, as a real server's do).
CALIBRATION = {"at": NOW - 60, "en": {"loc": 0.7, "scale": 0.01}, "zh": {"loc": 0.7, "scale": 0.01}}
QUESTION = "部署之前必须先跑哪些测试？"  # names 部署 and 测试 (deploy, test)
ANSWER = {"uri": f"{M}/gate.md", "text": "Integration tests must pass before any deploy."}
NEIGHBOUR = {"uri": f"{M}/lunch.md", "text": "午饭在十二点。"}


class Server:
    """A transport answering a search with ``plain``'s entries, or ``bridged``'s when its
    query carries the bridged line; it records every query, and raises ``fail_bridged``
    for the bridged one when set."""

    def __init__(self, plain: list[dict[str, Any]], bridged: list[dict[str, Any]]) -> None:
        self.plain, self.bridged = plain, bridged
        self.queries: list[str] = []
        self.fail_bridged: BackendError | None = None

    def __call__(self, request: Request) -> Response:
        body = json.loads(request.body or b"{}")
        query = str(body.get("query", ""))
        self.queries.append(query)
        is_bridged = "\n" in query
        if is_bridged and self.fail_bridged is not None:
            raise self.fail_bridged
        entries = self.bridged if is_bridged else self.plain
        result = {"entries": [_entry(e) for e in entries], "rendered": "", "stats": {}}
        payload = json.dumps({"status": "ok", "result": result}).encode()
        return Response(200, {"content-type": "application/json"}, payload)


def _entry(item: dict[str, Any]) -> dict[str, Any]:
    return {"category": "entities", "detail": "abstract", "origin": "memory", **item}


def settings_for(tmp_path: Path, **changes: Any) -> Any:
    wanted: dict[str, Any] = {
        "url": "http://127.0.0.1:9",
        "semantic": True,
        "semantic_deadline_ms": 3000.0,
        **changes,
    }
    settings = make_settings(str(tmp_path / "state"), **wanted)
    state = ServerState(settings.state_dir, f"openviking {settings.url}")
    state.set_calibration(CALIBRATION)
    state.save()
    return settings


def recall(
    settings: Any,
    server: Any,
    prompt: str = QUESTION,
    *,
    trace: Trace | None = None,
) -> Any:
    """One prompt through the OpenViking backend; ``server`` is its transport (None: the
    real HTTP client, to ``settings.url``)."""
    return recall_for_prompt(
        prompt,
        recent_user_texts=(),
        session_key="cx-bridge",
        ov_session_id=None,
        backend=OpenVikingBackend(settings, transport=server),
        settings=settings,
        now=NOW,
        trace=trace,
    )


def test_a_memory_only_the_bridged_search_finds_is_admitted_on_the_local_reading(
    tmp_path: Path,
) -> None:
    settings = settings_for(tmp_path)
    server = Server(plain=[{**NEIGHBOUR, "score": 0.71}], bridged=[{**ANSWER, "score": 0.72}])
    strong = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.1
    # pool order: the plain search's candidate, then the bridged one
    service = CannedService(
        socket_path(settings.state_dir), {"ok": True, "strengths": [0.0, strong]}
    )
    trace = Trace()
    try:
        out = recall(settings, server, trace=trace)
    finally:
        service.close()
    assert sorted(server.queries) == [QUESTION, QUESTION + "\ndeploy deployment release test"]
    assert out.injected_uris == (ANSWER["uri"],)
    assert out.context is not None and ANSWER["text"] in out.context
    # the viewer's "why this memory" says where it came from, and its probability
    row = next(r for r in explain(trace) if r.candidate.uri == ANSWER["uri"])
    assert "; found by the search in both languages; confidence " in row.reason, row.reason
    evidence = row.candidate.evidence or {}
    assert evidence["server"] is None and evidence["local"] == strong


def test_a_bridged_candidates_own_score_is_never_read(tmp_path: Path) -> None:
    """Its score answers the bridged query: however high, it is no server reading of the
    prompt. With the local model reading it weakly, nothing is injected."""
    settings = settings_for(tmp_path)
    quiet = {"uri": f"{M}/freeze.md", "text": "Friday afternoons are frozen.", "score": 0.99}
    server = Server(plain=[{**NEIGHBOUR, "score": 0.71}], bridged=[quiet])
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": [0.5, 1.0]})
    trace = Trace()
    try:
        out = recall(settings, server, trace=trace)
    finally:
        service.close()
    # 0.99 is 29 spreads above the probes: read as the server's, it would pass at once
    assert out.injected_uris == ()
    assert out.reason == "abstained"
    (gone,) = [d for d in trace.store_dropped if d["uri"] == quiet["uri"]]
    assert gone["server"] is None and gone["semantic"] == 1.0 and gone["reason"] == "weak"


def test_without_the_local_model_a_bridged_candidate_has_words_only(tmp_path: Path) -> None:
    """Without the local model's answer, a bridged candidate has no reading of meaning (its
    score is not the server's for the prompt); the plain search's strong candidate has."""
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)  # no service answers, and none is launched
    plain_hit = {"uri": f"{M}/suite.md", "text": "部署前跑冒烟测试和集成测试。", "score": 0.8}
    quiet = {"uri": f"{M}/freeze.md", "text": "Friday afternoons are frozen.", "score": 0.99}
    server = Server(plain=[plain_hit], bridged=[quiet])
    out = recall(settings, server)
    assert len(server.queries) == 2
    assert out.injected_uris == (plain_hit["uri"],)


def test_no_second_search_without_glossary_words_or_semantics(tmp_path: Path) -> None:
    server = Server(plain=[{**NEIGHBOUR, "score": 0.71}], bridged=[])
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    recall(settings, server, "who wrote the poem about the raven?")
    assert len(server.queries) == 1
    off = settings_for(tmp_path / "off", semantic=False)
    server.queries.clear()
    recall(off, server)
    assert len(server.queries) == 1 and "\n" not in server.queries[0]


def test_a_failed_bridged_search_leaves_the_plain_answer_and_says_so(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    plain_hit = {"uri": f"{M}/suite.md", "text": "部署前跑冒烟测试和集成测试。", "score": 0.8}
    server = Server(plain=[plain_hit], bridged=[])
    server.fail_bridged = BackendError("timeout", "search timed out")
    out = recall(settings, server)
    assert out.injected_uris == (plain_hit["uri"],)
    assert out.reason == "ok (bridged search: timeout)"
    assert out.system_message is None  # the server answers: no outage note
    state = ServerState(settings.state_dir, f"openviking {settings.url}")
    assert not state.breaker_open(NOW + 1)


def test_the_two_searches_are_in_flight_together(tmp_path: Path) -> None:
    """The prompt waits for the slower search, not for both in turn: each request waits
    for the other at a barrier, which only two concurrent requests pass."""
    import threading

    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    barrier = threading.Barrier(2, timeout=5.0)
    inner = Server(plain=[{**NEIGHBOUR, "score": 0.71}], bridged=[{**ANSWER, "score": 0.72}])

    def together(request: Request) -> Response:
        barrier.wait()  # BrokenBarrierError (a failed recall) when the two run in turn
        return inner(request)

    out = recall(settings, together)
    assert len(inner.queries) == 2
    assert out.reason in ("abstained", "ok"), out.reason


def test_over_real_http_the_bridged_search_asks_the_wide_pool(fake_ov: Any, tmp_path: Path) -> None:
    """Through the real HTTP client and a real socket server: the second search goes out
    with the same quotas as the plain one, on a connection of its own."""
    from ovhooks.recall.retrieve import WIDE_QUOTAS

    settings = settings_for(tmp_path, url=fake_ov.url, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    fake_ov.requests.clear()
    recall(settings, None, "where do the nightly logs go?")
    bodies = [
        r["body"]
        for r in fake_ov.requests
        if r["path"] == "/api/v1/search/search"
        and r["body"]["query"].startswith("where do the nightly")  # not a calibration probe
    ]
    queries = sorted(b["query"] for b in bodies)
    assert len(queries) == 2
    assert queries[0] == "where do the nightly logs go?"
    assert queries[1].startswith("where do the nightly logs go?\n") and "日志" in queries[1]
    assert all(b["quotas"] == WIDE_QUOTAS for b in bodies)


def test_the_bridged_search_adds_at_most_its_best_few(tmp_path: Path) -> None:
    """The local model reads every candidate: the bridged search's own additions are
    capped, its best scores kept."""
    from ovhooks.recall.retrieve import BRIDGED_EXTRA_MAX

    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    many = [
        {"uri": f"{M}/extra{i:02d}.md", "text": f"Memory number {i}.", "score": 0.60 + i / 1000}
        for i in range(BRIDGED_EXTRA_MAX + 5)
    ]
    server = Server(plain=[{**NEIGHBOUR, "score": 0.71}], bridged=many)
    from ovhooks.recall.retrieve import gather

    state = ServerState(settings.state_dir, f"openviking {settings.url}")
    backend = OpenVikingBackend(settings, transport=server)
    found, failed = gather(QUESTION, QUESTION, backend, settings, state, NOW, ())
    assert failed == ""
    bridged = sorted(c.uri for c in found if c.bridged)
    best = sorted(str(e["uri"]) for e in many[-BRIDGED_EXTRA_MAX:])
    assert bridged == best


def test_no_bridged_search_into_a_language_the_store_never_returned(tmp_path: Path) -> None:
    """The calibration's probes saw only English memories: an English prompt's bridged
    search (into Chinese) is not sent; a Chinese prompt's (into English) still is."""
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    state = ServerState(settings.state_dir, f"openviking {settings.url}")
    state.set_calibration({**CALIBRATION, "scripts": ["en"]})
    state.save()
    server = Server(plain=[{**ANSWER, "score": 0.71}], bridged=[])
    recall(settings, server, "where do the nightly deploy logs go?")
    assert server.queries == ["where do the nightly deploy logs go?"]
    server.queries.clear()
    recall(settings, server)
    assert len(server.queries) == 2


def test_a_bridged_answer_that_is_not_json_costs_only_its_candidates(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    plain_hit = {"uri": f"{M}/suite.md", "text": "部署前跑冒烟测试和集成测试。", "score": 0.8}
    inner = Server(plain=[plain_hit], bridged=[])

    def garbled(request: Request) -> Response:
        if "\n" in json.loads(request.body or b"{}").get("query", ""):
            return Response(200, {"content-type": "application/json"}, b"<html>oops")
        return inner(request)

    out = recall(settings, garbled)
    assert out.injected_uris == (plain_hit["uri"],)
    assert out.reason.startswith("ok (bridged search: ") and "oops" not in out.reason


def test_a_slow_bridged_search_costs_the_prompt_little(tmp_path: Path) -> None:
    """The bridged search is waited for about as long again as the plain one took, not
    until the recall deadline: a server slow to answer it leaves the plain answer, on time."""
    import threading
    import time

    from ovhooks.recall.retrieve import BRIDGED_GRACE_S

    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    plain_hit = {"uri": f"{M}/suite.md", "text": "部署前跑冒烟测试和集成测试。", "score": 0.8}
    inner = Server(plain=[plain_hit], bridged=[{**ANSWER, "score": 0.9}])
    release = threading.Event()

    def slow_bridge(request: Request) -> Response:
        if "\n" in json.loads(request.body or b"{}").get("query", ""):
            release.wait(10.0)  # far past the grace, well inside the request's own timeout
        return inner(request)

    started = time.monotonic()
    try:
        out = recall(settings, slow_bridge)
        elapsed = time.monotonic() - started
    finally:
        release.set()
    assert out.injected_uris == (plain_hit["uri"],)
    assert out.reason == "ok (bridged search: timeout)"
    # the plain search is near-instant here: the wait is about the grace (a loaded machine
    # gets a generous margin, still far below the 10 s the bridged answer would have taken)
    assert elapsed < BRIDGED_GRACE_S + 2.0, f"{elapsed:.2f} s"


def test_no_bridged_search_before_a_calibration(tmp_path: Path) -> None:
    """Without a calibration there is no record of the scripts the store is written in, and
    the first prompt on a cold server should not pay for a second query."""
    settings = settings_for(tmp_path, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    state = ServerState(settings.state_dir, f"openviking {settings.url}")
    state.set_calibration({**CALIBRATION, "at": NOW - 30 * 86400.0})  # stale
    state.save()
    server = Server(plain=[{**ANSWER, "score": 0.71}], bridged=[])
    recall(settings, server)
    assert [q for q in server.queries if "\n" in q] == []
