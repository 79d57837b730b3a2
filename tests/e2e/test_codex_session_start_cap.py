"""The session-start block reaches the real Codex 0.169 model request whole.

Codex passes hook output of up to ~10,000 bytes; longer output reaches the model as a
shortened preview. With a large Chinese profile and hundreds of memories the block used to be
17-27 KB; it is now cut to 9,500 bytes by ovhooks itself, keeping the profile's head and tail
and this project's memories, so the model gets the whole (smaller) block.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend
from tests.support import hosts
from tests.support.host_stubs import ResponsesStub, codex_developer_texts, codex_user_texts
from tests.support.repos import make_clone

pytestmark = [pytest.mark.hosts_e2e]

UNIT = "用户喜欢在这个项目里使用制表符缩进，并且总是先写测试再写实现。"
OPEN = '<openviking-context source="session-start">'


def _seed(data_dir: Path, peer: str) -> None:
    store = LocalBackend(str(data_dir), user="default", peer=peer)
    lines = ["PROFILE-HEAD " + UNIT] + [f"{UNIT} ({i})" for i in range(600)] + ["PROFILE-TAIL"]
    store.write("viking://user/default/memories/profile.md", "\n".join(lines))
    for i in range(150):
        store.write(f"viking://user/default/memories/preferences/default/p{i}.md", f"{i} {UNIT}")
    for i in range(40):
        store.write(f"viking://~/peers/{peer}/memories/entities/e{i}.md", f"项目 {i} {UNIT}")


def test_codex_gets_the_whole_session_start_block(
    codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    with ResponsesStub(log_dir=str(tmp_path / "stub-requests")) as stub:
        codex = hosts.CodexHost(
            codex_cli,
            str(tmp_path / "codex"),
            stub,
            install_with=ovhooks_bin,
            base_env=os.environ,
            extra_env={
                "OVHOOKS_BACKEND": "local",
                "OVHOOKS_STATE_DIR": str(tmp_path / "state"),
                "OVHOOKS_DATA_DIR": str(tmp_path / "data"),
                "OVHOOKS_DETACH": "0",
                "OVHOOKS_SESSION_CONTEXT_TOKENS": "40000",
            },
        )
        make_clone(Path(codex.workdir), "git@github.com:acme/widget.git")
        _seed(tmp_path / "data", "github-com-acme-widget")
        codex.exec("hello").check()
        body = stub.turn_requests()[0].body
    texts = codex_developer_texts(body) + codex_user_texts(body)
    block = next(t for t in texts if OPEN in t)
    start = block.index(OPEN)
    injected = block[start : block.index("</openviking-context>", start) + 21]
    assert len(injected.encode("utf-8")) <= 9500
    assert "PROFILE-HEAD" in injected and "PROFILE-TAIL" in injected
    assert "peers/github-com-acme-widget" in injected
    assert "truncated" not in block.lower().replace("[profile truncated]", "")
