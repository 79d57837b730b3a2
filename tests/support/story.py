"""Shared pieces of the host end-to-end stories: ovhooks' environment and reading back what
the OpenViking server captured.

A story runs once per module (the host CLIs and the commit wait are the slow part) and records
what happened in a :class:`Story`; each test then asserts one promise, so a report says which
promises hold.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Mapping
from typing import Any

import httpx

from tests.support import ov_server
from tests.support.ov_server import OvServer

PREFERENCE = "Remember: in this repo I always use tabs, never spaces"
MEMORY_PHRASE = "always use tabs, never spaces"
QUESTION = "Which indentation should I use in this repo: tabs or spaces?"

# Host boilerplate and injected context that must never be captured as conversation.
FORBIDDEN_IN_CAPTURE = (
    "<system-reminder>",
    "<environment_context>",
    "<skills_instructions>",
    "<permissions instructions>",
    "hook additional context",
    "<command-name>",
    "<local-command-",
    "Continue from where you left off",
    "CONTEXT CHECKPOINT COMPACTION",
    "Another language model started to solve this problem",
    "This session is being continued from a previous conversation",
    "<memory ",
    "<openviking-context",
)

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def openviking_session_id(host: str, host_session_id: str) -> str:
    """interface.md §4: ``cx-``/``cc-`` prefix, unsafe characters replaced by ``_``."""
    prefix = {"codex": "cx-", "claude": "cc-", "pi": "pi-", "opencode": "oc-"}[host]
    return prefix + _ID_UNSAFE.sub("_", host_session_id)


def ovhooks_environment(
    base_env: Mapping[str, str], base_dir: str, server_url: str, user: str
) -> dict[str, str]:
    """The environment the hooks see: our server, our user, inline writes, private dirs.

    Built from a snapshot of the real environment rather than ``os.environ``: the story runs
    in a module-scoped fixture, before the suite's per-test isolation fixture.
    """
    env = {
        k: v for k, v in base_env.items() if not k.startswith(("OVHOOKS_", "OPENVIKING_", "XDG_"))
    }
    env.update(
        {
            # no embedding service (it would outlive the module by its idle time)
            "OVHOOKS_SEMANTIC": "off",
            "OPENVIKING_URL": server_url,
            "OPENVIKING_USER": user,
            "OVHOOKS_STATE_DIR": os.path.join(base_dir, "ovhooks-state"),
            "OVHOOKS_DATA_DIR": os.path.join(base_dir, "ovhooks-data"),
            "OVHOOKS_CONFIG": os.path.join(base_dir, "ovhooks-config.toml"),
            "OPENVIKING_CLI_CONFIG_FILE": os.path.join(base_dir, "ovcli.conf"),
            "OVHOOKS_DETACH": "0",
            "OVHOOKS_LOG_LEVEL": "debug",
            # Stories check that memory crosses, not how fast: a loaded CI runner once took
            # 1.8 s for a real server's search and the prompt went without recall. The hook
            # still answers a second inside the launcher's 4 s bound; latency has its own tests.
            "OVHOOKS_RECALL_DEADLINE_S": "3",
        }
    )
    return env


def unique_user(host: str) -> str:
    return f"e2e-{host}-{uuid.uuid4().hex[:10]}"


class CapturedMessage:
    __slots__ = ("role", "source", "text")

    def __init__(self, role: str, text: str, source: str) -> None:
        self.role = role
        self.text = text
        self.source = source

    def __repr__(self) -> str:
        return f"{self.role}@{self.source}: {self.text[:120]!r}"


def _message_text(message: Mapping[str, Any]) -> str:
    return "\n".join(
        str(part.get("text", ""))
        for part in message.get("parts") or []
        if isinstance(part, dict) and part.get("type") == "text"
    )


def _read_jsonl_messages(client: httpx.Client, uri: str, source: str) -> list[CapturedMessage]:
    response = client.get("/api/v1/content/read", params={"uri": uri})
    if response.status_code == 404:
        return []
    response.raise_for_status()
    messages = []
    for line in str(response.json()["result"]).splitlines():
        if line.strip():
            message = json.loads(line)
            messages.append(CapturedMessage(message["role"], _message_text(message), source))
    return messages


def captured_messages(client: httpx.Client, user: str, session_id: str) -> list[CapturedMessage]:
    """Every message of an OpenViking session, archives first (in order), then live ones.

    Read from the session's files rather than the session APIs: ``GET .../archives/{id}``
    answers 404 until the commit's background phase has finished, and ``GET .../context``
    keeps returning an archive's messages as live ones until then.
    """
    root = f"viking://user/{user}/sessions/{session_id}"
    listing = client.get("/api/v1/fs/ls", params={"uri": f"{root}/history"})
    archive_ids = (
        sorted(e["uri"].rsplit("/", 1)[-1] for e in listing.json()["result"] if e["isDir"])
        if listing.status_code == 200
        else []
    )
    messages: list[CapturedMessage] = []
    for archive_id in archive_ids:
        messages += _read_jsonl_messages(
            client, f"{root}/history/{archive_id}/messages.jsonl", archive_id
        )
    return messages + _read_jsonl_messages(client, f"{root}/messages.jsonl", "live")


def list_session_ids(client: httpx.Client) -> list[str]:
    response = client.get("/api/v1/sessions")
    response.raise_for_status()
    return [s["session_id"] for s in response.json()["result"]]


def wait_for_commits(
    client: httpx.Client, session_id: str, timeout_s: float = 60.0, at_least: int = 1
) -> tuple[list[dict[str, Any]], str]:
    """The finished commit tasks of a session, or ([], why) when none finished in time."""
    try:
        return ov_server.wait_for_session_commits(client, session_id, timeout_s, at_least), ""
    except TimeoutError as exc:
        return [], str(exc)


def memory_hits(client: httpx.Client, query: str) -> list[dict[str, Any]]:
    """Level-2 memory hits for ``query`` over the caller's whole user space."""
    response = client.post(
        "/api/v1/search/find", json={"query": query, "context_type": "memory", "limit": 20}
    )
    response.raise_for_status()
    return [h for h in response.json()["result"]["memories"] if h.get("level") == 2]


