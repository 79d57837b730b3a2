"""Doctor's memory-tools checks, one per host: ``ovhooks mcp`` registered, started as the host
starts it, and its tools listed in time.

Where the registration lives is the host's (``HostSpec.mcp``): Codex's config.toml, Claude
Code's ~/.claude.json, ``mcpServers`` or ``mcp`` in the host's own JSON file. Codex starts turn 1
without a server that is not ready within about 1 s (spec mcp.md §1.5); for Claude Code the
permission rules ``claude -p`` needs are checked too.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

from ovhooks.commands.doctor.result import check
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.commands.doctor.result import Check

SLOW_S = 1.0  # Codex's wait for a stdio server before the first turn
TIMEOUT_S = 10.0
HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "ovhooks-doctor", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def registered_argv(host: str, environ: Mapping[str, str]) -> tuple[list[str] | None, str]:
    """The command the host runs for ``ovhooks mcp`` (None when not registered), and where
    that registration lives."""
    from ovhooks.commands import hostconfig
    from ovhooks.commands.install import mcp_config, mcp_json
    from ovhooks.commands.install.files import read_json_doc, read_text

    kind = host_spec(host).mcp
    entry: object = None
    if kind is None:
        return None, ""
    if kind == "codex_toml":
        path = hostconfig.mcp_file(host, environ)
        try:
            entry = mcp_config.codex_server(read_text(path) or "")
        except ValueError:
            entry = None
    else:
        path = (
            mcp_config.claude_json_path(environ)
            if kind == "claude_json"
            else hostconfig.mcp_file(host, environ)
        )
        try:
            doc = read_json_doc(path)[0]
        except Exception:
            doc = {}
        entry = mcp_json.server_entry("mcp_servers" if kind == "claude_json" else kind, doc)
    argv = mcp_json.entry_argv(entry)
    return (argv or None), path


def handshake(argv: list[str], environ: Mapping[str, str]) -> tuple[dict[str, Any], float]:
    """Run the server, ask ``initialize`` and ``tools/list``; (replies by id, seconds)."""
    data = "".join(json.dumps(m) + "\n" for m in HANDSHAKE).encode()
    started = time.monotonic()
    proc = subprocess.run(
        argv, input=data, capture_output=True, env=dict(environ), timeout=TIMEOUT_S, check=False
    )
    elapsed = time.monotonic() - started
    replies: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            raise ValueError(f"wrote a line that is not JSON: {line[:80]!r}") from None
        if isinstance(reply, dict) and "id" in reply:
            replies[str(reply["id"])] = reply
    return replies, elapsed


def _verdict(host: str, replies: dict[str, Any], elapsed: float, path: str) -> Check:
    from ovhooks.commands.memory_ops import TOOL_NAMES

    name = f"mcp:{host}"
    server = replies.get("1", {}).get("result", {}).get("serverInfo", {})
    tools = replies.get("2", {}).get("result", {}).get("tools")
    names = tuple(t.get("name") for t in tools) if isinstance(tools, list) else ()
    if server.get("name") != "ovhooks" or not names:
        return check(
            name,
            "fail",
            "the memory tools server did not answer its handshake",
            "run `ovhooks mcp` by hand to see why; `ovhooks install` registers it again",
            config=path,
        )
    if set(names) != set(TOOL_NAMES):
        return check(
            name,
            "warn",
            f"the server lists {', '.join(map(str, names))}",
            "run `ovhooks install` again: the registration points at another ovhooks",
            config=path,
            tools=list(names),
        )
    summary = f"memory tools answer in {elapsed:.2f} s ({len(names)} tools)"
    if elapsed > SLOW_S and host_spec(host).mcp == "codex_toml":
        return check(
            name,
            "warn",
            summary + f"; {host_spec(host).label} waits about 1 s before the first turn",
            "a slow disk or a busy machine: the tools join from the second model request",
            config=path,
            seconds=round(elapsed, 3),
        )
    return check(name, "ok", summary, "", config=path, seconds=round(elapsed, 3))


def _missing_rules(host: str, environ: Mapping[str, str]) -> list[str]:
    from ovhooks.commands import hostconfig
    from ovhooks.commands.install.files import read_json_doc
    from ovhooks.commands.install.mcp_config import tool_rules
    from ovhooks.commands.memory_ops import TOOL_NAMES

    try:
        doc = read_json_doc(hostconfig.hooks_file(host, "user", environ, os.getcwd()))[0]
    except Exception:
        doc = {}
    permissions = doc.get("permissions")
    allow = permissions.get("allow") if isinstance(permissions, dict) else None
    allowed = set(allow) if isinstance(allow, list) else set()
    if {"mcp__ovhooks", "mcp__ovhooks__*"} & allowed:
        return []
    return [rule for rule in tool_rules(TOOL_NAMES) if rule not in allowed]


def check_mcp(host: str, environ: Mapping[str, str]) -> Check:
    from ovhooks.commands import hostconfig
    from ovhooks.commands.install.mcp_config import MCP_HOSTS

    name = f"mcp:{host}"
    if host not in MCP_HOSTS:
        label = host_spec(host).label if host in hostconfig.HOSTS else host
        return check(name, "skip", f"ovhooks registers no memory tools server with {label}")
    label = host_spec(host).label
    argv, path = registered_argv(host, environ)
    if argv is None:
        return check(
            name,
            "skip",
            f"memory tools not registered for {label}",
            f"`ovhooks install {host}` registers them (the hooks work without them)",
            config=path,
        )
    from ovhooks.hosts.launch import launched_argv

    program = launched_argv(argv)[0]
    try:
        if os.path.isabs(program) and not os.access(program, os.X_OK):
            # the launcher would end at once and hide why: say it here
            raise OSError(f"{program} is missing or not executable")
        replies, elapsed = handshake(argv, environ)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        return check(
            name,
            "fail",
            f"the memory tools server failed to start: {exc}",
            f"`ovhooks install {host}` registers the current ovhooks again",
            config=path,
            command=argv,
        )
    verdict = _verdict(host, replies, elapsed, path)
    # Claude Code's shape: ``claude -p`` refuses every MCP tool that no permission rule names
    missing = _missing_rules(host, environ) if host_spec(host).mcp == "claude_json" else []
    if missing and verdict["status"] == "ok":
        return check(
            name,
            "warn",
            verdict["summary"] + "; `claude -p` refuses them without permission rules",
            f"`ovhooks install {host}` adds them ({', '.join(missing)})",
            config=path,
            missing_rules=missing,
        )
    return verdict
