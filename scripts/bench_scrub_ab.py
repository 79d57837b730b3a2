"""The scrubber at a git revision against the working tree, timed in one process.

    python scripts/bench_scrub_ab.py REV [--runs 30] [--seeds 3]

On a shared machine the neighbours' load moves a figure by a third between two runs, so a
speed change is measured A/B: REV's package is extracted (``git archive``) under another
name, both scrubbers run on the same texts in turn, and each figure is the median and the
best of ``--runs`` CPU timings. The texts are ``bench_scrub``'s 64 kB turns of five kinds,
with a corpus row (secret or hard negative) every ~8 kB and without any.

The last line times what UserPromptSubmit scrubs for a pasted 64 kB prompt with three
64 kB earlier turns (``recall._outbound_query``'s scrubs), in the working tree only.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ALIAS = "ovhooks_at_rev"

Scrub = Callable[[str], object]


def _scrub_at(rev: str, into: pathlib.Path) -> Scrub:
    """``scrub`` of the package at ``rev``, imported as ``ovhooks_at_rev``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "ovhooks"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    package = into / ALIAS
    (into / "ovhooks").rename(package)
    for path in package.rglob("*.py"):
        source = path.read_text("utf-8")
        path.write_text(re.sub(r"\bovhooks\.", f"{ALIAS}.", source), "utf-8")
    sys.path.insert(0, str(into))
    module = importlib.import_module(f"{ALIAS}.capture.scrub")
    scrub: Scrub = module.scrub
    return scrub


def _ms(fn: Scrub, text: str) -> float:
    start = time.process_time()
    fn(text)
    return (time.process_time() - start) * 1000


def _row(label: str, texts: list[str], old: Scrub, new: Scrub, runs: int) -> str:
    for text in texts:  # warm: compiled expressions
        old(text)
        new(text)
    times: dict[str, list[float]] = {"old": [], "new": []}
    for i in range(runs):
        text = texts[i % len(texts)]
        times["old"].append(_ms(old, text))
        times["new"].append(_ms(new, text))
    cells = [f"{statistics.median(times[k]):.2f} / {min(times[k]):.2f}" for k in ("old", "new")]
    return f"| {label} | {cells[0]} | {cells[1]} |"


def _hook_path_ms(runs: int) -> float:
    from ovhooks.capture.scrub import clean_outbound_head
    from ovhooks.recall.query import PROMPT_QUERY_CHARS, TURN_QUERY_CHARS
    from tests.support.scrub_texts import turn

    prompt = turn("mixed", 65_536, 0)
    earlier = [turn(kind, 65_536, 1) for kind in ("prose", "code", "logs")]

    def hook(_: str) -> None:
        clean_outbound_head(prompt, PROMPT_QUERY_CHARS)
        for text in earlier:
            clean_outbound_head(text, TURN_QUERY_CHARS)

    hook("")
    return statistics.median(_ms(hook, "") for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)

    from ovhooks.capture.scrub import scrub
    from tests.support.scrub_texts import KINDS, turn

    with tempfile.TemporaryDirectory() as tmp:
        old = _scrub_at(args.rev, pathlib.Path(tmp))
        print(f"64 kB turns, ms CPU, median / best of {args.runs} runs, interleaved")
        print(f"| kind | {args.rev} | working tree |")
        print("|---|---:|---:|")
        for secrets in (True, False):
            for kind in KINDS:
                every = 8192 if secrets else 10**9
                texts = [turn(kind, 65_536, s, secret_every=every) for s in range(args.seeds)]
                label = kind if secrets else f"{kind}, no secret"
                print(_row(label, texts, old, scrub, args.runs))
    print(
        "- UserPromptSubmit's scrubs for a 64 kB prompt and three 64 kB earlier turns "
        f"(working tree): {_hook_path_ms(args.runs):.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
