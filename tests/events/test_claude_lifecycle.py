"""The Claude Code lifecycle against the fake server: every event in the order Claude fires them.

Hook order follows hosts-e2e §2.5 (Claude Code 2.1.197): every ``-p`` call ends with
SessionEnd and starts again with SessionStart(resume); ``/compact`` fires PreCompact, then a
SubagentStop for the compaction agent (empty ``agent_type``, no transcript file), then
SessionStart(compact) and PostCompact; auto-compaction runs after UserPromptSubmit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.ids import subagent_session_id
from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import (
    assert_host_valid,
    capture_only_env,
    logged_errors,
    run_inline,
    session_state,
)

SID = "d35d66ca-7371-459e-9033-a440c89c7c20"
OV = f"cc-{SID}"
AGENT = "a689683e094567dc3"
SUB_OV = subagent_session_id(OV, AGENT)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


@pytest.fixture
def transcript(tmp_path: Path, project: Path) -> ClaudeTranscript:
    return ClaudeTranscript(tmp_path / "claude-config", SID, project)


def hook(command: str, payload: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    reply, _err = run_inline(command, payload, env, host="claude")
    assert_host_valid("claude", payload["hook_event_name"], reply)
    return reply


def _assert_in_order(texts: list[str], expected: list[str]) -> None:
    assert len(texts) == len(expected), texts
    for text, want in zip(texts, expected, strict=True):
        assert want in text, (want, texts)


# --- one whole session ------------------------------------------------------------------------


def test_session_with_subagent_manual_and_auto_compact_is_captured_once_in_order(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript

    def start(source: str) -> None:
        hook("session-start", t.payload("SessionStart", source=source), env)

    def prompt(text: str) -> None:
        hook("user-prompt-submit", t.payload("UserPromptSubmit", prompt=text), env)
        t.prompt(text, recalled='<openviking-context source="recall">recalled</openviking-context>')

    def stop(last: str) -> None:
        hook("stop", t.payload("Stop", last_assistant_message=last), env)

    def end() -> None:
        hook("session-end", t.payload("SessionEnd", reason="other"), env)

    # turn 1
    start("startup")
    prompt("hello first turn, tell me about the parser")
    t.reply("First reply: the parser is recursive.")
    stop("First reply: the parser is recursive.")
    end()
    # turn 2: a Bash call
    start("resume")
    prompt("second turn, please run the shell command")
    t.assistant(
        [
            {
                "type": "tool_use",
                "id": "toolu_b",
                "name": "Bash",
                "input": {"command": "echo hello-from-shell"},
            }
        ]
    )
    hook(
        "pre-tool-use",
        t.payload("PreToolUse", tool_name="Bash", tool_input={"command": "echo hello-from-shell"}),
        env,
    )
    t.user(
        [
            {
                "tool_use_id": "toolu_b",
                "type": "tool_result",
                "content": "hello-from-shell",
                "is_error": False,
            }
        ],
        toolUseResult={"stdout": "hello-from-shell"},
    )
    hook(
        "post-tool-use",
        t.payload(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "echo hello-from-shell"},
            tool_response={"stdout": "hello-from-shell"},
        ),
        env,
    )
    t.reply("Second reply: the shell said hello.")
    stop("Second reply: the shell said hello.")
    end()
    # turn 3: a subagent
    start("resume")
    prompt("third turn, please delegate to a subagent")
    agent_input = {
        "description": "d",
        "prompt": "SUBAGENT-PROMPT survey the parser tests",
        "subagent_type": "general-purpose",
    }
    hook("pre-tool-use", t.payload("PreToolUse", tool_name="Agent", tool_input=agent_input), env)
    sub = t.subagent(AGENT)
    sub.user("SUBAGENT-PROMPT survey the parser tests")
    hook(
        "subagent-start",
        t.payload("SubagentStart", agent_id=AGENT, agent_type="general-purpose"),
        env,
    )
    sub.hook_context(
        "SubagentStart", '<openviking-context source="subagent">ctx</openviking-context>'
    )
    sub.tool("Grep", {"pattern": "def test_", "path": "/w/tests"}, "tests/test_parser.py:3")
    sub.reply("Subagent internal finding: three parser tests exist.")
    hook(
        "subagent-stop",
        t.subagent_stop_payload(AGENT, "Subagent internal finding: three parser tests exist."),
        env,
    )
    t.agent_call("SUBAGENT-PROMPT survey the parser tests", "three parser tests exist", AGENT)
    hook(
        "post-tool-use",
        t.payload(
            "PostToolUse",
            tool_name="Agent",
            tool_input=agent_input,
            tool_response={"status": "completed"},
        ),
        env,
    )
    t.reply("Third reply: the subagent found three tests.")
    stop("Third reply: the subagent found three tests.")
    end()
    # /compact (manual): no UserPromptSubmit, no Stop
    start("resume")
    hook("pre-compact", t.payload("PreCompact", trigger="manual", custom_instructions=None), env)
    hook(
        "subagent-stop",
        t.subagent_stop_payload("a49862c9b121a72bc", "<summary>S</summary>", agent_type=""),
        env,
    )
    t.compact("manual", "STUB-COMPACT-SUMMARY #7")
    start("compact")
    hook(
        "post-compact",
        t.payload("PostCompact", trigger="manual", compact_summary="<summary>S</summary>"),
        env,
    )
    end()
    # turn 5
    start("resume")
    prompt("fifth turn after compact, what next for the parser")
    t.reply("Fifth reply: add tests for empty lists.")
    stop("Fifth reply: add tests for empty lists.")
    end()
    # turn 6: auto-compaction between UserPromptSubmit and the model call
    start("resume")
    prompt("sixth turn, auto-compact expected here")
    hook("pre-compact", t.payload("PreCompact", trigger="auto", custom_instructions=None), env)
    hook(
        "subagent-stop",
        t.subagent_stop_payload("a000000000000000b", "<summary>S2</summary>", agent_type=""),
        env,
    )
    t.compact("auto", "STUB-COMPACT-SUMMARY #10")
    start("compact")
    hook(
        "post-compact",
        t.payload("PostCompact", trigger="auto", compact_summary="<summary>S2</summary>"),
        env,
    )
    t.reply("Sixth reply: continuing after the automatic compaction.")
    stop("Sixth reply: continuing after the automatic compaction.")
    end()

    _assert_in_order(
        fake_ov.texts(OV),
        [
            "hello first turn",
            "First reply",
            "second turn",
            "Second reply",
            "third turn",
            "Third reply",
            "fifth turn",
            "Fifth reply",
            "sixth turn",
            "Sixth reply",
        ],
    )
    parent_dump = json.dumps(fake_ov.messages(OV))
    for leaked in (
        "Subagent internal finding",
        "STUB-COMPACT-SUMMARY",
        "openviking-context",
        "being continued",
        "/compact",
        "Continue from where",
        "No response requested",
    ):
        assert leaked not in parent_dump, leaked
    # the subagent's work is in its own session, exactly once, and committed
    _assert_in_order(fake_ov.texts(SUB_OV), ["SUBAGENT-PROMPT survey", "Subagent internal finding"])
    assert fake_ov.sessions[SUB_OV]["commit_count"] == 1
    assert "openviking-context" not in json.dumps(fake_ov.messages(SUB_OV))
    # the compaction agents left nothing behind: no session, no state, no error
    assert not [s for s in fake_ov.sessions if "a49862c9b121a72bc" in s or "a000000000000000b" in s]
    assert logged_errors() == []
    # every SessionEnd with something new committed it; no empty commits
    commits = [r for r in fake_ov.requests if r["path"] == f"/api/v1/sessions/{OV}/commit"]
    assert len(commits) == fake_ov.sessions[OV]["commit_count"]
    assert fake_ov.sessions[OV]["commit_count"] >= 5
    state = session_state(OV)
    assert state["ended"] is True and state["end_reason"] == "other"
    assert session_state(SUB_OV)["parent"] == OV


# --- Stop and the asynchronous transcript -------------------------------------------------------


TWO_TURNS = ["Question one", "Answer one", "Question two", "Answer two"]


def _second_turn(t: ClaudeTranscript, env: dict[str, str]) -> None:
    """The second question and its answer in the file, then that turn's Stop."""
    answer = "Answer two: walk their values the same way."
    t.prompt("Question two: and for dictionaries inside lists?")
    t.reply(answer)
    hook("stop", t.payload("Stop", last_assistant_message=answer), env)


