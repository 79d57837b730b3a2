"""What the local signal adds to an embedding server's choice (pure)."""

from __future__ import annotations

from ovhooks.semantic import fusion
from ovhooks.semantic.rescore import (
    BOTH_MEAN,
    BRIDGED_STRONG,
    SERVER_AGREE,
    SERVER_FLOOR,
    added,
    decide,
)


def test_the_server_choice_stays_and_a_strong_local_match_is_added_after_it() -> None:
    candidates = [
        ("server-pick", 7.0, 1.0),
        ("cross-lingual", 1.0, fusion.STRONG + 0.5),
        ("noise", 0.5, 0.2),
    ]
    assert added(["server-pick"], candidates, max_items=3) == ["cross-lingual"]


def test_nothing_is_added_past_the_item_cap() -> None:
    candidates = [("a", 7.0, 1.0), ("b", 1.0, fusion.STRONG + 1)]
    assert added(["a"], candidates, max_items=1) == []


def test_a_strong_local_match_the_server_puts_below_unrelated_prompts_is_not_added() -> None:
    candidates = [("x", SERVER_FLOOR - 0.5, fusion.STRONG + 1), ("y", 0.0, 0.0)]
    assert added([], candidates, max_items=3) == []


def test_moderate_local_strength_needs_the_server_to_agree() -> None:
    local = fusion.AGREE + 0.1
    agreeing = [("a", SERVER_AGREE, local), ("b", SERVER_AGREE - 1, local), ("c", 0.0, local)]
    assert added([], agreeing, max_items=3) == ["a"]


def test_a_distinct_local_best_is_added_and_a_crowded_one_is_not() -> None:
    distinct = [("a", 0.5, fusion.DISTINCT), ("b", 0.5, fusion.DISTINCT - fusion.GAP)]
    crowded = [("a", 0.5, fusion.DISTINCT), ("b", 0.5, fusion.DISTINCT - 0.5)]
    alone = [("a", 0.5, fusion.DISTINCT)]
    assert added([], distinct, max_items=3) == ["a"]
    assert added([], crowded, max_items=3) == []
    assert added([], alone, max_items=3) == ["a"]


def test_additions_come_strongest_first() -> None:
    candidates = [("low", 1.0, fusion.STRONG), ("high", 1.0, fusion.STRONG + 2)]
    assert added([], candidates, max_items=1) == ["high"]
    assert added([], candidates, max_items=3) == ["high", "low"]


def test_only_eligible_candidates_are_added_on_the_local_rules_but_all_are_rivals() -> None:
    # the same-script candidate is strong locally, but the server puts it at nothing
    candidates = [("same-script", 0.0, fusion.STRONG + 1), ("other-script", 1.0, fusion.STRONG)]
    assert added([], candidates, max_items=3, eligible={"other-script"}) == ["other-script"]
    # a rival far stronger (past the margin) keeps it out, eligible or not
    far = [
        ("same-script", 0.0, fusion.STRONG + fusion.MARGIN + 1),
        ("other-script", 1.0, fusion.STRONG),
    ]
    assert added([], far, max_items=3, eligible={"other-script"}) == []
    distinct = [("same", 0.5, fusion.DISTINCT), ("other", 0.5, fusion.DISTINCT - 0.5)]
    assert added([], distinct, max_items=3, eligible={"other"}) == []


def test_an_addition_stays_within_the_margin_of_the_best_local_strength() -> None:
    best = fusion.STRONG + 4.0
    candidates = [
        ("server-pick", 7.0, best),
        ("neighbour", 1.0, best - fusion.MARGIN - 0.1),
        ("close", 1.0, best - fusion.MARGIN + 0.1),
    ]
    assert added(["server-pick"], candidates, max_items=3) == ["close"]


def test_decide_says_why_each_candidate_was_not_added() -> None:
    from ovhooks.semantic.rescore import decide

    best = fusion.STRONG + 2.5
    candidates = [
        ("pick", 7.0, 1.0),
        ("same-script", 1.0, best),
        ("far-below-best", 1.0, best - fusion.MARGIN - 0.5),
        ("server-far-below", SERVER_FLOOR - 1, best - 0.5),
        ("added", 1.0, best - 0.2),
        ("over-cap", 1.0, best - 0.3),
    ]
    eligible = {"far-below-best", "server-far-below", "added", "over-cap"}
    keys, why = decide(["pick"], candidates, max_items=2, eligible=eligible)
    assert keys == ["added"]
    assert why == {
        "same-script": "both_models_weak",
        "far-below-best": "below_best",
        "server-far-below": "server_far_below",
        "over-cap": "item_cap",
    }
    # close to the best, but neither strong nor distinct, and the server does not agree
    crowded = [("a", 1.0, fusion.DISTINCT + 0.5), ("b", SERVER_AGREE - 1, fusion.DISTINCT + 0.4)]
    assert decide([], crowded, max_items=3, eligible={"b"}) == (
        [],
        {"a": "both_models_weak", "b": "weak"},
    )


