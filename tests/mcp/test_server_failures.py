"""``ovhooks mcp`` when the store fails: a tool error that says what to do, our key never in
it, and the server still answering afterwards."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.mcp_client import McpClient

KEY = "ovk-test-" + "9f8e7d6c5b4a3210fedcba98"


def _env(fake_ov: FakeOpenViking) -> dict[str, str]:
    return {
        **os.environ,
        "OPENVIKING_URL": fake_ov.url,
        "OVHOOKS_BACKEND": "openviking",
        "OPENVIKING_API_KEY": KEY,
        "OVHOOKS_REQUEST_TIMEOUT_S": "3",
    }


@pytest.mark.parametrize("mode", ["echo401", "echo500", "echo_html"])
def test_a_gateway_echoing_our_key_never_shows_it(fake_ov: FakeOpenViking, mode: str) -> None:
    fake_ov.mode = mode
    with McpClient(_env(fake_ov)) as c:
        c.initialize()
        for tool, arguments in (
            ("search", {"query": "deploy day"}),
            ("remember", {"text": "We deploy on Tuesdays."}),
            ("read", {"uri": "viking://user/default/memories/a.md"}),
        ):
            text, is_error = c.call(tool, arguments)
            assert is_error, text
            assert KEY not in text and KEY[:20] not in text, text
        assert c.close() == 0
        assert KEY not in b"".join(c.stdout_lines).decode()
        assert KEY not in c.stderr()
    assert any(r["headers"].get("Authorization") == f"Bearer {KEY}" for r in fake_ov.requests), (
        "the key was sent, so the gateway had it to echo"
    )


def test_an_unreachable_server_is_a_tool_error_naming_the_fix(fake_ov: FakeOpenViking) -> None:
    env = _env(fake_ov)
    fake_ov.stop()
    with McpClient(env) as c:
        c.initialize()
        text, is_error = c.call("search", {"query": "deploy day"})
        assert is_error
        assert "unreachable" in text and "OPENVIKING_URL" in text, text
        assert c.request("ping") == {}
        assert c.close() == 0


def test_a_server_error_is_a_tool_error(fake_ov: FakeOpenViking) -> None:
    fake_ov.mode = "error500"
    with McpClient(_env(fake_ov)) as c:
        c.initialize()
        text, is_error = c.call("forget", {"uri": "viking://user/default/memories/a.md"})
        assert is_error and text.startswith("forget failed:"), text
        fake_ov.mode = "ok"
        assert c.call("list", {})[1] is False


def test_an_unusable_local_store_is_named_as_such(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = {**os.environ, "OVHOOKS_DATA_DIR": str(blocker)}
    with McpClient(env) as c:
        c.initialize()
        text, is_error = c.call("remember", {"text": "We deploy on Tuesdays."})
        assert is_error
        assert "local memory store" in text and "OVHOOKS_DATA_DIR" in text, text
        assert "1933" not in text, "no server to name"


def test_a_bug_is_a_tool_error_with_the_log_path_never_a_traceback(tmp_path: Path) -> None:
    from ovhooks.mcp.handlers import MemoryTools

    class Broken:
        def find(self, *args: object, **kwargs: object) -> None:
            raise RuntimeError(f"boom with {KEY}")

    tools = MemoryTools({**os.environ, "OPENVIKING_API_KEY": KEY}, str(tmp_path))
    tools._backend = Broken()  # type: ignore[assignment]
    result = tools.call("search", {"query": "anything"})
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "unexpected RuntimeError" in text and "ovhooks.log" in text, text
    assert "Traceback" not in text and KEY not in text
    log = Path(text.rsplit(" ", 1)[-1]).read_text()
    assert "boom" in log and KEY not in log


@pytest.mark.parametrize("via", ["cwd", "CLAUDE_PROJECT_DIR"])
def test_the_tools_act_for_the_hooks_project_peer(
    fake_ov: FakeOpenViking, tmp_path: Path, via: str
) -> None:
    """Codex starts the server in the session's folder; Claude Code names it in
    CLAUDE_PROJECT_DIR (and starts it there too). Either way: the hooks' project peer."""
    from ovhooks.project import resolve

    project = tmp_path / "widget"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:Acme/Widget.git\n'
    )
    env = {**os.environ, "OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    cwd = str(project)
    if via == "CLAUDE_PROJECT_DIR":
        env["CLAUDE_PROJECT_DIR"] = str(project)
        cwd = str(tmp_path)
    with McpClient(env, cwd=cwd) as c:
        c.initialize()
        assert c.call("search", {"query": "deploy day"})[1] is False
    peer = resolve(str(project), actor_peer="").peer
    assert peer == "github-com-acme-widget"
    finds = [r for r in fake_ov.requests if r["path"].endswith("/search/find")]
    assert finds and all(r["headers"].get("X-OpenViking-Actor-Peer") == peer for r in finds)


def test_a_secret_in_a_search_query_never_reaches_the_server(fake_ov: FakeOpenViking) -> None:
    token = "glpat-" + "Zx8Qm2Lr7Tv4Kp9Wn3Bc"
    with McpClient(_env(fake_ov)) as c:
        c.initialize()
        assert c.call("search", {"query": f"where did we use {token}"})[1] is False
    code, _doc = run_json("search", f"where did we use {token}", env=_env(fake_ov))
    assert code == 0
    finds = [r for r in fake_ov.requests if r["path"].endswith("/search/find")]
    assert len(finds) == 2
    assert all(token not in json.dumps(r["body"]) for r in finds)
    assert all("[REDACTED:" in r["body"]["query"] for r in finds)
