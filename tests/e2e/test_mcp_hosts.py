"""``ovhooks mcp`` with the real hosts, offline: Codex 0.169 and Claude Code 2.1.197/2.1.330.

Registered by ``ovhooks install`` exactly as a user does it (the hosts' config files in a
throw-away home), on the local store. The stub model decides the tool calls
(``tests/support/mcp_stubs.py``); the tests assert on what each host sent the model:

- the hosts list the server after install (``codex mcp list``, ``claude mcp list`` healthy);
- a memory stored earlier comes back as the search tool's result in the host's next request,
  and the tools were offered in full on the first request (Codex waits about 1 s for a stdio
  server; Claude 2.1.330 would defer them behind its tool search without ``alwaysLoad``);
- a memory the model saves with ``remember`` (a secret in it scrubbed) is recalled by the
  UserPromptSubmit hook in a new session, under the session-start guide to the tools.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ovhooks.context.render import MCP_GUIDE
from ovhooks.hosts.launch import MCP_LAUNCHER
from ovhooks.mcp.tools import TOOLS
from tests.support import hosts
from tests.support.host_stubs import claude_system_texts, codex_developer_texts
from tests.support.mcp_stubs import (
    ClaudeMcpStub,
    CodexMcpStub,
    claude_tool_results,
    codex_namespace_tools,
    codex_tool_outputs,
)

pytestmark = [pytest.mark.hosts_e2e]

FACT = "The staging cluster is named heron-7 and lives in eu-west."
TOKEN = "glpat-" + "Zx8Qm2Lr7Tv4Kp9Wn3Bc"
DESCRIPTIONS = {str(t["name"]): str(t["description"]) for t in TOOLS}


def _env(base: Path) -> dict[str, str]:
    return {
        "OVHOOKS_STATE_DIR": str(base / "state"),
        "OVHOOKS_DATA_DIR": str(base / "data"),
        "OVHOOKS_DETACH": "0",
        "OVHOOKS_LOG_LEVEL": "debug",
        # these stories test what reaches the model, not the hooks' deadlines: a loaded CI
        # box must not turn a slow recall into a missing one (install's host timeouts: 5 s+)
        "OVHOOKS_RECALL_DEADLINE_S": "4",
        "OVHOOKS_SESSION_START_DEADLINE_S": "4",
    }


def _ovhooks(ovhooks_bin: str, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [ovhooks_bin, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, f"ovhooks {args}: {done.stdout}\n{done.stderr}"
    return done.stdout


Files = dict[str, bytes | None]


def _files(folder: str, *names: str) -> Files:
    return {n: Path(folder, n).read_bytes() if Path(folder, n).exists() else None for n in names}


def _codex(codex_cli: str, ovhooks_bin: str, base: Path) -> tuple[hosts.CodexHost, Any, Files]:
    """Codex with ovhooks installed; and its config files as they were before the install."""
    stub = CodexMcpStub(log_dir=str(base / "stub")).start()
    host = hosts.CodexHost(
        codex_cli,
        str(base),
        stub,
        hook_commands={},
        base_env=dict(os.environ),
        extra_env=_env(base),
    )
    before = _files(host.codex_home, "config.toml", "hooks.json")
    _ovhooks(ovhooks_bin, host.env, "install", "codex")
    return host, stub, before


def _claude(claude: str, ovhooks_bin: str, base: Path) -> tuple[hosts.ClaudeHost, Any, Files]:
    stub = ClaudeMcpStub(log_dir=str(base / "stub")).start()
    host = hosts.ClaudeHost(
        claude, str(base), stub, hook_commands={}, base_env=dict(os.environ), extra_env=_env(base)
    )
    before = _files(host.config_dir, "settings.json")
    _ovhooks(ovhooks_bin, host.env, "install", "claude")
    return host, stub, before


def _host_cli(request: pytest.FixtureRequest, version: str) -> str:
    fixture = "claude_cli" if version == "2.1.197" else "claude_latest_cli"
    return str(request.getfixturevalue(fixture))


# --- the hosts list it ------------------------------------------------------------------------


def test_codex_mcp_list_shows_the_server(codex_cli: str, ovhooks_bin: str, tmp_path: Path) -> None:
    host, stub, before = _codex(codex_cli, ovhooks_bin, tmp_path)
    try:
        listed = subprocess.run(
            [codex_cli, "mcp", "list"],
            env=host.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert listed.returncode == 0, listed.stderr
        row = next(line for line in listed.stdout.splitlines() if line.startswith("ovhooks "))
        assert ovhooks_bin in row and " mcp " in row and "enabled" in row
        _ovhooks(ovhooks_bin, host.env, "uninstall", "codex")
        listed = subprocess.run(
            [codex_cli, "mcp", "list"],
            env=host.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "No MCP servers configured" in listed.stdout, listed.stdout
        after = _files(host.codex_home, "config.toml", "hooks.json")
        assert after == before, "uninstall gives the files back byte for byte"
    finally:
        stub.stop()


@pytest.mark.parametrize("version", ["2.1.197", "2.1.330"])
def test_claude_mcp_list_shows_it_connected(
    request: pytest.FixtureRequest, version: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    claude = _host_cli(request, version)
    host, stub, before = _claude(claude, ovhooks_bin, tmp_path)
    try:
        listed = subprocess.run(
            [claude, "mcp", "list"],
            env=host.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        # started through the launcher that bounds its start (hosts/launch.py)
        shown = f"ovhooks: sh {MCP_LAUNCHER} {ovhooks_bin} mcp - ✔ Connected"
        assert shown in listed.stdout, listed.stdout
        _ovhooks(ovhooks_bin, host.env, "uninstall", "claude")
        assert _files(host.config_dir, "settings.json") == before
        # Claude rewrites .claude.json on every run: only our server has to be gone from it
        servers = json.loads(Path(host.config_dir, ".claude.json").read_text()).get("mcpServers")
        assert "ovhooks" not in (servers or {})
        listed = subprocess.run(
            [claude, "mcp", "list"],
            env=host.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "No MCP servers configured" in listed.stdout, listed.stdout
    finally:
        stub.stop()


# --- the model searches; the host hands the memory back --------------------------------------


def test_codex_passes_the_search_result_to_the_model(
    codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    host, stub, _before = _codex(codex_cli, ovhooks_bin, tmp_path)
    try:
        uri = _ovhooks(ovhooks_bin, host.env, "remember", FACT).split()[-1]
        host.exec('MCPCALL search {"query": "staging cluster name"}').check()
        first, *rest = [r.body for r in stub.turn_requests()]
        offered = codex_namespace_tools(first)
        assert set(offered) == set(DESCRIPTIONS), "the tools are there on turn 1"
        assert offered["search"]["description"] == DESCRIPTIONS["search"]
        outputs = [o for body in rest for o in codex_tool_outputs(body)]
        assert any(FACT in o and uri in o for o in outputs), outputs
    finally:
        stub.stop()


@pytest.mark.parametrize("version", ["2.1.197", "2.1.330"])
def test_claude_passes_the_search_result_to_the_model(
    request: pytest.FixtureRequest, version: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    host, stub, _before = _claude(_host_cli(request, version), ovhooks_bin, tmp_path)
    try:
        uri = _ovhooks(ovhooks_bin, host.env, "remember", FACT).split()[-1]
        host.prompt('MCPCALL search {"query": "staging cluster name"}', tools=False).check()
        bodies = [r.body for r in stub.turn_requests()]
        called = next(r.body for r in stub.turn_requests() if stub.replies[r.number] == "mcp_call")
        offered = {t.get("name"): t for t in called.get("tools") or []}
        # offered whole (not deferred behind 2.1.330's tool search): description and schema
        search = offered["mcp__ovhooks__search"]
        assert search["description"] == DESCRIPTIONS["search"]
        assert search["input_schema"]["required"] == ["query"]
        results = [text for body in bodies for text in claude_tool_results(body)]
        assert any(FACT in t and uri in t for t in results), results
    finally:
        stub.stop()


# --- the model remembers; a new session recalls it -------------------------------------------


# The arguments stay out of the prompt (which the hooks capture): the model "decides" them.
REMEMBER_CALL = ("remember", {"text": f"{FACT} Deploys use the token {TOKEN}."})
REMEMBER_PROMPT = "Please keep the staging cluster in mind. MCPCALL @keep"


RECALL_PROMPT = "Which staging cluster do we use, heron-7 or another one?"


def test_codex_remembers_and_a_new_session_recalls(
    codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    host, stub, _before = _codex(codex_cli, ovhooks_bin, tmp_path)
    try:
        stub.scripted = {"keep": REMEMBER_CALL}
        # not danger-full-access: there exec refuses a write tool unless install approved it
        host.exec(REMEMBER_PROMPT, config=['sandbox_mode="workspace-write"']).check()
        saved = [o for r in stub.turn_requests() for o in codex_tool_outputs(r.body)]
        assert any("Remembered (preferences)" in o and "redacted" in o for o in saved), saved
        assert TOKEN not in " ".join(saved)
        seen = len(stub.turn_requests())
        host.exec(RECALL_PROMPT).check()  # a new session: no resume
        later = stub.turn_requests()[seen:]
        assert len(set(host.session_ids())) == 2
        texts = [t for r in later for t in codex_developer_texts(r.body)]
        context = "\n".join(texts)
        recalled = [t for t in texts if 'source="auto-recall"' in t]
        assert any("heron-7" in t for t in recalled), context[-3000:]
        assert MCP_GUIDE in context, "session start names the memory tools"
        assert TOKEN not in context
    finally:
        stub.stop()


@pytest.mark.parametrize("version", ["2.1.330"])
def test_claude_remembers_and_a_new_session_recalls(
    request: pytest.FixtureRequest, version: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    host, stub, _before = _claude(_host_cli(request, version), ovhooks_bin, tmp_path)
    try:
        stub.scripted = {"keep": REMEMBER_CALL}
        host.prompt(REMEMBER_PROMPT, tools=False).check()
        saved = [t for r in stub.turn_requests() for t in claude_tool_results(r.body)]
        assert any("Remembered (preferences)" in t and "redacted" in t for t in saved), saved
        seen = len(stub.turn_requests())
        host.prompt(RECALL_PROMPT, tools=False).check()  # a new session: no --continue
        later = stub.turn_requests()[seen:]
        texts = [t for r in later for t in claude_system_texts(r.body)]
        context = "\n".join(texts)
        recalled = [
            t[t.index('source="auto-recall"') :] for t in texts if 'source="auto-recall"' in t
        ]
        assert any("heron-7" in t.split("</openviking-context>")[0] for t in recalled), context
        assert MCP_GUIDE in context
        assert TOKEN not in context
    finally:
        stub.stop()
