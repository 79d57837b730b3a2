"""Print the scrubber's figures on its corpus as the Markdown tables of docs/PRIVACY.md.

    python scripts/scrub_report.py            # tests/fixtures/secrets
    python scripts/scrub_report.py --fresh    # the issue-22 families, tests/fixtures/secrets_fresh
    python scripts/scrub_report.py --blind    # their blind set, tests/fixtures/secrets_blind

Recall (share of secret placements with nothing of the secret left) and false positives
(share of hard-negative placements altered) per family and split, through the real Stop
capture path for both hosts (user text, assistant text, tool input, tool output), plus the
scrubber's own CPU time per 100 kB of text.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _isolate() -> None:
    home = tempfile.mkdtemp(prefix="ovhooks-report-")
    os.environ["HOME"] = home
    os.environ["OVHOOKS_STATE_DIR"] = os.path.join(home, "state")
    for var in list(os.environ):
        if var.startswith(("OPENVIKING_", "CODEX_", "CLAUDE_")) or var in ("OVHOOKS_CONFIG",):
            del os.environ[var]


def _cpu_ms_per_100k() -> float:
    from ovhooks.capture.scrub import scrub
    from tests.support.secret_corpus import load

    rows = load("negatives.jsonl") + load("secrets.jsonl")[::50]
    prose = (ROOT / "README.md").read_text("utf-8") + (ROOT / "docs" / "ARCHITECTURE.md").read_text(
        "utf-8"
    )
    parts: list[str] = []
    i = 0
    while sum(len(p) for p in parts) < 102_400:
        parts.append(prose[(i * 1500) % len(prose) :][:1500])
        parts.extend(r["text"] for r in rows[i % 25 :: 25][:3])
        i += 1
    text = "\n".join(parts)[:102_400]
    scrub(text)
    best = float("inf")
    for _ in range(7):
        start = time.process_time()
        scrub(text)
        best = min(best, time.process_time() - start)
    return best * 1000


def main(argv: list[str] | None = None) -> int:
    _isolate()
    from tests.support.secret_corpus import BLIND, CORPUS, FRESH, figures, load, rates

    args = sys.argv[1:] if argv is None else argv
    corpus = FRESH if "--fresh" in args else BLIND if "--blind" in args else CORPUS
    secrets, negatives = load("secrets.jsonl", corpus), load("negatives.jsonl", corpus)
    secret_families = sorted({r["family"] for r in secrets})
    negative_families = sorted({r["family"] for r in negatives})
    hosts = {}
    for host in ("codex", "claude"):
        with tempfile.TemporaryDirectory() as tmp:
            hosts[host] = figures(host, Path(tmp), corpus)
    for figure, _families, rows, flip in (
        ("recall", secret_families, secrets, False),
        ("false positives", negative_families, negatives, True),
    ):
        print(f"| family | split | rows | {figure} codex | {figure} claude |")
        print("|---|---|---:|---:|---:|")
        for family, split in sorted({(r["family"], r["split"]) for r in rows}):
            n = sum(r["family"] == family and r["split"] == split for r in rows)
            values = [rates(hosts[h][0], {family}, split) for h in hosts]
            cells = [f"{1 - v if flip else v:.3f}" for v in values]
            print(f"| {family} | {split} | {n} | " + " | ".join(cells) + " |")
        print()
    print("| split | recall codex | recall claude | fp codex | fp claude |")
    print("|---|---:|---:|---:|---:|")
    for split in ("tune", "heldout", "all"):
        rec = [f"{rates(hosts[h][0], set(secret_families), split):.3f}" for h in hosts]
        fp = [f"{1 - rates(hosts[h][0], set(negative_families), split):.3f}" for h in hosts]
        print(f"| {split} | " + " | ".join(rec + fp) + " |")
    print()
    for host, (_table, misses, seconds, size) in hosts.items():
        print(
            f"- {host}: {size / 1024:.0f} kB captured by one Stop in {seconds:.2f} s; "
            f"misses: {', '.join(misses[:12]) or 'none'}"
        )
    print(f"- scrubber CPU time: {_cpu_ms_per_100k():.1f} ms per 100 kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
