"""The MCP subset, message by message (``ovhooks.mcp.protocol``), and the tool table's rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ovhooks.commands import memory_ops
from ovhooks.mcp import protocol
from ovhooks.mcp.tools import INSTRUCTIONS, TOOL_NAMES, TOOLS, check_arguments


def _dispatcher(calls: list[tuple[str, dict[str, Any]]] | None = None) -> protocol.Dispatcher:
    seen = calls if calls is not None else []

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append((name, arguments))
        return protocol.text_result(f"ran {name}")

    return protocol.Dispatcher(
        name="ovhooks", version="9", instructions="use it", tools=TOOLS, call=call
    )


def _request(method: str, params: object = None, msg_id: object = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


@pytest.mark.parametrize("version", protocol.SUPPORTED_VERSIONS)
def test_initialize_echoes_a_supported_version(version: str) -> None:
    reply = _dispatcher().dispatch(_request("initialize", {"protocolVersion": version}))
    assert isinstance(reply, dict)
    assert reply["result"]["protocolVersion"] == version
    assert reply["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert reply["result"]["serverInfo"] == {"name": "ovhooks", "version": "9"}
    assert reply["result"]["instructions"] == "use it"


@pytest.mark.parametrize("asked", ["2099-01-01", "", None, 7])
def test_initialize_answers_its_latest_version_to_an_unknown_one(asked: object) -> None:
    reply = _dispatcher().dispatch(_request("initialize", {"protocolVersion": asked}))
    assert isinstance(reply, dict)
    assert reply["result"]["protocolVersion"] == protocol.LATEST


def test_notifications_and_responses_get_no_reply() -> None:
    d = _dispatcher()
    assert d.dispatch({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert d.dispatch({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}) is None
    assert d.dispatch({"jsonrpc": "2.0", "id": 4, "result": {}}) is None


@pytest.mark.parametrize(
    ("message", "code", "reply_id"),
    [
        ([], protocol.INVALID_REQUEST, None),
        ("hello", protocol.INVALID_REQUEST, None),
        ({"id": 1, "method": "ping"}, protocol.INVALID_REQUEST, 1),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, protocol.INVALID_REQUEST, 1),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, protocol.INVALID_REQUEST, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, protocol.INVALID_REQUEST, None),
        ({"jsonrpc": "2.0", "id": 2}, protocol.INVALID_REQUEST, 2),
        ({"jsonrpc": "2.0", "id": 2, "method": 5}, protocol.INVALID_REQUEST, 2),
        (_request("tools/list", [1, 2]), protocol.INVALID_PARAMS, 1),
        (_request("resources/list"), protocol.METHOD_NOT_FOUND, 1),
        (_request("tools/call", {"name": "shell", "arguments": {}}), protocol.INVALID_PARAMS, 1),
        (_request("tools/call", {"arguments": {}}), protocol.INVALID_PARAMS, 1),
    ],
)
def test_bad_messages_get_the_error_their_fault_calls_for(
    message: object, code: int, reply_id: object
) -> None:
    reply = _dispatcher().dispatch(message)
    assert isinstance(reply, dict)
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == reply_id
    assert reply["error"]["code"] == code
    assert reply["error"]["message"]


def test_a_batch_is_answered_in_order_without_its_notifications() -> None:
    replies = _dispatcher().dispatch(
        [
            _request("ping", msg_id="a"),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            _request("nope", msg_id="b"),
        ]
    )
    assert isinstance(replies, list)
    assert [r["id"] for r in replies] == ["a", "b"]
    assert replies[0]["result"] == {}
    assert replies[1]["error"]["code"] == protocol.METHOD_NOT_FOUND


def test_null_params_are_no_params() -> None:
    reply = _dispatcher().dispatch({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": None})
    assert reply == {"jsonrpc": "2.0", "id": 9, "result": {}}


def test_tools_call_hands_known_tools_their_arguments() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    d = _dispatcher(calls)
    reply = d.dispatch(_request("tools/call", {"name": "search", "arguments": {"query": "x"}}))
    assert isinstance(reply, dict)
    assert reply["result"] == protocol.text_result("ran search")
    reply = d.dispatch(_request("tools/call", {"name": "list", "arguments": None}))
    assert calls == [("search", {"query": "x"}), ("list", {})]
    reply = d.dispatch(_request("tools/call", {"name": "read", "arguments": "uri"}))
    assert isinstance(reply, dict)
    assert reply["result"]["isError"] is True
    assert "arguments must be an object" in reply["result"]["content"][0]["text"]
    assert len(calls) == 2


# --- the tool table -----------------------------------------------------------------------


def test_the_tool_list_is_small() -> None:
    """Every turn of every session pays for it (target: 2,500 characters in all)."""
    assert len(json.dumps(TOOLS)) <= 2500
    assert len(INSTRUCTIONS) <= 400


def test_read_only_tools_say_so_and_forget_says_it_destroys() -> None:
    hints = {t["name"]: t["annotations"] for t in TOOLS}
    assert set(hints) == {"search", "read", "list", "remember", "forget"} == set(TOOL_NAMES)
    assert memory_ops.TOOL_NAMES == TOOL_NAMES, "install and doctor register these names"
    for name in ("search", "read", "list"):
        assert hints[name] == {"readOnlyHint": True, "destructiveHint": False}
    assert hints["remember"] == {"readOnlyHint": False, "destructiveHint": False}
    assert hints["forget"] == {"readOnlyHint": False, "destructiveHint": True}
    for tool in TOOLS:
        assert tool["_meta"] == {"anthropic/alwaysLoad": True}
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        schema = tool["inputSchema"]
        assert set(schema.get("required", [])) <= set(schema["properties"])


@pytest.mark.parametrize(
    ("tool", "arguments", "problem"),
    [
        ("search", {}, "'query' is required"),
        ("search", {"query": None}, "'query' is required"),
        ("search", {"query": 3}, "'query' must be a string"),
        ("search", {"query": "  "}, "'query' must not be empty"),
        ("search", {"query": "x", "limit": 0}, "'limit' must be between 1 and 20"),
        ("search", {"query": "x", "limit": 21}, "'limit' must be between 1 and 20"),
        ("search", {"query": "x", "limit": "5"}, "'limit' must be an integer"),
        ("search", {"query": "x", "limit": True}, "'limit' must be an integer"),
        ("search", {"query": "x", "limit": 2.5}, "'limit' must be an integer"),
        ("search", {"query": "x", "top_k": 2}, "unknown argument(s) 'top_k'"),
        ("remember", {"text": "x", "kind": "secrets"}, "'kind' must be one of preferences, events"),
        ("read", {"uri": ["viking://x"]}, "'uri' must be a string"),
        ("forget", {}, "'uri' is required"),
    ],
)
def test_bad_arguments_are_named(tool: str, arguments: dict[str, Any], problem: str) -> None:
    _checked, problems = check_arguments(tool, arguments)
    assert any(problem in p for p in problems), problems


def test_good_arguments_get_their_defaults() -> None:
    assert check_arguments("search", {"query": "x"}) == ({"query": "x", "limit": 8}, [])
    assert check_arguments("search", {"query": "x", "limit": 3.0}) == (
        {"query": "x", "limit": 3},
        [],
    )
    assert check_arguments("list", {}) == ({}, [])
    assert check_arguments("remember", {"text": "t", "kind": "events"}) == (
        {"text": "t", "kind": "events"},
        [],
    )
