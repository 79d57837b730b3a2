"""A third first-use set, written fresh and never tuned on (tests/fixtures/recall_eval_firstuse3/).

Same scenario, file shapes and checks as the first-use set (``recall_eval_firstuse``): small
separate stores, loaded through ``ovhooks remember``, questions in the user's other words in a
later session. Written on 2026-11-30 by a helper who had read neither the recall code nor any
other set's prompts, after the recall rules had last changed; no rule, number or word list was
chosen after it was run. Both splits therefore measure; the split (a hash of the prompt id, a
salt of its own) only keeps the file shape of the other sets.

    .venv/bin/python scripts/recall_eval_firstuse3.py     # prints what is wrong, or "sound"
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import recall_eval_batch3 as batch3  # noqa: E402
import recall_eval_firstuse as firstuse  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(_HERE), "tests", "fixtures", "recall_eval_firstuse3")
SPLIT_SALT = "ovhooks-recall-eval-firstuse3"
CLASSES = batch3.CLASSES
SEPARATE_STORES = True
DEFAULT_LOAD = "remember"
load = functools.partial(batch3.load, DATA_DIR)


def problems(data: dict[str, Any]) -> list[str]:
    """The first-use set's checks, under this set's split salt."""
    found = batch3.problems(data, SPLIT_SALT, shape=firstuse.shape_problems, decoys_required=False)
    return found + firstuse.store_problems(data)


if __name__ == "__main__":
    found = problems(load())
    print("\n".join([*found, "sound" if not found else f"{len(found)} problems"]))
    sys.exit(1 if found else 0)
