"""A prompt's clauses, and the discount for matching the best of many."""

from __future__ import annotations

import math

from ovhooks.semantic.clauses import MAX_CLAUSES, clauses, extra_max


def test_a_one_clause_prompt_has_no_clauses_of_its_own() -> None:
    assert clauses("how should I indent the new module?") == []
    assert clauses("") == []


def test_sentences_and_chinese_sentences_split() -> None:
    text = (
        "Refactor the exporter module. Keep the CLI flags as they are! 然后部署到测试环境去看看。"
    )
    assert clauses(text) == [
        "Refactor the exporter module.",
        "Keep the CLI flags as they are!",
        "然后部署到测试环境去看看",
    ]


def test_short_fragments_say_too_little_to_match_alone() -> None:
    assert clauses("ok. thanks. ship the release build tonight please") == []


def test_a_long_sentence_is_cut_at_its_commas() -> None:
    sentence = (
        "we need to migrate the billing tables to the new schema, and then run the backfill "
        "job for last month, but keep the old views alive for the finance dashboards"
    )
    parts = clauses(sentence + "\nalso bump the version number")
    assert parts[0] == "we need to migrate the billing tables to the new schema"
    assert "run the backfill job for last month" in parts[1]
    assert parts[-1] == "also bump the version number"


def test_many_clauses_keep_the_longest_in_order() -> None:
    text = " ".join(f"Clause number {i} says {'more ' * i}words." for i in range(12))
    parts = clauses(text)
    assert len(parts) == MAX_CLAUSES
    numbers = [int(p.split()[2]) for p in parts]
    assert numbers == sorted(numbers)
    assert numbers[0] == 12 - MAX_CLAUSES


def test_duplicate_clauses_count_once() -> None:
    assert clauses("run the tests again. run the tests again.") == []


def test_the_best_of_many_is_discounted_like_a_maximum_of_normals() -> None:
    assert extra_max(0) == 0.0
    assert extra_max(1) == 0.0
    assert math.isclose(extra_max(4), math.sqrt(2 * math.log(4)))
    assert extra_max(9) > extra_max(3)
