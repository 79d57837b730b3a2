"""The first-use recall set (issue 39 item 4), in tests/fixtures/recall_eval_firstuse/.

A new user's store is small: what they told the agent to remember in the first week. The set
is 17 such stores, one per project, each run as its own user in its own directory
(``SEPARATE_STORES``: ``scripts/recall_eval.py`` gives every project a fresh HOME, state and
store), loaded through ``ovhooks remember`` by default (``DEFAULT_LOAD``) as a user who says
"remember this" would, or through the sessions listed (``--load capture``). The questions
come later, in a new session of the same project, in the user's other words; the unrelated
requests are ordinary work in the same projects and general questions.

Written by a helper who had not read the recall code. The file shapes, memory and prompt
checks and the split rule are batch 3's (``recall_eval_batch3``, a salt of its own); what
differs is the shape of the whole set (:func:`shape_problems`) and that an unrelated prompt
need not be a decoy of any memory (a general question shares no word with any):

- every prompt names the project it is asked in (``cwd``), a project of the set, and a
  relevant prompt's memories were stated there;
- at least 15 stores of 3 to 30 memories; at least 150 relevant prompts and 150 unrelated;
- ``direct`` and ``paraphrase`` are told apart mechanically: a paraphrase shares no content
  term with the memories it expects (``recall_eval_data``), a direct prompt shares one;
- ``crosslingual`` crosses languages (Chinese for an English memory or the reverse), at
  least 5 each way; at least 20 % of the relevant prompts are Chinese or cross-lingual;
- some unrelated prompts share a word with a memory (``decoy_of``), others none;
- the split is half of each class by a hash of the prompt id.

    .venv/bin/python scripts/recall_eval_firstuse.py     # prints what is wrong, or "sound"
"""

from __future__ import annotations

import functools
import os
import sys
from collections import Counter
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_batch3 as batch3  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(_HERE), "tests", "fixtures", "recall_eval_firstuse")
SPLIT_SALT = "ovhooks-recall-eval-firstuse"
CLASSES = batch3.CLASSES
# Each project is a separate user's store; memories arrive through `ovhooks remember`.
SEPARATE_STORES = True
DEFAULT_LOAD = "remember"
MIN_STORES = 15
STORE_SIZE = (3, 30)
MIN_RELEVANT = 150
MIN_UNRELATED = 150
MIN_CHINESE_OR_CROSSING = 0.20
MIN_PER_PAIR = 5
pair = batch3.pair
load = functools.partial(batch3.load, DATA_DIR)
hash_splits = functools.partial(batch3.hash_splits, salt=SPLIT_SALT)


def shape_problems(
    memories: list[dict[str, Any]], prompts: list[dict[str, Any]], salt: str = SPLIT_SALT
) -> list[str]:
    """Size, mix and split of the whole set: what issue 39 asks of a first-use set."""
    out = []
    relevant = [p for p in prompts if p["class"] != "unrelated"]
    unrelated = [p for p in prompts if p["class"] == "unrelated"]
    if len(relevant) < MIN_RELEVANT or len(unrelated) < MIN_UNRELATED:
        out.append(f"{len(relevant)} relevant and {len(unrelated)} unrelated prompts: too few")
    by_id = {m["id"]: m for m in memories}
    out.extend(_class_problems(relevant, by_id))
    crossing = [p for p in relevant if p["lang"] == "zh" or p["class"] == "crosslingual"]
    if len(crossing) < MIN_CHINESE_OR_CROSSING * len(relevant):
        out.append(f"{len(crossing)} of {len(relevant)} relevant prompts Chinese or crossing")
    decoys = sum(1 for p in unrelated if p.get("decoy_of"))
    if not 0 < decoys < len(unrelated):
        out.append(f"{decoys} of {len(unrelated)} unrelated prompts share a memory's word")
    if not any(m["lang"] == "zh" for m in memories):
        out.append("no memory is in Chinese")
    rule = hash_splits(prompts) if salt == SPLIT_SALT else batch3.hash_splits(prompts, salt)
    moved = sorted(p["id"] for p in prompts if p["split"] != rule[p["id"]])
    if moved:
        out.append(f"split differs from the hash rule for {moved}")
    return out


def _class_problems(relevant: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for prompt in relevant:
        shared = any(
            batch3.shared_terms(prompt["text"], by_id[m]["statement"]) for m in prompt["expected"]
        )
        if prompt["class"] == "direct" and not shared:
            out.append(f"{prompt['id']}: a direct prompt shares no term, it is a paraphrase")
    pairs = Counter(pair(p, by_id) for p in relevant if p["class"] == "crosslingual")
    if pairs["zh>zh"] or pairs["en>en"]:
        out.append(f"cross-lingual prompts in their memory's language: {dict(pairs)}")
    if min(pairs["zh>en"], pairs["en>zh"]) < MIN_PER_PAIR:
        out.append(f"cross-lingual pairs {dict(pairs)}: each way needs {MIN_PER_PAIR}")
    return out


def store_problems(data: dict[str, Any]) -> list[str]:
    """Enough stores (projects) of a first week's size; every prompt is asked in a project of
    the set, where the memories it names were stated."""
    sessions = {s["id"]: s["cwd"] for s in data["memories"]["sessions"]}
    stated = {m["id"]: sessions.get(m["session"]) for m in data["memories"]["memories"]}
    sizes = Counter(stated.values())
    out = [] if len(sizes) >= MIN_STORES else [f"{len(sizes)} stores, fewer than {MIN_STORES}"]
    out.extend(
        f"store {cwd} has {n} memories, not {STORE_SIZE[0]}-{STORE_SIZE[1]}"
        for cwd, n in sizes.items()
        if not STORE_SIZE[0] <= n <= STORE_SIZE[1]
    )
    for prompt in data["prompts"]["prompts"]:
        cwd = prompt.get("cwd")
        if cwd not in sessions.values():
            out.append(f"{prompt['id']}: asked in {cwd!r}, not a project of the set")
        named = [*prompt.get("expected", []), *prompt.get("decoy_of", [])]
        elsewhere = [m for m in named if m in stated and stated[m] != cwd]
        if elsewhere:
            out.append(f"{prompt['id']}: names {elsewhere}, stated in another project")
    return out


def problems(data: dict[str, Any], salt: str = SPLIT_SALT) -> list[str]:
    """Everything wrong with the set (empty when it is sound): batch 3's checks of every
    memory, session and prompt, this set's shape, and where each prompt is asked. The later
    first-use sets run the same checks under a ``salt`` of their own."""
    found = batch3.problems(data, salt, shape=shape_problems, decoys_required=False)
    return found + store_problems(data)


def fixture(name: str) -> str:
    """The folder of the labelled set ``name`` (tests/fixtures/<name>)."""
    return os.path.join(os.path.dirname(_HERE), "tests", "fixtures", name)


def main(found: list[str]) -> int:
    print("\n".join([*found, "sound" if not found else f"{len(found)} problems"]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(problems(load())))
