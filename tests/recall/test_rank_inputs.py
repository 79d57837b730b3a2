"""Ranking and calibration on the odd inputs a server (or an old cache) can hand them: scores
that are not numbers, undeclared categories, hits without a URI, another project's memories,
resources, stale calibration documents, and what ranking skips."""

from __future__ import annotations

import math

import pytest

from ovhooks.lexical.text import script_of
from ovhooks.recall import calibrate
from ovhooks.recall.query import build_query, profile_query
from ovhooks.recall.rank import (
    Candidate,
    category_of,
    from_context_entries,
    from_find_result,
    in_scope,
    is_scaffold,
    rank,
)

M = "viking://user/default/memories"
NOW = 1_800_000_000.0


def _entry(uri: str, score: object, text: str = "Uses Helix with vim keys.", **extra: object):
    return {"uri": uri, "score": score, "text": text, **extra}


@pytest.mark.parametrize(
    ("raw", "kept"),
    [("0.8", 0.8), ("high", None), (float("nan"), None), (True, None), (1.7, 1.0), (-2, None)],
)
def test_a_score_is_read_as_a_number_in_0_1_or_counts_as_nothing(
    raw: object, kept: float | None
) -> None:
    found, _ = from_context_entries(
        [_entry(f"{M}/preferences/u/editor.md", raw)], threshold=0.1, resources=False
    )
    assert [c.score for c in found] == ([kept] if kept is not None else [])


@pytest.mark.parametrize(
    ("uri", "declared", "category"),
    [
        (f"{M}/preferences/u/editor.md", "Preferences ", "preferences"),
        ("viking://resources/docs/guide.md", "", "resources"),
        (f"{M}/experiences/x.md", "", "experiences"),
        (f"{M}/notes/x.md", "", "memory"),
        (f"{M}/profile.md", "entities", "profile"),
    ],
)
def test_the_category_is_the_servers_word_else_the_paths(
    uri: str, declared: str, category: str
) -> None:
    assert category_of(uri, declared) == category


def test_an_archive_with_content_is_kept_and_its_unready_stub_is_not() -> None:
    archive = "viking://user/default/sessions/s1/history/archive_002"
    assert not is_scaffold(archive, "We chose Postgres 16 for billing.")
    assert is_scaffold(archive, "   ")
    assert is_scaffold(f"{M}/preferences/", "anything")  # a directory, by its trailing slash


def test_scope_drops_other_projects_and_resources_unless_asked() -> None:
    assert not in_scope(f"{M}/x.md", "entities", "other_peer", resources=True)
    assert in_scope("viking://resources/a.md", "resources", "", resources=True)
    assert not in_scope("viking://resources/a.md", "resources", "", resources=False)
    assert not in_scope("https://example.com/a.md", "memory", "", resources=False)


def test_context_entries_skip_malformed_hits_and_count_scaffolds() -> None:
    leaf = f"{M}/preferences/u/editor.md"
    entries: list[object] = [
        "not an object",
        {"score": 0.9, "text": "no uri"},
        {"uri": leaf, "score": 0.9, "text": 42},
        _entry(leaf, 0.9, "   "),  # nothing to inject
        _entry(f"{M}/entities/x.md", 0.9, category=7, origin=["peer"]),
        _entry(f"{M}/entities/.overview.md", 0.9),
        _entry(f"{M}/entities/y.md", 0.9, origin="other_peer"),
    ]
    found, scaffolds = from_context_entries(entries, threshold=0.5, resources=False)
    assert [(c.uri, c.category) for c in found] == [(f"{M}/entities/x.md", "entities")]
    assert scaffolds == 1


def test_find_hits_take_their_category_from_tags_or_bucket() -> None:
    result = {
        "memories": [
            {"uri": f"{M}/a.md", "level": 2, "score": 0.8, "abstract": "Tabs, never spaces.",
             "tags": ["lang=py", 3, "memory_type=preferences"]},
            {"uri": f"{M}/events/e.md", "level": 2, "score": 0.8, "abstract": "Migrated.",
             "tags": "memory_type=cases"},
            {"uri": f"{M}/entities/z.md", "level": 2, "score": 0.8, "abstract": "Zed.",
             "tags": ["lang=py"]},
            {"level": 2, "score": 0.8, "abstract": "a hit without a uri"},
            "junk",
        ],
        "skills": {"not": "a list"},
        "resources": [
            {"uri": "viking://resources/r.md", "level": 2, "score": 0.8, "overview": "Guide."}
        ],
    }  # fmt: skip
    found, _ = from_find_result(result, threshold=0.5, resources=True)
    assert [(c.uri, c.category, c.text) for c in found] == [
        (f"{M}/a.md", "preferences", "Tabs, never spaces."),
        (f"{M}/events/e.md", "events", "Migrated."),
        (f"{M}/entities/z.md", "entities", "Zed."),
        ("viking://resources/r.md", "resources", "Guide."),
    ]
    without, _ = from_find_result(result, threshold=0.5, resources=False)
    assert "viking://resources/r.md" not in [c.uri for c in without]


