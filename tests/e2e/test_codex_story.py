"""Codex CLI 0.169.0 + ovhooks + OpenViking 0.5.2, end to end and offline.

Session 1 states a preference and is compacted (auto-compaction at the start of its second
turn), which makes ovhooks commit; the stub extraction turns the preference into a memory.
Session 2 asks about indentation, and the model request the stub receives must carry the
recalled memory. Throughout, the OpenViking session must hold each turn exactly once, with no
injected block and no host boilerplate.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from tests.support import host_stubs, hosts, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.host_stubs import ResponsesStub
from tests.support.ov_server import OvServer

pytestmark = [pytest.mark.hosts_e2e, pytest.mark.real_server]

FOLLOW_UP = "Thanks, that is all for now."


class CodexStory(st.Story):
    stub: ResponsesStub
    codex: hosts.CodexHost


@pytest.fixture(scope="module")
def codex_story(
    codex_cli: str,
    ovhooks_bin: str,
    ov_server_full: OvServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[CodexStory]:
    base = str(tmp_path_factory.mktemp("codex-story"))
    story = CodexStory("codex", ov_server_full, st.unique_user("codex"), base)
    env = st.ovhooks_environment(pytest_plugin.real_environ(), base, ov_server_full.url, story.user)
    with ResponsesStub(log_dir=f"{base}/stub-requests") as stub:
        story.stub = stub
        story.codex = hosts.CodexHost(
            codex_cli,
            f"{base}/codex",
            story.stub,
            install_with=ovhooks_bin,
            base_env=env,
        )
        started = time.monotonic()
        story.codex.exec(st.PREFERENCE)
        story.codex.exec(FOLLOW_UP, resume=True, config=["model_auto_compact_token_limit=20"])
        story.mark("session 1 (2 turns + auto-compaction)")
        story.host_session_ids = story.codex.session_ids()
        if story.host_session_ids:
            with story.client() as client:
                story.commit_tasks, story.commit_wait_error = st.wait_for_commits(
                    client, story.ov_session(0)
                )
                ov_server.drain_queues(client)
        story.mark("commit + extraction wait")
        story.codex.exec(st.QUESTION)
        story.host_session_ids = story.codex.session_ids()
        story.mark("session 2 (recall turn)")
        for phase, seconds in story.phase_seconds.items():
            pytest_plugin.record_timing(f"codex story: {phase}", seconds)
        pytest_plugin.record_timing("codex story: total", time.monotonic() - started)
        yield story


def test_every_codex_run_succeeds(codex_story: CodexStory):
    for run in codex_story.codex.runs:
        assert run.returncode == 0, run.describe()
        # Codex reports each hook on stderr: "hook: Stop" then "hook: Stop Completed|Failed".
        failed = [line for line in run.stderr.splitlines() if re.match(r"hook: \w+ Failed", line)]
        assert not failed, run.describe()
    assert len(codex_story.host_session_ids) == 2, codex_story.debug()


def test_session_one_is_committed_and_extraction_stores_the_memory(codex_story: CodexStory):
    with codex_story.client() as client:
        st.assert_committed_and_memory_stored(codex_story.commit_tasks, client, codex_story.debug())


def test_session_two_model_request_carries_the_recalled_memory(codex_story: CodexStory):
    assert len(codex_story.host_session_ids) == 2, codex_story.debug()
    session_two = codex_story.host_session_ids[1]
    requests = [
        r for r in codex_story.stub.turn_requests() if r.headers.get("session-id") == session_two
    ]
    assert requests, "the stub saw no request from session 2"
    first = requests[0].body
    assert host_stubs.codex_user_texts(first)[-1] == st.QUESTION
    developer = host_stubs.codex_developer_texts(first)
    recalled = [text for text in developer if st.MEMORY_PHRASE in text]
    assert recalled, (
        "no developer message of session 2 carries the recalled memory; developer texts:\n"
        + "\n---\n".join(t[:300] for t in developer[-4:])
        + f"\n{codex_story.debug()}"
    )


def test_openviking_holds_each_session_one_turn_once_without_injections(
    codex_story: CodexStory,
):
    with codex_story.client() as client:
        messages = st.captured_messages(client, codex_story.user, codex_story.ov_session(0))
    user_texts = [m.text for m in messages if m.role == "user"]
    assert user_texts == [st.PREFERENCE, FOLLOW_UP], f"{messages}\n{codex_story.debug()}"
    assistant_texts = [m.text for m in messages if m.role == "assistant"]
    assert len(assistant_texts) == 2, messages
    assert all(t.startswith("STUB-REPLY #") for t in assistant_texts), messages
    assert len(set(assistant_texts)) == len(assistant_texts), (
        f"a reply was captured twice: {messages}"
    )
    assert {m.role for m in messages} <= {"user", "assistant"}, messages
    assert not st.forbidden_in(messages), st.forbidden_in(messages)


def test_openviking_session_two_holds_the_question_without_the_recalled_block(
    codex_story: CodexStory,
):
    assert len(codex_story.host_session_ids) == 2, codex_story.debug()
    with codex_story.client() as client:
        messages = st.captured_messages(client, codex_story.user, codex_story.ov_session(1))
    assert [m.text for m in messages if m.role == "user"] == [st.QUESTION], (
        f"{messages}\n{codex_story.debug()}"
    )
    problems = st.forbidden_in(messages, extra=(st.MEMORY_PHRASE,))
    assert not problems, problems
