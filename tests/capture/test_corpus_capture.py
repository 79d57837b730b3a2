"""The secrets corpus through the real capture path, for both hosts (issue 14, item 6):
each row in user text, assistant text, tool input and tool output, Stop with the worker
inline, a recording fake server. Recall >= 0.98 and false positives <= 0.02 per split."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.secret_corpus import figures, load, rates


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_corpus_through_stop(host: str, tmp_path: Path) -> None:
    table, misses, seconds, size = figures(host, tmp_path)
    secret_families = {r["family"] for r in load("secrets.jsonl")}
    negative_families = {r["family"] for r in load("negatives.jsonl")}
    for split in ("tune", "heldout"):
        recall = rates(table, secret_families, split)
        fp = 1 - rates(table, negative_families, split)
        print(f"\n{host} {split}: recall {recall:.3f}, fp {fp:.3f}; misses {misses[:20]}")
        assert recall >= 0.98, misses
        assert fp <= 0.02, misses
    print(f"{host}: {size / 1024:.0f} kB of transcript text captured in {seconds:.2f} s")
