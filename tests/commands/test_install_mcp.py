"""``install`` registers ``ovhooks mcp`` (Codex config.toml; Claude Code ~/.claude.json and
permission rules), ``--no-mcp`` skips it, and ``uninstall`` takes back exactly that."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from ovhooks.commands.install.mcp_config import (
    MARKER,
    add_codex_server,
    drop_codex_server,
)
from ovhooks.hosts.launch import MCP_LAUNCHER, mcp_argv
from tests.support.cli import run_cli, run_json

EXE = "/opt/ov/bin/ovhooks"
RULES = [f"mcp__ovhooks__{t}" for t in ("search", "read", "list", "remember", "forget")]


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    codex, claude = tmp_path / "codex-home", tmp_path / "claude-config"
    codex.mkdir()
    claude.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.chdir(tmp_path)
    return {"codex": codex, "claude": claude, "state": Path(os.environ["OVHOOKS_STATE_DIR"])}


def _snapshot(*dirs: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for d in dirs for p in sorted(d.rglob("*")) if p.is_file()}


CODEX_CONFIGS = {
    "absent": None,
    "empty": "",
    "commented": '# my settings\nmodel = "gpt-5"  # the default\n\n[features]\nhooks = true\n',
    "other servers": (
        '[mcp_servers.docs]\ncommand = "docs-mcp"\n\n[mcp_servers.docs.env]\nA = "1"\n'
    ),
    "crlf": 'model = "gpt-5"\r\n[tui]\r\nnotifications = true\r\n',
    "dotted": 'mcp_servers.docs.command = "docs-mcp"\n',
}


@pytest.mark.parametrize("name", CODEX_CONFIGS)
def test_codex_round_trip_is_byte_identical(homes: dict[str, Path], name: str) -> None:
    config = homes["codex"] / "config.toml"
    if CODEX_CONFIGS[name] is not None:
        config.write_bytes(str(CODEX_CONFIGS[name]).encode())
    before = _snapshot(homes["codex"])
    code, doc = run_json("install", "codex", "--exe", EXE)
    assert code == 0
    assert doc["mcp"][0]["action"] == "updated", doc["mcp"]
    entry = tomllib.loads(config.read_text())["mcp_servers"]["ovhooks"]
    # ``ovhooks mcp`` under the launcher that bounds its start (hosts.launch.mcp_argv)
    assert [entry["command"], *entry["args"]] == mcp_argv([EXE, "mcp"])
    assert entry["command"] == "sh" and entry["args"] == [MCP_LAUNCHER, EXE, "mcp"]
    assert entry["tools"] == {
        "remember": {"approval_mode": "approve"},
        "forget": {"approval_mode": "approve"},
    }
    assert {"OPENVIKING_URL", "OPENVIKING_API_KEY", "OVHOOKS_STATE_DIR"} <= set(entry["env_vars"])
    # the hang marker's folder, shared with the hooks of the same Codex process
    assert {"XDG_RUNTIME_DIR", "TMPDIR"} <= set(entry["env_vars"])
    # the memory tools may start the embedding service: with the user's model, not another
    assert {"OVHOOKS_SEMANTIC", "OVHOOKS_EMBED_URL", "OVHOOKS_EMBED_MODEL"} <= set(
        entry["env_vars"]
    )
    assert (homes["state"] / "mcp" / "codex.registered").is_file()
    code, again = run_json("install", "codex", "--exe", EXE)
    assert again["mcp"][0]["action"] == "unchanged"
    assert run_cli("uninstall", "codex").exit_code == 0
    assert _snapshot(homes["codex"]) == before
    assert not (homes["state"] / "mcp" / "codex.registered").exists()


def test_codex_no_mcp_and_project_scope_register_nothing(homes: dict[str, Path]) -> None:
    (Path.cwd() / ".git").mkdir()
    code, doc = run_json("install", "codex", "--exe", EXE, "--no-mcp")
    assert code == 0 and "mcp" not in doc
    assert "mcp_servers" not in (homes["codex"] / "config.toml").read_text()
    code, doc = run_json("install", "codex", "--exe", EXE, "--scope", "project")
    assert "mcp" not in doc
    assert "mcp_servers" not in (homes["codex"] / "config.toml").read_text()
    assert not (homes["state"] / "mcp" / "codex.registered").exists()


def test_codex_a_new_executable_replaces_the_registration(homes: dict[str, Path]) -> None:
    run_cli("install", "codex", "--exe", EXE)
    _code, doc = run_json("install", "codex", "--exe", "'/new place/bin/ovhooks'")
    assert doc["mcp"][0]["detail"].startswith("updated")
    text = (homes["codex"] / "config.toml").read_text()
    assert text.count(MARKER) == 1
    assert tomllib.loads(text)["mcp_servers"]["ovhooks"]["args"][-2:] == [
        "/new place/bin/ovhooks",
        "mcp",
    ]


def test_codex_an_inline_table_is_left_alone_with_a_fix(homes: dict[str, Path]) -> None:
    config = homes["codex"] / "config.toml"
    text = 'mcp_servers = { docs = { command = "docs-mcp" } }\n[features]\nhooks = true\n'
    config.write_text(text)
    code, doc = run_json("install", "codex", "--exe", EXE)
    assert code == 0
    assert doc["mcp"][0]["action"] == "manual" and "codex mcp add" in doc["mcp"][0]["fix"]
    assert config.read_text() == text


def test_a_users_line_after_the_block_survives_uninstall() -> None:
    base = "[features]\nhooks = true\n"
    new, _ = add_codex_server(base, EXE)
    edited = new + 'model = "gpt-5"\n'
    back, removed = drop_codex_server(edited)
    assert removed and back == base + 'model = "gpt-5"\n'
    assert drop_codex_server(base) == (base, False)


def test_codex_uninstall_with_project_hooks_left_removes_only_the_tools(
    homes: dict[str, Path],
) -> None:
    (Path.cwd() / ".git").mkdir()
    run_cli("install", "codex", "--exe", EXE, "--scope", "project")
    run_cli("install", "codex", "--exe", EXE)
    code, doc = run_json("uninstall", "codex")
    assert code == 0 and doc["mcp"][0]["detail"] == "[mcp_servers.ovhooks] removed"
    text = (homes["codex"] / "config.toml").read_text()
    assert "mcp_servers" not in text and "hooks = true" in text


# --- Claude Code ---------------------------------------------------------------------------

CLAUDE_JSON = (
    '{\n  "numStartups": 4,\n  "mcpServers": {\n    "docs": {"type": "stdio", "command": "d"}\n'
    "  }\n}\n"
)
SETTINGS = (
    '{\n    "permissions": {\n        "allow": ["Bash(ls:*)"]\n    },\n    "model": "opus"\n}'
)


@pytest.mark.parametrize(
    ("claude_json", "settings"),
    [(None, None), (CLAUDE_JSON, SETTINGS), ('{"numStartups": 1}', '{"theme": "dark"}\n')],
    ids=["absent", "with-servers-and-rules", "one-line"],
)
def test_claude_round_trip_is_byte_identical(
    homes: dict[str, Path], claude_json: str | None, settings: str | None
) -> None:
    config = homes["claude"]
    if claude_json is not None:
        (config / ".claude.json").write_text(claude_json)
    if settings is not None:
        (config / "settings.json").write_text(settings)
    before = _snapshot(config)
    code, _doc = run_json("install", "claude", "--exe", EXE)
    assert code == 0
    server = json.loads((config / ".claude.json").read_text())["mcpServers"]["ovhooks"]
    assert server == {
        "type": "stdio",
        "command": "sh",
        "args": mcp_argv([EXE, "mcp"])[1:],
        "env": {},
        "alwaysLoad": True,
    }
    allow = json.loads((config / "settings.json").read_text())["permissions"]["allow"]
    assert allow[-5:] == RULES
    assert (homes["state"] / "mcp" / "claude.registered").is_file()
    assert run_json("install", "claude", "--exe", EXE)[1]["mcp"][0]["action"] == "unchanged"
    assert run_cli("uninstall", "claude").exit_code == 0
    assert _snapshot(config) == before
    assert not (homes["state"] / "mcp" / "claude.registered").exists()


def test_claude_keeps_what_the_host_changed_meanwhile(homes: dict[str, Path]) -> None:
    """Claude Code rewrites ~/.claude.json all the time: uninstall takes out only ours."""
    path = homes["claude"] / ".claude.json"
    path.write_text(CLAUDE_JSON)
    run_cli("install", "claude", "--exe", EXE)
    doc = json.loads(path.read_text())
    doc["numStartups"] = 5
    path.write_text(json.dumps(doc, indent=2) + "\n")
    assert run_cli("uninstall", "claude").exit_code == 0
    assert json.loads(path.read_text()) == {**json.loads(CLAUDE_JSON), "numStartups": 5}
    assert not (homes["claude"] / ".claude.json.ovhooks.bak").exists()


def test_claude_no_mcp_registers_nothing(homes: dict[str, Path]) -> None:
    code, doc = run_json("install", "claude", "--exe", EXE, "--no-mcp")
    assert code == 0 and "mcp" not in doc
    assert not (homes["claude"] / ".claude.json").exists()
    assert "mcp__" not in (homes["claude"] / "settings.json").read_text()


def test_dry_run_writes_nothing(homes: dict[str, Path]) -> None:
    code, doc = run_json("install", "claude", "--exe", EXE, "--dry-run")
    assert code == 0 and [m["action"] for m in doc["mcp"]] == ["created", "created"]
    assert _snapshot(homes["claude"], homes["codex"]) == {}
    assert not (homes["state"] / "mcp").exists()


def test_codex_a_registration_of_the_users_own_is_left_alone(homes: dict[str, Path]) -> None:
    """`codex mcp add ovhooks -- ovhooks mcp` wrote it: install does not take it over, and
    uninstall does not take it away."""
    config = homes["codex"] / "config.toml"
    own = '[mcp_servers.ovhooks]\ncommand = "ovhooks"\nargs = ["mcp"]\nstartup_timeout_sec = 20.0\n'
    config.write_text(own)
    code, doc = run_json("install", "codex", "--exe", EXE)
    assert code == 0 and doc["mcp"][0]["action"] == "manual", doc["mcp"]
    assert "codex mcp remove ovhooks" in doc["mcp"][0]["fix"]
    assert own in config.read_text()
    assert run_cli("uninstall", "codex").exit_code == 0
    assert config.read_text() == own


def test_claude_a_registration_of_the_users_own_is_left_alone(homes: dict[str, Path]) -> None:
    """`claude mcp add -s user ovhooks -- ovhooks mcp` wrote it (no alwaysLoad): install
    does not take it over, and uninstall, after Claude rewrote the file, leaves it."""
    path = homes["claude"] / ".claude.json"
    own = {"type": "stdio", "command": "ovhooks", "args": ["mcp"], "env": {}}
    path.write_text(json.dumps({"mcpServers": {"ovhooks": own}}))
    code, doc = run_json("install", "claude", "--exe", EXE)
    assert code == 0 and doc["mcp"][0]["action"] == "manual"
    assert "claude mcp remove ovhooks" in doc["mcp"][0]["fix"]
    assert json.loads(path.read_text())["mcpServers"]["ovhooks"] == own
    rewritten = {"numStartups": 2, **json.loads(path.read_text())}
    path.write_text(json.dumps(rewritten, indent=2))
    assert run_cli("uninstall", "claude").exit_code == 0
    assert json.loads(path.read_text()) == rewritten
    assert not (homes["claude"] / "settings.json").exists(), "install created it: it goes"


@pytest.mark.parametrize(
    ("claude_json", "settings"),
    [
        ({"mcpServers": [], "x": 1}, None),
        (None, {"permissions": {"allow": "mcp__other"}}),
        (None, {"permissions": ["odd"]}),
    ],
)
def test_claude_tables_of_the_wrong_type_are_left_alone(
    homes: dict[str, Path], claude_json: object, settings: object
) -> None:
    """Install never replaces a value of the user's it cannot extend (uninstall would then
    take the user's key away with its own)."""
    config = homes["claude"]
    for name, doc in ((".claude.json", claude_json), ("settings.json", settings)):
        if doc is not None:
            (config / name).write_text(json.dumps(doc))
    before = _snapshot(config)
    code, doc = run_json("install", "claude", "--exe", EXE)
    assert code == 0, doc
    assert "manual" in [m["action"] for m in doc["mcp"]], doc["mcp"]
    for name, seeded in ((".claude.json", claude_json), ("settings.json", settings)):
        if isinstance(seeded, dict):
            now = json.loads((config / name).read_text())
            assert all(now[k] == v for k, v in seeded.items()), (name, now)
    assert run_cli("uninstall", "claude").exit_code == 0
    assert _snapshot(config) == before


def test_the_variable_holding_the_endpoint_key_is_forwarded_by_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ovhooks.commands.install.mcp_config import forwarded_environment

    monkeypatch.setenv("OVHOOKS_EMBED_KEY_ENV", "MY_EMBED_KEY")
    assert "MY_EMBED_KEY" in forwarded_environment()
    monkeypatch.setenv("OVHOOKS_EMBED_KEY_ENV", "not a name; rm -rf")
    assert not any(" " in name for name in forwarded_environment())
