"""Would a decision learned from the labelled data beat the fusion's rules? Measured, not built.

Issue 39 asks for a small model (logistic regression over a few features) whose output is
the probability that a candidate helps, trained on every set's dev split, with one threshold
for the user. This fits one on the traced runs (``recall_eval.py --trace``, local store: every
admitted candidate and the first ten dropped, with their evidence) and compares, on the
held-out splits it never saw, its operating curve with the rules' own (the rules' admissions
with a rising minimum on their sort score, as ``OVHOOKS_RECALL_MIN_CONFIDENCE`` would drop).
Per candidate: its lexical score and whether it meets the bar, its semantic strength (scaled
across scripts as the rules do), its lead over the best other candidate and whether it is the
best, whether it shares a word, its script, history, person, the number of candidates and the
prompt's length. A prompt's block: candidates at or above the threshold, best three.

    python scripts/recall_eval_learned.py [--sets firstuse,batch3,...]
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from recall_eval import SETS  # noqa: E402

from ovhooks.semantic import fusion  # noqa: E402

BAR = 0.55
SHOWN = 3
TRACES = REPO / "docs" / "recall_eval"
CLASSES = ("direct", "paraphrase", "long", "crosslingual")


def rated(row: dict[str, Any]) -> list[tuple[dict[str, Any], fusion.Evidence]]:
    out = []
    for item in row["trace"]["candidates"]:
        ev = item.get("evidence") or {}
        if "rival_only" in ev and not ev.get("rival_only"):
            out.append((item, fusion.Evidence.from_dict(item["uri"], ev)))
    return out


def features(row: dict[str, Any], words: int) -> list[list[float]]:
    """One vector per rated candidate (a leading 1 for the intercept)."""
    cands = rated(row)
    known = sorted((e.weighed for _, e in cands if e.weighed is not None), reverse=True)
    out = []
    for _item, e in cands:
        s = e.weighed
        lead = 0.0
        if s is not None and len(known) > 1:
            lead = s - (known[1] if s == known[0] else known[0])
        strength = s if s is not None else 0.0
        length = math.log(1 + words)
        out.append(
            [
                *(1.0, e.lexical, float(e.lexical >= BAR), float(s is not None), strength),
                *(max(0.0, strength - 4.0), lead, float(bool(known) and s == known[0])),
                *(float(e.shared), float(e.cross_script), float(e.archive), float(e.person)),
                *(strength * float(e.shared), math.log(1 + len(cands)), length),
                e.lexical * length,
            ]
        )
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, ...]:
    """L2-regularised logistic regression by Newton's method, on standardised features."""
    mu, sd = x[:, 1:].mean(0), x[:, 1:].std(0) + 1e-9
    z = np.hstack([x[:, :1], (x[:, 1:] - mu) / sd])
    w = np.zeros(z.shape[1])
    ridge = l2 * np.diag(np.r_[0.0, np.ones(len(w) - 1)])
    for _ in range(30):
        p = 1 / (1 + np.exp(-z @ w))
        w -= np.linalg.solve((z.T * (p * (1 - p))) @ z + ridge, z.T @ (p - y) + ridge @ w)
    return w, mu, sd


def figures(blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, shown in blocks:
        good = [i for i in shown if set(i.get("shows") or []) & set(row["expected"])]
        out["precision"][0] += len(good)
        out["precision"][1] += len(shown)
        name = "clean" if row["class"] == "unrelated" else row["class"]
        ok = not shown if name == "clean" else bool(good)
        for key in (name, "relevant") if name != "clean" else (name,):
            out[key][0] += int(ok)
            out[key][1] += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="firstuse,batch3,batch4,batch5,issue12")
    args = parser.parse_args()
    rows, words = [], {}
    for name in args.sets.split(","):
        for p in importlib.import_module(SETS[name]).load()["prompts"]["prompts"]:
            cjk = sum(1 for ch in p["text"] if "\u4e00" <= ch <= "\u9fff")
            words[p["id"]] = cjk // 2 if cjk else len(p["text"].split())
        run = TRACES / f"traced-{name}-local-remember.json"
        rows += [{**r, "set": name} for r in json.loads(run.read_text())["rows"]]
    x, y = [], []
    for row in (r for r in rows if r["split"] == "dev"):
        for (item, _e), f in zip(rated(row), features(row, words[row["id"]]), strict=True):
            x.append(f)
            y.append(float(bool(set(item.get("shows") or []) & set(row["expected"]))))
    w, mu, sd = fit(np.array(x), np.array(y))
    print(f"trained on {len(x)} dev candidates ({int(sum(y))} helpful), {args.sets}\n")

    def learned(row: dict[str, Any], tau: float) -> list[dict[str, Any]]:
        fs = np.array(features(row, words[row["id"]]) or np.zeros((0, len(mu) + 1)))
        if not len(fs):
            return []
        p = 1 / (1 + np.exp(-np.hstack([fs[:, :1], (fs[:, 1:] - mu) / sd]) @ w))
        order = sorted(zip(p, (i for i, _ in rated(row)), strict=True), key=lambda t: -t[0])
        return [i for q, i in order if q >= tau][:SHOWN]

    def rules(row: dict[str, Any], floor: float) -> list[dict[str, Any]]:
        kept = [(e.order(BAR), i) for i, e in rated(row) if i.get("decision") != "dropped"]
        return [i for s, i in sorted(kept, key=lambda t: -t[0]) if s >= floor][:SHOWN]

    held = [r for r in rows if r["split"] == "heldout"]
    print("## Held-out, pooled: the operating curves\n\n| decision | point | relevant | clean |")
    print("|---|---|---:|---:|")
    curves = {
        "rules": (rules, (0.0, 0.58, 0.62, 0.66, 0.70)),
        "learned": (learned, (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)),
    }
    for name, (decide, points) in curves.items():
        for point in points:
            got = figures([(r, decide(r, point)) for r in held])
            rel, clean = got["relevant"], got["clean"]
            print(f"| {name} | {point} | {rel[0] / rel[1]:.2f} | {clean[0] / clean[1]:.2f} |")
    print("\n## Held-out per set: rules as they are; learned at 0.6\n")
    keys = ("relevant", *CLASSES, "clean", "precision")
    print("| set | decision | " + " | ".join(keys) + " |\n|---|---|" + "---:|" * len(keys))
    for name in args.sets.split(","):
        these = [r for r in held if r["set"] == name]
        for label, blocks in (
            ("rules", [(r, rules(r, 0.0)) for r in these]),
            ("learned", [(r, learned(r, 0.6)) for r in these]),
        ):
            got = figures(blocks)
            cells = [f"{got[k][0] / got[k][1]:.2f}" if got[k][1] else "-" for k in keys]
            print(f"| {name} | {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
