"""The MCP subset ``ovhooks mcp`` speaks: JSON-RPC 2.0 messages in, replies out (pure).

Methods answered: ``initialize`` (version negotiation), ``ping``, ``tools/list`` and
``tools/call``; notifications (``notifications/initialized``, ``notifications/cancelled``,
anything without an ``id``) get no reply. Any other method is ``-32601``. A message that is
not a JSON-RPC request gets the JSON-RPC error its fault calls for, never a crash: the
transport (``server.py``) hands every parsed line to ``dispatch`` and writes what it returns.

Tool failures are not protocol errors: bad arguments and store failures come back as a
result with ``isError: true`` and text that says what to do, so the model can correct itself
(MCP 2025-11-25, "Error Handling"). Only an unknown tool name is ``-32602``.
"""

from __future__ import annotations

from ovhooks.redact import quoted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Newest first. The subset used here (tools, ping, text content, annotations, _meta) reads
# the same in all four revisions; only batching (2025-03-26 alone) differs, and a batch is
# answered whatever was negotiated.
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST = SUPPORTED_VERSIONS[0]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def negotiate(requested: object) -> str:
    """The version to answer ``initialize`` with: the client's when supported, else ours."""
    return requested if isinstance(requested, str) and requested in SUPPORTED_VERSIONS else LATEST


def error(msg_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def result(msg_id: object, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": value}


def _valid_id(msg_id: object) -> bool:
    return isinstance(msg_id, str | int) and not isinstance(msg_id, bool)


class Dispatcher:
    """One server session's replies: ``tools`` is the ``tools/list`` array, ``call`` runs one.

    ``call`` is given only known tool names and an arguments object; it returns the
    ``CallToolResult`` (``content`` + ``isError``) and must not raise.
    """

    def __init__(
        self,
        *,
        name: str,
        version: str,
        instructions: str,
        tools: list[dict[str, Any]],
        call: Callable[[str, dict[str, Any]], dict[str, Any]],
    ) -> None:
        self.server_info = {"name": name, "version": version}
        self.instructions = instructions
        self.tools = tools
        self.tool_names = frozenset(str(t["name"]) for t in tools)
        self.call = call
        self.protocol_version: str | None = None

    def dispatch(self, message: object) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The reply to one parsed message (a batch gets a list), or None for notifications."""
        if isinstance(message, list):
            if not message:
                return error(None, INVALID_REQUEST, "empty batch")
            replies = [r for r in (self._one(m) for m in message) if r is not None]
            return replies or None
        return self._one(message)

    def _one(self, message: object) -> dict[str, Any] | None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            msg_id = message.get("id") if isinstance(message, dict) else None
            return error(msg_id if _valid_id(msg_id) else None, INVALID_REQUEST, "not JSON-RPC 2.0")
        method = message.get("method")
        if "id" not in message:
            return None  # a notification (or a stray response): nothing to answer
        msg_id = message["id"]
        if not _valid_id(msg_id):
            return error(None, INVALID_REQUEST, "id must be a string or an integer")
        if not isinstance(method, str):
            if "result" in message or "error" in message:
                return None  # a response to a request we never make
            return error(msg_id, INVALID_REQUEST, "method missing")
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return error(msg_id, INVALID_PARAMS, "params must be an object")
        handler = self._methods().get(method)
        if handler is None:
            return error(msg_id, METHOD_NOT_FOUND, f"method not found: {quoted(method)}")
        return handler(msg_id, params)

    def _methods(self) -> dict[str, Callable[[object, dict[str, Any]], dict[str, Any]]]:
        return {
            "initialize": self._initialize,
            "ping": lambda msg_id, _params: result(msg_id, {}),
            "tools/list": lambda msg_id, _params: result(msg_id, {"tools": self.tools}),
            "tools/call": self._call,
        }

    def _initialize(self, msg_id: object, params: dict[str, Any]) -> dict[str, Any]:
        self.protocol_version = negotiate(params.get("protocolVersion"))
        return result(
            msg_id,
            {
                "protocolVersion": self.protocol_version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": self.server_info,
                "instructions": self.instructions,
            },
        )

    def _call(self, msg_id: object, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or name not in self.tool_names:
            known = ", ".join(sorted(self.tool_names))
            return error(msg_id, INVALID_PARAMS, f"unknown tool {quoted(name)}; tools: {known}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return result(
                msg_id,
                text_result(f"{name}: arguments must be an object", is_error=True),
            )
        return result(msg_id, self.call(name, arguments))


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    """A ``CallToolResult`` of one text block (no ``structuredContent``: Codex and Claude Code would
    hand the model that JSON instead of the text, spec mcp.md §0.5)."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error}
