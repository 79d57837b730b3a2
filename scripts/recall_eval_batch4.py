"""Batch 4 of the labelled recall set (issue 23), in tests/fixtures/recall_eval_batch4/.

Written in the eleventh session by an author who had not read the recall code, the tuning
notes or the earlier sets' prompts, after every rule measured on it was fixed: it was run
once, to measure, and nothing was tuned on any of its prompts (both splits are reported; the
split is kept so later sessions have one part they never tune on). New domains and people.
The file shapes, checks and split rule are batch 3's (``recall_eval_batch3``), with a salt
of its own.

    .venv/bin/python scripts/recall_eval_batch4.py     # prints what is wrong, or "sound"
"""

from __future__ import annotations

import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_batch3 as batch3  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(_HERE), "tests", "fixtures", "recall_eval_batch4")
SPLIT_SALT = "ovhooks-recall-eval-batch4"
CLASSES = batch3.CLASSES
pair = batch3.pair


def load(data_dir: str = DATA_DIR) -> dict[str, Any]:
    return batch3.load(data_dir)


def hash_splits(prompts: list[dict[str, Any]]) -> dict[str, str]:
    return batch3.hash_splits(prompts, SPLIT_SALT)


def problems(data: dict[str, Any]) -> list[str]:
    return batch3.problems(data, SPLIT_SALT)


def main() -> int:
    found = problems(load())
    for line in found:
        print(line)
    print("sound" if not found else f"{len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
