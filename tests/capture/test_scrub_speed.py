"""The scrubber's cost per 64 kB turn, pinned in a way a busy machine does not break.

Absolute times on the shared 2-core runners vary threefold with the neighbours' load, so the
scrub of each kind of turn (``tests/support/scrub_texts``) is measured against a baseline
made of the same kind of work (a regex scan of the same text and a dict update per word),
timed in the same process, interleaved, best of several runs. Load slows both; the ratio
stays. Figures behind the bound (docs/PRIVACY.md): the scrubber before its speed work cost
50.5 baselines over the five kinds (prose 6.9, code 9.9, logs 10.6, JSON 12.6, mixed 10.5),
after the first round 24.6-24.8 (3.3-3.5, 5.8-5.9, 5.2, 5.7-5.8, 4.4-4.6; commit 9e7481b),
after the second 14.0-14.3 (2.2, 3.1-3.2, 2.7-2.9, 3.2-3.3, 2.7). The bound, 20, fails the
first round's scrubber and leaves the second's 40 % of headroom.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from ovhooks.capture.scrub import scrub
from tests.support.scrub_texts import KINDS, turn

_WORD = re.compile(r"[A-Za-z0-9_]+")
BOUND = 20.0


def _baseline(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word in _WORD.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return counts


def _best(fn: Callable[[str], object], text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return best


def _ratios(runs: int = 7) -> dict[str, float]:
    ratios = {}
    for kind in KINDS:
        text = turn(kind)
        scrub(text)  # compile what this kind needs
        base = _best(_baseline, text, runs)
        ratios[kind] = _best(scrub, text, runs) / base
    return ratios


def test_scrub_costs_few_baselines_per_64k_turn() -> None:
    # a second and third round only when a round is over the bound: a burst of load on one
    # side of a round is not the scrubber's cost
    rounds = []
    for _ in range(3):
        ratios = _ratios()
        rounds.append(ratios)
        if sum(ratios.values()) <= BOUND:
            return
    best = min(rounds, key=lambda r: sum(r.values()))
    detail = ", ".join(f"{k} {v:.1f}" for k, v in best.items())
    raise AssertionError(f"scrub costs {sum(best.values()):.1f} baselines > {BOUND}: {detail}")


def test_many_keys_on_one_line_cost_in_proportion_to_the_text() -> None:
    # A campaign's MCP query: a key name repeated on one line. Each key looked back for its
    # line's start and each redacted span searched on to the next token: 4 times the text
    # cost about 16 times the time (200 KB took 42 s). Linear is 4; the bound leaves room.
    for key in ("x-api-key: ", "Authorization: "):
        short, long = key * 2_000, key * 8_000
        growth = _best(scrub, long, 3) / _best(scrub, short, 3)
        assert growth < 8.0, (key, round(growth, 1))
