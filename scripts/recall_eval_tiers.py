"""Replay a second tier on traced recall runs: the best candidate the decision dropped,
shown as a one-line hint (its URI) when it is plausible (``recall_eval.py --trace``).

Issue 39 asks to measure a two-tier block: full text when confident, a one-line hint with its
URI when plausible, judged by hits and by the tokens spent on wrong memories per unrelated
prompt. The replay is exact for what the hook would add: the decision is unchanged, and the
hint is chosen from the candidates the trace recorded with their evidence.

    python scripts/recall_eval_tiers.py RUN.json [RUN.json ...] [--bars 3,4,5] [--split dev]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ovhooks.capture.tokens import estimate_tokens
from ovhooks.recall.render import CLOSE, INTRO, OPEN
from ovhooks.semantic.fusion import CROSS_SCRIPT_SCALE

FRAME_TOKENS = estimate_tokens(f"{OPEN}\n{INTRO}\n{CLOSE}")
UNRELATED = "unrelated"


def weighed(candidate: dict[str, Any]) -> float | None:
    ev = candidate.get("evidence") or {}
    strength = ev.get("semantic")
    if not isinstance(strength, int | float):
        return None
    return float(strength) * (CROSS_SCRIPT_SCALE if ev.get("cross_script") else 1.0)


def plausible(row: dict[str, Any], bar: float, lead: float) -> dict[str, Any] | None:
    """The dropped candidate the hint tier would show for ``row``, or None."""
    dropped = []
    for cand in row.get("trace", {}).get("candidates", []):
        strength = weighed(cand)
        if cand.get("decision") == "dropped" and strength is not None:
            ev = cand.get("evidence") or {}
            if ev.get("reason") == "history_needs_words" or "/history" in str(cand["uri"]):
                continue
            dropped.append((strength, cand))
    if not dropped:
        return None
    dropped.sort(key=lambda pair: -pair[0])
    best, cand = dropped[0]
    runner_up = dropped[1][0] if len(dropped) > 1 else None
    if best < bar or (runner_up is not None and best - runner_up < lead):
        return None
    return cand


def hint_tokens(cand: dict[str, Any], block_tokens: int) -> int:
    line = f"- [memory {0.0:.2f}] not shown, read if relevant: {cand['uri']}"
    return estimate_tokens(line + "\n") + (0 if block_tokens else FRAME_TOKENS)


def replay(rows: list[dict[str, Any]], bar: float, lead: float) -> dict[str, dict[str, float]]:
    """Per class: full hit, hit with hints, clean of text, clean of anything, wrong tokens."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["class"]].append(row)
        if row["class"] != UNRELATED:
            groups["relevant"].append(row)
    out: dict[str, dict[str, float]] = {}
    for name, members in sorted(groups.items()):
        full = tiered = text_clean = all_clean = 0
        tokens = 0.0
        for row in members:
            cand = plausible(row, bar, lead)
            hinted_right = cand is not None and any(m in row["expected"] for m in cand["shows"])
            full += bool(row["hit"])
            tiered += bool(row["hit"]) or hinted_right
            text_clean += row["shown_items"] == 0
            all_clean += row["items"] == 0 and cand is None
            tokens += row["tokens"] + (hint_tokens(cand, row["tokens"]) if cand else 0)
        n = len(members)
        out[name] = {
            "n": n,
            "hit": full / n,
            "hit_or_hint": tiered / n,
            "clean_text": text_clean / n,
            "clean_all": all_clean / n,
            "tokens": tokens / n,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--bars", default="off,3,3.5,4,4.5,5,6")
    parser.add_argument("--lead", type=float, default=0.0)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    args = parser.parse_args()
    for run in args.runs:
        rows = [r for r in json.loads(run.read_text())["rows"] if r["split"] == args.split]
        if not rows or "trace" not in rows[0]:
            print(f"{run}: no traced rows of split {args.split}", file=sys.stderr)
            return 2
        print(f"\n## {run.stem} ({args.split}, lead {args.lead})\n")
        print("| bar | class | n | hit | hit or hint | clean text | clean all | tokens |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for bar_text in args.bars.split(","):
            bar = float("inf") if bar_text == "off" else float(bar_text)
            for name, f in replay(rows, bar, args.lead).items():
                if name in ("relevant", UNRELATED) or bar_text == "off":
                    print(
                        f"| {bar_text} | {name} | {f['n']:.0f} | {f['hit']:.2f} | "
                        f"{f['hit_or_hint']:.2f} | {f['clean_text']:.2f} | "
                        f"{f['clean_all']:.2f} | {f['tokens']:.0f} |"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
