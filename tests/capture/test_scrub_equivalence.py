"""The scrubber's output, byte for byte, on a broad deterministic input set (issue 14).

The digests in ``tests/fixtures/scrub/equivalence.json`` were recorded with the scrubber as it
was before its speed work (commit c4404a0); a faster scrubber must give the same text and the
same counts on every case: generated 64 kB turns of each kind, small turns dense with corpus
rows, every corpus row alone and glued to the next, corpus rows spliced into generated text
at random points (some with e-mail and phone scrubbing on), and secrets glued end to end, 46
of which need the scrubber's later passes (a scrubber that stops after one pass fails them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ovhooks.capture import scrub_needles
from ovhooks.capture.scrub import scrub
from tests.support.scrub_texts import (
    EQUIVALENCE_FIXTURE,
    equivalence_cases,
    input_digest,
    outcome_digest,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / EQUIVALENCE_FIXTURE


@pytest.fixture(params=["automaton", "searches"])
def needle_search(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of finding the needles (scrub_needles): with pyahocorasick, and the
    str.find fallback of an install without it."""
    if request.param == "searches":
        monkeypatch.setattr(scrub_needles, "_automaton", lambda literals: None)
    else:
        assert scrub_needles._automaton(("key",)) is not None, "pyahocorasick is installed"
    return str(request.param)


def test_scrub_output_is_unchanged_on_every_case(needle_search: str) -> None:
    recorded: dict[str, list[str]] = json.loads(FIXTURE.read_text("utf-8"))
    cases = equivalence_cases()
    assert {name for name, *_ in cases} == set(recorded)
    redacted = 0
    changed = []
    for name, text, emails, phones in cases:
        want_input, want_out = recorded[name]
        assert input_digest(text) == want_input, f"{name}: the case's input changed"
        out, counts = scrub(text, emails=emails, phones=phones)
        redacted += bool(counts)
        if outcome_digest(out, counts) != want_out:
            changed.append(name)
    assert not changed, f"{len(changed)} cases scrub differently: {changed[:20]}"
    # the set exercises the detectors, not just the scan
    assert redacted >= len(cases) // 3
