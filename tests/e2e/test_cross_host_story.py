"""One memory across hosts: a fact stated in one host is recalled in another, both ways.

Codex and Pi run in the same git project (one clone, so the same project identity) as the
same OpenViking user, against the real OpenViking 0.5.2 server. Each direction is its own
user, so neither can see the other's memory: what session 2 recalls was stated in the other
host. Codex and Gemini share one project folder and one local store (the embedding service
on, as a user has it).
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support import chat_stub, gemini_stub, host_stubs, hosts, ov_server, pytest_plugin
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import ResponsesStub
from tests.support.ov_server import OvServer
from tests.support.repos import make_clone
from tests.support.semantic import stop_running
from tests.support.shim_hosts import PiHost
from tests.support.story_backends import LocalBackend

pytestmark = [pytest.mark.hosts_e2e]

REMOTE = "git@github.com:acme/shared-widget.git"


def _world(tmp_path: Path, server: OvServer, host: str) -> tuple[st.Story, dict[str, str], str]:
    story = st.Story(host, server, st.unique_user(f"x-{host}"), str(tmp_path))
    env = st.ovhooks_environment(
        pytest_plugin.real_environ(), str(tmp_path), server.url, story.user
    )
    workdir = tmp_path / "project"
    make_clone(workdir, REMOTE)
    return story, env, str(workdir)


def _codex(
    cli: str, ovhooks_bin: str, base: Path, env: dict[str, str], workdir: str
) -> tuple[ResponsesStub, hosts.CodexHost]:
    stub = ResponsesStub(log_dir=str(base / "codex-stub")).start()
    codex = hosts.CodexHost(cli, str(base / "codex"), stub, install_with=ovhooks_bin, base_env=env)
    codex.workdir = workdir  # the shared project
    return stub, codex


def _pi(
    cli: str, ovhooks_bin: str, base: Path, stub: ChatStub, env: dict[str, str], workdir: str
) -> PiHost:
    return PiHost(
        cli, str(base / "pi"), stub, install_with=ovhooks_bin, base_env=env, workdir=workdir
    )


@pytest.mark.real_server
def test_stated_in_codex_recalled_in_pi(
    codex_cli: str, pi_cli: str, ovhooks_bin: str, ov_server_full: OvServer, tmp_path: Path
) -> None:
    story, env, workdir = _world(tmp_path, ov_server_full, "codex")
    stub, codex = _codex(codex_cli, ovhooks_bin, tmp_path, env, workdir)
    try:
        codex.exec(st.PREFERENCE).check()
        codex.exec(
            "Thanks.", resume=True, config=["model_auto_compact_token_limit=20"]
        ).check()  # the auto-compaction commits session 1
        story.host_session_ids = codex.session_ids()
    finally:
        stub.stop()
    with story.client() as client:
        tasks, why = st.wait_for_commits(client, story.ov_session(0))
        ov_server.drain_queues(client)
        st.assert_committed_and_memory_stored(tasks, client, f"{why}\n{story.debug()}")
    with ChatStub(log_dir=str(tmp_path / "pi-stub")) as pi_stub:
        pi = _pi(pi_cli, ovhooks_bin, tmp_path, pi_stub, env, workdir)
        pi.prompt(st.QUESTION).check()
        first = pi_stub.turn_requests()[0].body
    assert st.MEMORY_PHRASE not in "\n".join(chat_stub.system_texts(first))
    after = chat_stub.text_from_prompt(first, st.QUESTION)  # the question, then its memory
    assert st.MEMORY_PHRASE in after, f"{after[-1500:]}\n{story.debug()}"


@pytest.mark.real_server
def test_stated_in_pi_recalled_in_codex(
    codex_cli: str, pi_cli: str, ovhooks_bin: str, ov_server_full: OvServer, tmp_path: Path
) -> None:
    story, env, workdir = _world(tmp_path, ov_server_full, "pi")
    with ChatStub(log_dir=str(tmp_path / "pi-stub")) as pi_stub:
        pi = _pi(pi_cli, ovhooks_bin, tmp_path, pi_stub, env, workdir)
        pi.prompt(st.PREFERENCE).check()  # Pi's shutdown commits the session
        story.host_session_ids = pi.session_ids()
    with story.client() as client:
        tasks, why = st.wait_for_commits(client, story.ov_session(0))
        ov_server.drain_queues(client)
        st.assert_committed_and_memory_stored(tasks, client, f"{why}\n{story.debug()}")
    stub, codex = _codex(codex_cli, ovhooks_bin, tmp_path, env, workdir)
    try:
        codex.exec(st.QUESTION).check()
        first = stub.turn_requests()[0].body
    finally:
        stub.stop()
    developer = host_stubs.codex_developer_texts(first)
    assert any(st.MEMORY_PHRASE in text for text in developer), (
        "\n---\n".join(t[:300] for t in developer[-4:]) + f"\n{story.debug()}"
    )


@pytest.mark.parametrize("direction", ["codex-to-gemini", "gemini-to-codex"])
def test_a_fact_stated_in_one_host_is_recalled_in_the_other_on_the_local_store(
    direction: str, gemini_cli: str, codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    backend = LocalBackend(str(tmp_path), semantic=True)
    env = backend.env(pytest_plugin.real_environ())
    with ExitStack() as stack:
        # the hooks start the embedding service, as a user's would: it ends here
        stack.callback(stop_running, backend.state_dir)
        codex_stub = stack.enter_context(ResponsesStub())
        stub = stack.enter_context(GeminiStub())
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
            developer = host_stubs.codex_developer_texts(codex_stub.turn_requests()[-1].body)
            assert any(st.MEMORY_PHRASE in t for t in developer), developer