def test_a_same_script_candidate_is_added_when_both_models_together_are_strong() -> None:
    """In the prompt's own script the server's rule stands, unless the mean of the two
    models' strengths reaches ``BOTH_MEAN``: neither alone need pass its own bar."""
    server, local = BOTH_MEAN - 1.0, BOTH_MEAN + 1.0
    both = [("pick", 7.0, local), ("same", server, local)]
    assert added(["pick"], both, max_items=3, eligible=set()) == ["same"]
    # just under the mean: the server's choice stands, and the reason says why
    under = [("pick", 7.0, local), ("same", server - 0.1, local)]
    assert decide(["pick"], under, max_items=3, eligible=set()) == (
        [],
        {"same": "both_models_weak"},
    )
    # a strong local reading does not carry a server that finds nothing
    assert added([], [("same", 0.0, 2 * BOTH_MEAN - 0.1)], max_items=3, eligible=set()) == []


def test_a_long_prompt_asks_the_lift_of_the_servers_strength_too() -> None:
    """The local strengths come lifted already; ``lift`` lowers the server's for the mean."""
    candidates = [("same", BOTH_MEAN, BOTH_MEAN)]
    assert added([], candidates, max_items=3, eligible=set()) == ["same"]
    assert added([], candidates, max_items=3, eligible=set(), lift=1.0) == []
    stronger_server = [("same", BOTH_MEAN + 1.0, BOTH_MEAN)]
    assert added([], stronger_server, max_items=3, eligible=set(), lift=1.0) == ["same"]


def test_a_bridged_same_script_candidate_is_not_added_on_the_mean() -> None:
    """Found only by the bridged search: no server strength for the prompt itself."""
    candidates = [("bridged", BOTH_MEAN + 3, BOTH_MEAN + 3)]
    keys, why = decide([], candidates, max_items=3, eligible=set(), bridged={"bridged"})
    assert (keys, why) == ([], {"bridged": "other_script_only"})


def test_a_same_script_addition_stays_within_the_margin_and_the_cap() -> None:
    best = BOTH_MEAN + fusion.MARGIN + 3.0
    candidates = [
        ("best", BOTH_MEAN, best),
        ("neighbour", 2 * BOTH_MEAN, best - fusion.MARGIN - 0.1),
        ("second", BOTH_MEAN, best - 1.0),
    ]
    keys, why = decide([], candidates, max_items=1, eligible=set())
    assert keys == ["best"]
    assert why == {"neighbour": "below_best", "second": "item_cap"}


def test_a_bridged_candidate_is_added_only_as_the_best_local_strength_over_its_bar() -> None:
    """Found only by the bridged search: its server value is not read (here far below the
    floor, and far above agreement, to no effect); it needs ``BRIDGED_STRONG`` and the best
    local strength of all the candidates."""
    over = BRIDGED_STRONG + 0.1
    best = [("bridged", SERVER_FLOOR - 5, over), ("plain", 0.0, over - 1)]
    assert added([], best, max_items=3, bridged={"bridged"}) == ["bridged"]
    # another candidate stands higher locally: not added, whatever the server said
    beaten = [("bridged", SERVER_AGREE + 5, over), ("plain", SERVER_FLOOR - 5, over + 0.5)]
    keys, why = decide([], beaten, max_items=3, bridged={"bridged"})
    assert "bridged" not in keys and why["bridged"] == "bridged_not_best"
    # the best, but under the bar (though over the plain candidates' strong rule)
    under = [("bridged", SERVER_AGREE + 5, BRIDGED_STRONG - 0.1)]
    assert BRIDGED_STRONG - 0.1 >= fusion.STRONG
    keys, why = decide([], under, max_items=3, bridged={"bridged"})
    assert keys == [] and why["bridged"] == "bridged_not_best"
