"""The pure parts of recall: query building, scaffold detection, ranking, rendering."""

from __future__ import annotations

import pytest

from ovhooks.capture.tokens import estimate_tokens
from ovhooks.recall.query import bridged_query, build_query, content_tokens, profile_query
from ovhooks.recall.rank import Candidate, from_context_entries, is_scaffold, rank
from ovhooks.recall.render import render
from ovhooks.recall.text import cut, neutralize_tags

M = "viking://user/default/memories"


@pytest.mark.parametrize(
    ("uri", "text", "level"),
    [
        (f"{M}/preferences/.overview.md", "Preferences", None),
        (f"{M}/.abstract.md", "User scope", None),
        (f"{M}/preferences/default", "# Preferences Overview\n- [a.md](./a.md)", None),
        (f"{M}/events/2026/05/20", "anything", None),
        (f"{M}/entities", "# viking://… [Directory abstract is not ready]", None),
        (f"{M}/entities/x.md", "a leaf at the wrong level", 1),
    ],
)
def test_scaffolding_is_recognised(uri: str, text: str, level: int | None) -> None:
    assert is_scaffold(uri, text, level=level)


@pytest.mark.parametrize(
    "uri",
    [
        f"{M}/preferences/default/editor.md",
        f"{M}/events/2026/05/20/x.md",
        "viking://user/default/skills/deploy-checklist",
    ],
)
def test_memories_and_skills_are_not_scaffolding(uri: str) -> None:
    assert not is_scaffold(uri, "Uses Helix.", level=2)


A = "viking://user/default/sessions/cx-s1/history/archive_001"


@pytest.mark.parametrize(
    ("uri", "level", "is_dir"),
    [(A, None, None), (A, 1, True), (A + "/.overview.md", 1, None), (A + "/.abstract.md", 0, None)],
)
def test_an_archive_is_history_not_scaffolding(uri: str, level: int | None, is_dir: bool) -> None:
    text = "The staging database listens on port 6543."
    assert not is_scaffold(uri, text, level=level, is_dir=is_dir)
    entry = {"uri": uri, "category": "archive", "score": 0.8, "text": text, "level": level}
    found, dropped = from_context_entries([entry], threshold=0.55, resources=False)
    assert [c.uri for c in found] == [uri] and dropped == 0


def test_an_empty_or_unready_archive_is_still_dropped() -> None:
    assert is_scaffold(A, "  ")
    assert is_scaffold(A, "# x [Directory overview is not ready]")
    assert is_scaffold("viking://user/default/sessions/cx-s1/history", "anything")


def test_threshold_applies_to_the_raw_score() -> None:
    entries = [
        {"uri": f"{M}/entities/a.md", "category": "entities", "score": 0.54, "text": "a"},
        {"uri": f"{M}/entities/b.md", "category": "entities", "score": 0.56, "text": "b"},
        {"uri": f"{M}/entities/c.md", "category": "entities", "score": "bad", "text": "c"},
        "not a dict",
    ]
    found, _ = from_context_entries(entries, threshold=0.55, resources=False)
    assert [c.uri for c in found] == [f"{M}/entities/b.md"]


def test_what_the_prompt_asks_does_not_reorder() -> None:
    """The intent nudges are deleted here (docs/SEMANTIC.md 2.5): a question about time or
    about likes keeps the scores' order when no item shares its words."""

    def items() -> list[Candidate]:
        return [
            Candidate(f"{M}/events/2026/01/02/e.md", "events", 0.70, "version 2 shipped"),
            Candidate(f"{M}/preferences/u/p.md", "preferences", 0.72, "tabs over spaces"),
            Candidate(f"{M}/entities/f.md", "entities", 0.74, "the deploy goes to fly.io"),
        ]

    for prompt in ("what do I prefer?", "what happened last week?"):
        assert [c.score for c in rank(items(), profile_query(prompt))] == [0.74, 0.72, 0.70]


def test_lexical_overlap_reorders_close_scores() -> None:
    items = [
        Candidate(f"{M}/entities/a.md", "entities", 0.71, "Unrelated fact about lunch"),
        Candidate(f"{M}/entities/b.md", "entities", 0.70, "Postgres runs on Fly.io"),
    ]
    assert rank(items, profile_query("is postgres on fly.io?"))[0].uri.endswith("b.md")


def test_dedupe_by_text_except_events_and_stable_ties() -> None:
    items = [
        Candidate(f"{M}/entities/b.md", "entities", 0.7, "Same  fact"),
        Candidate(f"{M}/entities/a.md", "entities", 0.7, "same fact"),
        Candidate(f"{M}/events/1/x.md", "events", 0.7, "same fact"),
        Candidate(f"{M}/events/2/x.md", "events", 0.7, "same fact"),
    ]
    ranked = rank(items, profile_query("zzz"))
    assert [c.uri for c in ranked] == [
        f"{M}/entities/a.md",
        f"{M}/events/1/x.md",
        f"{M}/events/2/x.md",
    ]


def test_runners_up_far_below_the_best_are_dropped_even_when_the_best_was_seen() -> None:
    items = [
        Candidate(f"{M}/entities/best.md", "entities", 0.85, "helix editor"),
        Candidate(f"{M}/entities/junk.md", "entities", 0.56, "lunch"),
    ]
    profile = profile_query("helix editor")
    assert [c.uri for c in rank(items, profile)] == [f"{M}/entities/best.md"]
    assert rank(items, profile, exclude={f"{M}/entities/best.md"}) == []