def assert_committed_and_memory_stored(
    tasks: list[dict[str, Any]], client: httpx.Client, debug: str
) -> None:
    """Session 1's commits were all taken and finished, and the memory is stored and found.

    The server's own extraction of one commit failed once in about five CI-like runs (reason
    not kept then; now printed in the rig summary): that is the server's phase 2, not ovhooks'
    promise, so one failed extraction is reported, not fatal, as long as another extraction
    stored the memory that the rest of the story depends on.
    """
    from tests.support import pytest_plugin

    assert tasks, f"ovhooks made no commit of session 1\n{debug}"
    assert all(t["status"] in ("completed", "failed") for t in tasks), tasks
    for t in tasks:
        if t["status"] == "failed":
            pytest_plugin.record_note(
                f"server extraction failed: {t.get('stage')}: {t.get('error')}"
            )
    assert any(t["status"] == "completed" for t in tasks), [
        (t.get("stage"), t.get("error")) for t in tasks
    ]
    written = sum(
        (t["result"] or {}).get("memories_extracted", {}).get("memory_write", 0) for t in tasks
    )
    assert written >= 1, tasks
    hits = memory_hits(client, "tabs or spaces indentation")
    assert any(MEMORY_PHRASE in h["abstract"] for h in hits), hits


def forbidden_in(messages: list[CapturedMessage], extra: tuple[str, ...] = ()) -> list[str]:
    problems = []
    for message in messages:
        for needle in (*FORBIDDEN_IN_CAPTURE, *extra):
            if needle in message.text:
                problems.append(f"{needle!r} in {message!r}")
    return problems


def read_ovhooks_logs(state_dir: str, max_chars: int = 6000) -> str:
    """ovhooks' own logs, for failure messages (whatever files the state dir holds)."""
    chunks: list[str] = []
    for root, _dirs, files in os.walk(state_dir):
        for name in sorted(files):
            if name.endswith((".log", ".jsonl")):
                path = os.path.join(root, name)
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        chunks.append(f"--- {path}\n{handle.read()[-2000:]}")
                except OSError:
                    pass
    return "\n".join(chunks)[-max_chars:] or "(no ovhooks logs)"


class Story:
    """What one host story did, for the tests to assert on."""

    def __init__(self, host: str, server: OvServer, user: str, base_dir: str) -> None:
        self.host = host
        self.server = server
        self.user = user
        self.base_dir = base_dir
        self.host_session_ids: list[str] = []
        self.commit_tasks: list[dict[str, Any]] = []
        self.commit_wait_error = ""
        self.phase_seconds: dict[str, float] = {}
        self._phase_started = time.monotonic()

    def mark(self, phase: str) -> None:
        now = time.monotonic()
        self.phase_seconds[phase] = now - self._phase_started
        self._phase_started = now

    @property
    def state_dir(self) -> str:
        return os.path.join(self.base_dir, "ovhooks-state")

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.server.url, headers={"X-OpenViking-User": self.user}, timeout=60.0
        )

    def ov_session(self, index: int) -> str:
        return openviking_session_id(self.host, self.host_session_ids[index])

    def debug(self) -> str:
        return (
            f"user={self.user} host sessions={self.host_session_ids}\n"
            f"commit tasks={[(t.get('task_id'), t.get('status')) for t in self.commit_tasks]} "
            f"{self.commit_wait_error}\n{read_ovhooks_logs(self.state_dir)}"
        )
