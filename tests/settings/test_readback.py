"""``readback``: a stored value as a time, a count, a number or a text, else unknown."""

from __future__ import annotations

import time

import pytest

from ovhooks.settings.readback import LATEST_TIME, count, moment, number, text

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "stored", ["yesterday", NAN, INF, -INF, 1e308, LATEST_TIME + 1, 0, -5, True, None, [1], {}]
)
def test_what_is_not_a_time_is_unknown(stored: object) -> None:
    assert moment(stored) is None


def test_every_time_it_accepts_is_one_the_clock_functions_take() -> None:
    for stored in (1, 1.5, 1_700_000_000, LATEST_TIME):
        at = moment(stored)
        assert at == float(stored)
        time.localtime(at)
        time.gmtime(at)


@pytest.mark.parametrize("stored", ["many", "3", NAN, INF, 2.5, True, None, b"3"])
def test_what_is_not_a_count_is_unknown(stored: object) -> None:
    assert count(stored) is None


def test_counts_and_numbers() -> None:
    assert (count(3), count(3.0), count(0)) == (3, 3, 0)
    assert (number(0.25), number(2), number(NAN), number("1"), number(False)) == (
        0.25,
        2.0,
        None,
        None,
        None,
    )


def test_text_decodes_a_blob_and_drops_the_rest() -> None:
    assert text("plain") == "plain"
    assert text(b"caf\xc3\xa9 \xff") == "café \ufffd"
    assert (text(None), text(7), text(["a"])) == ("", "", "")