def test_stop_reply_not_yet_in_file_is_captured_once(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    last = "Answer one: recurse into every nested list."
    # Claude has not written the reply yet when Stop fires
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    _assert_in_order(fake_ov.texts(OV), ["Question one", "Answer one"])
    t.reply(last)  # ... and now it has
    _second_turn(t, env)
    _assert_in_order(fake_ov.texts(OV), TWO_TURNS)


def test_a_stop_whose_reply_was_read_by_a_later_job_adds_nothing(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    """A Stop's job may run after a later hook's worker already read the file past its reply
    (the fuzz campaign: stop, session-end, then the first turn's Stop again): its reply is
    one of those read, not a new one, even when it is not the last."""
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    first = "Answer one: recurse into every nested list."
    t.reply(first)
    _second_turn(t, env)
    _assert_in_order(fake_ov.texts(OV), TWO_TURNS)
    hook("stop", t.payload("Stop", last_assistant_message=first), env)
    _assert_in_order(fake_ov.texts(OV), TWO_TURNS)


def test_a_turn_written_just_after_stop_is_captured_prompt_first(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    """Claude 2.1.330 sometimes writes the turn's prompt and reply after Stop fires: the worker
    waits for them (``OVHOOKS_REPLY_WAIT_S``) instead of sending the reply ahead of its prompt."""
    import threading
    import time

    env = capture_only_env(fake_ov.url)
    t = transcript
    t.turn(1)
    first = "Answer number 1: recurse into each nested list and flatten it."
    hook("stop", t.payload("Stop", last_assistant_message=first), env)
    last = "Answer two: walk their values the same way."

    def host_writes_late() -> None:
        time.sleep(0.3)
        t.prompt("Question two: and for dictionaries inside lists?")
        time.sleep(0.05)
        t.reply(last)

    writer = threading.Thread(target=host_writes_late)
    started = time.monotonic()
    writer.start()
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    waited = time.monotonic() - started
    writer.join()
    texts = fake_ov.texts(OV)
    assert "Question two" in texts[-2] and "Answer two" in texts[-1], texts
    assert sum("Answer two" in x for x in texts) == 1, texts
    assert not any(u.startswith("synthetic-") for u in session_state(OV)["recent_uids"])
    assert 0.3 < waited < 1.5, waited  # it waited for the file, not for the whole bound


def test_a_reply_that_never_lands_is_sent_after_the_bounded_wait(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    import time

    env = capture_only_env(fake_ov.url, OVHOOKS_REPLY_WAIT_S="0.4")
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    started = time.monotonic()
    hook("stop", t.payload("Stop", last_assistant_message="Answer one: recurse."), env)
    waited = time.monotonic() - started
    _assert_in_order(fake_ov.texts(OV), ["Question one", "Answer one"])
    assert 0.4 <= waited < 1.4, waited


def test_stop_fired_twice_before_the_reply_lands_sends_it_once(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    last = "Answer one: recurse into every nested list."
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    hook("stop", t.payload("Stop", last_assistant_message=last, stop_hook_active=True), env)
    t.reply(last)
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    _assert_in_order(fake_ov.texts(OV), ["Question one", "Answer one"])


def test_stop_repeated_after_reply_was_captured_does_not_resend_it(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    t.reply("Answer one: recurse into every nested list.")
    hook(
        "stop",
        t.payload("Stop", last_assistant_message="Answer one: recurse into every nested list."),
        env,
    )
    hook(
        "stop",
        t.payload("Stop", last_assistant_message="Answer one: recurse into every nested list."),
        env,
    )
    _assert_in_order(fake_ov.texts(OV), ["Question one", "Answer one"])


def test_stop_reply_written_after_tool_records_is_not_duplicated(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: what does the shell print?")
    last = "Answer one: it printed hello from the shell."
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    # the whole assistant side lands late: a tool call, its result, then the text
    t.tool("Bash", {"command": "echo hello"}, "hello")
    t.reply(last)
    t.prompt("Question two: and what is the exit status?")
    t.reply("Answer two: zero, the command succeeded.")
    hook(
        "stop",
        t.payload("Stop", last_assistant_message="Answer two: zero, the command succeeded."),
        env,
    )
    texts = fake_ov.texts(OV)
    assert sum("Answer one" in x for x in texts) == 1, texts
    assert "Question two" in texts[-2] and "Answer two" in texts[-1]


def test_stop_reply_written_after_tool_records_keeps_the_tool_calls(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: what does the shell print?")
    last = "Answer one: it printed hello from the shell."
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    t.tool("Bash", {"command": "echo hello"}, "hello")
    t.reply(last)
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    assert "echo hello" in json.dumps(fake_ov.messages(OV))


def test_stop_after_session_end_already_captured_the_reply_does_not_resend_it(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    # In -p mode Stop and SessionEnd fire back to back and both hand off detached workers;
    # the SessionEnd worker can win the session lock and read the (by then complete) file.
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("Question one: how do I flatten nested lists?")
    last = "Answer one: recurse into every nested list."
    t.reply(last)
    hook("session-end", t.payload("SessionEnd", reason="other"), env)
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    _assert_in_order(fake_ov.texts(OV), ["Question one", "Answer one"])


def test_session_end_records_reason_and_catches_up(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.turn(1)
    hook(
        "stop",
        t.payload(
            "Stop",
            last_assistant_message="Answer number 1: recurse into each nested list and flatten it.",
        ),
        env,
    )
    t.turn(2)  # an interrupted turn: no Stop
    hook("session-end", t.payload("SessionEnd", reason="prompt_input_exit"), env)
    assert fake_ov.sessions[OV]["commit_count"] == 1
    _assert_in_order(
        fake_ov.texts(OV),
        ["Question number 1", "Answer number 1", "Question number 2", "Answer number 2"],
    )
    state = session_state(OV)
    assert state["ended"] is True and state["end_reason"] == "prompt_input_exit"


# --- subagents ----------------------------------------------------------------------------------


def test_subagent_stop_captures_into_its_own_session(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    t.prompt("main question about the parser module")
    sub = t.subagent(AGENT)
    sub.user("SUBAGENT-PROMPT list the parser's public functions")
    sub.reply("The parser exposes parse() and parse_file().")
    reply = hook(
        "subagent-stop",
        t.subagent_stop_payload(AGENT, "The parser exposes parse() and parse_file()."),
        env,
    )
    assert reply == {}
    assert OV not in fake_ov.sessions, "nothing of the subagent may reach the parent's session"
    _assert_in_order(fake_ov.texts(SUB_OV), ["SUBAGENT-PROMPT list", "The parser exposes"])
    assert fake_ov.sessions[SUB_OV]["commit_count"] == 1
    state = session_state(SUB_OV)
    assert state["parent"] == OV and state["host"] == "claude"


def test_subagent_final_reply_not_yet_in_its_file_is_captured_once(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    env = capture_only_env(fake_ov.url)
    t = transcript
    sub = t.subagent(AGENT)
    sub.user("SUBAGENT-PROMPT list the parser's public functions")
    last = "The parser exposes parse() and parse_file()."
    hook("subagent-stop", t.subagent_stop_payload(AGENT, last), env)
    sub.reply(last)
    sub.user("SUBAGENT-PROMPT continue: and the private ones?")
    sub.reply("Private helpers: _tokenize() and _flatten().")
    hook(
        "subagent-stop",
        t.subagent_stop_payload(AGENT, "Private helpers: _tokenize() and _flatten()."),
        env,
    )
    _assert_in_order(
        fake_ov.texts(SUB_OV),
        [
            "SUBAGENT-PROMPT list",
            "The parser exposes",
            "SUBAGENT-PROMPT continue",
            "Private helpers",
        ],
    )


def test_compaction_subagent_stop_is_quiet(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript, host_samples: Path
) -> None:
    env = capture_only_env(fake_ov.url, OVHOOKS_LOG_LEVEL="debug")
    payload = json.loads(
        (
            host_samples / "claude" / "hook-payloads" / "SubagentStop-compaction-agent.json"
        ).read_text()
    )
    assert payload["agent_type"] == "" and not Path(payload["agent_transcript_path"]).exists()
    assert hook("subagent-stop", payload, env) == {}
    assert fake_ov.requests == []
    assert logged_errors() == []
    assert not (Path(os.environ["OVHOOKS_STATE_DIR"]) / "sessions").exists() or not list(
        (Path(os.environ["OVHOOKS_STATE_DIR"]) / "sessions").glob("*.json")
    )


def test_subagent_stop_without_transcript_file_is_a_noop(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovhooks.events import subagent_stop

    monkeypatch.setattr(subagent_stop, "SUBAGENT_TRANSCRIPT_WAIT_S", 0.2)
    env = capture_only_env(fake_ov.url)
    reply = hook("subagent-stop", transcript.subagent_stop_payload("a1b2c3", "done"), env)
    assert reply == {} and fake_ov.requests == []
    assert logged_errors() == []


def test_subagent_transcript_written_after_subagent_stop_is_still_captured(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    """Claude can fire SubagentStop before the subagent's file exists (seen with 2.1.197)."""
    import threading

    env = capture_only_env(fake_ov.url)
    t = transcript
    payload = t.subagent_stop_payload(AGENT, "The parser exposes parse() and parse_file().")
    assert not Path(payload["agent_transcript_path"]).exists()

    def write_late() -> None:
        sub = t.subagent(AGENT)
        sub.user("SUBAGENT-PROMPT list the parser's public functions")
        sub.reply("The parser exposes parse() and parse_file().")

    timer = threading.Timer(0.3, write_late)
    timer.start()
    assert hook("subagent-stop", payload, env) == {}
    timer.join()
    _assert_in_order(fake_ov.texts(SUB_OV), ["SUBAGENT-PROMPT list", "The parser exposes"])
    assert len(fake_ov.texts(SUB_OV)) == 2


def test_state_at_rest_keeps_no_secret_of_the_last_reply(
    fake_ov: FakeOpenViking, transcript: ClaudeTranscript
) -> None:
    """The final reply's text rests in the session state (to capture it exactly once): it is
    kept scrubbed, and a later read of the same reply is still recognised as sent."""
    env = capture_only_env(fake_ov.url)
    t = transcript
    key = "sk-proj-" + "Wq3Lz8Rv2Mx7Kt4Np9Bc1Hd6Jf0Gs5Ay" * 2
    last = f"Set OPENAI_API_KEY={key} in the CI settings and rerun the job."
    t.prompt("how do I fix the CI job?")
    hook("stop", t.payload("Stop", last_assistant_message=last), env)  # before the file has it
    t.reply(last)
    hook("stop", t.payload("Stop", last_assistant_message=last), env)
    state_dir = Path(os.environ["OVHOOKS_STATE_DIR"])
    for path in state_dir.rglob("*.json"):
        assert key not in path.read_text(), path
    texts = fake_ov.texts(OV)
    assert sum("CI settings" in text for text in texts) == 1, texts
    assert not any(key in text for text in texts)