def test_content_tokens_handle_cjk_and_stopwords() -> None:
    assert content_tokens("Where is the fly.io deploy?") == ["fly.io", "deploy"]
    assert content_tokens("编辑器") == ["编辑", "辑器"]


def test_content_tokens_keep_the_ideographs_of_mixed_runs_only() -> None:
    # kana and accented letters are not words here; ideographs beside them still are
    assert content_tokens("日本語のテキスト") == ["日本", "本語"]
    assert content_tokens("ü中文 カタカナ漢字") == ["中文", "漢字"]
    assert content_tokens("部署abc到staging") == ["部署", "abc", "到", "stagin"]  # stems: 6 letters


def test_build_query_puts_the_prompt_first_then_newest_turns() -> None:
    assert build_query("p", ["old", "new"]) == "p\nnew\nold"
    assert len(build_query("x" * 5000, [])) == 2000


def test_render_is_deterministic_and_within_budget() -> None:
    items = [
        Candidate(f"{M}/entities/{i}.md", "entities", 0.8 - i / 100, "词" * 300) for i in range(6)
    ]
    # 380: the first item, shortened to fit, leaves room for hints (at some budgets the
    # shortening steps of a 300-character item leave less than one hint's cost).
    first = render(items, max_tokens=380, max_items=6, item_chars=600, estimate=estimate_tokens)
    second = render(items, max_tokens=380, max_items=6, item_chars=600, estimate=estimate_tokens)
    assert first is not None and second is not None
    assert first.text == second.text
    assert estimate_tokens(first.text) <= 380
    assert first.hint_uris  # the rest degraded to hints


def test_render_returns_none_when_not_even_a_hint_fits() -> None:
    items = [Candidate(f"{M}/entities/a.md", "entities", 0.8, "x" * 50)]
    assert (
        render(items, max_tokens=10, max_items=6, item_chars=600, estimate=estimate_tokens) is None
    )


def test_neutralize_and_cut() -> None:
    assert neutralize_tags("a </openviking-context > b") == "a [/openviking-context] b"
    assert neutralize_tags("x < y and Vec<T>") == "x < y and Vec<T>"
    assert cut("one two three four", 15) == "one two three…"
    assert cut("one two three four", 12) == "one two thr…"  # no boundary near the end
    assert len(cut("汉" * 50, 10)) == 10


def test_stemming_matches_inflections() -> None:
    assert set(content_tokens("migrated tests")) == set(content_tokens("migration test"))


def test_words_of_a_uri_slug_are_no_evidence() -> None:
    items = [
        Candidate(f"{M}/entities/facts/redis_cache_eviction_policy.md", "entities", 0.70, "x"),
        Candidate(f"{M}/entities/facts/b.md", "entities", 0.70, "the redis cache evicts lru"),
    ]
    ranked = rank(items, profile_query("redis cache eviction"))
    # the text's shared words lift b; the slug's lift nothing
    assert ranked[0].uri == f"{M}/entities/facts/b.md"
    assert ranked[1].rank == ranked[1].score


ZH_QUESTION = "部署之前必须先跑哪些测试？"  # names 部署 and 测试 (deploy, test)


def test_the_bridged_query_carries_the_other_languages_words() -> None:
    zh = bridged_query(ZH_QUESTION, ZH_QUESTION)
    assert zh is not None and zh.startswith(ZH_QUESTION + "\n")
    assert {"deploy", "test"} <= set(zh.split("\n")[1].split())
    en = bridged_query("where do the nightly logs go?", "where do the nightly logs go?")
    assert en is not None and "日志" in en.split("\n")[1]
    # nothing the glossary names: no second search
    assert bridged_query("who wrote this poem?", "who wrote this poem?") is None


def test_a_huge_text_is_weighed_and_shown_from_its_head() -> None:
    """A server memory of megabytes cost seconds to rate, past the hook's deadline: only its
    head is kept, and it is no longer 'whole', so the line carries its URI to read the rest."""
    from ovhooks.recall.rank import MAX_TEXT_CHARS

    entry = {"uri": f"{M}/entities/big.md", "text": "deploy " * 800_000, "score": 0.9}
    found, _ = from_context_entries([{**entry, "detail": "full"}], threshold=0.0, resources=False)
    assert len(found[0].text) == MAX_TEXT_CHARS and not found[0].whole
    small = {**entry, "text": "deploy on Tuesdays", "detail": "full"}
    found, _ = from_context_entries([small], threshold=0.0, resources=False)
    assert found[0].text == "deploy on Tuesdays" and found[0].whole


@pytest.mark.parametrize(
    "uri",
    [
        "viking://user/default/../../agent/x.md",
        f"{M}/preferences/./x.md",
        f"{M}/preferences/..",
        "viking://user\\default/memories/x.md",
        "https://example.com/x.md",
    ],
)
def test_a_server_uri_that_climbs_is_not_a_candidate(uri: str) -> None:
    entry = {"uri": uri, "text": "deploy on Tuesdays", "score": 0.9}
    assert from_context_entries([entry], threshold=0.0, resources=True)[0] == []
