"""Every host's story with its real CLI, offline, end to end (issue 38): one suite over
``ovhooks.hosts.registry.HOSTS``.

In one world per host (and backend; Gemini's story is told on both), ovhooks is installed as
a user does it (``ovhooks install <host>``) and the story of ``tests/support/story_driver.py``
is told: session 1 states a preference (Claude also runs a subagent and ``/compact``; Codex
and Gemini are compacted), ovhooks captures and commits it and the backend (the real
OpenViking 0.5.2 server, or the local store) turns it into a memory; ``ovhooks remember``
stores a fact; session 2 asks about indentation. Then, for every host:

- every run exits 0, prints no hook failure, and ovhooks logs no error;
- session 1 is committed and its memory stored;
- session 2's first model request carries the recalled memory where the host puts hooks'
  context, after the question, and the system prompt stays free of it;
- the store holds session 1's turns once each, without injected blocks or host boilerplate,
  and session 2 holds the question without the recalled block;
- the remembered fact is recalled too, and a prompt-cache session of three prompts keeps the
  system prompt and earlier messages byte for byte (or the driver declares why not).

The host-specific checks follow (Claude's subagent and compaction, Gemini's commit at the
real compression and its transcript across a later-minute resume). Each host's driver is in
``tests/support/story_hosts.py``; a host without one fails here, by name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack
from itertools import pairwise
from typing import Any

import pytest

from ovhooks.hosts.registry import HOSTS
from tests.support import host_stubs, pytest_plugin
from tests.support import story as st
from tests.support.semantic import stop_running
from tests.support.story_backends import (
    CACHE,
    REMEMBER,
    STUB_REPLIES,
    Backend,
    LocalBackend,
    ServerBackend,
)
from tests.support.story_driver import (
    CACHE_PHRASE,
    CACHE_PROMPTS,
    FACT_PHRASE,
    Driver,
    cannot,
    tell,
)
from tests.support.story_hosts import DRIVERS, driver
from tests.support.story_world import World

pytestmark = [pytest.mark.hosts_e2e]

# Host boilerplate and injected context that must never be stored as conversation.
FORBIDDEN = (
    *st.FORBIDDEN_IN_CAPTURE,
    host_stubs.SUBAGENT_PROMPT,  # Claude's subagent: its own session
    "/compact",
    "hook_context",  # Gemini's wrapping of hooks' context
    "session_context",
    "STUB-COMPRESS",  # Gemini's compression exchange
    "Got it",
    "qwen:",
    "system_reminder",
    "system-reminder",
)

# How the blocks ovhooks adds begin (its own; Gemini's wrapping of hooks' context).
INJECTED = ("<openviking-context", "<hook_context>")


def _params() -> list[Any]:
    """One world per host and backend; a host without a driver still gets one (it fails)."""
    params = []
    for host in HOSTS:
        found = DRIVERS.get(host)
        for backend in found.backends if found else ("no-driver",):
            marks = [pytest.mark.real_server] if backend == "server" else []
            params.append(pytest.param((host, backend), id=f"{host}-{backend}", marks=marks))
    return params


class Worlds:
    """Each world's story, told once for the module and read by every test of it."""

    def __init__(
        self, request: pytest.FixtureRequest, factory: pytest.TempPathFactory, stack: ExitStack
    ) -> None:
        self.request = request
        self.factory = factory
        self.stack = stack
        self.told: dict[tuple[str, str], World | BaseException] = {}

    def _backend(self, host: str, name: str, base: str) -> Backend:
        if name == "server":
            server = self.request.getfixturevalue("ov_server_full")
            return ServerBackend(server, host, base)
        # Gemini's local story runs with the embedding service on, as a user has it
        backend = LocalBackend(base, semantic=host == "gemini")
        if backend.semantic:
            self.stack.callback(stop_running, backend.state_dir)
        return backend

    def get(self, host: str, backend: str) -> World:
        key = (host, backend)
        if key not in self.told:
            try:
                self.told[key] = self._tell(driver(host), backend)
            except BaseException as exc:  # every test of this world reports it, once told
                self.told[key] = exc
        found = self.told[key]
        if isinstance(found, BaseException):
            raise found
        return found

    def _tell(self, found: Driver, backend: str) -> World:
        base = str(self.factory.mktemp(f"{found.host}-{backend}-story"))
        world = World(self.request, found.host, self._backend(found.host, backend, base), base)
        tell(world, found, self.stack)
        for phase, seconds in world.seconds.items():
            pytest_plugin.record_timing(f"{found.host} {backend} story: {phase}", seconds)
        return world


@pytest.fixture(scope="module")
def worlds(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Worlds]:
    with ExitStack() as stack:
        yield Worlds(request, tmp_path_factory, stack)


