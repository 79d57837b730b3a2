"""Claude Code hooks as real processes and the tool hooks: fixture payloads, bad stdin,
SessionEnd's time budget, the viking:// guard, skill memory, subagent context."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ovhooks.hosts import launch
from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import (
    HOOKS,
    REPO,
    assert_host_valid,
    hook_env,
    hook_floor,
    run_inline,
    run_process,
)

SID = "d35d66ca-7371-459e-9033-a440c89c7c20"
OV = f"cc-{SID}"


def _claude_payloads(host_samples: Path) -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text())
        for p in sorted((host_samples / "claude" / "hook-payloads").glob("*.json"))
    ]


def _one_reply(proc: Any) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    reply = json.loads(lines[0])
    assert isinstance(reply, dict)
    return reply


def test_every_claude_fixture_payload_exits_0_with_valid_output(
    host_samples: Path, fake_ov: FakeOpenViking
) -> None:
    env = hook_env(fake_ov.url)
    payloads = _claude_payloads(host_samples)
    assert len(payloads) == 17
    for payload in payloads:
        event = payload["hook_event_name"]
        proc, _ = run_process(HOOKS[event], payload, env, host="claude")
        assert_host_valid("claude", event, _one_reply(proc))


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"   \n",
        b"{not json",
        b"[1, 2]",
        b'"text"',
        b'{"session_id": 7, "tool_input": "x", "agent_id": []}',
    ],
    ids=["empty", "blank", "malformed", "list", "string", "wrong-types"],
)
def test_empty_or_malformed_stdin_exits_0_with_valid_output(
    stdin: bytes, fake_ov: FakeOpenViking
) -> None:
    env = hook_env(fake_ov.url)
    for event, command in HOOKS.items():
        reply, _ = run_inline(command, stdin, env, host="claude")
        assert_host_valid("claude", event, reply)
        assert reply == {}, (event, reply)
    # and once as the host runs it, through the real entry point
    proc, _ = run_process("subagent-stop", stdin, env, host="claude")
    assert _one_reply(proc) == {}


def test_hook_registration_covers_every_event(host_samples: Path) -> None:
    doc = json.loads((REPO / "hooks.claude.json").read_text())
    hooks = doc["hooks"]
    assert set(hooks) == set(HOOKS)
    for event, groups in hooks.items():
        assert len(groups) == 1
        (handler,) = groups[0]["hooks"]
        assert handler["type"] == "command"
        assert handler["command"] == launch.command_line("ovhooks", HOOKS[event], "claude")
        assert isinstance(handler["timeout"], int) and 1 <= handler["timeout"] <= 60  # seconds
    assert hooks["PreToolUse"][0]["matcher"] == "Read|Glob|Grep"
    assert hooks["PostToolUse"][0]["matcher"] == "Read"
    # Claude gives SessionEnd hooks 1.5 s together unless a timeout is declared
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] >= 2


# --- SessionEnd: return at once, finish in the detached worker ------------------------------------


def test_session_end_returns_at_once_with_a_5s_server_and_still_commits(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.turn(1)
    t.turn(2)
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="1", OVHOOKS_RECALL="0", OVHOOKS_SESSION_CONTEXT="0")
    run_process("stop", t.payload("Stop"), env, host="claude")  # warm the interpreter's caches
    fake_ov.delay_s = 5.0
    proc, seconds = run_process(
        "session-end", t.payload("SessionEnd", reason="prompt_input_exit"), env, host="claude"
    )
    assert _one_reply(proc) == {}
    floor = hook_floor(env, host="claude")
    print(f"SessionEnd wall time: {seconds * 1000:.0f} ms (do-nothing hook: {min(floor):.3f}s)")
    # Claude gives SessionEnd 1.5 s; waiting for this server would take 5 s. Compared with a
    # do-nothing hook measured now, so the check holds on a loaded machine too.
    assert seconds < min(floor) + 0.5, f"SessionEnd took {seconds:.3f}s (floors {floor})"
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        session = fake_ov.sessions.get(OV)
        if session and session["commit_count"] >= 1:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"no commit arrived; requests: {[r['path'] for r in fake_ov.requests]}")
    texts = fake_ov.texts(OV)
    assert sum("Question number 1" in x for x in texts) == 1
    assert sum("Answer number 2" in x for x in texts) == 1
    state_path = Path(env["OVHOOKS_STATE_DIR"]) / "sessions" / f"{OV}.json"
    for _ in range(50):  # the state is saved right after the commit's answer
        state = json.loads(state_path.read_text())
        if state.get("ended"):
            break
        time.sleep(0.1)
    assert state["ended"] is True and state["end_reason"] == "prompt_input_exit"


# --- PreToolUse: the viking:// guard --------------------------------------------------------------


def _pre(
    tool: str, tool_input: dict[str, Any], env: dict[str, str], host: str = "claude"
) -> dict[str, Any]:
    payload = {
        "session_id": SID,
        "transcript_path": "/x.jsonl",
        "cwd": "/w",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    reply, _ = run_inline("pre-tool-use", payload, env, host=host)
    assert_host_valid(host, "PreToolUse", reply)
    return reply


@pytest.mark.parametrize(
    ("tool", "tool_input", "suggests"),
    [
        (
            "Read",
            {"file_path": "viking://user/default/memories/profile.md"},
            "ovhooks read viking://user/default/memories/profile.md",
        ),
        (
            "Read",
            {"file_path": "  VIKING://resources/x.md"},
            "ovhooks read VIKING://resources/x.md",
        ),
        ("Glob", {"pattern": "viking://resources/**/*.md"}, "ovhooks ls viking://resources/"),
        (
            "Glob",
            {"pattern": "*.md", "path": "viking://~/memories/"},
            "ovhooks ls 'viking://~/memories/'",
        ),
        ("Grep", {"pattern": "parser", "path": "viking://resources/docs"}, "ovhooks search parser"),
    ],
)
def test_filesystem_tools_on_viking_uris_are_denied_with_the_command_to_use(
    tool: str, tool_input: dict[str, Any], suggests: str
) -> None:
    env = hook_env(None)
    reply = _pre(tool, tool_input, env)
    specific = reply["hookSpecificOutput"]
    assert set(reply) == {"hookSpecificOutput"}, "never a top-level decision on PreToolUse"
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    assert suggests in specific["permissionDecisionReason"]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "/repo/docs/viking.md"}),
        ("Read", {"file_path": "/repo/notes-about-viking://-uris.md"}),
        ("Grep", {"pattern": "viking://", "path": "/repo/ovhooks"}),  # searching code for the text
        ("Glob", {"pattern": "**/*.py"}),
        ("Bash", {"command": "ovhooks read viking://resources/x.md"}),
        ("Write", {"file_path": "viking://resources/x.md", "content": "x"}),
        ("Agent", {"prompt": "read viking://resources/x.md"}),
    ],
)
def test_other_tool_calls_are_never_blocked(tool: str, tool_input: dict[str, Any]) -> None:
    assert _pre(tool, tool_input, hook_env(None)) == {}


def test_guard_output_is_a_noop_for_codex() -> None:
    assert (
        _pre("Read", {"file_path": "viking://resources/x.md"}, hook_env(None), host="codex") == {}
    )


# --- PostToolUse: skill memory ---------------------------------------------------------------


class ExperienceServer(FakeOpenViking):
    """The fake, with agent experiences that ``find`` returns."""

    def __init__(self) -> None:
        super().__init__()
        self.experiences: list[dict[str, Any]] = []

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == "/api/v1/search/find" and str((body or {}).get("target_uri", "")).endswith(
            "/experiences"
        ):
            return self._ok(
                {"memories": self.experiences, "resources": [], "skills": [], "total": 1}
            )
        return super()._route(method, path, query, body)


def _skill(tmp_path: Path, name: str = "demo-skill", front: str | None = None) -> Path:
    path = tmp_path / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    head = f"---\nname: {front}\ndescription: a test skill\n---\n" if front else ""
    path.write_text(head + "# Demo\nDo the demo thing.\n")
    return path


def _post_read(path: Path | str, env: dict[str, str], host: str = "claude") -> dict[str, Any]:
    payload = {
        "session_id": SID,
        "transcript_path": "/x.jsonl",
        "cwd": str(path).rsplit("/", 1)[0],
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(path)},
        "tool_response": {"type": "text", "file": {"filePath": str(path), "content": "..."}},
        "tool_use_id": "toolu_9",
        "duration_ms": 3,
    }
    reply, _ = run_inline("post-tool-use", payload, env, host=host)
    assert_host_valid(host, "PostToolUse", reply)
    return reply


def test_reading_a_skill_adds_its_memory(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    fake_ov.files["viking://~/memories/skills/pptx-maker.md"] = (
        "Used 15 times, 93% success.\n## Tips\n- Always include an executive summary slide\n"
        "## Known issues\n- Images over 10MB fail: compress first"
    )
    skill = _skill(tmp_path, "pptx", front='"pptx-maker"')
    reply = _post_read(skill, hook_env(fake_ov.url))
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert context.startswith('<openviking-context source="skill-memory" skill="pptx-maker">')
    assert "executive summary slide" in context and "compress first" in context
    assert context.rstrip().endswith("</openviking-context>")


def test_skill_name_falls_back_to_its_directory(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    fake_ov.files["viking://~/memories/skills/demo-skill.md"] = (
        "Tip: run the demo twice before trusting it."
    )
    reply = _post_read(_skill(tmp_path), hook_env(fake_ov.url))
    assert "run the demo twice" in reply["hookSpecificOutput"]["additionalContext"]


def test_skill_experiences_are_added(tmp_path: Path) -> None:
    server = ExperienceServer()
    server.start()
    try:
        server.experiences = [
            {
                "uri": "viking://user/default/memories/experiences/.abstract.md",
                "abstract": "skeleton",
                "score": 0.7,
            },
            {
                "uri": "viking://user/default/memories/experiences/demo-1.md",
                "abstract": "The demo skill fails on Windows paths; quote them.",
                "score": 0.8,
            },
        ]
        reply = _post_read(_skill(tmp_path), hook_env(server.url))
    finally:
        server.stop()
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert "quote them" in context and "experiences/demo-1.md" in context
    assert "skeleton" not in context


def test_skill_without_memory_or_other_reads_add_nothing(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    env = hook_env(fake_ov.url)
    assert _post_read(_skill(tmp_path), env) == {}
    before = len(fake_ov.requests)
    other = tmp_path / "src" / "SKILL.md"  # not under a skills/ directory
    other.parent.mkdir()
    other.write_text("x")
    assert _post_read(other, env) == {}
    assert _post_read(tmp_path / "README.md", env) == {}
    assert len(fake_ov.requests) == before, "other reads never touch the network"


def test_skill_memory_is_off_with_recall(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    fake_ov.files["viking://~/memories/skills/demo-skill.md"] = "Tip: run the demo twice."
    skill = _skill(tmp_path)
    assert _post_read(skill, hook_env(fake_ov.url, OVHOOKS_RECALL="0")) == {}
    assert _post_read(skill, hook_env(fake_ov.url, OVHOOKS_SKILL_MEMORY="0")) == {}
    assert fake_ov.requests == []


# --- SubagentStart: context for the subagent ------------------------------------------------------


def test_subagent_start_recalls_for_the_subagents_task(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    pytest.importorskip("ovhooks.recall", reason="recall lands with its own issue")
    from ovhooks import recall

    if not hasattr(recall, "recall_for_prompt"):
        pytest.skip("recall_for_prompt not there yet")
    fake_ov.search_entries = [
        {
            "uri": "viking://user/default/memories/preferences/tests.md",
            "category": "preferences",
            "score": 0.9,
            "detail": "abstract",
            "text": "The user wants parser tests written with pytest parametrize.",
            "_matches": ["parser"],
        }
    ]
    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.prompt("please survey the parser tests")
    sub = t.subagent("a1")
    sub.user("Survey the parser tests and list what is missing")
    payload = t.payload("SubagentStart", agent_id="a1", agent_type="general-purpose")
    reply, _ = run_inline("subagent-start", payload, hook_env(fake_ov.url), host="claude")
    assert_host_valid("claude", "SubagentStart", reply)
    assert "pytest parametrize" in reply["hookSpecificOutput"]["additionalContext"]
    searches = [r for r in fake_ov.requests if r["path"] == "/api/v1/search/search"]
    assert searches and "Survey the parser tests" in searches[0]["body"]["query"]


def test_subagent_start_task_from_the_parents_agent_call(tmp_path: Path) -> None:
    from ovhooks.events.subagent_start import subagent_task

    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.prompt("delegate please")
    t.assistant(
        [
            {
                "type": "tool_use",
                "id": "toolu_x",
                "name": "Agent",
                "input": {
                    "description": "d",
                    "prompt": "Find the flaky test",
                    "subagent_type": "Explore",
                },
            }
        ]
    )
    assert subagent_task(str(t.path), "a1") == "Find the flaky test"  # no subagent file yet
    assert subagent_task(str(t.path), "../evil") == "Find the flaky test"
    assert subagent_task("", "a1") == ""


def test_subagent_start_without_a_task_is_a_noop(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    payload = {
        "session_id": SID,
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "SubagentStart",
        "agent_id": "a1",
        "agent_type": "Explore",
    }
    reply, _ = run_inline("subagent-start", payload, hook_env(fake_ov.url), host="claude")
    assert reply == {} and fake_ov.requests == []
