"""Replay the fusion rule over a kept recall-eval store (``recall_eval.py --keep``): every
prompt's candidates with their lexical score and semantic strength are gathered once from the
real embedding service, then ``semantic.fusion``'s parameters are swept offline.

    .venv/bin/python scripts/semantic_tune.py /tmp/.../ovhooks-recall-eval-XXXX --split dev

Prints the operating curve: unrelated clean against hit per class, per parameter setting.
Tune on ``dev`` only; ``heldout`` is for reporting.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "scripts"))

import importlib  # noqa: E402

import recall_eval as harness  # noqa: E402

from ovhooks.backend.local import LocalBackend  # noqa: E402
from ovhooks.backend.local.search import search  # noqa: E402
from ovhooks.backend.local.semantic_recall import answer, ask, merge  # noqa: E402
from ovhooks.backend.local.store import SemanticLink  # noqa: E402
from ovhooks.project import resolve  # noqa: E402
from ovhooks.recall.query import build_query, profile_query  # noqa: E402
from ovhooks.recall.rank import Candidate, rank  # noqa: E402
from ovhooks.semantic import fusion  # noqa: E402

CLASSES = ("direct", "paraphrase", "long", "crosslingual")


def gather(root: str, data: dict[str, Any], splits: tuple[str, ...]) -> list[dict[str, Any]]:
    memories = {m["id"]: m for m in data["memories"]["memories"]}
    sessions = {s["id"]: s for s in data["memories"]["sessions"]}
    link = SemanticLink(os.path.join(root, "state"), 10.0, 600.0)
    import time

    from ovhooks.semantic import client

    client.start(
        link.state_dir, idle_s=600.0, db=os.path.join(root, "data", "memory.db"), force=True
    )
    for _ in range(240):
        doc, _reason = client.ping(link.state_dir)
        if doc and doc.get("state") == "warm":
            break
        time.sleep(0.5)
    out = []
    for prompt in data["prompts"]["prompts"]:
        if prompt["split"] not in splits:
            continue
        named = prompt.get("expected") or prompt["decoy_of"]
        cwd = harness.project_dir(root, sessions[memories[named[0]]["session"]]["cwd"])
        store = LocalBackend(os.path.join(root, "data"), peer=resolve(cwd).peer)
        store.semantic = link
        text = prompt["text"]
        query = build_query(text[:2000], [])
        asked = ask(store, link, text)
        hits = search(store, query, store.peer, archives=True)
        found = answer(asked, link)
        if found is None:
            raise SystemExit(f"service did not answer: {asked.pending.reason}")
        admitted, dropped = merge(store, query, hits, found, 0.55, search, text)
        kinds = {"m": "memory", "h": "archive"}
        raw = {(kinds[h["kind"]], h["id"]): h for h in found["hits"]}
        cands = []
        for h in admitted + dropped:
            ev = h.evidence
            assert ev is not None
            good = [
                m
                for m in prompt.get("expected", [])
                if harness.shows({"uri": h.uri, "hint": False, "text": h.text}, memories[m], {})
            ]
            hit = raw.get((h.kind, h.rid), {})
            cands.append(
                {
                    "uri": h.uri,
                    "cat": h.category,
                    "text": h.text,
                    "lex": ev.lexical,
                    "sem": ev.strength,
                    "via": ev.via,
                    "xs": ev.cross_script,
                    "good": bool(good),
                    "cos": hit.get("cos"),
                    "ccos": hit.get("clause_cos"),
                    "level": hit.get("level"),
                    "spread": found["spread"],
                }
            )
        out.append({"id": prompt["id"], "class": prompt["class"], "text": text, "cands": cands})
        store.close()
    return out


def replay(rows: list[dict[str, Any]], max_items: int = 6) -> dict[str, float]:
    tally: dict[str, list[int]] = {c: [0, 0] for c in (*CLASSES, "unrelated")}
    shown = right = 0
    for row in rows:
        evs = [
            fusion.Evidence(c["uri"], c["lex"], c["sem"], c["via"], cross_script=c.get("xs", False))
            for c in row["cands"]
        ]
        by_uri = {c["uri"]: c for c in row["cands"]}
        fused = [e for e in fusion.fuse(evs, 0.55) if e.admitted]
        items = [
            Candidate(e.key, by_uri[e.key]["cat"], e.order(0.55), by_uri[e.key]["text"])
            for e in fused
        ]
        picked = rank(items, profile_query(row["text"]), strong_score=0.0)[:max_items]
        goods = [by_uri[c.uri]["good"] for c in picked]
        t = tally[row["class"]]
        t[1] += 1
        if row["class"] == "unrelated":
            t[0] += not picked
        else:
            t[0] += any(goods)
            shown += len(goods)
            right += sum(goods)
    out = {k: round(v[0] / v[1], 3) if v[1] else 0.0 for k, v in tally.items()}
    out["precision"] = round(right / shown, 3) if shown else 0.0
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--cache", default="")
    parser.add_argument("--set", choices=sorted(harness.SETS), default="issue12")
    parser.add_argument(
        "--cross-script",
        action="store_true",
        help="sweep only fusion.CROSS_SCRIPT_SCALE (the other parameters as shipped)",
    )
    args = parser.parse_args()
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, encoding="utf-8") as fh:
            rows = json.load(fh)
    else:
        dataset = importlib.import_module(harness.SETS[args.set])
        rows = gather(args.root, dataset.load(), (args.split,))
        if args.cache:
            with open(args.cache, "w", encoding="utf-8") as fh:
                json.dump(rows, fh, ensure_ascii=False)
    if args.cross_script:
        print("CROSS_SCRIPT_SCALE | " + " ".join(f"{c[:6]:>6}" for c in CLASSES) + "  clean  prec")
        for scale in (1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0):
            fusion.CROSS_SCRIPT_SCALE = scale
            r = replay(rows)
            print(
                f"{scale:18.1f} | "
                + " ".join(f"{r[c]:6.2f}" for c in CLASSES)
                + f"  {r['unrelated']:.2f}  {r['precision']:.2f}"
            )
        return 0
    names = ("STRONG", "DISTINCT", "GAP", "AGREE", "AGREE_LEXICAL", "AGREE_MARGIN")
    grid = itertools.product(
        (5.5, 6.0, 7.0),
        (3.5, 4.0, 4.5, 5.0),
        (1.5, 2.0, 2.5, 3.0),
        (2.5, 3.0, 3.5, 4.0),
        (0.37, 0.43),
        (0.0, 0.5, 1.0, 99.0),
    )
    print(" ".join(names) + " | " + " ".join(f"{c[:6]:>6}" for c in CLASSES) + "  clean  prec")
    for values in grid:
        for name, value in zip(names, values, strict=True):
            setattr(fusion, name, value)
        r = replay(rows)
        print(
            " ".join(f"{v:5}" for v in values)
            + " | "
            + " ".join(f"{r[c]:6.2f}" for c in CLASSES)
            + f"  {r['unrelated']:.2f}  {r['precision']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