def test_rank_of_nothing_is_nothing_and_a_prompt_without_words_adds_no_overlap() -> None:
    assert rank([], profile_query("which editor?")) == []
    item = Candidate(f"{M}/preferences/u/editor.md", "preferences", 0.7, "Helix.")
    ranked = rank([item], profile_query("?!"))
    assert [c.uri for c in ranked] == [item.uri] and item.rank == pytest.approx(0.7)


def test_build_query_skips_blank_and_repeated_turns() -> None:
    query = build_query("deploy target?", ["Fly.io", "  ", "deploy target?", "Fly.io"])
    assert query.split("\n") == ["deploy target?", "Fly.io"]


# --- calibration documents ---------------------------------------------------------------


def test_a_cached_fit_is_refused_when_malformed_or_when_the_model_changed() -> None:
    good = {"at": NOW, "en": {"loc": 0.5, "scale": 0.05}}
    assert calibrate.usable(good, NOW + 1, "en", 0.6) == {"loc": 0.5, "scale": 0.05}
    assert calibrate.usable({"at": NOW, "en": {"loc": 0.5}}, NOW, "en", None) is None
    assert calibrate.usable({"at": NOW, "en": {"loc": "x", "scale": 1}}, NOW, "en", None) is None
    assert calibrate.usable({"at": NOW, "en": {"loc": 0.5, "scale": 0}}, NOW, "en", None) is None
    assert calibrate.usable({"at": NOW, "en": "fit"}, NOW, "en", None) is None
    # a live best score eight scales under the location: another model answers now
    assert calibrate.usable(good, NOW, "en", 0.5 - 9 * 0.05) is None


def test_probes_that_find_nothing_add_no_score_and_too_few_give_no_fit() -> None:
    scores = iter([0.5, 0.52, 0.55, 0.6, 0.58])

    def search(probe: str) -> list[Candidate]:
        if "爬山" in probe or "spider" in probe:
            return []
        if script_of(probe) == "zh":
            return [Candidate(f"{M}/x.md", "entities", 0.7, "x")]
        value = next(scores, 0.5)
        return [Candidate(f"{M}/x.md", "entities", value, "x")]

    doc = calibrate.run_probes(search, NOW)
    assert doc["at"] == NOW and "en" in doc and "zh" in doc
    few = calibrate.run_probes(search, NOW, probes=("spider?", "tomatoes", "chickpeas"))
    assert few == {"at": NOW, "scripts": ["en"]}, "three probes are too few to fit"
    assert calibrate.fit([0.5, math.inf, 0.6, 0.55]) is None, "a non-finite top is ignored"


def test_rank_skips_excluded_and_duplicates() -> None:
    items = [
        Candidate(f"{M}/entities/a.md", "entities", 0.62, "Biscuit the cat."),
        Candidate(f"{M}/entities/b.md", "entities", 0.62, "biscuit  THE cat."),
        Candidate(f"{M}/entities/c.md", "entities", 0.61, "The rack is warm."),
        Candidate(f"{M}/entities/d.md", "entities", 0.61, "The cat sleeps there."),
    ]
    ranked = rank(items, profile_query("the cat"), exclude={f"{M}/entities/c.md"})
    assert [c.uri for c in ranked] == [f"{M}/entities/a.md", f"{M}/entities/d.md"]


def test_a_candidate_shows_its_uri_category_score_and_rank() -> None:
    item = Candidate(f"{M}/preferences/u/editor.md", "preferences", 0.71234, "Helix.")
    item.rank = 0.8
    assert repr(item) == (
        f"Candidate('{M}/preferences/u/editor.md', 'preferences', 0.712, rank=0.800)"
    )
