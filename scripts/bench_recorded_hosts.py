"""Hook rows for the hosts benchmarked on their recorded payloads (used by bench_hooks.py).

Each host's events as it runs them (``--host <name>``), on the payloads recorded from the real
CLI (``tests/fixtures/<host>/hook-payloads``) with the transcript path pointed at a copy of its
recorded transcript, so the hooks read the same files the host would give them.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PROMPT = "which parsing tool do I prefer for nested lists?"

# host -> (its recorded transcript, [(row label, hook command, payload file, overrides)])
CASES: dict[str, tuple[str, list[tuple[str, str, str, dict[str, Any]]]]] = {
    "gemini": ("session-transcript.jsonl", [
        ("SessionStart (startup)", "session-start", "SessionStart-startup", {}),
        ("BeforeAgent (recall)", "user-prompt-submit", "BeforeAgent", {"prompt": PROMPT}),
        ("AfterAgent (hand-off)", "stop", "AfterAgent", {}),
        ("PreCompress (no compression follows)", "pre-compact", "PreCompress-auto", {}),
        ("PreCompress (manual: hand-off)", "pre-compact", "PreCompress-auto",
         {"trigger": "manual"}),
        ("SessionEnd (hand-off)", "session-end", "SessionEnd-exit", {}),
        ("BeforeTool (read_file viking://: deny)", "pre-tool-use", "BeforeTool-read_file", {}),
        ("AfterTool (read_file)", "post-tool-use", "AfterTool-read_file", {}),
    ]),
    "copilot": ("session-1.jsonl", [
        ("SessionStart (new)", "session-start", "SessionStart-new", {}),
        ("UserPromptSubmit (recall)", "user-prompt-submit", "UserPromptSubmit",
         {"prompt": PROMPT}),
        ("Stop (hand-off)", "stop", "Stop", {}),
        ("SessionEnd (hand-off)", "session-end", "SessionEnd", {}),
    ]),
    "qwen": ("session-1.jsonl", [
        ("SessionStart (startup)", "session-start", "SessionStart-startup", {}),
        ("UserPromptSubmit (recall)", "user-prompt-submit", "UserPromptSubmit",
         {"prompt": PROMPT}),
        ("Stop (hand-off)", "stop", "Stop", {}),
    ]),
    "droid": ("session-1.jsonl", [
        ("SessionStart (startup)", "session-start", "SessionStart-startup", {}),
        ("Stop (hand-off)", "stop", "Stop", {}),
        ("SessionEnd (hand-off)", "session-end", "SessionEnd", {}),
    ]),
}  # fmt: skip
TITLES = {"gemini": "Gemini", "copilot": "Copilot", "qwen": "Qwen", "droid": "Droid"}

Measure = Callable[..., dict[str, Any]]


def recorded_rows(
    host: str, ovhooks: str, env: dict[str, str], tmp: Path, runs: int, server: object,
    measure: Measure,
) -> list[dict[str, Any]]:  # fmt: skip
    """One row per recorded event of ``host``, each a fresh ``ovhooks`` process."""
    fixtures = REPO / "tests" / "fixtures" / host
    transcript_name, cases = CASES[host]
    transcript = tmp / f"{host}-{transcript_name}"
    shutil.copyfile(fixtures / transcript_name, transcript)
    work = tmp / f"{host}-work"
    work.mkdir(exist_ok=True)
    rows = []
    for label, command, name, overrides in cases:
        doc = json.loads((fixtures / "hook-payloads" / f"{name}.json").read_text())
        doc.update(cwd=str(work), **overrides)
        if "transcript_path" in doc or command == "stop":
            doc["transcript_path"] = str(transcript)
        data = json.dumps(doc).encode()
        argv = [ovhooks, command, "--host", host]
        rows.append(measure(f"{TITLES[host]} {label}", argv, lambda d=data: d, env, runs, server))
    time.sleep(1.0)  # let detached workers finish before the next rows
    return rows
