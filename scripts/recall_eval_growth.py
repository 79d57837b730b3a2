"""One store growing, and the real session-start block at each size (issue 39): where the
block stops listing every memory. Uses the harness (``recall_eval``) and the in-context
checks (``recall_eval_context``); its own script so that neither imports the other back.

    .venv/bin/python scripts/recall_eval_growth.py [SIZE ...]   # default 10 25 40 50 60 80 106
"""

from __future__ import annotations

import os
from typing import Any

from recall_eval_context import block_text, lines_showing, start_payload, store_figures


def growth(sizes: tuple[int, ...], set_name: str = "issue12") -> list[dict[str, Any]]:
    """One store growing: a set's statements remembered in one project, in the set's order,
    and the real session-start block at each size. Per size: the block's tokens, memories
    listed, whether it was cut, and the share of the store's memories whose evidence is on a
    line of it. Lexical only (no embedding service): the block does not use one."""
    import importlib
    import json
    import tempfile

    import recall_eval as harness
    from recall_eval import SETS

    from ovhooks.capture.tokens import estimate_tokens

    data = importlib.import_module(SETS[set_name]).load()
    memories = data["memories"]["memories"]
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ovhooks-growth-") as root:
        settings = {"OVHOOKS_BACKEND": "local", "OVHOOKS_SEMANTIC": "off"}
        runner = harness.Runner(harness.isolated_env(root, settings))
        cwd = harness.project_dir(root, "growing")
        uris: dict[str, str] = {}
        for size in sizes:
            for memory in memories[len(uris) : size]:
                printed = runner.command("remember", memory["statement"], "--json", cwd=cwd)
                uris[str(json.loads(printed)["uri"])] = memory["id"]
            reply, _seconds = runner.hook("session-start", start_payload("growing", cwd))
            block = block_text(reply)
            stored = memories[: len(uris)]
            shown = sum(1 for m in stored if lines_showing(block, m))
            figures = store_figures(block, estimate_tokens(block), [m["id"] for m in stored], uris)
            out.append({**figures, "evidence_shown": shown})
    return out


if __name__ == "__main__":
    import json
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.dirname(here)]
    steps = tuple(int(n) for n in sys.argv[1:]) or (10, 25, 40, 50, 60, 80, 106)
    for row in growth(steps):
        print(json.dumps(row))
