"""Fit the local store's recall confidence (issue 39): P(a shown memory is a right one | its
score, and whether a better memory is shown before it), and the operating curve of
``OVHOOKS_RECALL_MIN_CONFIDENCE``.

    .venv/bin/python scripts/fit_confidence.py [--card docs/RECALL_CONFIDENCE.md]

Data: the recorded real-hook runs in ``docs/recall_eval`` (local store, ``remember`` path):
every item a block showed, with the score it was shown at and whether it came after another,
labelled right when it carries a memory the prompt expects. The **dev** rows fit a logistic
model (Newton steps, no dependency); the **held-out** rows are only replayed: the setting
drops shown items under the threshold, so each prompt's block at a threshold is the recorded
one minus those items, and hit, clean and precision are counted again per set and class;
the held-out log loss and Brier score say how well calibrated the probabilities are, against
the score alone. Prints the model to put in ``ovhooks/recall/confidence.py`` and, with
``--card``, writes the model card.

``--check RUN.json ...`` also replays the fitted model on other recorded runs (an
OpenViking server's: its blocks carry the same fused score) and prints their curve.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from ovhooks.recall.confidence import Model, probability  # noqa: E402

# set name -> its recorded run: local store, remember path, the embedding service warm and
# given 2,000 ms (a quiet machine's answers: under load an 80 ms deadline misses some), made by
#   scripts/recall_eval.py --set SET --load remember --env OVHOOKS_SEMANTIC_DEADLINE_MS=2000
#     --trace --json docs/recall_eval/traced-SET-local-remember.json
SETS = ("issue12", "batch3", "batch4", "batch5", "firstuse")
RUNS = {name: f"docs/recall_eval/traced-{name}-local-remember.json" for name in SETS}
# A point to fit on: (score or strength, shown after a better memory, right).
Point = tuple[float, bool, bool]
THRESHOLDS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9)
ITEM = re.compile(r"^- \[\S+ ([0-9.]+)\] (?!not shown)")


def shown_items(row: dict[str, object]) -> list[Point]:
    """(score, after another, right) for each memory line the recorded block showed, in
    order."""
    context = str(row.get("context") or "")
    scores = [float(m.group(1)) for m in map(ITEM.match, context.splitlines()) if m]
    memories = row.get("shown_memories")
    listed = row.get("expected")
    expected = {str(e) for e in listed} if isinstance(listed, list) else set()
    out = []
    for k, score in enumerate(scores):
        ids = memories[k] if isinstance(memories, list) and k < len(memories) else []
        out.append((score, k > 0, bool({str(i) for i in ids} & expected)))
    return out


def figures(
    rows: list[dict[str, Any]], kept: Callable[[dict[str, Any]], list[bool]]
) -> dict[str, float]:
    """Per class of the rows: hit (relevant) or clean (unrelated), and precision (right among
    what relevant prompts still show, as ``recall_eval.py`` counts it), from the items
    ``kept(row)`` says are still shown (right or not)."""
    by: dict[str, list[int]] = {}
    shown = right = 0
    for row in rows:
        still = kept(row)
        cls = str(row["class"])
        if cls != "unrelated":
            shown += len(still)
            right += sum(still)
        good = (not still) if cls == "unrelated" else any(still)
        by.setdefault(cls, []).append(int(good))
        if cls != "unrelated":
            by.setdefault("relevant", []).append(int(good))
    out = {cls: sum(v) / len(v) for cls, v in by.items()}
    out["precision"] = right / shown if shown else 1.0
    return out


def fit(points: list[Point], l2: float = 1e-3, *, later: bool = True) -> Model:
    """Logistic regression of ``right`` on the score and (with ``later``) whether the item
    came after another, by Newton's method; without ``later`` its weight stays 0 (the score
    alone, for comparison)."""
    n = 3 if later else 2
    w = [0.0, 0.0, 0.0]
    for _ in range(50):
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        for x, after, y in points:
            f = (1.0, x, 1.0 if after else 0.0)[:n]
            p = probability(x, after, Model(*w))
            for i in range(n):
                grad[i] += (p - y) * f[i]
                for j in range(n):
                    hess[i][j] += p * (1 - p) * f[i] * f[j]
        for i in range(1, n):  # a little ridge on the weights, not on the intercept
            grad[i] += l2 * w[i]
            hess[i][i] += l2
        step = _solve(hess, grad)
        for i in range(n):
            w[i] -= step[i]
        if sum(abs(v) for v in step) < 1e-9:
            break
    return Model(round(w[0], 4), round(w[1], 4), round(w[2], 4))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``x`` with ``matrix @ x == vector`` (Gaussian elimination, partial pivoting)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x


def calibration(
    points: list[tuple[float | None, bool, bool]], model: Model
) -> tuple[float, float, int]:
    """How well ``model``'s probabilities match the labels over the points with a value:
    (log loss, Brier score, how many); lower is better."""
    import math

    scored = [(probability(x, after, model), y) for x, after, y in points if x is not None]
    loss = -sum(math.log(p if y else 1 - p) for p, y in scored) / len(scored)
    brier = sum((p - y) ** 2 for p, y in scored) / len(scored)
    return loss, brier, len(scored)


def _calibration_text(points: list[tuple[float | None, bool, bool]], model: Model) -> str:
    loss, brier, n = calibration(points, model)
    return f"log loss {loss:.3f}, Brier {brier:.3f} ({n} memories)"


def replay(rows: list[dict[str, Any]], model: Model, t: float) -> dict[str, float]:
    """Per class of the rows: hit (relevant) or clean (unrelated), precision, with the items
    under ``t`` taken out of each recorded block."""

    def kept(row: dict[str, Any]) -> list[bool]:
        return [y for s, later, y in shown_items(row) if probability(s, later, model) >= t]

    return figures(rows, kept)


def curve(
    runs: dict[str, list[dict[str, Any]]],
    replayed: Callable[[list[dict[str, Any]], Model, float], dict[str, float]],
    model: Model,
) -> str:
    """The operating curve as a markdown table: per set, split and threshold, each class."""
    lines = [
        f"| set | split | threshold | {' | '.join(COLUMNS)} |",
        "|---|---|---:|" + "---:|" * len(COLUMNS),
    ]
    for name, rs in runs.items():
        for split in ("dev", "heldout"):
            part = [r for r in rs if r["split"] == split]
            if not part:
                continue
            for t in THRESHOLDS:
                got = replayed(part, model, t)
                cells = " | ".join(f"{got[c]:.2f}" if c in got else "" for c in COLUMNS)
                lines.append(f"| {name} | {split} | {t:.1f} | {cells} |")
    return "\n".join(lines)


def _read(paths: list[tuple[str, str]]) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """Each run's rows by set name (the run's own when the name given is empty), and the
    first 16 hex of the files' sha256."""
    rows: dict[str, list[dict[str, Any]]] = {}
    digest = hashlib.sha256()
    for name, path in paths:
        with open(os.path.join(REPO, path), "rb") as handle:
            data = handle.read()
        digest.update(data)
        doc = json.loads(data)
        rows[name or str(doc.get("set") or os.path.basename(path))] = doc["rows"]
    return rows, digest.hexdigest()[:16]


