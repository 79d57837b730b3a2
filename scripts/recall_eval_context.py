"""What the model has in context for a prompt, not only what UserPromptSubmit injected (issue 39).

On a small store the SessionStart block already lists every memory with its abstract in
``<available-memories>``, so a memory the prompt's recall misses may still be in front of the
model. ``scripts/recall_eval.py --in-context`` runs the real ``ovhooks session-start`` hook
once per project after the store is loaded (same environment and settings as the prompts,
a session of its own) and records, per relevant prompt:

- ``in_start``: one line of that project's session-start block carries every evidence string
  of an expected memory (case-insensitive: the rule the harness applies to injected items,
  line by line, since each memory is listed on a line of its own);
- ``in_context``: ``in_start`` or the prompt's own injection hit.

Per store it records the block's tokens (the project's CJK-aware estimate), how many of the
store's memories the block lists (by the URI ``remember`` printed), and whether the block was
cut by the budget (``settings.session_context_tokens``): a ``... +N more`` listing line, an
elided or truncated profile, or a stored memory left out of the listing.

One store growing is measured by ``scripts/recall_eval_growth.py``.
"""

from __future__ import annotations

import os
import statistics
from typing import Any

# What the renderer writes when the budget cut something (ovhooks/context/render.py).
CUT_MARKERS = ("more: `ovhooks ls", "[profile middle elided]", "[profile truncated]")


def start_payload(project: str, cwd: str) -> dict[str, Any]:
    """A SessionStart payload for a new session in ``cwd`` (no transcript yet)."""
    return {
        "session_id": f"eval-start-{os.path.basename(project)}",
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": "eval",
    }


def block_text(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext") or "")


def lines_showing(block: str, memory: dict[str, Any]) -> list[str]:
    """The block's lines that carry every evidence string of ``memory``."""
    keys = [key.lower() for key in memory["evidence"]]
    return [line for line in block.splitlines() if keys and all(k in line.lower() for k in keys)]


def store_figures(
    block: str, tokens: int, memory_ids: list[str], uris: dict[str, str]
) -> dict[str, Any]:
    """One store's session-start block: its size, what it lists, whether it was cut."""
    by_memory = {mid: uri for uri, mid in uris.items()}
    listed = [
        mid for mid in memory_ids if mid in by_memory and by_memory[mid].rsplit("/", 1)[-1] in block
    ]
    markers = [m for m in CUT_MARKERS if m in block]
    known = [mid for mid in memory_ids if mid in by_memory]
    return {
        "tokens": tokens,
        "memories": len(memory_ids),
        "listed": len(listed) if known else None,
        "cut": bool(markers) or (bool(known) and len(listed) < len(known)),
        "cut_markers": markers,
    }


def mark_rows(
    rows: list[dict[str, Any]],
    blocks: dict[str, str],
    memories: dict[str, dict[str, Any]],
) -> None:
    """Add ``in_start`` and ``in_context`` to every relevant row (``blocks``: project -> block;
    a row's project is its ``project`` field)."""
    for row in rows:
        if not row["expected"]:
            continue
        block = blocks.get(row["project"], "")
        row["in_start"] = any(lines_showing(block, memories[m]) for m in row["expected"])
        row["in_context"] = bool(row["hit"] or row["in_start"])


def rates(rows: list[dict[str, Any]]) -> dict[str, float]:
    """``in_start`` and ``in_context`` shares of the relevant rows that have them."""
    marked = [r for r in rows if "in_context" in r]
    if not marked:
        return {}
    return {
        "in_start": sum(r["in_start"] for r in marked) / len(marked),
        "in_context": sum(r["in_context"] for r in marked) / len(marked),
    }


def store_summary(stores: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Session-start block tokens over the stores (mean, max) and the stores that were cut."""
    tokens = [s["tokens"] for s in stores.values()]
    if not tokens:
        return {}
    return {
        "stores": len(tokens),
        "tokens_mean": round(statistics.mean(tokens), 1),
        "tokens_max": max(tokens),
        "cut": sorted(name for name, s in stores.items() if s["cut"]),
    }


def markdown(table: dict[str, dict[str, Any]], stores: dict[str, Any], title: str) -> str:
    """The hit / in-context table per split and class, and the block sizes."""
    lines = [
        f"**{title}: in context**",
        "",
        "| split | class | n | hit (injected) | in session-start block | in context |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for key, s in table.items():
        if "in_context" not in s:
            continue
        split, cls = key.split("/")
        lines.append(
            f"| {split} | {cls} | {s['n']} | {s['hit']:.0%} | {s['in_start']:.0%} | "
            f"{s['in_context']:.0%} |"
        )
    if stores:
        lines.append(
            f"\nsession-start block over {stores['stores']} stores: tokens mean "
            f"{stores['tokens_mean']:.0f}, max {stores['tokens_max']}; cut by the budget: "
            + (", ".join(stores["cut"]) or "none")
        )
    return "\n".join(lines)
