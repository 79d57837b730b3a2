"""Batch 5 of the labelled recall set (issue 23), in tests/fixtures/recall_eval_batch5/.

Written in the fourteenth session by an author who had not read the recall code, the tuning
notes or the earlier sets' prompts. New domains, projects and people: a Django clinic-scheduling
backend, a Unity VR forklift trainer, a dbt warehouse, a Kotlin banking app, Rust drone
firmware, a Svelte marketing site, a Haskell compiler, and in Chinese a logistics dispatch
system, a live-commerce backend and a government forms platform. Both splits are reported;
nobody tunes on the held-out half. The file shapes, checks and split rule are batch 3's
(``recall_eval_batch3``), with a salt of its own.

    .venv/bin/python scripts/recall_eval_batch5.py     # prints what is wrong, or "sound"
"""

from __future__ import annotations

import functools
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_batch3 as batch3  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(_HERE), "tests", "fixtures", "recall_eval_batch5")
SPLIT_SALT = "ovhooks-recall-eval-batch5"
CLASSES = batch3.CLASSES
pair = batch3.pair
# Batch 3's loader, split rule and checks, bound to this batch's folder and salt.
load = functools.partial(batch3.load, DATA_DIR)
hash_splits = functools.partial(batch3.hash_splits, salt=SPLIT_SALT)
problems = functools.partial(batch3.problems, salt=SPLIT_SALT)

if __name__ == "__main__":
    found = problems(load())
    print("\n".join([*found, "sound" if not found else f"{len(found)} problems"]))
    sys.exit(1 if found else 0)
