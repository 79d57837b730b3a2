"""Gemini CLI's dialect (ovhooks/hosts/gemini.py) and its PreCompress rule
(ovhooks/hosts/gemini/compress.py), on the payloads and transcript recorded from the real
CLI 0.61.0 (tests/fixtures/gemini)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ovhooks import hookrun
from ovhooks.commands.hostconfig import HOOK_TABLE
from ovhooks.hosts import gemini
from ovhooks.hosts.base import EVENT_NAMES, Reply, detect_host
from ovhooks.hosts.gemini import compress as gemini_compress
from ovhooks.transcripts import gemini as gemini_transcript
from tests.support.gemini_replies import FIXTURES, assert_gemini_valid, hook_log, recorded_payloads

TRANSCRIPT = FIXTURES / "session-transcript.jsonl"


def test_payloads_read_as_the_events_ovhooks_knows() -> None:
    payloads = {p["hook_event_name"]: p for _e, p in recorded_payloads()}
    prompt = gemini.normalize_payload(payloads["BeforeAgent"])["prompt"]
    assert payloads["BeforeAgent"]["prompt"].startswith("<hook_context>")  # as recorded
    assert prompt == "hello first turn"
    read = json.loads((FIXTURES / "hook-payloads" / "BeforeTool-read_file.json").read_text())
    tool = gemini.normalize_payload(read)
    assert tool["tool_name"] == "Read" and tool["gemini_tool_name"] == "read_file"
    assert tool["tool_input"] == {"file_path": read["tool_input"]["file_path"]}
    shell = json.loads(
        (FIXTURES / "hook-payloads" / "BeforeTool-run_shell_command.json").read_text()
    )
    assert gemini.normalize_payload(shell) == shell  # the shell is never guarded


@pytest.mark.parametrize(
    ("tool", "args", "name", "expected"),
    [
        ("read_many_files", {"include": ["a.py", "viking://x/"]}, "Read", {"file_path": "viking://x/"}),
        ("list_directory", {"dir_path": "viking://m"}, "Glob", {"path": "viking://m"}),
        ("glob", {"pattern": "*.md", "dir_path": "viking://m"}, "Glob",
         {"pattern": "*.md", "path": "viking://m"}),
        ("grep_search", {"pattern": "tabs", "dir_path": "src", "include": "*.py"}, "Grep",
         {"pattern": "tabs", "path": "src", "glob": "*.py"}),
        ("read_file", {"file_path": ["not", "a", "string"]}, "Read", {"file_path": "not"}),
        ("glob", "not an object", "Glob", {"pattern": "", "path": ""}),
    ],
)  # fmt: skip
def test_file_tools_map_to_the_guards_names(
    tool: str, args: Any, name: str, expected: dict[str, str]
) -> None:
    out = gemini.normalize_payload({"tool_name": tool, "tool_input": args})
    assert out["tool_name"] == name and out["tool_input"] == expected


def test_strip_hook_context() -> None:
    assert gemini_transcript.strip_hook_context("plain <b>") == "plain <b>"
    block = "<hook_context>a &lt;x&gt;</hook_context>"
    assert gemini_transcript.strip_hook_context(f"{block}\n\n{block}\n\nask <T>") == "ask <T>"
    assert gemini_transcript.strip_hook_context("<hook_context>unterminated") == ""


def test_gemini_is_detected_before_claude_whose_variable_it_also_sets() -> None:
    env = {"GEMINI_SESSION_ID": "s", "CLAUDE_PROJECT_DIR": "/w", "GEMINI_PROJECT_DIR": "/w"}
    assert detect_host({}, env) == "gemini"
    assert detect_host({}, {"CLAUDE_PROJECT_DIR": "/w"}) == "claude"


@pytest.mark.parametrize("event", sorted(gemini.GEMINI_EVENTS))
def test_every_reply_is_one_object_gemini_accepts(event: str) -> None:
    deny = {"permissionDecision": "deny", "permissionDecisionReason": "use ovhooks read"}
    for reply in (
        Reply(),
        Reply(context="memo <b>", system_message="note"),
        Reply(context="x" * 20_000),
        Reply(specific=deny),
    ):
        out = gemini.render_reply(event, reply)
        assert out.startswith("{") and "\n" not in out
        assert_gemini_valid(event, json.loads(out))
    denied = json.loads(gemini.render_reply("PreToolUse", Reply(specific=deny)))
    assert denied == {"decision": "deny", "reason": "use ovhooks read"}
    after_agent = json.loads(gemini.render_reply("Stop", Reply(context="x", specific=deny)))
    assert after_agent == {}  # never decision on AfterAgent: it would force a retry turn


def test_every_hook_answers_a_second_inside_geminis_timeout() -> None:
    for _event, command, _matcher, timeout_s in HOOK_TABLE["gemini"]:
        event = EVENT_NAMES[command]
        fixed = hookrun.HOST_TIMEOUT_DEADLINES_S.get(event)
        if fixed is not None:
            assert fixed <= timeout_s - 1.0, event


def test_the_session_start_block_is_held_once_for_the_first_prompt(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    assert gemini.take_start_context(state, "gm-s1") == ""
    gemini.hold_start_context(state, "gm-s1", "who you are")
    assert gemini.take_start_context(state, "gm-s1") == "who you are"
    assert gemini.take_start_context(state, "gm-s1") == ""


def test_a_first_prompt_waits_for_a_session_start_still_building_its_block(
    tmp_path: Path,
) -> None:
    """Copilot CLI starts SessionStart and the first prompt's hook together: the prompt waits
    (bounded) for the block another process is still building, and only while it builds."""
    import subprocess
    import sys
    import time

    state = str(tmp_path / "state")
    gemini.mark_start_pending(state, "cp-s1")
    writer = (
        "import time, sys; from ovhooks.hosts import gemini; time.sleep(0.3); "
        "gemini.hold_start_context(sys.argv[1], 'cp-s1', 'who you are')"
    )
    proc = subprocess.Popen([sys.executable, "-c", writer, state])
    try:
        started = time.monotonic()
        got = gemini.take_start_context(state, "cp-s1", wait_s=gemini.START_WAIT_S)
        waited = time.monotonic() - started
    finally:
        proc.wait(timeout=10)
    assert got == "who you are" and waited < gemini.START_WAIT_S
    # nothing being built: no wait at all
    started = time.monotonic()
    assert gemini.take_start_context(state, "cp-s1", wait_s=5.0) == ""
    assert time.monotonic() - started < 0.5
    # a SessionStart that ended without a block clears its mark: no wait either
    gemini.mark_start_pending(state, "cp-s2")
    gemini.clear_start_pending(state, "cp-s2")
    gemini.clear_start_pending(state, "cp-s2")  # twice is harmless
    started = time.monotonic()
    assert gemini.take_start_context(state, "cp-s2", wait_s=5.0) == ""
    assert time.monotonic() - started < 0.5


def test_a_session_start_that_died_is_waited_for_at_most_the_bound(tmp_path: Path) -> None:
    import os
    import time

    state = str(tmp_path / "state")
    gemini.mark_start_pending(state, "cp-s3")  # and then nothing: its process died
    started = time.monotonic()
    assert gemini.take_start_context(state, "cp-s3", wait_s=0.3) == ""
    assert 0.3 <= time.monotonic() - started < 1.0
    # a mark older than START_PENDING_S is not waited for at all
    mark = os.path.join(state, "recall", "cp-s3.gemini-start.pending")
    old = time.time() - gemini.START_PENDING_S - 1
    os.utime(mark, (old, old))
    started = time.monotonic()
    assert gemini.take_start_context(state, "cp-s3", wait_s=5.0) == ""
    assert time.monotonic() - started < 0.5


# --- PreCompress ------------------------------------------------------------------------


def _cut_lines(data: bytes) -> list[tuple[int, bytes]]:
    lines, position = [], 0
    while (end := data.find(b"\n", position)) >= 0:
        lines.append((position, data[position:end]))
        position = end + 1
    return lines


def test_only_the_precompress_gemini_really_compressed_after_is_predicted() -> None:
    """The recorded run fired PreCompress 8 times; the model saw one compression (the two
    ``generateContent`` summary calls), right after the 600,000-token response of turn 4."""
    data = TRANSCRIPT.read_bytes()
    predictions = []
    for entry in hook_log():
        if entry["event"] == "PreCompress":
            size = entry["transcript_bytes"]
            tokens, model = gemini_compress.prompt_tokens(_cut_lines(data[:size]), size)
            predictions.append((tokens, gemini_compress.expected(tokens, model, 0.5)))
    assert len(predictions) == 8
    assert [p for _t, p in predictions] == [False] * 6 + [True, False]
    assert predictions[6][0] == 600_000
    kinds = [
        json.loads(path.read_text())["kind"]
        for path in sorted((FIXTURES / "stub-requests").glob("*.json"))
    ]
    assert kinds.count("compaction") == 2 and kinds[6:8] == ["compaction", "compaction"]


def test_after_a_resume_the_history_is_estimated_not_the_last_response() -> None:
    big = b'{"id":"g","type":"gemini","content":"x","tokens":{"input":900000},"model":"m"}'
    lines = [(0, big)]
    assert gemini_compress.prompt_tokens(lines, len(big)) == (900_000, "m")
    resumed = [*lines, (len(big) + 1, b'{"$set":{"sessionId":"s"}}')]
    tokens, model = gemini_compress.prompt_tokens(resumed, len(big) + 28)
    assert model == "m" and tokens == (len(big) + 28) // 4
    listed = [*resumed, (2000, b'{"$set": {"messages": [{"id": "a"}]}}')]
    assert gemini_compress.prompt_tokens(listed, 2400)[0] == 100  # 400 bytes since the list


def test_token_limits_and_manual_compression() -> None:
    assert gemini_compress.expected(524_288, "gemini-2.5-pro", 0.5)
    assert not gemini_compress.expected(524_287, "gemini-2.5-pro", 0.5)
    assert gemini_compress.expected(128_000, "gemma-4-31b-it", 0.5)
    assert gemini_compress.expected(0, "", 0.5, manual=True)
    assert gemini_compress.compression_follows("", "manual", {}, "")
    assert not gemini_compress.compression_follows("", "auto", {}, "")
    assert not gemini_compress.compression_follows("/dev/zero", "auto", {}, "")


def test_the_threshold_is_read_as_gemini_reads_it(tmp_path: Path) -> None:
    home, project, system = tmp_path / "home", tmp_path / "proj", tmp_path / "system.json"
    env = {"HOME": str(home), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system)}
    assert gemini_compress.threshold(env, str(project)) == 0.5
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text('{"model": {"compressionThreshold": 0.2}}')
    assert gemini_compress.threshold(env, str(project)) == 0.2
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text('{"model": {"compressionThreshold": 0.3}}')
    assert gemini_compress.threshold(env, str(project)) == 0.3
    system.write_text('{"model": {"compressionThreshold": 0.9}}')
    assert gemini_compress.threshold(env, str(project)) == 0.9
    system.write_text('// a comment Gemini allows\n{"model": {"compressionThreshold": 0.9}}')
    assert gemini_compress.threshold(env, str(project)) == 0.3
    for bad in ("true", "0", "7", '"0.5"'):
        system.write_text(f'{{"model": {{"compressionThreshold": {bad}}}}}')
        assert gemini_compress.threshold(env, str(project)) == 0.3
    custom = {"GEMINI_CLI_HOME": str(tmp_path / "gh"), **env}
    assert gemini.gemini_dir(custom) == str(tmp_path / "gh" / ".gemini")
