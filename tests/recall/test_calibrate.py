"""Per-server calibration, and the one decision on a server's candidates read through it: one
rule for models with different score scales (``recall.rating`` then ``decision.judge_rated``;
here without the local model, so the server's strength is the only reading).

The two synthetic models mirror what was measured on OpenViking 0.5.2: multilingual-e5-small
puts every memory in 0.86-0.98 (unrelated prompts' best match ~0.88-0.91), the rig's hash stub
spreads scores from 0.5 (nothing shared) to ~0.8 (most words shared).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from ovhooks.lexical.evidence import EVIDENCE_AT_THRESHOLD
from ovhooks.lexical.text import script_of
from ovhooks.recall import calibrate, recall_for_prompt
from ovhooks.recall.decision import judge_rated
from ovhooks.recall.query import profile_query
from ovhooks.recall.rank import Candidate, rank
from ovhooks.recall.rating import rate
from ovhooks.semantic import fusion
from tests.support.fake_backend import MEMORIES, FakeBackend, make_settings

NOW = 1_800_000_000.0

# Best memory score for each probe prompt, per model (what run_probes would record).
COMPRESSED_PROBES = [0.882, 0.889, 0.891, 0.893, 0.895, 0.896, 0.901, 0.903]
SPREAD_PROBES = [0.50, 0.52, 0.55, 0.55, 0.58, 0.60, 0.62, 0.66]

CAT = "viking://user/u/memories/entities/office/cat.md"
DEPLOY = "viking://user/u/memories/entities/project/deploy.md"
EDITOR = "viking://user/u/memories/preferences/default/editor.md"
TEXTS = {
    CAT: "Our office cat is called Biscuit and sleeps on the server rack.",
    DEPLOY: "The billing API deploys to Fly.io and uses Postgres 16.",
    EDITOR: "The user's favourite code editor is Helix.",
}


def candidates(scores: dict[str, float]) -> list[Candidate]:
    return [Candidate(uri, "entities", score, TEXTS[uri]) for uri, score in scores.items()]


def decide(prompt: str, probes: list[float], scores: dict[str, float]) -> list[str]:
    cal = calibrate.fit(probes)
    assert cal is not None
    return [c.uri for c in judged(prompt, cal, candidates(scores))]


def judged(prompt: str, cal: dict[str, float], items: list[Candidate]) -> list[Candidate]:
    """What the decision shows of a server's ``items`` (no local model: semantics off)."""
    rate(items, prompt, make_settings("/nonexistent", semantic=False), cal)
    kept, _dropped = judge_rated(items, prompt, 0.55)
    return rank(kept, profile_query(prompt))


@pytest.mark.parametrize(
    ("probes", "paraphrase", "unrelated"),
    [
        # compressed model: the paraphrase stands ~0.04 above the rest, unrelated does not
        (
            COMPRESSED_PROBES,
            {CAT: 0.934, DEPLOY: 0.899, EDITOR: 0.894},
            {CAT: 0.897, DEPLOY: 0.901, EDITOR: 0.889},
        ),
        # spread model: same story on a scale eight times as wide
        (
            SPREAD_PROBES,
            {CAT: 0.86, DEPLOY: 0.58, EDITOR: 0.55},
            {CAT: 0.61, DEPLOY: 0.63, EDITOR: 0.52},
        ),
    ],
    ids=["compressed", "spread"],
)
def test_one_rule_serves_both_score_scales(
    probes: list[float], paraphrase: dict[str, float], unrelated: dict[str, float]
) -> None:
    """No single cut-off does this: the spread model's hit (0.86) scores below the compressed
    model's unrelated best (0.901), and the old 0.55 threshold passes everything above."""
    assert decide("what is the pet in our workplace named?", probes, paraphrase) == [CAT]
    assert decide("how do I bake sourdough bread at home?", probes, unrelated) == []


def test_words_pass_at_the_lexical_bar_as_on_the_local_store() -> None:
    """One rule set: shared words that reach the recall bar admit a memory whatever the
    model says (the local store's rule, docs/SEMANTIC.md 2.5); one word in common does not,
    and a weaker reading with it needs the model's agreement."""
    probes = COMPRESSED_PROBES
    prompt = "deploy the billing api"  # three content words in common with DEPLOY
    assert decide(prompt, probes, {DEPLOY: 0.905, CAT: 0.890}) == [DEPLOY]
    assert decide(prompt, probes, {DEPLOY: 0.892, CAT: 0.890}) == [DEPLOY]
    # one word in common is no evidence on its own
    assert decide("which api?", probes, {DEPLOY: 0.905, CAT: 0.890}) == []


def test_runners_up_only_close_to_the_best() -> None:
    cal = calibrate.fit(COMPRESSED_PROBES)
    assert cal is not None
    strong = {CAT: 0.99, DEPLOY: 0.95, EDITOR: 0.96}
    picked = [c.uri for c in judged("x y z", cal, candidates(strong))]
    assert picked == [CAT]  # the others are strong on their own but far behind the best


