"""Where a host story's memory lives, read back the same way for every host (issue 38).

``tests/e2e/test_host_stories.py`` tells each host's story against one of two backends: the
real OpenViking 0.5.2 server (``ov_server_full``: its stub model extracts memories) or the
embedded local store (SQLite under the world's folder). A backend gives the hooks their
environment, waits for session 1's commits where they run in the background (the server), and
reads back what was captured and what was remembered, as ``(role, text)`` pairs, so each
check is written once for every host.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from typing import Any, ClassVar

from tests.support import ov_server
from tests.support import story as st
from tests.support.ov_server import OvServer

Message = tuple[str, str]  # (role, text)

# The checks a world may declare it cannot take, each with its reason (``cannot`` of a
# backend or of a host's driver): the suite asserts the reason instead of skipping.
CACHE = "prompt cache"
REMEMBER = "remembered fact"
STUB_REPLIES = "one stub reply per prompt"


def _clean(base_env: Mapping[str, str]) -> dict[str, str]:
    """The runner's own ovhooks and XDG settings must not reach the hooks."""
    dropped = ("OVHOOKS_", "OPENVIKING_", "XDG_")
    return {k: v for k, v in base_env.items() if not k.startswith(dropped)}


class ServerBackend:
    """The real OpenViking server, as one fresh user (so no story sees another's memory)."""

    name = "server"
    cannot: ClassVar[dict[str, str]] = {
        # seen: Pi's recall for the question returned the tabs memory alone (score 0.77)
        REMEMBER: "the server's recall is a search for the question, which the fact (the "
        "deploy target) does not answer; the local store recalls it, checked there",
    }

    def __init__(self, server: OvServer, host: str, base: str) -> None:
        self.story = st.Story(host, server, st.unique_user(host), base)

    def env(self, base_env: Mapping[str, str]) -> dict[str, str]:
        return st.ovhooks_environment(
            base_env, self.story.base_dir, self.story.server.url, self.story.user
        )

    def settle(self, session: str, at_least: int) -> None:
        """Wait for session 1's commits (the server extracts in the background)."""
        with self.story.client() as client:
            self.story.commit_tasks, self.story.commit_wait_error = st.wait_for_commits(
                client, session, at_least=at_least
            )
            ov_server.drain_queues(client)

    def captured(self, session: str) -> list[Message]:
        with self.story.client() as client:
            messages = st.captured_messages(client, self.story.user, session)
        return [(m.role, m.text) for m in messages]

    def all_sessions(self) -> dict[str, list[Message]]:
        """Every session the user has, with its messages (to find where a turn landed)."""
        with self.story.client() as client:
            ids = st.list_session_ids(client)
        return {sid: self.captured(sid) for sid in ids}

    def assert_committed_and_remembered(self, session: str, debug: str) -> None:
        del session  # the commit tasks were waited for in settle()
        with self.story.client() as client:
            st.assert_committed_and_memory_stored(self.story.commit_tasks, client, debug)

    def debug(self) -> str:
        return self.story.debug()


class LocalBackend:
    """The embedded local store, written inline by the hooks (``OVHOOKS_DETACH=0``).

    ``semantic`` turns the embedding service on, as a user has it (Gemini's story); the world
    then stops the service the hooks started (see ``tests/support/semantic.py``).
    """

    name = "local"
    cannot: ClassVar[dict[str, str]] = {}

    def __init__(self, base: str, semantic: bool = False) -> None:
        self.base = base
        self.semantic = semantic
        self.data_dir = os.path.join(base, "ovhooks-data")
        self.state_dir = os.path.join(base, "ovhooks-state")

    def env(self, base_env: Mapping[str, str]) -> dict[str, str]:
        env = _clean(base_env)
        env.update(
            {
                "OVHOOKS_BACKEND": "local",
                "OVHOOKS_STATE_DIR": self.state_dir,
                "OVHOOKS_DATA_DIR": self.data_dir,
                "OVHOOKS_CONFIG": os.path.join(self.base, "ovhooks-config.toml"),
                "OPENVIKING_CLI_CONFIG_FILE": os.path.join(self.base, "ovcli.conf"),
                "OVHOOKS_DETACH": "0",
                "OVHOOKS_LOG_LEVEL": "debug",
            }
        )
        if self.semantic:
            # The inline worker extracts at commit inside the hook: give it what Gemini's
            # shortest timeout allows (5 s for SessionEnd, minus a second).
            env["OVHOOKS_HOOK_DEADLINE_S"] = "4"
        else:
            env["OVHOOKS_SEMANTIC"] = "off"
        return env

    def settle(self, session: str, at_least: int) -> None:
        """Nothing to wait for: the hooks wrote and extracted inline before they returned."""
        del session, at_least

    def _rows(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        path = os.path.join(self.data_dir, "memory.db")
        if not os.path.exists(path):
            return []
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return db.execute(query, args).fetchall()

    def captured(self, session: str) -> list[Message]:
        rows = self._rows(
            "SELECT role, parts FROM messages WHERE session_id = ? ORDER BY seq", (session,)
        )
        return [(str(role), _text(json.loads(parts))) for role, parts in rows]

    def commit_count(self, session: str) -> int:
        rows = self._rows("SELECT commit_count FROM sessions WHERE session_id = ?", (session,))
        return int(rows[0][0]) if rows else 0

    def memories(self) -> list[str]:
        return [str(row[0]) for row in self._rows("SELECT content FROM memories", ())]

    def assert_committed_and_remembered(self, session: str, debug: str) -> None:
        assert self.commit_count(session) >= 1, f"ovhooks made no commit of session 1\n{debug}"
        memories = self.memories()
        assert any(st.MEMORY_PHRASE in text for text in memories), f"{memories}\n{debug}"

    def debug(self) -> str:
        return st.read_ovhooks_logs(self.state_dir)


def _text(parts: list[dict[str, Any]]) -> str:
    return " ".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


Backend = ServerBackend | LocalBackend
