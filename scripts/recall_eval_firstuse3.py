"""A third first-use set, never tuned on (tests/fixtures/recall_eval_firstuse3/; its README).

Same scenario, file shapes and checks as the first-use set (``recall_eval_firstuse``), under
a salt of its own, in other domains, with relevant and unrelated prompts written in the same
forms. Written on 2026-11-30 by a helper who had read neither the recall code nor any other
set, after the last recall change of that session, and committed before its first run: both
splits measure.

    .venv/bin/python scripts/recall_eval_firstuse3.py     # prints what is wrong, or "sound"
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

DATA_DIR = firstuse.fixture("recall_eval_firstuse3")
SPLIT_SALT = "ovhooks-recall-eval-firstuse3"
CLASSES = firstuse.CLASSES
SEPARATE_STORES = True
DEFAULT_LOAD = "remember"
load = functools.partial(batch3.load, DATA_DIR)
problems = functools.partial(firstuse.problems, salt=SPLIT_SALT)

if __name__ == "__main__":
    sys.exit(firstuse.main(problems(load())))
