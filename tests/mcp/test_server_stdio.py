"""``ovhooks mcp`` as a host runs it: a real process on stdio, driven by an MCP client, on
both backends (the local store, and OpenViking through the fake at the transport)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.mcp_client import McpClient

TOKEN = "glpat-" + "Zx8Qm2Lr7Tv4Kp9Wn3Bc"
FACT = "We deploy the billing service on Tuesdays only, never on Fridays."


@pytest.fixture(params=["local", "openviking"])
def backend_env(request: pytest.FixtureRequest, fake_ov: FakeOpenViking) -> dict[str, str]:
    env = dict(os.environ)
    if request.param == "openviking":
        env.update({"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"})
    return env


@pytest.fixture
def client(backend_env: dict[str, str], tmp_path: Path) -> Iterator[McpClient]:
    project = tmp_path / "project"
    project.mkdir()
    with McpClient(backend_env, cwd=str(project)) as c:
        c.initialize()
        yield c


def _uri_in(text: str) -> str:
    return next(w.rstrip(".,") for w in text.split() if w.startswith("viking://"))


def test_handshake_and_tool_list(backend_env: dict[str, str]) -> None:
    with McpClient(backend_env) as c:
        init = c.initialize("2025-03-26")
        assert init["protocolVersion"] == "2025-03-26"
        assert init["serverInfo"]["name"] == "ovhooks"
        assert "memory" in init["instructions"].lower()
        assert c.request("ping") == {}
        tools = c.list_tools()
        assert [t["name"] for t in tools] == ["search", "read", "list", "remember", "forget"]
        assert c.close() == 0
        assert all(json.loads(line) for line in c.stdout_lines), "stdout carries JSON-RPC only"


def test_remember_search_read_list_forget(client: McpClient) -> None:
    text, is_error = client.call("remember", {"text": FACT})
    assert not is_error, text
    assert text.startswith("Remembered (preferences): viking://")
    uri = _uri_in(text)

    text, is_error = client.call("search", {"query": "which day do we deploy billing"})
    assert not is_error, text
    assert uri in text and "Tuesdays" in text

    text, is_error = client.call("read", {"uri": uri})
    assert (text, is_error) == (FACT, False)

    text, is_error = client.call("list", {})
    assert not is_error
    assert uri in text

    text, is_error = client.call("forget", {"uri": uri})
    assert (text, is_error) == (f"Forgot {uri}.", False)
    text, is_error = client.call("search", {"query": "which day do we deploy billing"})
    assert uri not in text
    text, is_error = client.call("read", {"uri": uri})
    assert is_error and "not found" in text.lower(), text


def test_remember_scrubs_secrets_before_storing(client: McpClient) -> None:
    text, is_error = client.call(
        "remember", {"text": f"The deploy job uses the gitlab token {TOKEN}.", "kind": "events"}
    )
    assert not is_error, text
    assert "redacted" in text and TOKEN not in text and "/memories/events/" in text
    stored, _ = client.call("read", {"uri": _uri_in(text)})
    assert TOKEN not in stored and "[REDACTED:" in stored


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("search", {}, "'query' is required"),
        ("search", {"query": "x", "limit": 500}, "'limit' must be between 1 and 20"),
        ("search", {"query": "x", "uri": "viking://"}, "unknown argument(s) 'uri'"),
        ("read", {"uri": 42}, "'uri' must be a string"),
        ("read", {"uri": "/etc/passwd"}, "must be a viking:// URI"),
        ("read", {"uri": "viking://user/default/memories/nothing-here.md"}, "not found"),
        ("read", {"uri": "viking://user/default/memories/a/../b.md"}, "memories/a/../b.md"),
        ("read", {"uri": "viking://user/default/memories/x.md"}, "URI with the list tool"),
        ("list", {"uri": "file:///tmp"}, "must be a viking:// URI"),
        ("remember", {"text": ""}, "'text' must not be empty"),
        ("remember", {"text": "x", "kind": "secret"}, "'kind' must be one of"),
        ("forget", {"uri": "viking://resources/docs/a.md"}, "is a resource, not a memory"),
        ("forget", {"uri": "viking://user/default/memories/"}, "is a folder, not a memory file"),
    ],
)
def test_bad_arguments_get_a_clear_tool_error(
    client: McpClient, tool: str, arguments: dict[str, object], says: str
) -> None:
    text, is_error = client.call(tool, arguments)
    assert is_error, text
    assert says in text, text
    assert text.startswith(f"{tool}"), text
    assert client.request("ping") == {}, "the server goes on after a failed call"


def test_one_implementation_two_faces(client: McpClient, backend_env: dict[str, str]) -> None:
    """What the CLI remembers, the tool finds; what the tool remembers, the CLI reads."""
    overlay = {k: v for k, v in backend_env.items() if k.startswith(("OPENVIKING_", "OVHOOKS_"))}
    code, doc = run_json("remember", "The staging database is called pelican.", env=overlay)
    assert code == 0
    text, _ = client.call("search", {"query": "staging database name"})
    assert doc["uri"] in text and "pelican" in text
    text, _ = client.call("remember", {"text": "Release notes go in CHANGES.md."})
    code, doc = run_json("read", _uri_in(text), env=overlay)
    assert code == 0 and doc["content"] == "Release notes go in CHANGES.md.\n"


def test_bytes_no_client_should_send_never_stop_the_server(backend_env: dict[str, str]) -> None:
    with McpClient(backend_env) as c:
        c.raw(b"not json\n")
        assert c.receive()["error"]["code"] == -32700
        c.raw(b"\xff\xfe\n")
        assert c.receive()["error"]["code"] == -32700
        c.raw(b"[" * 5000 + b"]" * 5000 + b"\n")  # deeper than the parser recurses
        assert c.receive()["error"]["code"] == -32700
        c.raw(b"\n   \n")
        c.raw(b"x" * (4 * 1024 * 1024 + 10) + b"\n")
        assert c.receive()["error"]["code"] == -32600
        c.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert c.receive() == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
        assert c.request_raw("prompts/list")["error"]["code"] == -32601
        reply = c.request_raw("tools/call", {"name": "exec", "arguments": {}})
        assert reply["error"]["code"] == -32602 and "search" in reply["error"]["message"]
        c.initialize()
        assert c.call("search", {"query": "anything"})[1] is False
        assert c.close() == 0


def test_text_that_is_not_utf8_is_a_tool_error(client: McpClient) -> None:
    """A client may send a lone surrogate (``"\\udcff"``): no file, row or request can hold
    it, so the tool says so instead of failing on a write."""
    for name, arguments in (
        ("remember", {"text": "we deploy \udcff on Tuesdays"}),
        ("read", {"uri": "viking://user/\udcff"}),
        ("forget", {"uri": "viking://user/default/memories/\udcff.md"}),
    ):
        text, is_error = client.call(name, arguments)
        assert is_error and "not valid UTF-8" in text and "unexpected" not in text, text
    assert client.call("list", {})[1] is False


def test_a_request_id_with_a_lone_surrogate_comes_back_as_sent(
    backend_env: dict[str, str],
) -> None:
    # A campaign: ids "\ud800" and "a\udfffb" were answered as "?" and "a?b", so the client
    # could not match the reply to its request.
    with McpClient(backend_env) as c:
        for ident in ("\ud800", "a\udfffb"):
            c.raw(json.dumps({"jsonrpc": "2.0", "id": ident, "method": "ping"}).encode() + b"\n")
            assert c.receive() == {"jsonrpc": "2.0", "id": ident, "result": {}}
        assert c.close() == 0
