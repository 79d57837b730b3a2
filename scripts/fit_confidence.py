"""Fit the local store's recall confidence (issue 39): P(a shown memory is a right one | its
score), and the operating curve of ``OVHOOKS_RECALL_MIN_CONFIDENCE``.

    .venv/bin/python scripts/fit_confidence.py [--card docs/RECALL_CONFIDENCE.md]

Data: the recorded real-hook runs in ``docs/recall_eval`` (local store, ``remember`` path):
every item a block showed, with the score it was shown at, labelled right when it carries a
memory the prompt expects. The **dev** rows fit a one-feature logistic model (Newton steps, no
dependency); the **held-out** rows are only replayed: the setting drops shown items under
the threshold, so each prompt's block at a threshold is the recorded one minus those items,
and hit, clean and precision are counted again per set and class. Prints the two numbers to
put in ``ovhooks/recall/confidence.py`` and, with ``--card``, writes the model card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from ovhooks.recall.confidence import probability  # noqa: E402

# set name -> its recorded run: local store, remember path, the embedding service warm and
# given 2,000 ms (a quiet machine's answers: under load an 80 ms deadline misses some), made by
#   scripts/recall_eval.py --set SET --load remember --env OVHOOKS_SEMANTIC_DEADLINE_MS=2000
#     --json docs/recall_eval/confidence-SET-local-remember.json
SETS = ("issue12", "batch3", "batch4", "batch5", "firstuse")
RUNS = {name: f"docs/recall_eval/confidence-{name}-local-remember.json" for name in SETS}
THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)
ITEM = re.compile(r"^- \[\S+ ([0-9.]+)\] (?!not shown)")


def shown_items(row: dict[str, object]) -> list[tuple[float, bool]]:
    """(score, right) for each memory line the recorded block showed, in order."""
    context = str(row.get("context") or "")
    scores = [float(m.group(1)) for m in map(ITEM.match, context.splitlines()) if m]
    memories = row.get("shown_memories")
    listed = row.get("expected")
    expected = {str(e) for e in listed} if isinstance(listed, list) else set()
    out = []
    for k, score in enumerate(scores):
        ids = memories[k] if isinstance(memories, list) and k < len(memories) else []
        out.append((score, bool({str(i) for i in ids} & expected)))
    return out


def fit(points: list[tuple[float, bool]], l2: float = 1e-3) -> tuple[float, float]:
    """Logistic regression P(right) = 1 / (1 + exp(-(a + b * score))), by Newton's method."""
    a = b = 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in points:
            p = probability(x, a, b)
            w = p * (1 - p)
            ga += p - y
            gb += (p - y) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        gb += l2 * b
        hbb += l2
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-9:
            break
    return round(a, 4), round(b, 4)


def replay(rows: list[dict[str, object]], a: float, b: float, t: float) -> dict[str, float]:
    """Per class of the rows: hit (relevant) or clean (unrelated), precision, with the items
    under ``t`` taken out of each recorded block."""
    by: dict[str, list[int]] = {}
    shown = right = 0
    for row in rows:
        kept = [(s, y) for s, y in shown_items(row) if probability(s, a, b) >= t]
        shown += len(kept)
        right += sum(y for _s, y in kept)
        cls = str(row["class"])
        good = (not kept) if cls == "unrelated" else any(y for _s, y in kept)
        by.setdefault(cls, []).append(int(good))
        if cls != "unrelated":
            by.setdefault("relevant", []).append(int(good))
    out = {cls: sum(v) / len(v) for cls, v in by.items()}
    out["precision"] = right / shown if shown else 1.0
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--card", help="write the model card here")
    args = parser.parse_args()
    rows: dict[str, list[dict[str, object]]] = {}
    digest = hashlib.sha256()
    for name, path in RUNS.items():
        with open(os.path.join(REPO, path), "rb") as handle:
            data = handle.read()
        digest.update(data)
        rows[name] = json.loads(data)["rows"]
    dev = [p for rs in rows.values() for r in rs if r["split"] == "dev" for p in shown_items(r)]
    a, b = fit(dev)
    print(f"fitted on {len(dev)} dev items ({sum(y for _s, y in dev)} right): A={a} B={b}")
    lines = [
        f"| set | split | threshold | {' | '.join(COLUMNS)} |",
        "|---|---|---:|" + "---:|" * len(COLUMNS),
    ]
    for name, rs in rows.items():
        for split in ("dev", "heldout"):
            part = [r for r in rs if r["split"] == split]
            for t in THRESHOLDS:
                got = replay(part, a, b, t)
                cells = " | ".join(f"{got[c]:.2f}" if c in got else "" for c in COLUMNS)
                lines.append(f"| {name} | {split} | {t:.1f} | {cells} |")
    table = "\n".join(lines)
    print(table)
    if args.card:
        with open(args.card, "w", encoding="utf-8") as handle:
            handle.write(
                CARD.format(
                    a=a,
                    b=b,
                    n=len(dev),
                    right=sum(y for _s, y in dev),
                    sha=digest.hexdigest()[:16],
                    table=table,
                    runs="\n".join(f"- {k}: `{v}`" for k, v in RUNS.items()),
                    scores=_score_points(a, b),
                )
            )
    return 0


COLUMNS = ("direct", "paraphrase", "long", "crosslingual", "relevant", "unrelated", "precision")


def _score_points(a: float, b: float) -> str:
    return ", ".join(f"{s:.2f} → {probability(s, a, b):.2f}" for s in (0.55, 0.6, 0.7, 0.8, 0.9))


CARD = """# Recall confidence: the local store's model card

Written by `scripts/fit_confidence.py --card`; do not edit by hand.

**What it is.** `ovhooks/recall/confidence.py` turns the score a memory is shown at (the
local store's fused score: lexical evidence and meaning, 0.55 = the recall bar) into the
probability that it is a right memory for the prompt: `1 / (1 + exp(-(A + B * score)))`
with **A = {a}, B = {b}**. Scores to probabilities: {scores}.

**The setting.** `OVHOOKS_RECALL_MIN_CONFIDENCE` (config.toml `recall_min_confidence`,
default 0) drops shown memories under that probability. At 0 recall is the rules' decision
unchanged; a higher value trades hits for fewer wrong memories. It only removes: a memory
the decision did not admit is never added. It applies to the local store; on an OpenViking
server the score is the server model's own scale, for which no labelled run is recorded,
so the setting does not apply there (the viewer's "why" page shows no confidence for such
memories). `ovhooks status` shows the value in force and where it came from.

**Training data.** Dev rows of these recorded real-hook runs (sha256 of the files, first 16
hex: `{sha}`): {n} shown items, {right} right.
{runs}

**Operating curve.** Each recorded block with its items under the threshold taken out (an
exact replay: the setting only removes items after the decision). Relevant classes: hit;
unrelated: clean (nothing shown); precision over the items still shown. Held-out rows were
not used to fit.

{table}
"""


if __name__ == "__main__":
    raise SystemExit(main())
