"""The host stories' drivers for GitHub Copilot CLI, Qwen Code and Factory Droid (issue 38).

All three talk to a :class:`ChatStub`, keep ovhooks on the local store (no embedding service)
and read each turn from the host's transcript at Stop. Where they differ: Qwen fires no
SessionEnd in ``-p`` mode, so after session 1 the user's ``ovhooks commit --all`` (what the
next interactive exit or the idle sweep does) commits it; Droid cannot resume a session
offline, so its prompt-cache session is three prompts on stdin of one ``droid exec``, and it
runs no UserPromptSubmit in ``droid exec``: its recall is SessionStart's block, its own
message after the system prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.support import chat_stub
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.hosts import HostRun
from tests.support.story_driver import Driver
from tests.support.story_world import World
from tests.support.wave4_hosts import CopilotHost, DroidHost, QwenHost


class Wave4Driver(Driver):
    """What the three share: a chat-completions stub, the local store, ``-p`` prompts."""

    stub_class = ChatStub
    resume_keyword = "resume"
    backends = ("local",)
    # one prompt in session 1 (the other hosts' follow-up turn: the prompt-cache session)
    session_one_prompts = (st.PREFERENCE,)

    def recall_texts(self, body: dict[str, Any]) -> list[str]:
        return [chat_stub.all_text(body)]

    def system_prompt(self, body: dict[str, Any]) -> str:
        """The first message, the system prompt proper (Droid's recall is a message of its
        own right after it)."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        first = messages[0] if messages else {}
        return str(first.get("content")) if first.get("role") == "system" else ""


class CopilotDriver(Wave4Driver):
    host = "copilot"
    host_class = CopilotHost


class QwenDriver(Wave4Driver):
    host = "qwen"
    host_class = QwenHost
    # Qwen Code moves its own <system-reminder> parts (the date, MCP servers' instructions)
    # to the newest user message in every -c process, with or without ovhooks
    cache_moving_prefix = "<system-reminder>"

    def after_session_one(self, world: World) -> None:
        world.notes["commit"] = world.ovhooks("commit", "--all")


class DroidDriver(Wave4Driver):
    host = "droid"
    host_class = DroidHost

    def prompt(self, world: World, text: str, *, resume: bool) -> HostRun:
        assert not resume, "droid cannot resume a session offline: use conversation()"
        run: HostRun = world.agent.prompt(text)
        return run

    def cache_session(self, world: World, prompts: Sequence[str]) -> None:
        host: DroidHost = world.agent
        host.conversation(prompts).check()
