"""``ui.recall_log``: each recall log line in one typed shape, whatever the line holds."""

from __future__ import annotations

from typing import Any

import pytest

from ovhooks.ui.recall_log import entry, latest, per_memory, since

GOOD: dict[str, Any] = {
    "t": 1_700_000_000.5,
    "host": "claude",
    "session": "cc-1",
    "peer": "proj",
    "reason": "ok",
    "prompt": "which port?",
    "tokens": 40,
    "items": [{"uri": "viking://a", "score": 0.9}],
}


def test_a_good_line_reads_as_written() -> None:
    assert entry(GOOD) == GOOD


@pytest.mark.parametrize(
    ("field", "stored", "read"),
    [
        ("t", "abc", None),
        ("t", float("nan"), None),
        ("t", 1e308, None),
        ("tokens", "many", None),
        ("session", 7, ""),
        ("items", "x", []),
        ("items", {"uri": "viking://a"}, []),
        ("items", [{"uri": "viking://a"}], [{"uri": "viking://a", "score": None}]),
        ("items", [{"score": 1}, 5, {"uri": 3}], []),
    ],
)
def test_an_unreadable_field_is_unknown_and_the_rest_stands(
    field: str, stored: object, read: object
) -> None:
    got = entry({**GOOD, field: stored})
    assert got[field] == read  # type: ignore[literal-required]
    assert got["prompt"] == "which port?"


def test_a_line_of_unknown_time_is_counted_but_never_new() -> None:
    log = [entry(GOOD), entry({**GOOD, "t": "abc"})]
    assert per_memory(log) == {"viking://a": (2, 1_700_000_000.5)}
    assert since(log, 0.0) == [log[0]]
    assert latest(log) == 1_700_000_000.5
    unknown = [entry({**GOOD, "t": None})]
    assert per_memory(unknown) == {"viking://a": (1, None)} and latest(unknown) == 0.0
