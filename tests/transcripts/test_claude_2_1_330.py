"""The Claude reader on real 2.1.330 transcripts (background Agent, /compact)."""

from __future__ import annotations

from pathlib import Path

from ovhooks.capture import CaptureOptions, build_messages
from ovhooks.settings.config import load_settings
from ovhooks.transcripts.claude import records_to_turns
from ovhooks.transcripts.reader import read_new

AGENT = Path(__file__).parent.parent / "fixtures" / "claude-2.1.330" / "agent"


def test_task_notification_is_not_a_user_turn(tmp_path: Path) -> None:
    main = next(p for p in AGENT.glob("*.jsonl"))
    turns = records_to_turns(read_new(str(main), {}).records)
    users = [t.text for t in turns if t.role == "user"]
    assert "first turn: ask a helper RUNAGENT" in users[0]
    assert not any("<task-notification>" in u for u in users)
    settings = load_settings({"OVHOOKS_STATE_DIR": str(tmp_path)})
    sent = build_messages(turns, CaptureOptions.from_settings(settings)).messages
    texts = [(m["role"], m["parts"][0].get("text", "")) for m in sent]
    assert texts[0] == ("user", "first turn: ask a helper RUNAGENT")
    assert ("user", "after compaction") in texts
    assert not any("task-notification" in t or "/compact" in t for _r, t in texts)
    # the reply written after the agent came back still reaches the store
    assert any(r == "assistant" and "STUB-REPLY #4" in t for r, t in texts)


def test_background_subagent_transcript_reads_as_its_own_session() -> None:
    sub = next(AGENT.glob("*/subagents/agent-*.jsonl"))
    turns = records_to_turns(read_new(str(sub), {}).records)
    assert [t.role for t in turns] == ["user", "assistant"]
    assert turns[0].text.startswith("SUBAGENT-PROMPT")
