"""Print the scrubber's figures on its corpus as the Markdown tables of docs/PRIVACY.md.

    python scripts/scrub_report.py

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


def main() -> int:
    _isolate()
    from tests.support.secret_corpus import figures, load, rates

    secrets, negatives = load("secrets.jsonl"), load("negatives.jsonl")
    secret_families = sorted({r["family"] for r in secrets})
    negative_families = sorted({r["family"] for r in negatives})
    split_of = {r["family"]: r["split"] for r in secrets + negatives}
    hosts = {}
    for host in ("codex", "claude"):
        with tempfile.TemporaryDirectory() as tmp:
            hosts[host] = figures(host, Path(tmp))
    for figure, families, rows, flip in (
        ("recall", secret_families, secrets, False),
        ("false positives", negative_families, negatives, True),
    ):
        print(f"| family | split | rows | {figure} codex | {figure} claude |")
        print("|---|---|---:|---:|---:|")
        for family in families:
            n = sum(r["family"] == family for r in rows)
            values = [rates(hosts[h][0], {family}, "all") for h in hosts]
            cells = [f"{1 - v if flip else v:.3f}" for v in values]
            print(f"| {family} | {split_of[family]} | {n} | " + " | ".join(cells) + " |")
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
