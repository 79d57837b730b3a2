"""The host stories' per-host drivers (``tests/e2e/test_host_stories.py``, issue 38).

Every host tells the same story with its real CLI, offline against its stub model: session 1
states a preference (and goes on for the turns its driver names), ovhooks captures and
commits it and the backend turns it into a memory; session 2 asks about indentation and the
model request the stub records must carry the recalled memory. A driver knows only what
differs from host to host: how to install ovhooks into a world of it and run session 1 and a
new session with its CLI, how to read its stub's requests (user texts, where the recall must
land, where it must never land), and what its runs print when a hook failed. Checks a host
cannot take declare their reason here (``Driver.cannot``), so the suite asserts the reason
instead of skipping in silence.

``DRIVERS`` must name every host of ``ovhooks.hosts.registry.HOSTS``: :func:`driver` fails
loudly for a host without one.
"""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar

from tests.support import chat_stub, gemini_stub, host_stubs
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import MessagesStub, ResponsesStub
from tests.support.hosts import ClaudeHost, CodexHost, HostRun
from tests.support.shim_hosts import OpenCodeHost, PiHost
from tests.support.story_backends import CACHE, STUB_REPLIES
from tests.support.story_driver import CLAUDE_AGENT_TURN, GEMINI_FOLLOW_UP, Driver
from tests.support.story_wave4 import CopilotDriver, DroidDriver, QwenDriver
from tests.support.story_world import World

# Where the prompt-cache check of the first five hosts lives (a stand-in ovhooks recalls
# something new for each of three prompts, so every request differs where it may).
CACHE_ELSEWHERE = "tests/e2e/test_cache_stable.py checks this host's cache (three prompts)"


def _text_of(content: Any) -> str:
    """A system prompt's text: a string, or the ``text`` of each block (Anthropic, Gemini)."""
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))


class ClaudeDriver(Driver):
    """Claude Code: session 1 runs a subagent and is compacted by hand (``/compact``)."""

    host = "claude"
    host_class = ClaudeHost
    stub_class = MessagesStub
    session_one_prompts = (st.PREFERENCE, CLAUDE_AGENT_TURN)
    cannot: ClassVar[dict[str, str]] = {
        CACHE: CACHE_ELSEWHERE,
        STUB_REPLIES: "the subagent turn's reply follows the Agent tool (STUB-AFTER-TOOL)",
    }

    def session_one(self, world: World) -> None:
        super().session_one(world)
        self.prompt(world, "/compact", resume=True)  # compaction makes ovhooks commit

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return host_stubs.claude_user_texts(body)

    def recall_texts(self, body: dict[str, Any]) -> list[str]:
        return host_stubs.claude_system_texts(body)  # hook additionalContext, in messages

    def system_prompt(self, body: dict[str, Any]) -> str:
        return _text_of(body.get("system"))


class CodexDriver(Driver):
    """Codex: session 1 is compacted at the start of its second turn (auto-compaction)."""

    host = "codex"
    host_class = CodexHost
    stub_class = ResponsesStub
    cannot: ClassVar[dict[str, str]] = {CACHE: CACHE_ELSEWHERE}

    def prompt(self, world: World, text: str, *, resume: bool) -> HostRun:
        config = ["model_auto_compact_token_limit=20"] if resume else []
        run: HostRun = world.agent.exec(text, resume=resume, config=config)
        return run

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return host_stubs.codex_user_texts(body)

    def recall_texts(self, body: dict[str, Any]) -> list[str]:
        return host_stubs.codex_developer_texts(body)

    def system_prompt(self, body: dict[str, Any]) -> str:
        # Codex sends its base instructions as the first developer message
        return (host_stubs.codex_developer_texts(body) or [""])[0]

    def run_problems(self, run: HostRun) -> list[str]:
        # Codex reports each hook on stderr: "hook: Stop" then "hook: Stop Completed|Failed".
        return [line for line in run.stderr.splitlines() if re.match(r"hook: \w+ Failed", line)]


class GeminiDriver(Driver):
    """Gemini CLI, on both backends: its follow-up makes Gemini really compress the history;
    on the local store (semantics on, as for a user) the resume comes in a later minute."""

    host = "gemini"
    host_class = GeminiHost
    stub_class = GeminiStub
    resume_keyword = "resume"
    backends = ("local", "server")
    session_one_prompts = (st.PREFERENCE, GEMINI_FOLLOW_UP)
    commits_at_least = 2  # one exit and the compression
    tool_call_notes = ("Tools: ",)  # its follow-up's shell call, stored as the turn's own
    cannot: ClassVar[dict[str, str]] = {CACHE: CACHE_ELSEWHERE}

    def session_one(self, world: World) -> None:
        self.prompt(world, st.PREFERENCE, resume=False)
        if world.backend.name == "local":
            # Gemini names transcripts by the minute: a resume in a later minute makes it
            # name a new, empty file in SessionStart (the session goes on writing its own).
            time.sleep(60.5 - time.time() % 60)
        self.prompt(world, GEMINI_FOLLOW_UP, resume=True)
        world.notes["session one files"] = world.agent.chat_files()

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return gemini_stub.user_texts(body)

    def recall_texts(self, body: dict[str, Any]) -> list[str]:
        return gemini_stub.hook_context_texts(body)

    def system_prompt(self, body: dict[str, Any]) -> str:
        instruction = body.get("systemInstruction") or body.get("system_instruction") or {}
        return _text_of(instruction.get("parts") if isinstance(instruction, dict) else None)


class PiDriver(Driver):
    """Pi: each run ends with ``session_shutdown``, which makes ovhooks commit."""

    host = "pi"
    host_class = PiHost
    stub_class = ChatStub
    cannot: ClassVar[dict[str, str]] = {CACHE: CACHE_ELSEWHERE}

    def run_problems(self, run: HostRun) -> list[str]:
        return [line for line in run.stderr.splitlines() if "Extension error" in line]


class OpenCodeDriver(Driver):
    """OpenCode: ``session.idle`` captures from its SQLite store, ``dispose`` commits."""

    host = "opencode"
    host_class = OpenCodeHost
    stub_class = ChatStub
    cannot: ClassVar[dict[str, str]] = {CACHE: CACHE_ELSEWHERE}

    def is_turn(self, body: dict[str, Any]) -> bool:
        return chat_stub.turn_kind(body) == "text"  # not its title generation


DRIVERS: dict[str, Driver] = {
    "codex": CodexDriver(),
    "claude": ClaudeDriver(),
    "gemini": GeminiDriver(),
    "pi": PiDriver(),
    "opencode": OpenCodeDriver(),
    "copilot": CopilotDriver(),
    "qwen": QwenDriver(),
    "droid": DroidDriver(),
}


def driver(host: str) -> Driver:
    """``host``'s driver; fails loudly for a host without one (a new host must add one)."""
    found = DRIVERS.get(host)
    if found is None:
        raise AssertionError(
            f"no story driver for host {host!r}: add one to DRIVERS in "
            "tests/support/story_hosts.py (how to install ovhooks into a world of it, run "
            "a prompt with its real CLI and read its stub's requests)"
        )
    return found
