"""Claude Code 2.1.197 + ovhooks + OpenViking 0.5.2, end to end and offline.

Session 1 states a preference, runs a subagent turn, and is compacted by hand (``/compact``),
which makes ovhooks commit; the stub extraction turns the preference into a memory. Session 2
asks about indentation, and the model request the stub receives must carry the recalled
memory. The OpenViking session must hold each turn exactly once, with no injected block and no
host boilerplate, and the subagent's exchange must not land in the parent's session.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support import host_stubs, hosts, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.host_stubs import MessagesStub
from tests.support.ov_server import OvServer

pytestmark = [pytest.mark.hosts_e2e, pytest.mark.real_server]

AGENT_TURN = "Ask a helper to look around the repo RUNAGENT"


class ClaudeStory(st.Story):
    stub: MessagesStub
    claude: hosts.ClaudeHost


@pytest.fixture(scope="module")
def claude_story(
    claude_cli: str,
    ovhooks_bin: str,
    ov_server_full: OvServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ClaudeStory]:
    base = str(tmp_path_factory.mktemp("claude-story"))
    story = ClaudeStory("claude", ov_server_full, st.unique_user("claude"), base)
    env = st.ovhooks_environment(pytest_plugin.real_environ(), base, ov_server_full.url, story.user)
    with MessagesStub(log_dir=f"{base}/stub-requests") as stub:
        story.stub = stub
        story.claude = hosts.ClaudeHost(
            claude_cli,
            f"{base}/claude",
            stub,
            install_with=ovhooks_bin,
            base_env=env,
        )
        started = time.monotonic()
        story.claude.prompt(st.PREFERENCE)
        story.claude.prompt(AGENT_TURN, continue_session=True)
        story.claude.prompt("/compact", continue_session=True)
        story.mark("session 1 (2 turns, subagent, /compact)")
        story.host_session_ids = story.claude.session_ids()
        if story.host_session_ids:
            with story.client() as client:
                story.commit_tasks, story.commit_wait_error = st.wait_for_commits(
                    client, story.ov_session(0)
                )
                ov_server.drain_queues(client)
        story.mark("commit + extraction wait")
        story.claude.prompt(st.QUESTION)
        story.host_session_ids = story.claude.session_ids()
        story.mark("session 2 (recall turn)")
        for phase, seconds in story.phase_seconds.items():
            pytest_plugin.record_timing(f"claude story: {phase}", seconds)
        pytest_plugin.record_timing("claude story: total", time.monotonic() - started)
        yield story


def test_every_claude_run_succeeds(claude_story: ClaudeStory):
    for run in claude_story.claude.runs:
        assert run.returncode == 0, run.describe()
    kinds = set(claude_story.stub.replies.values())
    assert {"agent", "subagent", "compaction"} <= kinds, kinds
    assert len(claude_story.host_session_ids) == 2, claude_story.debug()


def test_session_one_is_committed_and_extraction_stores_the_memory(claude_story: ClaudeStory):
    with claude_story.client() as client:
        st.assert_committed_and_memory_stored(
            claude_story.commit_tasks, client, claude_story.debug()
        )


def test_session_two_model_request_carries_the_recalled_memory(claude_story: ClaudeStory):
    assert len(claude_story.host_session_ids) == 2, claude_story.debug()
    session_two = claude_story.host_session_ids[1]
    requests = [
        r
        for r in claude_story.stub.turn_requests()
        if r.headers.get("x-claude-code-session-id") == session_two
    ]
    assert requests, "the stub saw no request from session 2"
    first = requests[0].body
    assert st.QUESTION in host_stubs.claude_user_texts(first)[-1].splitlines()
    system = host_stubs.claude_system_texts(first)
    assert any(st.MEMORY_PHRASE in text for text in system), (
        "no system entry of session 2 carries the recalled memory; system entries:\n"
        + "\n---\n".join(t[:400] for t in system)
        + f"\n{claude_story.debug()}"
    )


def test_openviking_holds_each_session_one_turn_once_without_injections(
    claude_story: ClaudeStory,
):
    with claude_story.client() as client:
        messages = st.captured_messages(client, claude_story.user, claude_story.ov_session(0))
    user_texts = [m.text for m in messages if m.role == "user"]
    assert user_texts == [st.PREFERENCE, AGENT_TURN], f"{messages}\n{claude_story.debug()}"
    assistant_texts = [m.text for m in messages if m.role == "assistant"]
    assert assistant_texts, messages
    assert len(set(assistant_texts)) == len(assistant_texts), f"captured twice: {messages}"
    assert {m.role for m in messages} <= {"user", "assistant"}, messages
    problems = st.forbidden_in(messages, extra=(host_stubs.SUBAGENT_PROMPT, "/compact"))
    assert not problems, problems


def test_openviking_session_two_holds_the_question_without_the_recalled_block(
    claude_story: ClaudeStory,
):
    assert len(claude_story.host_session_ids) == 2, claude_story.debug()
    with claude_story.client() as client:
        messages = st.captured_messages(client, claude_story.user, claude_story.ov_session(1))
    assert [m.text for m in messages if m.role == "user"] == [st.QUESTION], (
        f"{messages}\n{claude_story.debug()}"
    )
    problems = st.forbidden_in(messages, extra=(st.MEMORY_PHRASE,))
    assert not problems, problems


def test_the_subagent_exchange_is_captured_in_its_own_session(claude_story: ClaudeStory):
    parents = {claude_story.ov_session(i) for i in range(len(claude_story.host_session_ids))}
    with claude_story.client() as client:
        captured = {
            sid: st.captured_messages(client, claude_story.user, sid)
            for sid in st.list_session_ids(client)
        }
    holders = [
        sid
        for sid, messages in captured.items()
        if any(host_stubs.SUBAGENT_PROMPT in m.text for m in messages)
    ]
    assert len(holders) == 1, (
        f"sessions holding the subagent prompt: {holders}\nall sessions: {captured}\n"
        f"{claude_story.debug()}"
    )
    assert holders[0] not in parents, holders
