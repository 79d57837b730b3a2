"""The scrubber's cost per 64 kB turn, per kind of text, as the Stop capture path pays it.

    python scripts/bench_scrub.py [--runs 60] [--size 65536] [--seeds 3] [--profile KIND]

For each kind of turn (``tests/support/scrub_texts``: prose, code, logs, JSON tool output,
mixed; a corpus row, secret or hard negative, spliced in every ~8 kB, so the detectors do
real work and the scrubber its second pass) it times ``--runs`` calls rotating over
``--seeds`` texts, in CPU time (``time.process_time``: on a shared machine wall time
measures the neighbours; ``--wall`` for ``time.perf_counter``):

- ``scrub``: ``ovhooks.capture.scrub.scrub`` alone (the issue-14 budget: 5 ms per 64 kB);
- ``turn``: what capture does to a turn's text on the hook path
  (``sanitize.strip_injected``, then the ``_Cleaner`` the Stop worker calls, which drops NUL
  characters and scrubs);
- ``copy``: copying the text (``text[1:]``), the floor of any pass over it;
- ``lower``: ``text.lower()``, the cheapest full pass the scrubber itself makes.

Median and p95 in milliseconds. ``cold`` is the first scrub of a mixed turn in a fresh
interpreter (expressions compile on first use; hooks are fresh processes), best of 3.
``--profile KIND`` prints a cProfile of ``scrub`` on that kind instead.

``--record-equivalence`` writes the digests of today's scrub of the equivalence cases
(``tests/support/scrub_texts.equivalence_cases``) to ``tests/fixtures/scrub/equivalence.json``,
which ``tests/capture/test_scrub_equivalence.py`` holds every later scrubber to. Record only
with an implementation whose output is the reference (a speed change must not re-record).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _timings(
    fn: Callable[[str], object], texts: list[str], runs: int, clock: Callable[[], float]
) -> list[float]:
    for text in texts:
        fn(text)  # warm: compiled expressions, caches
    out = []
    for i in range(runs):
        text = texts[i % len(texts)]
        start = clock()
        fn(text)
        out.append((clock() - start) * 1000)
    return out


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _hook_turn() -> Callable[[str], object]:
    from ovhooks.capture import CaptureOptions, _Cleaner
    from ovhooks.capture.sanitize import strip_injected

    clean = _Cleaner(CaptureOptions(), {})
    return lambda text: clean(strip_injected(text))


def _cold_ms(size: int) -> float:
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]);"
        "from tests.support.scrub_texts import turn; t = turn('mixed', int(sys.argv[2]));"
        "from ovhooks.capture.scrub import scrub;"
        "s = time.perf_counter(); scrub(t); print((time.perf_counter() - s) * 1000)"
    )
    runs = []
    for _ in range(3):
        cmd = [sys.executable, "-c", code, str(ROOT), str(size)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        runs.append(float(out))
    return min(runs)


def _profile(kind: str, size: int) -> None:
    import cProfile
    import pstats

    from ovhooks.capture.scrub import scrub
    from tests.support.scrub_texts import turn

    text = turn(kind, size)
    scrub(text)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        scrub(text)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def _record_equivalence() -> None:
    import json

    from ovhooks.capture.scrub import scrub
    from tests.support.scrub_texts import (
        EQUIVALENCE_FIXTURE,
        equivalence_cases,
        input_digest,
        outcome_digest,
    )

    cases = {}
    for name, text, emails, phones in equivalence_cases():
        out, counts = scrub(text, emails=emails, phones=phones)
        cases[name] = [input_digest(text), outcome_digest(out, counts)]
    path = ROOT / "tests" / "fixtures" / EQUIVALENCE_FIXTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{json.dumps(name)}: {json.dumps(cases[name])}" for name in sorted(cases)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", "utf-8")  # a case a line
    print(f"{len(cases)} cases recorded in {path.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--size", type=int, default=65_536)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--profile", metavar="KIND")
    parser.add_argument("--wall", action="store_true", help="wall time, not CPU time")
    parser.add_argument("--record-equivalence", action="store_true")
    args = parser.parse_args(argv)
    if args.record_equivalence:
        _record_equivalence()
        return 0
    if args.profile:
        _profile(args.profile, args.size)
        return 0

    from ovhooks.capture.scrub import scrub
    from tests.support.scrub_texts import KINDS, turn

    ops: dict[str, Callable[[str], object]] = {
        "scrub": scrub,
        "turn": _hook_turn(),
        "copy": lambda text: text[1:],
        "lower": str.lower,
    }
    clock = time.perf_counter if args.wall else time.process_time
    unit = "wall" if args.wall else "CPU"
    print(
        f"{args.size // 1024} kB turns, {args.runs} runs over {args.seeds} texts a kind, ms {unit}"
    )
    print("| kind | scrub median | scrub p95 | turn median | turn p95 | copy | lower |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in KINDS:
        texts = [turn(kind, args.size, seed) for seed in range(args.seeds)]
        cells = []
        for name, fn in ops.items():
            ms = _timings(fn, texts, args.runs, clock)
            cells.append(f"{statistics.median(ms):.2f}")
            if name in ("scrub", "turn"):
                cells.append(f"{_p95(ms):.2f}")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    print(f"- cold (first scrub of a mixed turn in a fresh process): {_cold_ms(args.size):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
