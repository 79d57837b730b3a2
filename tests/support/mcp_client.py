"""A small MCP client over stdio for the tests: it spawns the real ``ovhooks mcp`` process.

Written from the MCP specification (JSON-RPC 2.0, one message per line), independent of the
server's code: it imports nothing from ``ovhooks``. ``raw`` sends bytes as they are, so tests
can also feed the server what no client should.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Self

PROTOCOL_VERSION = "2025-06-18"


class McpError(AssertionError):
    """A JSON-RPC error reply where a result was expected."""


class McpClient:
    def __init__(
        self,
        env: dict[str, str],
        *,
        cwd: str | None = None,
        command: list[str] | None = None,
        timeout_s: float = 20.0,
    ) -> None:
        self.command = command or [sys.executable, "-m", "ovhooks", "mcp"]
        self.timeout_s = timeout_s
        self.spawned_at = time.monotonic()
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd or os.getcwd(),
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stdout_lines: list[bytes] = []  # everything the server wrote, for hygiene checks
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.stdout_lines.append(line)
            self.lines.put(line)
        self.lines.put(None)

    # --- sending ----------------------------------------------------------------------------
    def raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: object) -> None:
        self.raw(json.dumps(message).encode() + b"\n")

    def receive(self, timeout_s: float | None = None) -> Any:
        line = self.lines.get(timeout=timeout_s or self.timeout_s)
        if line is None:
            raise EOFError("the server closed stdout")
        return json.loads(line)

    def request_raw(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole reply (result or error) to one request."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.receive()
        assert reply.get("id") == self._next_id, reply
        return dict(reply)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request_raw(method, params)
        if "error" in reply:
            raise McpError(f"{method}: {reply['error']}")
        return dict(reply["result"])

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # --- the MCP steps ----------------------------------------------------------------------
    def initialize(self, version: str = PROTOCOL_VERSION) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "ovhooks-tests", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return result

    def list_tools(self) -> list[dict[str, Any]]:
        return list(self.request("tools/list")["tools"])

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> tuple[str, bool]:
        """(the result's text, isError) of one tool call."""
        result = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        texts = [c["text"] for c in result["content"] if c.get("type") == "text"]
        assert "structuredContent" not in result, "text tools must not send structuredContent"
        return "\n".join(texts), bool(result.get("isError"))

    # --- the end ----------------------------------------------------------------------------
    def close(self, timeout_s: float = 10.0) -> int:
        """Close stdin (the host's way to end the server); its exit code."""
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            try:
                self.close()
            except subprocess.TimeoutExpired:
                pass
        for stream in (self.process.stdout, self.process.stderr):
            if stream:
                stream.close()
