"""OpenCode 1.18.33 + ovhooks + OpenViking 0.5.2, end to end and offline.

Session 1 states a preference and goes on for a second run (``opencode run -c``); each turn's
``session.idle`` makes ovhooks capture from OpenCode's SQLite store, and each instance's
``dispose`` makes it commit, so the stub extraction turns the preference into a memory.
Session 2 is a new OpenCode session asking about indentation: its model request must carry
the recalled memory in the system prompt. The OpenViking session holds each turn once, with
no injected block.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support import chat_stub, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.ov_server import OvServer
from tests.support.shim_hosts import OpenCodeHost

pytestmark = [pytest.mark.hosts_e2e, pytest.mark.real_server]

FOLLOW_UP = "Thanks, that is all for now."


class OpenCodeStory(st.Story):
    stub: ChatStub
    opencode: OpenCodeHost
    question_request: int


@pytest.fixture(scope="module")
def opencode_story(
    opencode_cli: str,
    ovhooks_bin: str,
    ov_server_full: OvServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[OpenCodeStory]:
    base = str(tmp_path_factory.mktemp("opencode-story"))
    story = OpenCodeStory("opencode", ov_server_full, st.unique_user("opencode"), base)
    env = st.ovhooks_environment(pytest_plugin.real_environ(), base, ov_server_full.url, story.user)
    with ChatStub(log_dir=f"{base}/stub-requests") as stub:
        story.stub = stub
        story.opencode = OpenCodeHost(
            opencode_cli, f"{base}/opencode", stub, install_with=ovhooks_bin, base_env=env
        )
        started = time.monotonic()
        story.opencode.prompt(st.PREFERENCE)
        story.opencode.prompt(FOLLOW_UP, continue_session=True)
        story.mark("session 1 (2 runs, a commit at each dispose)")
        story.host_session_ids = story.opencode.session_ids()
        if story.host_session_ids:
            with story.client() as client:
                story.commit_tasks, story.commit_wait_error = st.wait_for_commits(
                    client, story.ov_session(0)
                )
                ov_server.drain_queues(client)
        story.mark("commit + extraction wait")
        story.question_request = len(stub.turn_requests())
        story.opencode.prompt(st.QUESTION)
        story.host_session_ids = story.opencode.session_ids()
        story.mark("session 2 (recall turn)")
        for phase, seconds in story.phase_seconds.items():
            pytest_plugin.record_timing(f"opencode story: {phase}", seconds)
        pytest_plugin.record_timing("opencode story: total", time.monotonic() - started)
        yield story


def test_every_opencode_run_succeeds(opencode_story: OpenCodeStory):
    for run in opencode_story.opencode.runs:
        assert run.returncode == 0, run.describe()
    assert len(opencode_story.host_session_ids) == 2, opencode_story.debug()


def test_session_one_is_committed_and_extraction_stores_the_memory(
    opencode_story: OpenCodeStory,
):
    with opencode_story.client() as client:
        st.assert_committed_and_memory_stored(
            opencode_story.commit_tasks, client, opencode_story.debug()
        )


def test_session_two_model_request_carries_the_recalled_memory(opencode_story: OpenCodeStory):
    requests = opencode_story.stub.turn_requests()[opencode_story.question_request :]
    turns = [r.body for r in requests if chat_stub.turn_kind(r.body) == "text"]
    assert turns, "the stub saw no turn request from session 2"
    # the newest thing the user asked is the question; the recall follows in its own message
    asked = [t for t in chat_stub.user_texts(turns[0]) if "<openviking-context" not in t]
    assert asked[-1].strip().startswith(st.QUESTION), asked
    system = "\n".join(chat_stub.system_texts(turns[0]))
    after = chat_stub.text_from_prompt(turns[0], st.QUESTION)
    assert st.MEMORY_PHRASE in after, f"{after[-1500:]}\n{opencode_story.debug()}"
    assert st.MEMORY_PHRASE not in system


def test_openviking_holds_each_session_one_turn_once_without_injections(
    opencode_story: OpenCodeStory,
):
    with opencode_story.client() as client:
        messages = st.captured_messages(client, opencode_story.user, opencode_story.ov_session(0))
    user_texts = [m.text.strip() for m in messages if m.role == "user"]
    assert user_texts == [st.PREFERENCE, FOLLOW_UP], f"{messages}\n{opencode_story.debug()}"
    assistant_texts = [m.text for m in messages if m.role == "assistant"]
    assert len(assistant_texts) == 2, messages
    assert all(t.startswith("STUB-REPLY #") for t in assistant_texts), messages
    assert len(set(assistant_texts)) == 2, f"a reply was captured twice: {messages}"
    assert not st.forbidden_in(messages), st.forbidden_in(messages)


def test_openviking_session_two_holds_the_question_without_the_recalled_block(
    opencode_story: OpenCodeStory,
):
    assert len(opencode_story.host_session_ids) == 2, opencode_story.debug()
    with opencode_story.client() as client:
        messages = st.captured_messages(client, opencode_story.user, opencode_story.ov_session(1))
    assert [m.text.strip() for m in messages if m.role == "user"] == [st.QUESTION], (
        f"{messages}\n{opencode_story.debug()}"
    )
    assert not st.forbidden_in(messages, extra=(st.MEMORY_PHRASE,))
