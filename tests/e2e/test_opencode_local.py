"""OpenCode 1.18.33 with ovhooks installed (``ovhooks install opencode``), offline, local store.

Session 1 states a preference; OpenCode's ``session.idle`` makes ovhooks capture the turn from
OpenCode's SQLite store and the instance's ``dispose`` makes it commit, so the local store
keeps the preference as a memory. Session 2 is a new OpenCode session in the same project:
its model request must carry the recalled memory in the system prompt, and the captured
session must hold the user's words once, without any injected block.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_pi_local import local_environment
from tests.support import chat_stub
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.repos import make_clone
from tests.support.shim_hosts import OpenCodeHost
from tests.support.stores import LocalStore

pytestmark = [pytest.mark.hosts_e2e]


def test_opencode_two_sessions_recall_on_the_local_store(
    opencode_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    store = LocalStore(tmp_path / "data")
    with ChatStub(log_dir=str(tmp_path / "stub")) as stub:
        oc = OpenCodeHost(
            opencode_cli,
            str(tmp_path / "opencode"),
            stub,
            install_with=ovhooks_bin,
            base_env=local_environment(tmp_path),
        )
        make_clone(Path(oc.workdir), "git@github.com:acme/widget.git")
        oc.prompt(st.PREFERENCE).check()
        first_session_requests = len(stub.turn_requests())
        oc.prompt(st.QUESTION).check()
        ids = oc.session_ids()
        requests = stub.turn_requests()[first_session_requests:]
    debug = st.read_ovhooks_logs(str(tmp_path / "state"))
    assert len(ids) == 2, ids
    texts = [t.strip() for t in store.texts(f"oc-{ids[0]}")]
    assert texts.count(st.PREFERENCE) == 1, f"{texts}\n{debug}"
    assert not any("<openviking-context" in t or "auto-recall" in t for t in texts), texts
    turns = [r.body for r in requests if chat_stub.turn_kind(r.body) == "text"]
    assert turns, [chat_stub.turn_kind(r.body) for r in requests]
    question = turns[0]
    # the newest thing the user asked is the question; the recall follows in its own message
    asked = [t for t in chat_stub.user_texts(question) if "<openviking-context" not in t]
    assert asked[-1].strip().startswith(st.QUESTION), asked
    system = "\n".join(chat_stub.system_texts(question))
    after = chat_stub.text_from_prompt(question, st.QUESTION)
    assert st.MEMORY_PHRASE in after, f"{after[-2000:]}\n{debug}"
    assert st.MEMORY_PHRASE not in system  # never in the system prompt (prompt cache)


def test_opencode_auto_compaction_commits_before_the_summary(
    opencode_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    """A reply reporting more tokens than the model's context makes OpenCode compact; its
    ``experimental.session.compacting`` hook makes ovhooks commit then, and ``dispose``
    commits again what came after (the turn OpenCode continues with)."""
    store = LocalStore(tmp_path / "data")
    with ChatStub(log_dir=str(tmp_path / "stub")) as stub:
        stub.token_plan = [100000]
        oc = OpenCodeHost(
            opencode_cli,
            str(tmp_path / "opencode"),
            stub,
            install_with=ovhooks_bin,
            base_env=local_environment(tmp_path),
            context_limit=50000,
        )
        oc.prompt(st.PREFERENCE).check()
        kinds = [stub.replies[r.number] for r in stub.turn_requests()]
        ids = oc.session_ids()
    debug = st.read_ovhooks_logs(str(tmp_path / "state"))
    assert "summary" in kinds or len(kinds) > 2, kinds
    key = f"oc-{ids[0]}"
    assert store.commit_count(key) == 2, f"{kinds}\n{store.texts(key)}\n{debug}"
    assert [t.strip() for t in store.texts(key)].count(st.PREFERENCE) == 1
