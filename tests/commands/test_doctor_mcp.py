"""doctor's memory-tools checks: the registered server started and asked for its tools."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ovhooks.commands.doctor.mcp import check_mcp
from ovhooks.hosts.registry import HOSTS
from ovhooks.hosts.registry import spec as host_spec
from tests.support.cli import run_cli

OVHOOKS = os.path.join(os.path.dirname(sys.executable), "ovhooks")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in ("codex-home", "claude-config"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.chdir(tmp_path)
    return dict(os.environ)


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_not_registered_is_skipped_with_the_fix(env: dict[str, str], host: str) -> None:
    found = check_mcp(host, env)
    assert found["status"] == "skip"
    assert f"ovhooks install {host}" in found["fix"]


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_registered_server_answers_its_handshake(env: dict[str, str], host: str) -> None:
    assert run_cli("install", host, "--exe", OVHOOKS).exit_code == 0
    found = check_mcp(host, env)
    assert found["status"] in ("ok", "warn"), found  # warn only when this box is slow
    assert "5 tools" in found["summary"]
    assert 0 < found["details"]["seconds"] < 10


def test_a_server_that_is_gone_fails(env: dict[str, str], tmp_path: Path) -> None:
    assert run_cli("install", "claude", "--exe", str(tmp_path / "gone" / "ovhooks")).exit_code == 0
    found = check_mcp("claude", env)
    assert found["status"] == "fail"
    assert "failed to start" in found["summary"]


def test_a_server_that_is_not_ours_fails(env: dict[str, str], tmp_path: Path) -> None:
    liar = tmp_path / "liar.py"
    liar.write_text("import sys\nsys.stdin.read()\nprint('hello')\n")
    path = Path(env["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    entry = {"type": "stdio", "command": sys.executable, "args": [str(liar)]}
    path.write_text(json.dumps({"mcpServers": {"ovhooks": entry}}))
    found = check_mcp("claude", env)
    assert found["status"] == "fail", found


def test_claude_without_permission_rules_warns(env: dict[str, str]) -> None:
    assert run_cli("install", "claude", "--exe", OVHOOKS).exit_code == 0
    settings = Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    doc = json.loads(settings.read_text())
    del doc["permissions"]
    settings.write_text(json.dumps(doc))
    found = check_mcp("claude", env)
    assert found["status"] == "warn" and "permission rules" in found["summary"]
    assert "mcp__ovhooks__search" in found["fix"]


def test_doctor_lists_the_checks(env: dict[str, str]) -> None:
    assert run_cli("install", "codex", "--exe", OVHOOKS).exit_code == 0
    result = run_cli("doctor", "--json")
    names = {c["name"]: c["status"] for c in json.loads(result.stdout)["checks"]}
    assert names["mcp:codex"] in ("ok", "warn") and names["mcp:claude"] == "skip"


@pytest.mark.parametrize("host", ["pi", "opencode", "gemini"])
def test_a_claude_registration_is_not_read_as_another_hosts(env: dict[str, str], host: str) -> None:
    assert run_cli("install", "claude", "--exe", OVHOOKS).exit_code == 0
    assert check_mcp(host, env)["status"] == "skip"


@pytest.mark.parametrize("host", [h for h in HOSTS if host_spec(h).mcp is None])
def test_hosts_without_the_tools_get_no_server_check(env: dict[str, str], host: str) -> None:
    """A host that takes no MCP servers (Pi) gets no memory-tools check at all."""
    assert run_cli("install", "claude", "--exe", OVHOOKS).exit_code == 0
    result = run_cli("doctor", "--json")
    names = [c["name"] for c in json.loads(result.stdout)["checks"]]
    assert "mcp:claude" in names and f"mcp:{host}" not in names
