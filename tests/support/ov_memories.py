"""Seeding memories into a real OpenViking server for recall tests."""

from __future__ import annotations

import time
from typing import Any

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.recall import RecallOutcome, recall_for_prompt
from tests.support.fake_backend import make_settings

# What a recall test works with: settings, a backend on the real server, and the seeded URIs.
RecallEnv = tuple[Any, OpenVikingBackend, dict[str, str]]


def seed(client: Any, user: str, memories: dict[str, str]) -> dict[str, str]:
    """Write each ``{relative path: text}`` under the user's memories (``content/write``,
    waiting for indexing); returns ``{relative path: uri}``."""
    uris = {}
    for rel, text in memories.items():
        uri = f"viking://user/{user}/memories/{rel}"
        resp = client.post(
            "/api/v1/content/write",
            json={"uri": uri, "content": text, "mode": "replace", "wait": True},
        )
        resp.raise_for_status()
        uris[rel] = uri
    return uris


def seeded_env(url: str, client: Any, user: str, memories: dict[str, str], state: str) -> RecallEnv:
    """Seed ``memories`` for ``user`` and return what ``recall`` needs to search them."""
    uris = seed(client, user, memories)
    settings = make_settings(state, url=url, user=user)
    return settings, OpenVikingBackend(settings, peer="", request_timeout_s=10.0), uris


def recall(prompt: str, env: RecallEnv, key: str = "cx-real") -> RecallOutcome:
    """One UserPromptSubmit recall for ``prompt`` in the session ``key``, no recent turns."""
    settings, backend, _ = env
    return recall_for_prompt(
        prompt,
        recent_user_texts=[],
        session_key=key,
        ov_session_id=key,
        backend=backend,
        settings=settings,
        now=time.time(),
    )
