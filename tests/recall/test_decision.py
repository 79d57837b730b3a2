"""The one decision path (``recall.decision``): the fusion on rated candidates
(``judge_rated``, pure), a server's candidates rated first (``judge``), and the ranking with
each memory's probability (``decide``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

from ovhooks.backend.base import Backend
from ovhooks.recall import calibrate, confidence
from ovhooks.recall.decision import MAX_ADMITTED, decide, judge, judge_rated
from ovhooks.recall.rank import Candidate
from ovhooks.recall.state import ServerState
from ovhooks.semantic import fusion
from tests.support.fake_backend import FakeBackend, make_settings

BAR = 0.55
M = "viking://user/default/memories/entities"


def rated(
    name: str, lexical: float, strength: float | None, *, text: str = "", **flags: Any
) -> Candidate:
    """A candidate as a rating store returns it: undecided, with its evidence."""
    cand = Candidate(f"{M}/{name}.md", "entities", lexical, text or f"About {name}.")
    evidence = fusion.Evidence(cand.uri, lexical, strength, "whole", **flags)
    cand.evidence = evidence.as_dict()
    return cand


def test_a_store_that_rates_nothing_passes_its_candidates_through() -> None:
    plain = [Candidate(f"{M}/a.md", "entities", 0.7, "A.")]
    lexical_only = Candidate(f"{M}/b.md", "entities", 0.6, "B.")
    lexical_only.evidence = {"lexical": 0.6}  # evidence of another kind: not the rater's
    assert judge_rated([*plain, lexical_only], "a prompt", BAR) == ([*plain, lexical_only], [])


def test_the_fusion_decides_scores_and_orders_and_keeps_the_dropped_for_the_trace() -> None:
    words = rated("words", 0.8, 1.0)  # on its words, however weak its meaning
    meaning = rated("meaning", 0.1, fusion.STRONG + 1.0)  # by meaning alone
    weak = rated("weak", 0.2, 2.0, text="Something else.")
    unrated = Candidate(f"{M}/old-peer.md", "entities", 0.9, "From another folder.")
    kept, dropped = judge_rated([weak, words, meaning, unrated], "a prompt", BAR)
    # admitted best first by their sort value, the unrated after them, untouched
    assert [c.uri for c in kept] == [words.uri, meaning.uri, unrated.uri]
    # a memory admitted by its meaning alone sorts at the bar, however strong
    assert words.score == 0.8 and meaning.score == BAR
    assert meaning.rank == meaning.score and unrated.score == 0.9
    assert meaning.evidence is not None and meaning.evidence["decision"] == fusion.SEMANTIC
    (gone,) = dropped
    assert gone["uri"] == weak.uri and gone["text"] == "Something else."
    assert gone["decision"] == fusion.DROPPED and gone["reason"] == "weak"


def test_one_entry_per_uri_the_best_and_none_under_the_bar() -> None:
    # A memory and a history row under one URI: the better one stays.
    first = rated("same", 0.6, None)
    second = rated("same", 0.9, None)
    assert judge_rated([first, second], "a prompt", BAR)[0] == [second]
    assert judge_rated([second, first], "a prompt", BAR)[0] == [second]
    # A who-answer needs the strength at which an admission sorts at the bar (AGREE): under
    # it the person memory is dropped, and the trace says so.
    owner = rated("owner", 0.1, fusion.AGREE - 1.0, text="Dana owns the exporter.", person=True)
    kept, dropped = judge_rated([owner], "who owns the exporter?", BAR)
    assert kept == [] and [d["uri"] for d in dropped] == [owner.uri]
    # (a stronger memory naming nobody keeps the fusion's own rules from admitting it)
    owner = rated("owner", 0.1, fusion.AGREE, text="Dana owns the exporter.", person=True)
    fact = rated("fact", 0.1, fusion.AGREE + 1.0, text="The exporter writes CSV files.")
    kept, dropped = judge_rated([owner, fact], "who owns the exporter?", BAR)
    assert owner.evidence is not None and owner.evidence["reason"] == "answers_who"
    assert kept == [owner] and owner.score == BAR and [d["uri"] for d in dropped] == [fact.uri]


def test_a_question_about_the_world_gets_no_memory_however_well_it_matches() -> None:
    # "we run Laravel 10 through Sail": needed for a task in the project, not to explain
    # Laravel's service container to the user
    def laravel() -> Candidate:
        return rated("laravel", 0.7, fusion.STRONG + 1.0, text="PHP 8.2 with Laravel 10.")

    kept, _ = judge_rated([laravel()], "Upgrade the app to Laravel 11, keep PHP as is", BAR)
    assert [c.uri for c in kept] == [laravel().uri]
    kept, dropped = judge_rated([laravel()], "Explain Laravel's service container.", BAR)
    assert kept == [] and [d["reason"] for d in dropped] == ["general_question"]


def test_a_rival_only_row_competes_for_who_and_is_never_listed() -> None:
    # under every bar but the who-rule's, and a rival person memory too close behind
    answer = rated("answer", 0.1, fusion.DISTINCT - 0.5, person=True)
    rival = rated("rival", 0.1, fusion.DISTINCT - 1.0, person=True, rival_only=True)
    # not a who-question: the rival is neither fused nor traced
    kept, dropped = judge_rated([answer, rival], "what does the exporter write?", BAR)
    assert rival not in kept and [d["uri"] for d in dropped] == [answer.uri]
    # a who-question: too close a rival keeps the answer out
    kept, dropped = judge_rated([answer, rival], "who signs off the exporter?", BAR)
    assert kept == [] and [d["uri"] for d in dropped] == [answer.uri]


def test_at_most_the_ten_best_admissions_go_on() -> None:
    many = [rated(f"m{i:02d}", 0.6 + i / 100, None) for i in range(MAX_ADMITTED + 3)]
    kept, _ = judge_rated(many, "a prompt", BAR)
    assert len(kept) == MAX_ADMITTED and kept[0].uri.endswith("m12.md")


class _Rating(FakeBackend):
    rates_candidates = True


def _as_backend(fake: FakeBackend) -> Backend:
    return cast("Backend", fake)  # the fake implements what recall calls, not all of Backend


def _state(tmp_path: Path) -> tuple[Any, ServerState]:
    settings = make_settings(str(tmp_path))
    return settings, ServerState(settings.state_dir, "openviking http://127.0.0.1:9")


def test_judged_candidates_are_ranked_as_they_are() -> None:
    a = Candidate(f"{M}/a.md", "entities", 0.7, "The deploy goes to Fly.")
    b = Candidate(f"{M}/b.md", "entities", 0.6, "The deploy needs tests.")
    out = decide([a, b], "where does the deploy go?", {a.uri})
    assert [c.uri for c in out] == [b.uri]  # what the session saw is gone, nothing else
    assert out[0].confidence == confidence.probability(0.6)  # the fitted model, of its score


def test_a_memory_after_the_first_is_weighed_as_one() -> None:
    a = Candidate(f"{M}/a.md", "entities", 0.7, "The deploy goes to Fly.")
    b = Candidate(f"{M}/b.md", "entities", 0.6, "The deploy needs tests.")
    out = decide([b, a], "where does the deploy go?", ())
    assert [c.uri for c in out] == [a.uri, b.uri]
    assert out[0].confidence == confidence.probability(0.7)
    assert out[1].confidence == confidence.probability(0.6, later=True)


def test_a_rating_stores_candidates_are_judged_as_rated(tmp_path: Path) -> None:
    settings, server = _state(tmp_path)
    words = rated("words", 0.8, 1.0)
    kept, _ = judge([words], "a prompt", _as_backend(_Rating()), settings, server, 0.0)
    assert kept == [words] and (words.evidence or {}).get("server") is None


def test_a_server_without_calibration_passes_shared_words_only(tmp_path: Path) -> None:
    """No calibration and no local model: no reading of meaning, so words alone decide
    (the server's score, however high, is not read)."""
    settings, server = _state(tmp_path)
    backend = FakeBackend({})  # the probes find nothing: no calibration can be fitted
    shared = Candidate(f"{M}/a.md", "entities", 0.5, "The deploy of the billing API goes to Fly.")
    unshared = Candidate(f"{M}/b.md", "entities", 0.99, "Lunch is at noon.")
    bridged = Candidate(f"{M}/c.md", "entities", 3.0, "Friday is a holiday.")
    bridged.bridged = True
    prompt = "where does the billing API deploy go?"
    kept, dropped = judge(
        [shared, unshared, bridged], prompt, _as_backend(backend), settings, server, time.time()
    )
    assert [c.uri for c in kept] == [shared.uri]
    assert any(call[0] == "search_context" for call in backend.calls)  # probes were run
    assert {d["uri"] for d in dropped} == {unshared.uri, bridged.uri}
    assert all(d["semantic"] is None for d in dropped)
    out = decide(kept, prompt, ())
    assert out[0].confidence == confidence.probability(out[0].score)


def test_a_calibrated_server_is_judged_against_its_probes(tmp_path: Path) -> None:
    settings, server = _state(tmp_path)
    now = time.time()
    # a fresh fit for English prompts: probes' best scores around 0.3, spread 0.05
    server.entry["calibration"] = {"at": now, "en": {"loc": 0.3, "scale": 0.05, "n": 12}}
    far = Candidate(f"{M}/far.md", "entities", 0.9, "Friday is a holiday.")
    near = Candidate(f"{M}/near.md", "entities", 0.31, "Lunch is at noon.")
    kept, _ = judge(
        [far, near], "when do we ship?", _as_backend(FakeBackend({})), settings, server, now
    )
    assert [c.uri for c in kept] == [far.uri]
    # strength (0.9 - 0.3) / 0.05 = 12 probe scales: admitted on meaning, sorted at the bar
    assert far.evidence is not None and far.evidence["server"] == 12.0
    assert far.evidence["decision"] == fusion.SEMANTIC
    assert far.score == BAR


class _RatingOne(_Rating):
    """A rating store whose one candidate is too weak for every rule."""

    def search_context(self, query: str, **kwargs: Any) -> dict[str, Any]:
        weak = rated("lunch", 0.3, 1.0, text="Lunch is at noon.")
        entry = {"uri": weak.uri, "score": 0.3, "text": weak.text, "evidence": weak.evidence}
        return {"entries": [entry], "rendered": "", "stats": {}}


def test_candidates_the_decision_drops_are_an_abstention_not_nothing_found(
    tmp_path: Path,
) -> None:
    from ovhooks.recall import recall_for_prompt
    from ovhooks.recall.trace import Trace

    settings, _server = _state(tmp_path)
    trace = Trace()
    out = recall_for_prompt(
        "where does the deploy go?",
        recent_user_texts=(),
        session_key="cc-s1",
        ov_session_id=None,
        backend=_as_backend(_RatingOne()),
        settings=settings,
        now=time.time(),
        trace=trace,
    )
    assert (out.injected_uris, out.reason) == ((), "abstained")
    assert [d["uri"] for d in trace.store_dropped] == [f"{M}/lunch.md"]


def test_a_users_minimum_drops_a_calibrated_servers_memory_under_its_probability(
    tmp_path: Path,
) -> None:
    """On a server too, the user's minimum reads the probability the decision gave each memory:
    at 0 the memory is shown with it; just over it, the same prompt shows nothing."""
    from ovhooks.recall import recall_for_prompt
    from ovhooks.recall.trace import Trace

    text = "The deploy goes to Fly.io every Friday."
    backend = FakeBackend({f"{M}/deploy.md": text})
    prompt = "where does the deploy go?"
    shown: list[Candidate] = []
    for first in (True, False):
        settings, server = _state(tmp_path)
        minimum = 0.0
        if not first:  # just over the probability it was shown with
            assert shown[0].confidence is not None
            minimum = shown[0].confidence + 1e-6
        trace = Trace()
        out = recall_for_prompt(
            prompt,
            recent_user_texts=(),
            session_key=f"cc-{minimum}",
            ov_session_id=None,
            backend=_as_backend(backend),
            settings=settings.replace(recall_min_confidence=minimum),
            now=time.time(),
            trace=trace,
        )
        if first:
            assert out.injected_uris == (f"{M}/deploy.md",), out.reason
            shown = list(trace.kept)
            # the probes ran inline (no calibration yet): the strength is read against them
            stored = ServerState(settings.state_dir, server.key).calibration()
            assert calibrate.usable(stored, time.time(), "en", None) is not None
            assert (shown[0].evidence or {}).get("server") is not None
            assert shown[0].confidence == confidence.probability(shown[0].score)
        else:
            assert (out.injected_uris, out.reason) == ((), "below_min_confidence")
