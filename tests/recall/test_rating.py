"""A server's candidates rated for the one decision (``recall.rating``): the readings of
meaning, words weighed over the candidate pool, long prompts, bridged candidates, and the
local model's answer through the embedding service's real socket protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovhooks.recall.rank import Candidate
from ovhooks.recall.rating import rate, reading
from ovhooks.semantic import socket_path
from tests.support.fake_backend import make_settings
from tests.support.semantic import CannedService, hold_off_starts

M = "viking://user/default/memories/entities"
CAL = {"loc": 0.5, "scale": 0.05}


def _cands(*texts: str, score: float = 0.75) -> list[Candidate]:
    return [Candidate(f"{M}/m{k}.md", "entities", score, text) for k, text in enumerate(texts)]


@pytest.mark.parametrize(
    ("server", "local", "other_script", "expected"),
    [
        (3.0, 7.0, False, 5.0),  # the prompt's script: both models, their mean
        (-1.0, 5.0, True, 5.0),  # another script: the local model (a small server is blind)
        (4.0, None, True, 4.0),  # either alone when the other is missing
        (None, 6.0, False, 6.0),
        (None, None, False, None),  # no reading: words alone decide
    ],
)
def test_the_reading_the_fusion_weighs(
    server: float | None, local: float | None, other_script: bool, expected: float | None
) -> None:
    assert reading(server, local, other_script=other_script) == expected


def test_without_the_local_model_the_servers_strength_is_the_reading(tmp_path: Path) -> None:
    settings = make_settings(str(tmp_path), semantic=False)
    (cand,) = _cands("The billing API deploys to Fly.io.", score=0.8)
    rate([cand], "where does the billing API deploy?", settings, CAL)
    ev = cand.evidence or {}
    assert ev["server"] == ev["semantic"] == pytest.approx(6.0) and ev["local"] is None
    assert cand.score == ev["lexical"] and cand.score >= 0.55  # its words reach the bar
    assert (ev["shared"], ev["cross_script"], ev["person"], ev["rival_only"]) == (
        True,
        False,
        False,
        False,
    )


def test_a_word_every_candidate_shares_counts_less_than_one_only_this_one_has(
    tmp_path: Path,
) -> None:
    """A server gives no statistics over its store; its candidate pool stands in, as the
    store does for the local store's words: "deploy" in every candidate is no sign of one."""
    settings = make_settings(str(tmp_path), semantic=False)
    prompt = "how do we deploy the exporter?"
    alone = _cands("The exporter deploy runs nightly.")
    rate(alone, prompt, settings, None)
    crowd = _cands(
        "The exporter deploy runs nightly.",
        "Every deploy needs a ticket.",
        "A deploy on Friday is frowned upon.",
        "The deploy bot posts to #ops.",
    )
    rate(crowd, prompt, settings, None)
    assert 0.0 < crowd[0].score < alone[0].score
    assert crowd[0].score > crowd[1].score  # the exporter is still named only here


def test_a_bridged_candidate_and_an_uncalibrated_server_give_no_server_reading(
    tmp_path: Path,
) -> None:
    settings = make_settings(str(tmp_path), semantic=False)
    plain, bridged = _cands("Lunch is at noon.", "Friday is a holiday.", score=0.99)
    bridged.bridged = True
    rate([plain, bridged], "when is lunch?", settings, CAL)
    assert (bridged.evidence or {})["server"] is None
    assert (bridged.evidence or {})["semantic"] is None
    assert (plain.evidence or {})["server"] is not None
    rate([plain], "when is lunch?", settings, None)
    assert (plain.evidence or {})["server"] is None


def test_the_local_models_reading_comes_from_the_service(tmp_path: Path) -> None:
    settings = make_settings(str(tmp_path), semantic=True, semantic_deadline_ms=3000.0)
    english, chinese = _cands("Deploys go out on Tuesdays.", "部署在周二。", score=0.55)
    service = CannedService(socket_path(settings.state_dir), {"ok": True, "strengths": [5.5, 2.0]})
    try:
        rate([english, chinese], "部署是哪天？", settings, CAL)
    finally:
        service.close()
    en, zh = english.evidence or {}, chinese.evidence or {}
    assert en["cross_script"] and en["local"] == 5.5 and en["semantic"] == 5.5
    assert not zh["cross_script"] and zh["semantic"] == pytest.approx((2.0 + 1.0) / 2)


def test_a_service_that_does_not_answer_leaves_the_servers_reading(tmp_path: Path) -> None:
    settings = make_settings(str(tmp_path), semantic=True, semantic_deadline_ms=50.0)
    hold_off_starts(settings.state_dir)
    (cand,) = _cands("Deploys go out on Tuesdays.", score=0.8)
    rate([cand], "when do deploys go out?", settings, CAL)
    ev = cand.evidence or {}
    assert ev["local"] is None and ev["semantic"] == ev["server"] == pytest.approx(6.0)


@pytest.mark.parametrize(
    "answer",
    [
        {"ok": True, "strengths": [4.0]},  # one strength for two candidates
        {"ok": True, "strengths": "4.0"},
        {"ok": False, "error": "model broken"},
    ],
)
def test_an_answer_that_does_not_fit_gives_no_local_reading(
    tmp_path: Path, answer: dict[str, object]
) -> None:
    settings = make_settings(str(tmp_path), semantic=True, semantic_deadline_ms=3000.0)
    pair = _cands("Deploys go out on Tuesdays.", "Lunch is at noon.", score=0.8)
    service = CannedService(socket_path(settings.state_dir), answer)
    try:
        rate(pair, "when do deploys go out?", settings, CAL)
    finally:
        service.close()
    assert [(c.evidence or {})["local"] for c in pair] == [None, None]
    assert (pair[0].evidence or {})["semantic"] == pytest.approx(6.0)  # the server's alone
