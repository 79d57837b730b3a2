"""Issue 12 on the default path, through real hook processes on the local store.

Session 1 is an ordinary Codex session: requests, tool work, and, among them, facts the user
states without any trigger word. Every hook runs as ``python -m ovhooks …``, as Codex runs
it (Stop hands the turns over, SessionEnd commits). Session 2 asks about those facts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.support.hooks import assert_host_valid, run_process
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore

# No "remember", no "I prefer": a plain fact, and a remark about the work in hand that no
# commit promotes (it lives on in the session's history).
FACT = "the staging database listens on port 6543, not the default one"
REMARK = "the nightly_export DAG failed again last night, check the logs"


class Sessions:
    def __init__(self, tmp_path: Path, data_dir: Path, work: Path | None = None) -> None:
        self.tmp_path = tmp_path
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.store = LocalStore(data_dir)
        self.env = self.store.env(OVHOOKS_DETACH="0", OVHOOKS_STATE_DIR=str(data_dir / "state"))
        # the project directory: its path names the project's memories
        self.work = work or tmp_path / "work"
        self.work.mkdir(parents=True, exist_ok=True)

    def hook(self, sid: str, rollout: CodexRollout, command: str, event: str, **extra: Any) -> Any:
        payload = codex_payload(event, sid, rollout.path, self.work, **extra)
        proc, _seconds = run_process(command, payload, self.env)
        assert proc.returncode == 0, proc.stderr.decode()
        reply = json.loads(proc.stdout)
        assert_host_valid("codex", event, reply)
        return proc.stdout

    def first(self) -> None:
        r = CodexRollout(self.tmp_path / "s1.jsonl", "s1")
        self.hook("s1", r, "session-start", "SessionStart", source="startup")
        r.environment()
        r.user("Please add a --dry-run flag to the export command.")
        r.shell("pytest -q tests/test_export.py", "9 passed in 0.31s")
        r.assistant("Added --dry-run; tests pass.")
        self.hook("s1", r, "stop", "Stop")
        r.user(FACT)
        r.assistant("Noted, I'll use 6543 for staging.")
        self.hook("s1", r, "stop", "Stop")
        r.user(REMARK)
        r.assistant("It ran out of disk on the worker; I cleared the tmp volume.")
        self.hook("s1", r, "stop", "Stop")
        r.user("thanks, that's all for today")
        r.assistant("Bye.")
        self.hook("s1", r, "stop", "Stop")
        self.hook("s1", r, "session-end", "SessionEnd", reason="exit")
        assert self.store.commit_count("cx-s1") == 1

    def ask(self, sid: str, prompt: str) -> bytes:
        r = CodexRollout(self.tmp_path / f"{sid}.jsonl", sid)
        self.hook(sid, r, "session-start", "SessionStart", source="startup")
        out: bytes = self.hook(sid, r, "user-prompt-submit", "UserPromptSubmit", prompt=prompt)
        return out


def context(stdout: bytes) -> str:
    reply = json.loads(stdout)
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_a_fact_stated_without_trigger_words_is_recalled_next_session(tmp_path: Path) -> None:
    run = Sessions(tmp_path, Path(os.environ["OVHOOKS_DATA_DIR"]))
    run.first()
    recalled = context(run.ask("s2", "which port is the staging database on?"))
    assert "auto-recall" in recalled and FACT in recalled, recalled
    # the chores of the session did not become memories
    assert "--dry-run" not in recalled and "thanks" not in recalled


def test_what_was_not_promoted_is_found_in_the_archive(tmp_path: Path) -> None:
    run = Sessions(tmp_path, Path(os.environ["OVHOOKS_DATA_DIR"]))
    run.first()
    recalled = context(run.ask("s2", "did the nightly_export DAG fail before?"))
    # the report, without the ask that followed it
    report = REMARK.rpartition(",")[0]
    assert report in recalled and REMARK not in recalled, recalled
    assert "/history/archive_001" in recalled, recalled


def test_an_unrelated_prompt_injects_nothing(tmp_path: Path) -> None:
    run = Sessions(tmp_path, Path(os.environ["OVHOOKS_DATA_DIR"]))
    run.first()
    # shares "port" and "default" with the fact, by chance
    assert context(run.ask("s2", "what port does an SMTP server use by default?")) == ""


def test_the_same_sessions_give_byte_identical_recall(tmp_path: Path) -> None:
    outputs = []
    for n in (1, 2):
        run = Sessions(tmp_path / f"run{n}", tmp_path / f"run{n}" / "data", tmp_path / "work")
        run.first()
        outputs.append(run.ask("s2", "which port is the staging database on?"))
    assert outputs[0] == outputs[1] and context(outputs[0])


def test_the_users_minimum_confidence_drops_what_the_decision_kept(tmp_path: Path) -> None:
    """``OVHOOKS_RECALL_MIN_CONFIDENCE``: at 0 (the default) the fact is injected, with its
    confidence in the viewer's words; at 0.999 the same prompt injects nothing, and a
    value outside 0..1 is a configuration error the hook survives (exit 0, the default)."""
    run = Sessions(tmp_path, Path(os.environ["OVHOOKS_DATA_DIR"]))
    run.first()
    prompt = "which port is the staging database on?"
    assert FACT in context(run.ask("s2", prompt))
    run.env["OVHOOKS_RECALL_MIN_CONFIDENCE"] = "0.999"
    assert context(run.ask("s3", prompt)) == ""
    run.env["OVHOOKS_RECALL_MIN_CONFIDENCE"] = "1.5"
    assert FACT in context(run.ask("s4", prompt))
