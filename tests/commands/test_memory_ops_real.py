"""``ls -r``, MCP ``list`` and ``forget`` on the real OpenViking 0.5.2 server, where its
answers differ from the local store's: a recursive listing stops three levels down (events
sit four), and a DELETE of a path that holds nothing succeeds."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.cli import run_cli, run_json

pytestmark = pytest.mark.real_server


def _env(server: Any, user: str) -> dict[str, str | None]:
    return {"OPENVIKING_URL": server.url, "OPENVIKING_USER": user, "OVHOOKS_BACKEND": None}


def test_events_four_levels_down_are_listed(ov_server_capture: Any, ov_user: str) -> None:
    env = _env(ov_server_capture, ov_user)
    code, doc = run_json("remember", "The standup moved to 10:00", "--kind", "events", env=env)
    assert code == 0, doc
    uri = doc["uri"]
    assert uri.count("/") - f"viking://user/{ov_user}/memories/events".count("/") == 4, uri
    for folder in ("events", ""):
        code, listed = run_json("ls", "-r", f"viking://user/{ov_user}/memories/{folder}", env=env)
        assert code == 0, listed
        assert uri in [e["uri"] for e in listed["entries"]], (folder, listed["entries"])


def test_forgetting_a_uri_that_holds_nothing_is_not_found(
    ov_server_capture: Any, ov_user: str
) -> None:
    env = _env(ov_server_capture, ov_user)
    missing = f"viking://user/{ov_user}/memories/preferences/{ov_user}/never-existed.md"
    result = run_cli("forget", missing, env=env)
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert "not found" in result.stderr.lower()
    code, doc = run_json("remember", "We deploy on Tuesdays only", env=env)
    assert code == 0, doc
    assert run_cli("forget", doc["uri"], env=env).exit_code == 0