def test_select_is_deterministic_with_ties() -> None:
    cal = calibrate.fit(SPREAD_PROBES)
    assert cal is not None
    scores = {CAT: 0.9, DEPLOY: 0.9, EDITOR: 0.9}
    runs = [[c.uri for c in judged("q", cal, candidates(scores))] for _ in range(3)]
    # three equally strong readings: at most two admissions on meaning alone, by URI
    assert runs[0] == runs[1] == runs[2] == sorted(scores)[: fusion.MAX_SEMANTIC_ONLY]


def test_fit_ignores_probes_that_hit_a_real_memory() -> None:
    base = calibrate.fit(COMPRESSED_PROBES)
    outlier = calibrate.fit([*COMPRESSED_PROBES[:-1], 0.99])
    assert base is not None and outlier is not None
    assert outlier["loc"] == base["loc"]
    assert calibrate.fit(COMPRESSED_PROBES[:3]) is None  # too few probes to say anything


def test_scale_floor_keeps_identical_probes_from_inflating_strength() -> None:
    cal = calibrate.fit([0.9] * 8)
    assert cal is not None
    assert cal["scale"] == pytest.approx(0.003)
    assert calibrate.strength(0.93, cal) == pytest.approx(10.0)


def test_script_of_prompt() -> None:
    assert script_of("办公室的猫叫什么名字") == "zh"
    assert script_of("what is the cat called?") == "en"
    assert script_of("pytest 的 fixture 怎么写") == "zh"
    assert script_of("fix the bug in 登录 handler please, the session expires") == "en"


def test_stale_or_drifted_calibration_is_refreshed() -> None:
    fitted = calibrate.fit(COMPRESSED_PROBES)
    assert fitted is not None
    doc = {"at": NOW, "en": fitted}
    assert calibrate.usable(doc, NOW + 60, "en", 0.93) is not None
    assert not calibrate.needs_refresh(doc, NOW + 60, "en", fitted)
    assert calibrate.usable(doc, NOW + calibrate.REFRESH_S + 1, "en", 0.93) is None
    assert calibrate.needs_refresh(doc, NOW + calibrate.REFRESH_S + 1, "en", None)
    # live scores far below every probe: another model answers behind the same URL
    assert calibrate.usable(doc, NOW + 60, "en", 0.55) is None
    assert calibrate.needs_refresh(doc, NOW + 60, "en", None)
    # no Chinese probe found anything: no fit for zh, and no refresh storm either
    assert calibrate.usable(doc, NOW + 60, "zh", 0.93) is None
    assert not calibrate.needs_refresh(doc, NOW + 60, "zh", None)


# --- through recall_for_prompt, with the in-process fake server -----------------------------


SEED = {
    f"{MEMORIES}/entities/office/cat.md": TEXTS[CAT],
    f"{MEMORIES}/entities/project/deploy.md": TEXTS[DEPLOY],
    f"{MEMORIES}/preferences/default/editor.md": TEXTS[EDITOR],
}


def recall(prompt: str, backend: FakeBackend, settings: Any, now: float = NOW) -> Any:
    return recall_for_prompt(
        prompt,
        recent_user_texts=[],
        session_key="",
        ov_session_id=None,
        backend=backend,  # type: ignore[arg-type]
        settings=settings,
        now=now,
    )


def test_recall_calibrates_once_and_caches_it(tmp_path: Any) -> None:
    settings = make_settings(str(tmp_path))
    backend = FakeBackend(SEED)
    first = recall("which code editor is the favourite?", backend, settings)
    assert first.injected_uris == (f"{MEMORIES}/preferences/default/editor.md",)
    probes = [c for c in backend.requests("search_context") if c[1]["query"] in calibrate.PROBES]
    assert len(probes) == len(calibrate.PROBES)
    with open(os.path.join(str(tmp_path), "recall", "servers.json"), encoding="utf-8") as fh:
        stored = json.load(fh)
    doc = next(iter(stored.values()))["calibration"]
    assert doc["at"] == NOW and doc["en"]["n"] == 8
    backend.calls.clear()
    again = recall("which code editor is the favourite?", backend, settings, now=NOW + 5)
    assert len(backend.calls) == 1  # cached: no probes
    assert again.context == first.context  # same inputs, byte-identical output


def test_recall_abstains_for_an_unrelated_prompt(tmp_path: Any) -> None:
    settings = make_settings(str(tmp_path))
    out = recall("how should I season a cast iron pan?", FakeBackend(SEED), settings)
    assert out.context is None


FILLER = (
    "please refactor the parser module so that every branch gets covered by unit tests "
    "keep the public interface stable document each change write clear commit messages "
    "update the changelog run formatting check types and make sure nothing regresses "
    "also tidy the logging configuration and remove dead helpers "
)


