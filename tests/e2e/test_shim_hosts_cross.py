"""One memory across the shim hosts, on the local store: stated in Pi, recalled in OpenCode,
and stated in OpenCode, recalled in Pi (one git project, one data directory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_pi_local import local_environment
from tests.support import chat_stub
from tests.support import story as st
from tests.support.chat_stub import ChatStub
from tests.support.repos import make_clone
from tests.support.shim_hosts import OpenCodeHost, PiHost

pytestmark = [pytest.mark.hosts_e2e]


def _memory_of_first_turn(stub: ChatStub) -> str:
    """What follows the question in the first turn request (never the system prompt)."""
    turns = [r.body for r in stub.turn_requests() if chat_stub.turn_kind(r.body) == "text"]
    assert turns, "no turn request"
    assert st.MEMORY_PHRASE not in "\n".join(chat_stub.system_texts(turns[0]))
    return chat_stub.text_from_prompt(turns[0], st.QUESTION)


@pytest.mark.parametrize("first", ["pi", "opencode"])
def test_stated_in_one_shim_host_recalled_in_the_other(
    first: str, pi_cli: str, opencode_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    env = local_environment(tmp_path)
    project = tmp_path / "project"
    make_clone(project, "git@github.com:acme/cross.git")

    def host(name: str, stub: ChatStub) -> PiHost | OpenCodeHost:
        if name == "pi":
            return PiHost(
                pi_cli,
                str(tmp_path / "pi"),
                stub,
                install_with=ovhooks_bin,
                base_env=env,
                workdir=str(project),
            )
        return OpenCodeHost(
            opencode_cli,
            str(tmp_path / "oc"),
            stub,
            install_with=ovhooks_bin,
            base_env=env,
            workdir=str(project),
        )

    with ChatStub(log_dir=str(tmp_path / "stub-1")) as stub:
        host(first, stub).prompt(st.PREFERENCE).check()  # shutdown / dispose commits
    second = "opencode" if first == "pi" else "pi"
    with ChatStub(log_dir=str(tmp_path / "stub-2")) as stub:
        host(second, stub).prompt(st.QUESTION).check()
        system = _memory_of_first_turn(stub)
    assert st.MEMORY_PHRASE in system, (
        f"{system[-1500:]}\n{st.read_ovhooks_logs(str(tmp_path / 'state'))}"
    )
