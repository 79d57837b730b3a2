"""``ovhooks mcp`` on the real OpenViking 0.5.2 server: every tool, as a host would call it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import McpClient
from tests.support.ov_server import drain_queues

pytestmark = pytest.mark.real_server

TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ123456"


def _search_until(client: McpClient, query: str, wanted: str, deadline_s: float = 30.0) -> str:
    """The server indexes a write in the background: ask until the memory is found."""
    end = time.monotonic() + deadline_s
    while True:
        text, is_error = client.call("search", {"query": query, "limit": 20})
        assert not is_error, text
        if wanted in text or time.monotonic() > end:
            return text
        time.sleep(0.5)


def test_every_tool_on_the_real_server(
    ov_server_capture: Any, capture_client: Any, ov_user: str, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **os.environ,
        "OPENVIKING_URL": ov_server_capture.url,
        "OPENVIKING_USER": ov_user,
        "OVHOOKS_BACKEND": "openviking",
    }
    fact = "The billing service is deployed on Tuesdays only, never on Fridays."
    with McpClient(env, cwd=str(project), timeout_s=60.0) as client:
        client.initialize()
        text, is_error = client.call("remember", {"text": fact})
        assert not is_error, text
        uri = next(w.rstrip(".") for w in text.split() if w.startswith("viking://"))
        assert uri.startswith(f"viking://user/{ov_user}/memories/preferences/")

        text, is_error = client.call("remember", {"text": f"CI pushes with the token {TOKEN}"})
        assert not is_error and "redacted" in text, text
        secret_uri = next(w.rstrip(".") for w in text.split() if w.startswith("viking://"))
        stored = capture_client.get(
            "/api/v1/content/read",
            params={"uri": secret_uri},
            headers={"X-OpenViking-User": ov_user},
        ).json()["result"]
        assert TOKEN not in stored and "[REDACTED:" in stored

        assert client.call("read", {"uri": uri}) == (fact, False)
        drain_queues(capture_client)
        found = _search_until(client, "billing service deployed Tuesdays Fridays", uri)
        assert uri in found, found
        listing, is_error = client.call("list", {})
        assert not is_error and uri in listing, listing

        assert client.call("forget", {"uri": uri}) == (f"Forgot {uri}.", False)
        text, is_error = client.call("read", {"uri": uri})
        assert is_error and "read failed" in text, text
        text, is_error = client.call("read", {"uri": "viking://user/nobody/memories/x.md"})
        assert is_error, text
        assert client.close() == 0