def test_long_task_prompts_need_evidence_not_a_count_of_chance_words() -> None:
    cal = calibrate.fit(COMPRESSED_PROBES)
    assert cal is not None
    scores = {DEPLOY: 0.905, CAT: 0.890}  # moderate strength: words must agree
    # the memory's words come late in a long prompt: they still count
    late = FILLER + "then deploy the billing api to fly"
    assert decide(late, COMPRESSED_PROBES, scores) == [DEPLOY]
    # two chance words in common are expected in a prompt this long: not agreement
    chance = FILLER + "then mention billing and api in passing"
    assert decide(chance, COMPRESSED_PROBES, scores) == []


def test_an_identifier_or_a_translation_is_evidence_a_word_count_missed() -> None:
    """The old rule counted shared content words: "Fly.io" is one specific name, and a
    Chinese prompt shares one Latin name and a translation with an English memory."""
    scores = {DEPLOY: 0.905, CAT: 0.890}
    assert decide("what is on Fly.io?", COMPRESSED_PROBES, scores) == [DEPLOY]
    assert decide("billing 部署在哪里？", COMPRESSED_PROBES, scores) == [DEPLOY]
    # the same prompt's words in a file name are no evidence: only the text counts
    lexical = calibrate.LexicalEvidence("where does the billing api deploy to?")
    assert lexical.units(TEXTS[DEPLOY]) >= EVIDENCE_AT_THRESHOLD
    assert lexical.units("Our office cat is called Biscuit.") == 0.0
    zh = calibrate.LexicalEvidence("计费 API 部署到哪里了？用的什么数据库？")
    assert zh.units("The billing API deploys to Fly.io and uses the Postgres database.") > 1.0


def test_a_script_whose_few_probes_agree_by_chance_gets_the_pooled_spread() -> None:
    # Six Chinese probes that happen to sit close together, eight English ones spread as
    # e5-small spreads them: the Chinese strengths must not come out 2-3x inflated.
    english = [0.877, 0.892, 0.898, 0.900, 0.902, 0.905, 0.908, 0.910]
    chinese = [0.911, 0.915, 0.918, 0.919, 0.928, 0.936]
    own = calibrate.fit(chinese)
    assert own is not None
    en_probes = [p for p in calibrate.PROBES if script_of(p) == "en"]
    zh_probes = [p for p in calibrate.PROBES if script_of(p) == "zh"]
    tops = {
        **dict(zip(en_probes, english, strict=True)),
        **dict(zip(zh_probes, chinese, strict=True)),
    }
    doc = calibrate.run_probes(
        lambda probe: [Candidate(CAT, "entities", tops[probe], TEXTS[CAT])], NOW
    )
    pooled = calibrate.pooled_scale([english, chinese])
    assert doc["zh"]["scale"] == pytest.approx(pooled, abs=1e-6)
    assert doc["zh"]["scale"] > 1.5 * own["scale"]
    assert doc["zh"]["loc"] == own["loc"]  # each script keeps its own level
    # English, the wider of the two, keeps its own spread.
    assert doc["en"] == calibrate.fit(english)
    # A candidate 0.022 over the Chinese level was "strong alone" on the script's own spread;
    # on the pooled one it is not.
    assert calibrate.strength(own["loc"] + 0.022, own) >= fusion.STRONG
    assert calibrate.strength(own["loc"] + 0.022, doc["zh"]) < fusion.STRONG


def test_pooling_needs_at_least_two_probes_kept_somewhere() -> None:
    assert calibrate.pooled_scale([]) == 0.0
    assert calibrate.pooled_scale([[0.9], [0.8, float("nan")]]) == 0.0
    assert calibrate.pooled_scale([[0.90, 0.91, 0.99]]) == pytest.approx(0.00707107, abs=1e-6)


def test_the_calibration_records_the_scripts_the_store_is_written_in() -> None:
    """Probes in both languages bring back what the store holds; a store that returned no
    Chinese memory needs no bridged search into Chinese (``has_script``)."""
    english_only = calibrate.run_probes(
        lambda probe: [Candidate(CAT, "entities", 0.9, "The deploy goes to Fly.io.")], NOW
    )
    assert english_only["scripts"] == ["en"]
    assert calibrate.has_script(english_only, "en")
    assert not calibrate.has_script(english_only, "zh")
    both = calibrate.run_probes(
        lambda probe: [
            Candidate(CAT, "entities", 0.9, "The deploy goes to Fly.io."),
            Candidate(f"{CAT}x", "entities", 0.8, "部署之前必须先跑集成测试。"),
        ],
        NOW,
    )
    assert both["scripts"] == ["en", "zh"] and calibrate.has_script(both, "zh")
    # nothing came back: no script is known to be there
    assert calibrate.run_probes(lambda probe: [], NOW)["scripts"] == []
    # no record says otherwise: no calibration yet, or one written before ``scripts``
    assert calibrate.has_script(None, "zh")
    assert calibrate.has_script({"at": NOW, "en": {"loc": 0.9, "scale": 0.01}}, "zh")
