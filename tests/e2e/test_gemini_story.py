"""Gemini CLI 0.61.0 + ovhooks, end to end and offline, on the local store and on the real
OpenViking 0.5.2 server; and one memory across hosts (Codex CLI <-> Gemini CLI).

Session 1 (two ``gemini -p`` calls, the second ``-r latest``) states a preference; its second
turn runs a tool whose response reports 600,000 prompt tokens, so Gemini really compresses
the history before the next model call. ovhooks captures each turn, commits at each exit and
at that compression (never at Gemini's other PreCompress attempts), and the backend turns the
preference into a memory. Session 2 (a fresh ``gemini -p``) asks about indentation: the model
request the stub receives must carry the recalled memory in its ``<hook_context>`` part.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support import gemini_stub, hosts, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import ResponsesStub, codex_developer_texts
from tests.support.ov_server import OvServer
from tests.support.semantic import stop_running
from tests.support.stores import LocalStore

pytestmark = [pytest.mark.hosts_e2e]

FOLLOW_UP = "Thanks, that is all for now. RUNSHELL BIGTOKENS"
FORBIDDEN = (*st.FORBIDDEN_IN_CAPTURE, "hook_context", "session_context", "STUB-COMPRESS", "Got it")


@contextmanager
def _service_stopped(base: Path) -> Iterator[None]:
    """The embedding service the hooks start (semantics are on, as for a user) ends here."""
    try:
        yield
    finally:
        stop_running(str(base / "ovhooks-state"))


def _local_env(base: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in pytest_plugin.real_environ().items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "XDG_"))
    }
    env.update(
        {
            "OVHOOKS_BACKEND": "local",
            "OVHOOKS_STATE_DIR": str(base / "ovhooks-state"),
            "OVHOOKS_DATA_DIR": str(base / "ovhooks-data"),
            "OVHOOKS_CONFIG": str(base / "ovhooks-config.toml"),
            "OPENVIKING_CLI_CONFIG_FILE": str(base / "ovcli.conf"),
            "OVHOOKS_DETACH": "0",
            # The inline worker does what the detached one would (the local store extracts at
            # commit) inside the hook: give it what Gemini's shortest timeout allows (5 s for
            # SessionEnd, minus a second), not the 2 s fitted to Codex's 3 s clamp.
            "OVHOOKS_HOOK_DEADLINE_S": "4",
            "OVHOOKS_LOG_LEVEL": "debug",
        }
    )
    return env


class GeminiStory:
    """What one two-session story did."""

    def __init__(self, base: Path, stub: GeminiStub, host: GeminiHost) -> None:
        self.base = base
        self.stub = stub
        self.host = host
        self.session_ids: list[str] = []
        self.session_one_files: list[str] = []
        self.commit_tasks: list[dict[str, Any]] = []
        self.seconds: dict[str, float] = {}

    def ov_session(self, index: int) -> str:
        return "gm-" + self.session_ids[index]

    def session_two_requests(self) -> list[Any]:
        """Turn requests whose user parts hold the session-2 question."""
        return [
            r
            for r in self.stub.turn_requests()
            if any(st.QUESTION in t for t in gemini_stub.user_texts(r.body))
        ]

    def debug(self) -> str:
        runs = "\n".join(run.describe()[-1500:] for run in self.host.runs)
        logs = st.read_ovhooks_logs(str(self.base / "ovhooks-state"))
        return f"sessions={self.session_ids}\n{self.host.describe_chats()}\n{runs}\n{logs}"


def _next_minute() -> None:
    """Sleep into the next wall-clock minute (at most a minute)."""
    time.sleep(60.5 - time.time() % 60)


def _tell(
    gemini_cli: str,
    ovhooks_bin: str,
    base: Path,
    env: dict[str, str],
    wait: Any = None,
    *,
    cross_minute: bool = False,
) -> GeminiStory:
    stub = GeminiStub(log_dir=str(base / "stub-requests")).start()
    host = GeminiHost(
        gemini_cli, str(base / "gemini"), stub, install_with=ovhooks_bin, base_env=env
    )
    story = GeminiStory(base, stub, host)
    started = time.monotonic()
    host.prompt(st.PREFERENCE)
    if cross_minute:
        # Gemini names transcripts by the minute: a resume in a later minute makes it name a
        # new, empty file in SessionStart (the session goes on writing its own), and its
        # cleanup deletes both at the next fresh start. Always take that path here.
        _next_minute()
    host.prompt(FOLLOW_UP, resume=True)
    story.session_one_files = host.chat_files()
    story.seconds["session 1 (2 calls, 1 compression)"] = time.monotonic() - started
    story.session_ids = host.session_ids()
    if wait is not None and story.session_ids:
        story.commit_tasks = wait(story.ov_session(0))
    story.seconds["commit wait"] = time.monotonic() - started
    host.prompt(st.QUESTION)
    story.session_ids = host.session_ids()
    story.seconds["total"] = time.monotonic() - started
    stub.stop()
    return story


@pytest.fixture(scope="module")
def local_story(
    gemini_cli: str, ovhooks_bin: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GeminiStory]:
    base = tmp_path_factory.mktemp("gemini-local")
    try:
        story = _tell(gemini_cli, ovhooks_bin, base, _local_env(base), cross_minute=True)
        for phase, seconds in story.seconds.items():
            pytest_plugin.record_timing(f"gemini local story: {phase}", seconds)
        yield story
    finally:
        # the hooks started the embedding service, as a user's would (semantics are on)
        stop_running(str(base / "ovhooks-state"))


@pytest.fixture(scope="module")
def server_story(
    gemini_cli: str,
    ovhooks_bin: str,
    ov_server_full: OvServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[GeminiStory, str]]:
    base = tmp_path_factory.mktemp("gemini-server")
    user = st.unique_user("gemini")
    env = st.ovhooks_environment(pytest_plugin.real_environ(), str(base), ov_server_full.url, user)
    client = st.Story("gemini", ov_server_full, user, str(base)).client()

    def wait(session: str) -> list[dict[str, Any]]:
        tasks, _error = st.wait_for_commits(client, session, at_least=2)
        ov_server.drain_queues(client)
        return tasks

    story = _tell(gemini_cli, ovhooks_bin, base, env, wait)
    for phase, seconds in story.seconds.items():
        pytest_plugin.record_timing(f"gemini server story: {phase}", seconds)
    yield story, user
    client.close()


def _assert_recalled(story: GeminiStory) -> None:
    assert len(story.session_ids) == 2, story.debug()
    requests = story.session_two_requests()
    assert requests, story.debug()
    contexts = gemini_stub.hook_context_texts(requests[0].body)
    assert any(st.MEMORY_PHRASE in text for text in contexts), (
        f"no <hook_context> of session 2 carries the memory: {contexts}\n{story.debug()}"
    )


def _assert_captured(texts: list[tuple[str, str]], story: GeminiStory) -> None:
    users = [t for role, t in texts if role == "user"]
    assert users == [st.PREFERENCE, FOLLOW_UP], f"{texts}\n{story.debug()}"
    replies = [t for role, t in texts if role == "assistant" and t.startswith("STUB-REPLY")]
    assert len(replies) == 2 and len(set(replies)) == 2, texts
    problems = [(needle, t) for _r, t in texts for needle in FORBIDDEN if needle in t]
    assert not problems, problems


# --- local store ------------------------------------------------------------------------


def test_local_every_gemini_run_succeeds(local_story: GeminiStory) -> None:
    for run in local_story.host.runs:
        assert run.returncode == 0, run.describe()


def test_local_session_two_model_request_carries_the_recalled_memory(
    local_story: GeminiStory,
) -> None:
    _assert_recalled(local_story)


def test_local_the_resume_in_a_later_minute_kept_the_sessions_own_transcript(
    local_story: GeminiStory,
) -> None:
    """After a resume in a later minute the session's state names its own transcript (the
    file the later hooks name), not the empty one SessionStart named; that SessionStart itself
    keeps the known path is tests/events/test_gemini_lifecycle.py's (here a capture after it
    would set the path anyway)."""
    from tests.support.hooks import session_state

    state = session_state(local_story.ov_session(0), str(local_story.base / "ovhooks-state"))
    start = state["transcript_path"]
    assert os.path.basename(start).startswith("session-"), state
    # right after the resume there were two files: the session's own (named by the minute it
    # began, holding its turns) and the empty one the resume named (a later minute)
    files = sorted(local_story.session_one_files)
    assert len(files) == 2, local_story.debug()
    assert start == files[0], (start, files)


def test_local_session_one_is_captured_once_without_injections(local_story: GeminiStory) -> None:
    store = LocalStore(local_story.base / "ovhooks-data")
    texts = [
        ("user" if t in (st.PREFERENCE, FOLLOW_UP) else "assistant", t)
        for t in store.texts(local_story.ov_session(0))
    ]
    _assert_captured(texts, local_story)
    session_two = store.texts(local_story.ov_session(1))
    assert st.QUESTION in session_two and not any(st.MEMORY_PHRASE in t for t in session_two)


def test_local_commits_at_each_exit_and_at_the_real_compression_only(
    local_story: GeminiStory,
) -> None:
    """Two exits and one compression; Gemini fired PreCompress three times or more."""
    kinds = list(local_story.stub.replies.values())
    assert kinds.count("compaction") == 2, kinds  # Gemini's summary call and its check
    store = LocalStore(local_story.base / "ovhooks-data")
    assert store.commit_count(local_story.ov_session(0)) == 3, local_story.debug()


# --- the real OpenViking server ----------------------------------------------------------


@pytest.mark.real_server
def test_server_session_two_model_request_carries_the_recalled_memory(
    server_story: tuple[GeminiStory, str],
) -> None:
    story, _user = server_story
    for run in story.host.runs:
        assert run.returncode == 0, run.describe()
    _assert_recalled(story)


@pytest.mark.real_server
def test_server_holds_session_one_once_committed_and_extracted(
    server_story: tuple[GeminiStory, str], ov_server_full: OvServer
) -> None:
    story, user = server_story
    client = st.Story("gemini", ov_server_full, user, str(story.base)).client()
    with client:
        st.assert_committed_and_memory_stored(story.commit_tasks, client, story.debug())
        messages = st.captured_messages(client, user, story.ov_session(0))
        two = st.captured_messages(client, user, story.ov_session(1))
    _assert_captured([(m.role, m.text) for m in messages], story)
    assert [m.text for m in two if m.role == "user"] == [st.QUESTION]
    assert not st.forbidden_in(two, extra=(st.MEMORY_PHRASE,))


# --- one memory across hosts (local store, one project folder) ----------------------------


@pytest.mark.parametrize("direction", ["codex-to-gemini", "gemini-to-codex"])
def test_a_fact_stated_in_one_host_is_recalled_in_the_other(
    direction: str,
    gemini_cli: str,
    codex_cli: str,
    ovhooks_bin: str,
    tmp_path: Path,
) -> None:
    env = _local_env(tmp_path)
    with ResponsesStub() as codex_stub, GeminiStub() as stub, _service_stopped(tmp_path):
        codex = hosts.CodexHost(
            codex_cli, str(tmp_path / "codex"), codex_stub, install_with=ovhooks_bin, base_env=env
        )
        gemini = GeminiHost(
            gemini_cli,
            str(tmp_path / "gemini"),
            stub,
            install_with=ovhooks_bin,
            base_env=env,
            workdir=codex.workdir,  # the same project for both hosts
        )
        if direction == "codex-to-gemini":
            codex.exec(st.PREFERENCE).check()  # SessionEnd at exit commits
            gemini.prompt(st.QUESTION).check()
            asked = [r for r in stub.turn_requests() if st.QUESTION in str(r.body)]
            contexts = gemini_stub.hook_context_texts(asked[0].body)
            assert any(st.MEMORY_PHRASE in t for t in contexts), contexts
        else:
            gemini.prompt(st.PREFERENCE).check()
            codex.exec(st.QUESTION).check()
            developer = codex_developer_texts(codex_stub.turn_requests()[-1].body)
            assert any(st.MEMORY_PHRASE in t for t in developer), developer
