"""The host stories' driver shape and the story every host tells (issue 38).

``tell`` is the story, the same for every host: session 1 (the turns its driver names), the
backend's commit wait, a fact stored with ``ovhooks remember``, session 2 asking about
indentation, and, where the host takes the check, a prompt-cache session of three prompts.
A :class:`Driver` holds what differs from host to host (``tests/support/story_hosts.py``,
``tests/support/story_wave4.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any, ClassVar

from tests.support import chat_stub
from tests.support import story as st
from tests.support.hosts import HostRun
from tests.support.story_backends import CACHE, REMEMBER
from tests.support.story_world import World

FOLLOW_UP = "Thanks, that is all for now."
CLAUDE_AGENT_TURN = "Ask a helper to look around the repo RUNAGENT"
# Gemini's follow-up runs a tool whose response reports 600,000 prompt tokens, so Gemini
# really compresses the history before its next model call (ovhooks commits at that one).
GEMINI_FOLLOW_UP = "Thanks, that is all for now. RUNSHELL BIGTOKENS"


class Driver:
    """One host: how its story is told and how its stub's requests are read."""

    host = ""
    backends: tuple[str, ...] = ("server",)
    session_one_prompts: tuple[str, ...] = (st.PREFERENCE, FOLLOW_UP)
    commits_at_least = 1  # finished commits of session 1 the server story waits for
    # checks this host cannot take, with the reason (asserted, never skipped in silence)
    cannot: ClassVar[dict[str, str]] = {}
    # how the assistant texts begin that note the host's own tool calls (Gemini's)
    tool_call_notes: tuple[str, ...] = ()
    # what the host itself moves in earlier messages from one prompt to the next (Qwen)
    cache_moving_prefix = ""

    # the host's class in tests/support (built as ``cls(cli, folder, stub, install_with=…,
    # base_env=…)``), its stub model's class, and how its prompt() is told to resume
    host_class: Callable[..., Any] = object
    stub_class: Callable[..., Any] = object
    resume_keyword = "continue_session"

    def start(self, world: World, stack: ExitStack) -> None:
        """Start the stub on ``stack`` and the host, ovhooks installed as a user does it
        (``ovhooks install <host>``, run by the host class)."""
        world.stub = stack.enter_context(self.stub_class(log_dir=world.folder("stub-requests")))
        world.agent = self.host_class(
            world.cli(),
            world.folder(self.host),
            world.stub,
            install_with=world.ovhooks_bin,
            base_env=world.env,
        )

    def session_one(self, world: World) -> None:
        for index, prompt in enumerate(self.session_one_prompts):
            self.prompt(world, prompt, resume=index > 0)

    def prompt(self, world: World, text: str, *, resume: bool) -> HostRun:
        """One headless turn, ``resume`` continuing the latest session."""
        run: HostRun = world.agent.prompt(text, **{self.resume_keyword: resume})
        return run

    def session_ids(self, world: World) -> list[str]:
        """The host's own session ids, oldest first."""
        ids: list[str] = world.agent.session_ids()
        return ids

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return chat_stub.user_texts(body)

    def is_turn(self, body: dict[str, Any]) -> bool:
        """A main-agent turn, not a side call (a title, a summary)."""
        return True

    def recall_texts(self, body: dict[str, Any]) -> list[str]:
        """Where the recalled memory must be in session 2's first model request."""
        return [chat_stub.text_from_prompt(body, st.QUESTION)]

    def system_prompt(self, body: dict[str, Any]) -> str:
        """The system prompt, which recall must leave alone (the provider caches it)."""
        return "\n".join(chat_stub.system_texts(body))

    def after_session_one(self, world: World) -> None:
        """What the host leaves to the user after session 1 (Qwen: the commit)."""

    def run_problems(self, run: HostRun) -> list[str]:
        """What a run printed when one of ovhooks' hooks failed (beyond its exit code)."""
        return []

    def cache_session(self, world: World, prompts: Sequence[str]) -> None:
        """Several prompts in one session (the prompt-cache check)."""
        for index, text in enumerate(prompts):
            self.prompt(world, text, resume=index > 0).check()


FACT = "The deploy target of this repo is staging-7."
FACT_PHRASE = "staging-7"
CACHE_FACT = "The build scripts here are run with make, not npm."
CACHE_PHRASE = "make, not npm"
CACHE_PROMPTS = (
    "First prompt about the build scripts here.",
    "Second prompt about the build scripts here.",
    "Third prompt about the build scripts here.",
)


def cannot(world: World, driver: Driver) -> dict[str, str]:
    """The checks this world cannot take, with the reason (its backend's, then its host's)."""
    return {**world.backend.cannot, **driver.cannot}


def tell(world: World, driver: Driver, stack: ExitStack) -> None:
    """The story, in ``world``, with ``driver``'s host (its stubs end with ``stack``)."""
    started = time.monotonic()
    driver.start(world, stack)
    world.mark("install")
    driver.session_one(world)
    world.host_session_ids = driver.session_ids(world)
    world.mark("session 1")
    driver.after_session_one(world)
    if world.host_session_ids:
        world.backend.settle(world.ov_session(0), driver.commits_at_least)
    if REMEMBER not in cannot(world, driver):
        world.ovhooks("remember", FACT)
    world.mark("commit wait")
    world.question_from = len(world.stub.turn_requests())
    driver.prompt(world, st.QUESTION, resume=False)
    world.host_session_ids = driver.session_ids(world)[:3]  # a third would be a defect
    world.mark("session 2")
    if CACHE not in cannot(world, driver):
        world.ovhooks("remember", CACHE_FACT)
        world.cache_from = len(world.stub.turn_requests())
        driver.cache_session(world, CACHE_PROMPTS)
        world.mark("prompt-cache session")
    world.seconds["total"] = time.monotonic() - started
