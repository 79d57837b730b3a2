"""Pi 0.73.1 + ovhooks + OpenViking 0.5.2, end to end and offline.

Session 1 states a preference and goes on for a second run (``pi -c``); each run ends with
Pi's ``session_shutdown``, which makes ovhooks commit, and the stub extraction turns the
preference into a memory. Session 2 is a new Pi session asking about indentation: the model
request the stub receives must carry the recalled memory (in the system prompt the extension
extends). The OpenViking session must hold each turn once, with no injected block.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support import chat_stub, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.ov_server import OvServer
from tests.support.shim_hosts import PiHost

pytestmark = [pytest.mark.hosts_e2e, pytest.mark.real_server]

FOLLOW_UP = "Thanks, that is all for now."


class PiStory(st.Story):
    stub: ChatStub
    pi: PiHost
    question_request: int


@pytest.fixture(scope="module")
def pi_story(
    pi_cli: str,
    ovhooks_bin: str,
    ov_server_full: OvServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[PiStory]:
    base = str(tmp_path_factory.mktemp("pi-story"))
    story = PiStory("pi", ov_server_full, st.unique_user("pi"), base)
    env = st.ovhooks_environment(pytest_plugin.real_environ(), base, ov_server_full.url, story.user)
    with ChatStub(log_dir=f"{base}/stub-requests") as stub:
        story.stub = stub
        story.pi = PiHost(pi_cli, f"{base}/pi", stub, install_with=ovhooks_bin, base_env=env)
        started = time.monotonic()
        story.pi.prompt(st.PREFERENCE)
        story.pi.prompt(FOLLOW_UP, continue_session=True)
        story.mark("session 1 (2 runs, a commit at each shutdown)")
        story.host_session_ids = story.pi.session_ids()
        if story.host_session_ids:
            with story.client() as client:
                story.commit_tasks, story.commit_wait_error = st.wait_for_commits(
                    client, story.ov_session(0)
                )
                ov_server.drain_queues(client)
        story.mark("commit + extraction wait")
        story.question_request = len(stub.turn_requests())
        story.pi.prompt(st.QUESTION)
        story.host_session_ids = story.pi.session_ids()
        story.mark("session 2 (recall turn)")
        for phase, seconds in story.phase_seconds.items():
            pytest_plugin.record_timing(f"pi story: {phase}", seconds)
        pytest_plugin.record_timing("pi story: total", time.monotonic() - started)
        yield story


def test_every_pi_run_succeeds(pi_story: PiStory):
    for run in pi_story.pi.runs:
        assert run.returncode == 0, run.describe()
        assert "Extension error" not in run.stderr, run.describe()
    assert len(pi_story.host_session_ids) == 2, pi_story.debug()


def test_session_one_is_committed_and_extraction_stores_the_memory(pi_story: PiStory):
    with pi_story.client() as client:
        st.assert_committed_and_memory_stored(pi_story.commit_tasks, client, pi_story.debug())


def test_session_two_model_request_carries_the_recalled_memory(pi_story: PiStory):
    requests = pi_story.stub.turn_requests()[pi_story.question_request :]
    assert requests, "the stub saw no request from session 2"
    first = requests[0].body
    system = "\n".join(chat_stub.system_texts(first))
    after = chat_stub.text_from_prompt(first, st.QUESTION)  # the question, then its memory
    assert st.MEMORY_PHRASE in after, f"{after[-1500:]}\n{pi_story.debug()}"
    assert st.MEMORY_PHRASE not in system


def test_openviking_holds_each_session_one_turn_once_without_injections(pi_story: PiStory):
    with pi_story.client() as client:
        messages = st.captured_messages(client, pi_story.user, pi_story.ov_session(0))
    assert [m.text for m in messages if m.role == "user"] == [st.PREFERENCE, FOLLOW_UP], (
        f"{messages}\n{pi_story.debug()}"
    )
    assistant_texts = [m.text for m in messages if m.role == "assistant"]
    assert len(assistant_texts) == 2, messages
    assert all(t.startswith("STUB-REPLY #") for t in assistant_texts), messages
    assert len(set(assistant_texts)) == 2, f"a reply was captured twice: {messages}"
    assert not st.forbidden_in(messages), st.forbidden_in(messages)


def test_openviking_session_two_holds_the_question_without_the_recalled_block(
    pi_story: PiStory,
):
    assert len(pi_story.host_session_ids) == 2, pi_story.debug()
    with pi_story.client() as client:
        messages = st.captured_messages(client, pi_story.user, pi_story.ov_session(1))
    assert [m.text for m in messages if m.role == "user"] == [st.QUESTION], (
        f"{messages}\n{pi_story.debug()}"
    )
    assert not st.forbidden_in(messages, extra=(st.MEMORY_PHRASE,))