def _fitted(
    runs: dict[str, list[dict[str, Any]]],
    items: Callable[[dict[str, Any]], list[Any]],
) -> tuple[Model, list[Point], str]:
    """The model fitted on the dev rows' items, those items, and its held-out calibration
    against the score alone."""
    dev = [p for rs in runs.values() for r in rs if r["split"] == "dev" for p in items(r)]
    points: list[Point] = [(x, later, y) for x, later, y in dev if x is not None]
    held = [p for rs in runs.values() for r in rs if r["split"] == "heldout" for p in items(r)]
    model = fit(points)
    alone = fit(points, later=False)
    checked = (
        f"with the order: {_calibration_text(held, model)}; the score alone "
        f"({alone.intercept} + {alone.slope} × score): {_calibration_text(held, alone)}"
    )
    print(
        f"fitted on {len(points)} dev items ({sum(y for *_x, y in points)} right): "
        f"Model({model.intercept}, {model.slope}, {model.later})"
    )
    print(f"held-out calibration, {checked}")
    return model, points, checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--card", help="write the model card here")
    parser.add_argument("--check", nargs="+", metavar="RUN", help="other runs to replay")
    args = parser.parse_args()
    rows, sha = _read(list(RUNS.items()))
    model, dev, checked = _fitted(rows, shown_items)
    table = curve(rows, replay, model)
    print(table)
    if args.check:
        others, _sha = _read([("", os.path.abspath(path)) for path in args.check])
        print(curve(others, replay, model))
    if args.card:
        with open(args.card, "w", encoding="utf-8") as handle:
            handle.write(
                CARD.format(
                    a=model.intercept,
                    b=model.slope,
                    c=model.later,
                    n=len(dev),
                    right=sum(y for *_x, y in dev),
                    sha=sha,
                    checked=checked,
                    table=table,
                    runs="\n".join(f"- {k}: `{v}`" for k, v in RUNS.items()),
                    scores=_points(model, (0.55, 0.6, 0.7, 0.8, 0.9)),
                )
            )
    return 0


COLUMNS = ("direct", "paraphrase", "long", "crosslingual", "relevant", "unrelated", "precision")


def _points(model: Model, values: tuple[float, ...]) -> str:
    """Values to probabilities, first and later: ``0.6 → 0.54 / 0.14``."""
    return ", ".join(
        f"{v:g} → {probability(v, False, model):.2f} / {probability(v, True, model):.2f}"
        for v in values
    )


CARD = """# Recall confidence: the local store's model card

Written by `scripts/fit_confidence.py --card`; do not edit by hand.

**What it is.** `ovhooks/recall/confidence.py` turns the score a memory is shown at (the
local store's fused score: lexical evidence and meaning, 0.55 = the recall bar) and whether
a better memory is shown before it into the probability that it is a right memory for the
prompt: `1 / (1 + exp(-(A + B * score + C * later)))` with **A = {a}, B = {b}, C = {c}**
(`LOCAL`; `later` is 1 for every memory after the block's first). Scores to probabilities,
first / later: {scores}.

**Calibration, held-out rows** (not used to fit): {checked}. The order is the signal a
score cannot carry: at the same score a memory shown second is right far less often.

**The setting.** `OVHOOKS_RECALL_MIN_CONFIDENCE` (config.toml `recall_min_confidence`,
default 0) drops shown memories under that probability. At 0 recall is the rules' decision
unchanged; a higher value trades hits for fewer wrong memories. It only removes: a memory
the decision did not admit is never added. An OpenViking server's memories get the same
fused score (`recall/rating.py`) and this model. `ovhooks status` shows the
value in force and where it came from; the viewer's "why" page shows each memory's
probability.

**Training data.** Dev rows of these recorded real-hook runs (sha256 of the files, first 16
hex: `{sha}`): {n} shown items, {right} right.
{runs}

**Operating curve.** Each recorded block with its items under the threshold taken out (an
exact replay: the setting only removes items after the decision). Relevant classes: hit;
unrelated: clean (nothing shown); precision: right among what the relevant prompts still
show. Held-out rows were not used to fit.

{table}
"""


if __name__ == "__main__":
    raise SystemExit(main())
