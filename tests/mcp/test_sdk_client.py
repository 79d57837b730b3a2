"""The official MCP Python SDK's client (``mcp`` 1.30, from the OpenViking 0.5.2 rig venv)
drives ``ovhooks mcp``: a second, independent reading of the protocol than our test client.
The SDK is never a dependency of ovhooks; it is only here, in the rig, to check against."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.real_server

SDK_SCRIPT = """
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:], env=None)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            saved = await session.call_tool("remember", {"text": "Use pnpm, never npm, here."})
            found = await session.call_tool("search", {"query": "pnpm npm"})
            bad = await session.call_tool("search", {"limit": 3})
            print(json.dumps({
                "version": init.protocolVersion,
                "server": init.serverInfo.name,
                "instructions": init.instructions,
                "tools": {t.name: t.annotations.model_dump(exclude_none=True) for t in tools.tools},
                "saved": [saved.isError, saved.content[0].text],
                "found": [found.isError, found.content[0].text],
                "bad": [bad.isError, bad.content[0].text],
            }))

asyncio.run(main())
"""


def test_the_official_sdk_client_reads_our_server(ov_venv: str, tmp_path: Path) -> None:
    python = os.path.join(ov_venv, "bin", "python")
    proc = subprocess.run(
        [python, "-c", SDK_SCRIPT, sys.executable, "-m", "ovhooks", "mcp"],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    doc = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert doc["server"] == "ovhooks" and doc["version"] == "2025-11-25"
    assert doc["instructions"]
    assert doc["tools"]["search"] == {"readOnlyHint": True, "destructiveHint": False}
    assert doc["tools"]["forget"] == {"readOnlyHint": False, "destructiveHint": True}
    assert doc["saved"][0] is False and "viking://" in doc["saved"][1]
    assert doc["found"][0] is False and "pnpm" in doc["found"][1]
    assert doc["bad"] == [True, "search: invalid arguments: 'query' is required."]