@pytest.fixture(scope="module", params=_params())
def world(request: pytest.FixtureRequest, worlds: Worlds) -> World:
    host, backend = request.param
    return worlds.get(host, backend)


def _question_request(world: World) -> dict[str, Any]:
    """Session 2's first main-agent model request: the first turn asking the question."""
    found = driver(world.host)
    for request in world.requests_from(world.question_from):
        body = request.body if isinstance(request.body, dict) else {}
        if found.is_turn(body) and any(st.QUESTION in t for t in found.user_texts(body)):
            return body
    raise AssertionError(f"the stub saw no turn asking session 2's question\n{world.debug()}")


# --- every host ------------------------------------------------------------------------


def test_every_run_succeeds_and_no_hook_failed(world: World) -> None:
    found = driver(world.host)
    assert world.runs, world.debug()
    for run in world.runs:
        assert run.returncode == 0, run.describe()
        assert not found.run_problems(run), run.describe()
    logs = world.logs()
    assert '"level": "error"' not in logs and "Traceback" not in logs, logs[-3000:]
    assert len(world.host_session_ids) == 2, world.debug()


def test_session_one_is_committed_and_its_memory_stored(world: World) -> None:
    world.backend.assert_committed_and_remembered(world.ov_session(0), world.debug())


def test_session_two_model_request_carries_the_recalled_memory(world: World) -> None:
    body = _question_request(world)
    found = driver(world.host)
    # the newest thing the user asked is the question: a line of the newest user text that
    # is not a block the hooks added (the shims put theirs in a message of its own)
    asked = [t for t in found.user_texts(body) if not t.lstrip().startswith(INJECTED)]
    assert asked and st.QUESTION in asked[-1].splitlines(), asked
    recalled = found.recall_texts(body)
    assert any(st.MEMORY_PHRASE in text for text in recalled), (
        "\n---\n".join(t[-600:] for t in recalled) + f"\n{world.debug()}"
    )


def test_the_recall_leaves_the_system_prompt_alone(world: World) -> None:
    system = driver(world.host).system_prompt(_question_request(world))
    assert system.strip(), f"{world.name}: no system prompt read from the request"
    assert st.MEMORY_PHRASE not in system, system[-1500:]


def test_a_remembered_fact_is_recalled_too(world: World) -> None:
    found = driver(world.host)
    if REMEMBER in cannot(world, found):
        assert cannot(world, found)[REMEMBER].strip(), world.name  # a reason, not a silent skip
        return
    text = "\n".join(found.recall_texts(_question_request(world)))
    assert FACT_PHRASE in text, f"{text[-1500:]}\n{world.debug()}"


def test_session_one_is_captured_once_without_injections(world: World) -> None:
    found = driver(world.host)
    messages = world.backend.captured(world.ov_session(0))
    users = [text.strip() for role, text in messages if role == "user"]
    assert users == list(found.session_one_prompts), f"{messages}\n{world.debug()}"
    assert {role for role, _text in messages} <= {"user", "assistant"}, messages
    replies = [text for role, text in messages if role == "assistant"]
    assert replies and len(set(replies)) == len(replies), f"captured twice: {messages}"
    stub_replies = [t for t in replies if t.startswith("STUB-REPLY #")]
    if STUB_REPLIES in cannot(world, found):
        assert cannot(world, found)[STUB_REPLIES].strip() and stub_replies, messages
    else:  # one reply per prompt, and nothing else but the host's own tool-call notes
        assert len(stub_replies) == len(found.session_one_prompts), messages
        others = [t for t in replies if t not in stub_replies]
        assert all(t.startswith(found.tool_call_notes) for t in others), messages
    problems = [(needle, t) for _r, t in messages for needle in FORBIDDEN if needle in t]
    assert not problems, problems


def test_session_two_holds_the_question_without_the_recalled_block(world: World) -> None:
    messages = world.backend.captured(world.ov_session(1))
    assert [t.strip() for role, t in messages if role == "user"] == [st.QUESTION], (
        f"{messages}\n{world.debug()}"
    )
    needles = (*FORBIDDEN, st.MEMORY_PHRASE, FACT_PHRASE)
    problems = [(needle, t) for _r, t in messages for needle in needles if needle in t]
    assert not problems, problems


# --- the prompt cache: what the model request keeps from one prompt to the next ----------


