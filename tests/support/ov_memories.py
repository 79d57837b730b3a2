"""Seeding memories into a real OpenViking server for recall tests."""

from __future__ import annotations

from typing import Any


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
