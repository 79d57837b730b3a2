"""Local recall rewards evidence, not coverage: specific terms count, chance matches do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.lexical.evidence import IDENT, NAME, specific_terms
from ovhooks.lexical.text import terms

THRESHOLD = 0.55  # the default recall_score_threshold

# A small store, the size a new user has after a few weeks.
MEMORIES = [
    "the reconciliation report compares the ledger against the processor export every night",
    "payment retries are bounded by RETRY_BUDGET_MS, 4000 by default",
    "Marisol owns the onboarding emails and signs off on their copy",
    "the staging database listens on port 6543, not the default one",
    "we went with Litestream for the SQLite backups",
    "integration tests hit a real Postgres in docker compose, not a mock",
    "the mobile app reads feature toggles from config/remote-toggles.json at launch",
    "I use tmux with Ctrl-a as the prefix",
]


@pytest.fixture
def store(tmp_path: Path) -> LocalBackend:
    """The memories written directly, so these tests judge scoring, not extraction."""
    backend = LocalBackend(str(tmp_path), peer="proj")
    for i, text in enumerate(MEMORIES):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    return backend


def recalled(backend: LocalBackend, prompt: str) -> list[str]:
    result = backend.search_context(prompt, score_threshold=THRESHOLD)
    return [entry["text"] for entry in result["entries"]]


def test_a_commit_makes_every_statement_a_memory(tmp_path: Path) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    backend.append_messages("s1", [{"role": "user", "content": m} for m in MEMORIES])
    backend.commit("s1")
    stored = {text for _uri, _peer, text in backend.export_memories()}
    assert stored == set(MEMORIES)


def test_an_unrelated_prompt_sharing_two_rare_words_injects_nothing(
    store: LocalBackend,
) -> None:
    prompt = "write a short story where a lighthouse keeper finds a ledger during a reconciliation"
    assert recalled(store, prompt) == []


@pytest.mark.parametrize(
    ("prompt", "memory"),
    [
        ("where is RETRY_BUDGET_MS set?", 1),
        ("what does remote-toggles.json hold?", 6),
        ("is anything listening on 6543?", 3),
    ],
)
def test_naming_the_exact_identifier_in_a_short_question_finds_it(
    store: LocalBackend, prompt: str, memory: int
) -> None:
    assert recalled(store, prompt)[:1] == [MEMORIES[memory]]


def test_a_long_task_prompt_does_not_dilute_the_memory_it_needs(store: LocalBackend) -> None:
    prompt = (
        "I need a small command line tool for the ops team. It should take a date range, "
        "pull every order from the orders service for that range, group them by country and "
        "by payment method, write a CSV next to the working directory, and print a summary "
        "table to the terminal with totals, averages and the slowest requests. Please add "
        "argument parsing, a progress bar, retries around the HTTP calls, unit tests for the "
        "grouping logic, and a README section on how to run it. It must also be able to read "
        "straight from the staging database on port 6543 when the service is down."
    )
    assert MEMORIES[3] in recalled(store, prompt)


def test_a_name_alone_is_not_enough_but_a_name_and_a_topic_word_is(store: LocalBackend) -> None:
    assert recalled(store, "sort these names: Marisol, Kwame, Ines") == []
    assert recalled(store, "who reviews the onboarding copy? Marisol?")[:1] == [MEMORIES[2]]


def test_words_only_common_in_general_english_are_weak_on_a_small_store(
    store: LocalBackend,
) -> None:
    # each word here occurs once in this store, and is common everywhere else
    assert recalled(store, "what is the default for every night?") == []


def test_specific_terms_are_recognised_by_how_they_are_written() -> None:
    found = specific_terms("Marisol set RETRY_BUDGET_MS to 4000 in config/remote-toggles.json")
    assert found["marisol"] == NAME
    assert found[terms("RETRY_BUDGET_MS")[0]] == IDENT and found["4000"] == IDENT
    # a part of a file name is specific only together with another part of the same name
    assert found["remote"] == found["toggle"] >= 0
    assert "set" not in found and "to" not in found


@pytest.mark.parametrize(
    ("memory", "prompt"),
    [
        (
            "the staging database listens on port 6543, not the default one",
            "预发数据库用哪个端口？",
        ),
        ("日志统一写到 /var/log/ledger 目录，按天切分", "where do the logs go, which directory?"),
    ],
)
def test_a_question_in_the_other_language_meets_the_memory(
    tmp_path: Path, memory: str, prompt: str
) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    for i, text in enumerate([memory, *MEMORIES[:3]]):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    assert recalled(backend, prompt)[:1] == [memory]
    assert recalled(backend, "今天天气怎么样？") == []


def test_identifier_words_are_stored_terms_but_a_prompt_keeps_its_identifiers_whole() -> None:
    assert terms("set AMAP_DEBUG_KEY", identifier_parts=True) == [
        "set",
        "amap_debug_key",
        "amap",
        "debug",
        "key",
    ]
    assert terms("TenantMiddleware", identifier_parts=True) == [
        "tenantmiddleware",
        "tenant",
        "middleware",
    ]
    # Short mixed-case words are names, not compounds; a prompt's terms have no parts.
    assert terms("iOS macOS GitHub NumPy", identifier_parts=True) == terms("iOS macOS GitHub NumPy")
    assert terms("my MacBook battery") == ["macbook", "battery"]


@pytest.mark.parametrize(
    ("memory", "prompt"),
    [
        (
            "the debug build reads its map key from MAPBOX_DEBUG_TOKEN in local.properties",
            "where is the mapbox debug token for the app configured?",
        ),
        (
            "every queryset has to go through Ticket.objects.for_tenant(), the TenantMiddleware "
            "resolves it from the subdomain",
            "which middleware resolves the tenant?",
        ),
    ],
)
def test_a_prompt_that_names_an_identifier_by_its_words_finds_it(
    tmp_path: Path, memory: str, prompt: str
) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    for i, text in enumerate([memory, *MEMORIES]):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    assert recalled(backend, prompt)[:1] == [memory]


def test_common_words_of_an_identifier_are_no_evidence_together(tmp_path: Path) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    memory = "the debug build reads its map key from MAPBOX_DEBUG_KEY in local.properties"
    for i, text in enumerate([memory, *MEMORIES]):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    assert recalled(backend, "how do I debug a key error in a python dict?") == []


def test_latin_names_in_a_chinese_prompt_are_names(tmp_path: Path) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    memory = "celery's broker is redis on redis-queue.internal:6380; 6379 is the cache"
    for i, text in enumerate([memory, *MEMORIES]):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    assert recalled(backend, "celery 连的 redis 是哪个？")[:1] == [memory]
    # one shared name is still not enough on its own
    assert recalled(backend, "redis 和 memcached 有什么区别？") == []


def test_a_glossary_entry_gives_its_synonyms_in_the_same_language(tmp_path: Path) -> None:
    backend = LocalBackend(str(tmp_path), peer="proj")
    memory = "the nightly cron on the prod box rotates the nginx logs at 02:00"
    for i, text in enumerate([memory, *MEMORIES]):
        backend.write(f"{backend.memory_root_for('proj')}/entities/facts/m{i}.md", text)
    # job ~ cron and production ~ prod are one entry each; "log" is shared.
    assert recalled(backend, "what time is the job that rotates logs on production?") == [memory]


def test_specific_terms_of_chinese_prose_concepts_and_mixed_identifiers() -> None:
    # Latin words in Chinese prose are names; capped general words are not.
    zh = specific_terms("订单服务用 celery 跑定时任务，日志写到 log 目录")
    assert zh["celery"] == NAME and "log" not in zh
    # A concept's own term is specific; a member (a tool that stands for it) is a name.
    assert specific_terms("use four spaces for indentation")["indentation"] == IDENT
    assert specific_terms("we run pytest with -x")["pytest"] == NAME
    # An identifier whose words are one word and digits: no group of parts to share.
    found = specific_terms("collation utf8mb4_bin everywhere")
    assert found["utf8mb4_bin"] == IDENT and "bin" not in found


def test_evidence_counts_a_chinese_word_once_not_per_character_pair() -> None:
    from ovhooks.lexical.evidence import evidence
    from ovhooks.lexical.text import query_terms

    content = "缩进一律用制表符，不要用空格"
    doc = terms(content, identifier_parts=True)
    prompt = "制表符还是空格？"
    found = query_terms(prompt)
    chained, _ = evidence(found, terms(prompt), {}, doc, content)
    # 制表符 is two overlapping pairs (制表, 表符): the second adds half, not a whole word.
    unchained, _ = evidence(["制表", "空格"], ["制表", "空格"], {}, doc, content)
    assert unchained < chained < unchained + 1.0
    assert evidence(["kubernetes"], ["kubernetes"], {}, doc, content) == (0.0, 0.0)


def test_a_text_about_tools_also_carries_the_concept_they_stand_for() -> None:
    from ovhooks.lexical.text import with_concepts

    assert with_concepts(["tab", "width"]) == ["tab", "width", "indentation", "缩进"]
    assert with_concepts(["width"]) == ["width"]


def test_concept_members_are_never_common_words() -> None:
    """``specific_terms`` makes every member a name without checking the caps: a member that
    became a general word (an edit of ``common``) would make any text that uses it specific."""
    from ovhooks.lexical.common import background_cap
    from ovhooks.lexical.text import CONCEPT_MEMBERS

    assert [t for t in sorted(CONCEPT_MEMBERS) if background_cap(t) < 1.0] == []


def test_words_shared_side_by_side_add_a_little_for_two_pairs_at_most() -> None:
    """Eight memories alike but for a service's name ("the billing service deploys go
    through …"): the question's run of shared words is what lifts the right one (the
    cross-host matrix's case; counting one pair only failed it)."""
    from ovhooks.lexical.evidence import MAX_PAIRS, PAIR_BONUS, evidence

    content = "billing service deploys nightly reports to the amber queue"
    doc = terms(content, identifier_parts=True)
    weights = dict.fromkeys(terms(content), 0.4)

    def units(prompt: str) -> float:
        query = terms(prompt)
        return evidence(query, query, weights, doc, content)[0]

    apart = units("billing amber")
    assert units("billing service") == pytest.approx(apart + PAIR_BONUS)
    assert units("billing service deploys") == pytest.approx(apart + 0.4 + 2 * PAIR_BONUS)
    assert MAX_PAIRS == 2
    # a third pair adds its word's weight, and no third bonus
    assert units("billing service deploys nightly") == pytest.approx(apart + 0.8 + 2 * PAIR_BONUS)
