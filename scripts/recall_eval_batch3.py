"""Batch 3 of the labelled recall set (issue 23), in tests/fixtures/recall_eval_batch3/.

Written fresh by an author who had not read the recall code (ranking, lexical matching,
extraction, glossary) nor the tuning notes: new domains (a Godot game, a Nextflow variant-calling
pipeline, contract tooling, ROS 2 warehouse robots, an Elixir ticketing app, and in Chinese a
futures backtester, a skynet game server, an e-invoicing service), new people, new wording.
Same file shapes as the first set, so ``scripts/recall_eval.py --set batch3`` runs it unchanged,
with two differences:

- **The split is by prompt, not by memory.** Each prompt's split comes from a fixed hash of
  its id (:func:`hash_splits`): within each class, prompts are ordered by
  ``sha256("ovhooks-recall-eval-batch3:" + id)`` and the first half (rounded down) is
  ``heldout``, the rest ``dev``. Nobody picked them; the check below rejects a prompt whose
  stored split differs from the rule. A memory is therefore asked about in both parts: the
  held-out part measures recall for prompts nobody tuned on, not for memories nobody saw.
- **Chinese for Chinese counts as cross-lingual** (the issue's "Chinese or cross-lingual"
  class): a ``crosslingual`` prompt is Chinese for an English memory, English for a Chinese
  one, or Chinese for a Chinese one in other words than the memory's; never English for English.
  :func:`pair` names which.

The paraphrase rule is the first set's (``recall_eval_data``): a ``paraphrase`` prompt shares no
content term with the statement of any memory it expects, terms being lower-cased Latin words
and compounds (and compound parts of 3+ characters), stop words removed, stemmed by one common
suffix and cut to six letters; and CJK character bigrams minus a few function bigrams.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_data as base  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(_HERE), "tests", "fixtures", "recall_eval_batch3")
CLASSES = base.CLASSES
SPLITS = base.SPLITS
SPLIT_SALT = "ovhooks-recall-eval-batch3"
KINDS = ("preference", "convention", "person", "environment", "gotcha", "decision", "deadline")
MIN_MEMORIES = 48
MIN_PROMPTS = 150
MIN_PER_CLASS = {"direct": 48, "paraphrase": 30, "long": 20, "crosslingual": 30, "unrelated": 30}
CHINESE_SHARE = (0.28, 0.42)
PAIRS = ("zh>en", "en>zh", "zh>zh")

content_terms = base.content_terms
shared_terms = base.shared_terms
has_cjk = base.has_cjk
word_count = base.word_count


def split_key(prompt_id: str, salt: str = SPLIT_SALT) -> str:
    return hashlib.sha256(f"{salt}:{prompt_id}".encode()).hexdigest()


def hash_splits(prompts: list[dict[str, Any]], salt: str = SPLIT_SALT) -> dict[str, str]:
    """The split every prompt must have: per class, the first half by hashed id is held out."""
    out: dict[str, str] = {}
    for cls in CLASSES:
        ids = sorted(
            (p["id"] for p in prompts if p["class"] == cls), key=lambda i: split_key(i, salt)
        )
        for rank, pid in enumerate(ids):
            out[pid] = "heldout" if rank < len(ids) // 2 else "dev"
    return out


def language(text: str) -> str:
    return "zh" if has_cjk(text) else "en"


def pair(prompt: dict[str, Any], memories: dict[str, dict[str, Any]]) -> str:
    """``prompt language>memory language`` of a relevant prompt (its first expected memory)."""
    return f"{language(prompt['text'])}>{memories[prompt['expected'][0]]['lang']}"


def load(data_dir: str = DATA_DIR) -> dict[str, Any]:
    with open(os.path.join(data_dir, "memories.json"), encoding="utf-8") as fh:
        memories = json.load(fh)
    with open(os.path.join(data_dir, "prompts.json"), encoding="utf-8") as fh:
        prompts = json.load(fh)
    return {"memories": memories, "prompts": prompts}


def problems(
    data: dict[str, Any],
    salt: str = SPLIT_SALT,
    shape: Callable[[list[dict[str, Any]], list[dict[str, Any]], str], list[str]] | None = None,
    decoys_required: bool = True,
) -> list[str]:
    """Everything wrong with the batch (empty when it is sound); ``salt`` names the batch in
    its split rule. Another set reuses these checks with its own ``shape`` (size, mix and
    split of the whole set) and may allow unrelated prompts that are decoys of no memory
    (``decoys_required=False``: a general question that shares no word with any)."""
    memories = data["memories"]["memories"]
    prompts = data["prompts"]["prompts"]
    by_id: dict[str, dict[str, Any]] = {}
    out: list[str] = []
    for memory in memories:
        if memory["id"] in by_id:
            out.append(f"duplicate memory id {memory['id']}")
        by_id[memory["id"]] = memory
        out.extend(_memory_problems(memory))
    out.extend(_session_problems(data["memories"]["sessions"], by_id))
    seen: set[str] = set()
    texts: set[str] = set()
    for prompt in prompts:
        if prompt["id"] in seen:
            out.append(f"duplicate prompt id {prompt['id']}")
        if prompt["text"] in texts:
            out.append(f"{prompt['id']}: duplicate prompt text")
        seen.add(prompt["id"])
        texts.add(prompt["text"])
        out.extend(_prompt_problems(prompt, by_id, decoys_required))
    if not out:
        out.extend((shape or _shape_problems)(memories, prompts, salt))
    return out


def _memory_problems(memory: dict[str, Any]) -> list[str]:
    mid, statement = memory["id"], memory["statement"]
    out = []
    if memory["lang"] != language(statement):
        out.append(f"{mid}: lang {memory['lang']!r} does not match its text")
    if memory["kind"] not in KINDS:
        out.append(f"{mid}: kind {memory['kind']!r}")
    if not memory["evidence"]:
        out.append(f"{mid}: no evidence strings")
    for key in memory["evidence"]:
        if key.lower() not in statement.lower():
            out.append(f"{mid}: evidence {key!r} is not in the statement")
    return out


def _session_problems(
    sessions: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]
) -> list[str]:
    out = []
    stated = []
    for session in sessions:
        for turn in session["turns"]:
            if "memory" not in turn:
                continue
            stated.append(turn["memory"])
            if by_id.get(turn["memory"], {}).get("session") != session["id"]:
                out.append(f"{turn['memory']} stated in {session['id']}, listed elsewhere")
    if sorted(stated) != sorted(by_id):
        out.append("every memory must be stated exactly once in the sessions")
    return out


def _prompt_problems(
    prompt: dict[str, Any], by_id: dict[str, dict[str, Any]], decoys_required: bool = True
) -> list[str]:
    pid, cls, text = prompt["id"], prompt["class"], prompt["text"]
    expected, decoys = prompt.get("expected", []), prompt.get("decoy_of", [])
    if cls not in CLASSES:
        return [f"{pid}: class {cls!r}"]
    named = decoys if cls == "unrelated" else expected
    free = cls == "unrelated" and not decoys and not decoys_required
    if not free and (not named or any(m not in by_id for m in named)):
        return [f"{pid}: names no memory or an unknown one: {named}"]
    out = []
    if prompt["split"] not in SPLITS:
        out.append(f"{pid}: split {prompt['split']!r}")
    if prompt["lang"] != language(text):
        out.append(f"{pid}: lang {prompt['lang']} but the text is {language(text)}")
    if cls == "unrelated":
        if expected:
            out.append(f"{pid}: an unrelated prompt expects nothing")
        if decoys and not any(shared_terms(text, by_id[m]["statement"]) for m in decoys):
            out.append(f"{pid}: shares no word with the memories it is a decoy of")
    elif decoys:
        out.append(f"{pid}: only unrelated prompts have decoys")
    if cls == "paraphrase":
        for m in expected:
            common = shared_terms(text, by_id[m]["statement"])
            if common:
                out.append(f"{pid}: paraphrase shares {sorted(common)} with {m}")
    if cls == "long" and not base.LONG_WORDS[0] <= word_count(text) <= base.LONG_WORDS[1]:
        out.append(f"{pid}: long prompt has {word_count(text)} words")
    english = language(text) == "en"
    if cls == "crosslingual" and english and any(by_id[m]["lang"] == "en" for m in expected):
        out.append(f"{pid}: an English cross-lingual prompt must ask about Chinese memories")
    return out


def _shape_problems(
    memories: list[dict[str, Any]], prompts: list[dict[str, Any]], salt: str = SPLIT_SALT
) -> list[str]:
    """Size, mix and split of the whole batch: what issue 23 asks of it."""
    out = []
    if len(memories) < MIN_MEMORIES or len(prompts) < MIN_PROMPTS:
        out.append(f"{len(memories)} memories and {len(prompts)} prompts: too few")
    classes = Counter(p["class"] for p in prompts)
    for cls, least in MIN_PER_CLASS.items():
        if classes[cls] < least:
            out.append(f"{classes[cls]} {cls} prompts, fewer than {least}")
    for what, items, key in (("memories", memories, "lang"), ("prompts", prompts, "lang")):
        share = sum(1 for i in items if i[key] == "zh") / len(items)
        if not CHINESE_SHARE[0] <= share <= CHINESE_SHARE[1]:
            out.append(f"{share:.0%} of the {what} are Chinese, not about a third")
    kinds = {m["kind"] for m in memories}
    if kinds != set(KINDS):
        out.append(f"kinds missing: {sorted(set(KINDS) - kinds)}")
    by_id = {m["id"]: m for m in memories}
    direct = {m for p in prompts if p["class"] == "direct" for m in p["expected"]}
    if direct != set(by_id):
        out.append(f"memories without a direct prompt: {sorted(set(by_id) - direct)}")
    pairs = Counter(pair(p, by_id) for p in prompts if p["class"] == "crosslingual")
    if any(pairs[name] < 5 for name in PAIRS):
        out.append(f"cross-lingual pairs {dict(pairs)}: each direction needs at least 5")
    rule = hash_splits(prompts, salt)
    moved = sorted(p["id"] for p in prompts if p["split"] != rule[p["id"]])
    if moved:
        out.append(f"split differs from the hash rule for {moved}")
    return out