def main_requests(world: World) -> list[dict[str, Any]]:
    """The cache session's own model requests: one per prompt here (no tool calls).

    Side calls are left out by what they are: Qwen's managed auto-memory extractor (a request
    whose system prompt is its own) and any request that holds none of the prompts."""
    out = []
    for request in world.requests_from(world.cache_from):
        body = request.body if isinstance(request.body, dict) else {}
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        system = str(messages[0].get("content")) if messages else ""
        if users and any(p in users[-1] for p in CACHE_PROMPTS) and "Managed memory" not in system:
            out.append(body)
    return out


def _without(prefix: str, message: dict[str, Any]) -> dict[str, Any]:
    """A message without the parts starting with ``prefix``: what the host itself moves."""
    content = message.get("content")
    if not prefix or not isinstance(content, list):
        return message
    return {
        **message,
        "content": [p for p in content if not str(p.get("text", "")).startswith(prefix)],
    }


def _changed(before: list[dict[str, Any]], after: list[dict[str, Any]], prefix: str) -> list[int]:
    old = [json.dumps(_without(prefix, m), ensure_ascii=False) for m in before]
    new = [json.dumps(_without(prefix, m), ensure_ascii=False) for m in after]
    assert new[0] == old[0], "the system prompt changed"
    assert len(new) > len(old)
    return [i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]


def test_three_prompts_keep_the_system_prompt_and_earlier_messages_byte_for_byte(
    world: World,
) -> None:
    found = driver(world.host)
    if CACHE in cannot(world, found):
        assert cannot(world, found)[CACHE].strip(), world.name  # a reason, not a silent skip
        return
    bodies = main_requests(world)
    assert len(bodies) == len(CACHE_PROMPTS), (len(bodies), world.debug())
    recalled = [any(CACHE_PHRASE in str(m) for m in b["messages"]) for b in bodies]
    assert all(recalled), recalled  # recall really injected something each time
    for before, after in pairwise(bodies):
        # Qwen's own reminders move with every -c process, with or without ovhooks (seen
        # with --no-mcp too: the date); everything else must stay as it was.
        changed = _changed(before["messages"], after["messages"], found.cache_moving_prefix)
        assert not changed, (world.name, changed, before["messages"][changed[0]])


# --- one host's own checks -------------------------------------------------------------


@pytest.mark.real_server
def test_claude_runs_its_subagent_and_compaction(worlds: Worlds) -> None:
    world = worlds.get("claude", "server")
    kinds = set(world.stub.replies.values())
    assert {"agent", "subagent", "compaction"} <= kinds, kinds


@pytest.mark.real_server
def test_claude_captures_the_subagent_exchange_in_its_own_session(worlds: Worlds) -> None:
    world = worlds.get("claude", "server")
    assert isinstance(world.backend, ServerBackend)
    parents = {world.ov_session(i) for i in range(len(world.host_session_ids))}
    captured = world.backend.all_sessions()
    holders = [
        sid
        for sid, messages in captured.items()
        if any(host_stubs.SUBAGENT_PROMPT in text for _role, text in messages)
    ]
    assert len(holders) == 1, f"sessions holding the subagent prompt: {holders}\n{captured}"
    assert holders[0] not in parents, holders


def test_gemini_commits_at_each_exit_and_at_the_real_compression_only(worlds: Worlds) -> None:
    """Two exits and one compression; Gemini fired PreCompress three times or more."""
    world = worlds.get("gemini", "local")
    assert isinstance(world.backend, LocalBackend)
    kinds = list(world.stub.replies.values())
    assert kinds.count("compaction") == 2, kinds  # Gemini's summary call and its check
    assert world.backend.commit_count(world.ov_session(0)) == 3, world.debug()


def test_gemini_keeps_the_sessions_own_transcript_across_a_later_minute_resume(
    worlds: Worlds,
) -> None:
    """After a resume in a later minute the session's state names its own transcript (the
    file the later hooks name), not the empty one SessionStart named; that SessionStart itself
    keeps the known path is tests/events/test_gemini_lifecycle.py's."""
    from tests.support.hooks import session_state

    world = worlds.get("gemini", "local")
    state = session_state(world.ov_session(0), os.path.join(world.base, "ovhooks-state"))
    start = state["transcript_path"]
    assert os.path.basename(start).startswith("session-"), state
    # right after the resume there were two files: the session's own (named by the minute it
    # began, holding its turns) and the empty one the resume named (a later minute)
    files = sorted(world.notes["session one files"])
    assert len(files) == 2, world.debug()
    assert start == files[0], (start, files)


# --- the drivers themselves ------------------------------------------------------------


def test_every_registered_host_has_a_story_driver() -> None:
    assert sorted(DRIVERS) == sorted(HOSTS)


def test_a_host_without_a_driver_fails_by_name() -> None:
    with pytest.raises(AssertionError, match=r"no story driver for host 'nohost'.*DRIVERS"):
        driver("nohost")
