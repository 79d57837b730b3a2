"""One rule set for both backends: replay OpenViking's traced candidates through today's
decision, and through the readings of strength it was chosen from, per set, split and class.

The traced runs (``docs/recall_eval/traced-<set>-openviking-capture.json.gz``, made on main
fd9b737 by ``recall_eval.py --backend openviking --load capture --extraction statements
--trace --split all --env OVHOOKS_SEMANTIC_DEADLINE_MS=2000``) hold every candidate of every
prompt with its text, the server's score, the calibration and the local model's reading,
and what the server's own rule of the time (``calibrate.select`` with ``semantic.rescore``)
put in the block. This replay runs today's code on them (``recall.decision.judge``, then
``decide`` and ``render``), the local model answered from the trace, with the strength the
fusion weighs taken one way or another (``rating.reading`` replaced):

- ``recorded``: what the server's own rule showed (the hooks agreed on every prompt);
- ``fusion``: today's decision (docs/SEMANTIC.md §1.3);
- ``local``, ``server``, ``max``, ``mean``: the local reading, the server's, the larger, the
  mean; ``hybrid``: today's reading; these five with the words weighed without the
  candidate pool, as they were measured before it was added.

    python scripts/recall_eval_unify.py --set batch3 [RUN.json[.gz]] [--split heldout]

A row whose server chose three items has no local readings (the old rule did not ask):
the replay reads those prompts as today's code would without the service's answer.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from recall_eval import SETS  # noqa: E402
from recall_eval_ablate import figures, shows_by_uri  # noqa: E402

from ovhooks.lexical.text import script_of  # noqa: E402
from ovhooks.recall import calibrate, decision, rating  # noqa: E402
from ovhooks.recall.rank import Candidate, category_of  # noqa: E402
from ovhooks.recall.render import render_within  # noqa: E402
from ovhooks.semantic import client  # noqa: E402
from ovhooks.settings.config import load_settings  # noqa: E402

Reading = Callable[..., float | None]


def _known(*values: float | None) -> list[float]:
    return [v for v in values if v is not None]


def _mean(server: float | None, local: float | None) -> float | None:
    known = _known(server, local)
    return sum(known) / len(known) if known else None


READINGS: dict[str, Reading | None] = {
    "fusion": None,
    "local": lambda server, local, **_: local,
    "server": lambda server, local, **_: server,
    "max": lambda server, local, **_: max(_known(server, local), default=None),
    "mean": lambda server, local, **_: _mean(server, local),
    "hybrid": None,
}
RULES = ("recorded", *READINGS)


class _Backend:
    rates_candidates = False


class _Server:
    key = "replay"

    def __init__(self, doc: dict[str, Any]) -> None:
        self._doc = doc

    def calibration(self) -> dict[str, Any]:
        return self._doc


def read_run(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)  # type: ignore[no-any-return]


def rebuild(row: dict[str, Any]) -> list[Candidate]:
    out = []
    for item in row["trace"]["candidates"]:
        cand = Candidate(item["uri"], category_of(item["uri"]), float(item["score"]), item["text"])
        cand.bridged = bool(item.get("bridged"))
        out.append(cand)
    return out


@contextlib.contextmanager
def answered(row: dict[str, Any], rule: str) -> Iterator[None]:
    """The service's ``score`` op answered from the trace, and the reading of ``rule``."""
    strengths = {}
    for item in row["trace"]["candidates"]:
        value = (item.get("evidence") or {}).get("semantic")
        if isinstance(value, int | float):
            strengths[item["text"][: rating.DOC_CHARS]] = float(value)

    class Answered:
        """The service's answer to one ``score`` request, from the trace."""

        def __init__(self, docs: list[str]) -> None:
            known = bool(strengths) and all(d in strengths for d in docs)
            self.doc = {"ok": True, "strengths": [strengths[d] for d in docs]} if known else None
            self.reason = "" if known else "late"

        def answer(self, _timeout: float) -> dict[str, Any] | None:
            return self.doc

    def send(_state: str, req: dict[str, Any], _timeout: float = 0.0) -> Answered:
        return Answered(list(req.get("docs") or []))

    saved = client.send, rating.reading, calibrate.LexicalEvidence.pool_weights
    client.send = send  # type: ignore[assignment]
    replaced = READINGS[rule]
    if replaced is not None:
        rating.reading = replaced
    if rule != "fusion":  # as they were measured: words weighed without the pool
        calibrate.LexicalEvidence.pool_weights = lambda self, docs: {}  # type: ignore[method-assign]
    try:
        yield
    finally:
        client.send, rating.reading = saved[0], saved[1]
        calibrate.LexicalEvidence.pool_weights = saved[2]  # type: ignore[method-assign]


def shown_by(rule: str, row: dict[str, Any], prompt: str, settings: Any) -> list[str]:
    """The URIs the block shows for ``row`` under ``rule``."""
    if rule == "recorded":
        return [c["uri"] for c in row["trace"]["candidates"] if c["decision"] == "injected"]
    cal = row["trace"].get("calibration")
    now = time.time()
    doc: dict[str, Any] = {"at": now}
    if isinstance(cal, dict) and "loc" in cal:
        doc[script_of(prompt)] = cal
    cands = rebuild(row)
    with answered(row, rule):
        kept, _ = decision.judge(cands, prompt, _Backend(), settings, _Server(doc), now)  # type: ignore[arg-type]
        block = render_within(decision.decide(kept, prompt, ()), settings)
    return list(block.shown_uris) if block else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=tuple(SETS), required=True)
    parser.add_argument("run", type=Path, nargs="?")
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--rules", default=",".join(RULES))
    args = parser.parse_args()
    run = args.run or REPO / f"docs/recall_eval/traced-{args.set}-openviking-capture.json.gz"
    data = importlib.import_module(SETS[args.set]).load()
    prompts = {p["id"]: p["text"] for p in data["prompts"]["prompts"]}
    rows = [r for r in read_run(run)["rows"] if r["split"] == args.split and "trace" in r]
    uri_of = shows_by_uri(rows)
    settings = load_settings({"OVHOOKS_CONFIG": "/nonexistent", "HOME": "/nonexistent"})
    rules = args.rules.split(",")
    got = {}
    for rule in rules:
        shown = {r["id"]: shown_by(rule, r, prompts[r["id"]], settings) for r in rows}

        def of(row: dict[str, Any], shown: dict[str, list[str]] = shown) -> list[str]:
            return shown[row["id"]]

        got[rule] = figures(rows, of, uri_of)
    print(f"\n## {args.set} ({args.split}), {len(rows)} prompts\n")
    classes = sorted(got[rules[0]])
    print("| rule | " + " | ".join(classes) + " |")
    print("|---|" + "---:|" * len(classes))
    for rule in rules:
        cells = " | ".join(f"{got[rule][c][0]}/{got[rule][c][1]}" for c in classes)
        print(f"| {rule} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
