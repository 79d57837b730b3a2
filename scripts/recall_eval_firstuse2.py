"""A second first-use set, written fresh (tests/fixtures/recall_eval_firstuse2/; its README).

Same scenario, file shapes and checks as the first-use set (``recall_eval_firstuse``), under
a salt of its own. Written on 2026-11-30 by a helper who had read neither the recall code nor
any other set's prompts. Its first run (before any change) is its unseen figure; its
unrelated prompts that got a memory were then read, and the question-about-the-world rule
(``answer_type.asks_general``) was written after that, so for that rule it is seen data (its
measure is the other sets' held-out splits and the third first-use set, written after it).
Nothing else was tuned on it.

    .venv/bin/python scripts/recall_eval_firstuse2.py     # prints what is wrong, or "sound"
"""

from __future__ import annotations

import functools
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_batch3 as batch3  # noqa: E402
import recall_eval_firstuse as firstuse  # noqa: E402

DATA_DIR = firstuse.fixture("recall_eval_firstuse2")
SPLIT_SALT = "ovhooks-recall-eval-firstuse2"
CLASSES = firstuse.CLASSES
SEPARATE_STORES = True
DEFAULT_LOAD = "remember"
load = functools.partial(batch3.load, DATA_DIR)
problems = functools.partial(firstuse.problems, salt=SPLIT_SALT)

if __name__ == "__main__":
    sys.exit(firstuse.main(problems(load())))
