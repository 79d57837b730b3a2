"""Pi 0.73.1 with ovhooks installed (``ovhooks install pi``), offline, local store.

Session 1 states a preference; Pi's shutdown (print mode disposes the runtime) makes ovhooks
commit, and the local store keeps the preference as a memory. Session 2 is a new Pi session
in the same project: its first model request must carry the recalled memory, in the system
prompt the extension adds it to. Along the way: the transcript's turns are stored once each,
with no injected block, and a tool call's turn keeps its result.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import chat_stub, pytest_plugin
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.repos import make_clone
from tests.support.shim_hosts import PiHost, PiRpc
from tests.support.stores import LocalStore

pytestmark = [pytest.mark.hosts_e2e]


def local_environment(base: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in pytest_plugin.real_environ().items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "XDG_"))
    }
    env.update(
        {
            # the host's hooks, not recall by meaning (tests/semantic); no lingering service
            "OVHOOKS_SEMANTIC": "off",
            "OVHOOKS_BACKEND": "local",
            "OVHOOKS_STATE_DIR": str(base / "state"),
            "OVHOOKS_DATA_DIR": str(base / "data"),
            "OVHOOKS_CONFIG": str(base / "ovhooks-config.toml"),
            "OVHOOKS_DETACH": "0",
            "OVHOOKS_LOG_LEVEL": "debug",
        }
    )
    return env


def _debug(base: Path) -> str:
    return st.read_ovhooks_logs(str(base / "state"))


def test_pi_two_sessions_recall_on_the_local_store(
    pi_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    store = LocalStore(tmp_path / "data")
    with ChatStub(log_dir=str(tmp_path / "stub")) as stub:
        pi = PiHost(
            pi_cli,
            str(tmp_path / "pi"),
            stub,
            install_with=ovhooks_bin,
            base_env=local_environment(tmp_path),
        )
        make_clone(Path(pi.workdir), "git@github.com:acme/widget.git")
        pi.prompt(st.PREFERENCE).check()
        pi.prompt("RUNSHELL to show the shell works", continue_session=True).check()
        first_session_requests = len(stub.turn_requests())
        pi.prompt(st.QUESTION).check()
        ids = pi.session_ids()
        requests = stub.turn_requests()
    assert len(ids) == 2, ids
    texts = store.texts(f"pi-{ids[0]}")
    assert texts.count(st.PREFERENCE) == 1, texts
    assert any(t.startswith("STUB-AFTER-TOOL") and "bash" in t for t in texts), texts
    assert not any("<openviking-context" in t or "auto-recall" in t for t in texts), texts
    question = requests[first_session_requests].body
    assert st.QUESTION in chat_stub.user_texts(question)  # the prompt; memory comes after it
    system = "\n".join(chat_stub.system_texts(question))
    after = chat_stub.text_from_prompt(question, st.QUESTION)
    assert st.MEMORY_PHRASE in after, f"{after[-2000:]}\n{_debug(tmp_path)}"
    assert st.MEMORY_PHRASE not in system  # never in the system prompt (prompt cache)
    assert store.texts(f"pi-{ids[1]}")[:1] == [st.QUESTION], _debug(tmp_path)


def test_pi_compaction_commits_before_the_session_ends(
    pi_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    """``/compact`` (RPC ``compact``): ovhooks catches up and commits while Pi is still
    running, before Pi's summary replaces the turns; shutdown commits what came after."""
    store = LocalStore(tmp_path / "data")
    with ChatStub(log_dir=str(tmp_path / "stub")) as stub:
        pi = PiHost(
            pi_cli,
            str(tmp_path / "pi"),
            stub,
            install_with=ovhooks_bin,
            base_env=local_environment(tmp_path),
        )
        rpc = PiRpc(pi)
        try:
            rpc.send({"type": "prompt", "message": st.PREFERENCE}, "agent_end")
            key = f"pi-{pi.session_ids()[0]}"
            before = store.commit_count(key)
            rpc.send({"type": "compact"}, "response")
            at_compaction = store.commit_count(key)
            rpc.send({"type": "prompt", "message": "After the compaction"}, "agent_end")
        finally:
            code = rpc.close()
    assert code == 0
    assert (before, at_compaction) == (0, 1), _debug(tmp_path)
    assert store.commit_count(key) == 2, _debug(tmp_path)
    assert store.texts(key).count(st.PREFERENCE) == 1
    assert "After the compaction" in store.texts(key)
