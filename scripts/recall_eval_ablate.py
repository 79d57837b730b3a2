"""Does each special rule of the local fusion earn its keep? Replay the decision without it on
traced runs (``recall_eval.py --trace``, local store) and report per set, split and class.

Issue 39: "A special rule survives only as a feature that earns its weight on held-out splits;
otherwise delete it." Each traced prompt keeps every candidate the fusion admitted and the
first ten it dropped, with their evidence. The replay rebuilds them, runs the real decision
(``recall.decision.judge_rated``, ``rank``, ``render``) with one rule switched off, and reads
the block as the harness does (a hit: a shown line is a labelled memory the prompt expects).
The replay with nothing switched off is checked against the real hooks' rows first: its
agreement is printed, and the figures are only as good as it is.

    python scripts/recall_eval_ablate.py --set batch3 RUN.json [--split heldout]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from recall_eval import SETS  # noqa: E402

from ovhooks.recall import rank as rank_module  # noqa: E402
from ovhooks.recall.decision import judge_rated  # noqa: E402
from ovhooks.recall.query import profile_query  # noqa: E402
from ovhooks.recall.rank import Candidate, category_of, rank  # noqa: E402
from ovhooks.recall.render import render_within  # noqa: E402
from ovhooks.semantic import fusion  # noqa: E402
from ovhooks.settings.config import load_settings  # noqa: E402

THRESHOLD = 0.55
UNRELATED = "unrelated"
# What each ablation switches off: fusion constants set so the rule can never fire, or a
# filter on the admissions (the who-rule has no constant that turns it off alone).
# A name without a module is the fusion's; ``rank.NAME`` is the ranking's. (The ranking's
# intent nudges were a row here: they changed nothing and are deleted.)
ABLATIONS: dict[str, dict[str, float]] = {
    "none": {},
    "cross-script scale (x1.4)": {"CROSS_SCRIPT_SCALE": 1.0},
    "agreement": {"AGREE": math.inf},
    "unshared (meaning, no word)": {"UNSHARED": math.inf},
    "distinct (4 with a lead of 3)": {"DISTINCT": math.inf},
    "who-rule": {},
    "agreement's lead (within 1)": {"AGREE_MARGIN": math.inf},
    "semantic cap (2)": {"MAX_SEMANTIC_ONLY": 99},
    "semantic within 2 of the best": {"MARGIN": math.inf},
    "rank's boost for shared words": {"rank.OVERLAP_BOOST": 0.0},
    "rank margin (0.25)": {"rank.RELATIVE_MARGIN": math.inf},
}
_MODULES = {"rank": rank_module}


def _target(name: str) -> tuple[Any, str]:
    module, _, attr = name.rpartition(".")
    return (_MODULES[module] if module else fusion), attr


@contextlib.contextmanager
def patched(changes: dict[str, float]) -> Iterator[None]:
    saved = {name: getattr(*_target(name)) for name in changes}
    for name, value in changes.items():
        setattr(*_target(name), value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(*_target(name), value)


def candidates(row: dict[str, Any], texts: dict[str, str]) -> list[Candidate]:
    """The row's rated candidates as the store returned them (undecided)."""
    out = []
    for item in row["trace"]["candidates"]:
        ev = item.get("evidence") or {}
        if "rival_only" not in ev:
            continue  # not rated by the local store
        shows = item.get("shows") or []
        text = texts.get(shows[0], "") if shows else ""
        cand = Candidate(item["uri"], category_of(item["uri"]), float(ev["lexical"]), text)
        cand.evidence = {key: value for key, value in ev.items() if key not in ("decision",)}
        out.append(cand)
    return out


def replay(
    row: dict[str, Any], prompt: str, texts: dict[str, str], ablation: str, settings: Any
) -> list[str]:
    """The URIs the block would show for ``row`` with ``ablation`` switched off."""
    with patched(ABLATIONS[ablation]):  # the ranking reads its constants too
        kept, _dropped = judge_rated(candidates(row, texts), prompt, THRESHOLD)
        if ablation == "who-rule":
            kept = [c for c in kept if (c.evidence or {}).get("reason") != "answers_who"]
        kept = [c for c in kept if c.category != "profile"]
        ranked = rank(kept, profile_query(prompt))
        block = render_within(ranked, settings)
    return list(block.shown_uris) if block else []


def hits(uris: list[str], row: dict[str, Any], uri_of: dict[str, list[str]]) -> bool:
    """Whether one of ``uris`` shows a labelled memory the row's prompt expects."""
    return any(set(uri_of.get(u, ())) & set(row["expected"]) for u in uris)


def figures(
    rows: list[dict[str, Any]],
    shown: Callable[[dict[str, Any]], list[str]],
    uri_of: dict[str, list[str]],
) -> dict[str, tuple[int, int]]:
    """Per class: (hits, n) for relevant classes, (clean, n) for unrelated prompts."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        uris = shown(row)
        good = (row["class"] == UNRELATED and not uris) or hits(uris, row, uri_of)
        if row["class"] != UNRELATED:  # precision: right items of the items shown
            out["precision"][0] += sum(hits([u], row, uri_of) for u in uris)
            out["precision"][1] += len(uris)
            out["first right"][0] += int(hits(uris[:1], row, uri_of))
            out["first right"][1] += 1
        for name in (row["class"], "relevant" if row["class"] != UNRELATED else ""):
            if name:
                out[name][0] += int(good)
                out[name][1] += 1
    return {name: (v[0], v[1]) for name, v in out.items()}


def shows_by_uri(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The labelled memories each stored memory in the rows' traces shows (a remembered line
    may hold two)."""
    uri_of: dict[str, list[str]] = {}
    for row in rows:
        for item in row["trace"]["candidates"]:
            if item.get("shows"):
                uri_of[item["uri"]] = list(item["shows"])
    return uri_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=tuple(SETS), required=True)
    parser.add_argument("run", type=Path)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    args = parser.parse_args()
    data = importlib.import_module(SETS[args.set]).load()
    memories = {m["id"]: m for m in data["memories"]["memories"]}
    texts = {mid: m["statement"] for mid, m in memories.items()}
    prompts = {p["id"]: p["text"] for p in data["prompts"]["prompts"]}
    rows = [r for r in json.loads(args.run.read_text())["rows"] if r["split"] == args.split]
    uri_of = shows_by_uri(rows)
    settings = load_settings({"OVHOOKS_CONFIG": "/nonexistent", "HOME": "/nonexistent"})
    # nothing switched off, once per row: checked against the hooks, then the table's first row
    plain = {row["id"]: replay(row, prompts[row["id"]], texts, "none", settings) for row in rows}
    agree = sum(
        bool(row["shown_items"]) == bool(plain[row["id"]])
        and row["hit"] == hits(plain[row["id"]], row, uri_of)
        for row in rows
    )
    print(f"\n## {args.set} ({args.split}): replay agrees with the hooks on {agree}/{len(rows)}\n")
    base = figures(rows, lambda r: plain[r["id"]], uri_of)
    classes = sorted(base)
    print("| switched off | " + " | ".join(classes) + " |")
    print("|---|" + "---:|" * len(classes))
    for ablation in ABLATIONS:

        def replayed(row: dict[str, Any], ablation: str = ablation) -> list[str]:
            return replay(row, prompts[row["id"]], texts, ablation, settings)

        got = figures(rows, replayed, uri_of)
        cells = [f"{got[c][0]}/{got[c][1]}" for c in classes]
        print(f"| {ablation} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
