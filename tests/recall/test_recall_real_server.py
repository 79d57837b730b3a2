"""Recall and session-start context against a real OpenViking 0.5.2 server (hash embeddings).

Memories are seeded through ``POST /api/v1/content/write`` as this test's own user (dev mode
honours ``X-OpenViking-User``), so tests never see each other's memories.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ovhooks.capture.tokens import estimate_tokens
from ovhooks.context import build_session_start
from ovhooks.recall import reset_session
from tests.support.ov_memories import RecallEnv, recall, seeded_env

pytestmark = pytest.mark.real_server


MEMORIES = {
    "preferences/default/code_editor.md": (
        "The user's favourite code editor is Helix with vim keybindings."
    ),
    "preferences/default/python_tooling.md": (
        "For Python projects the user uses uv as the package manager and ruff for linting."
    ),
    "entities/project/deploy_stack.md": (
        "The billing API deploys to Fly.io and uses a Postgres 16 database."
    ),
    "events/2026/05/20/billing_migration.md": (
        "On 2026-05-20 the billing database was migrated from MySQL to Postgres."
    ),
}


@pytest.fixture
def env(ov_server_capture: Any, capture_client: Any, ov_user: str, tmp_path: Any) -> RecallEnv:
    return seeded_env(
        ov_server_capture.url, capture_client, ov_user, MEMORIES, str(tmp_path / "state")
    )


def test_relevant_memory_recalled_unrelated_not_no_scaffold(env: Any) -> None:
    uris = env[2]
    out = recall("which code editor does the user prefer?", env)
    assert out.context is not None
    assert out.injected_uris[0] == uris["preferences/default/code_editor.md"]
    assert all(u.endswith(".md") and "/." not in u for u in out.injected_uris)
    assert estimate_tokens(out.context) <= env[0].recall_max_tokens
    assert recall("how do I bake sourdough bread at home?", env, key="k2").context is None
    assert recall("what is the capital of Australia?", env, key="k3").context is None


def test_same_prompt_twice_then_after_reset(env: Any) -> None:
    prompt = "where does the billing api deploy?"
    first = recall(prompt, env)
    assert first.context is not None
    assert recall(prompt, env).context is None
    reset_session(env[0], "cx-real")
    assert recall(prompt, env).context == first.context


def test_session_start_block_lists_seeded_memories(env: Any) -> None:
    settings, backend, _uris = env
    out = build_session_start(
        backend=backend,
        settings=settings,
        source="startup",
        ov_session_id="cx-real",
        include_archive=True,
        now=time.time(),
    )
    assert out is not None
    assert "default/code_editor.md" in out
    assert "project/deploy_stack.md" in out
    assert "2026/05/20/billing_migration.md" in out  # reached below the listing depth
    assert len(out) < 10_000
