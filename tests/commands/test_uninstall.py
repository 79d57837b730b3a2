"""`uninstall` undoes what `install` did (issue 11): trust records, the feature flag, files and
folders it created; and it says what it leaves."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.cli import run_cli

EXE = "/opt/ovhooks/bin/ovhooks"

# A stand-in for `codex app-server` answering hooks/list from $CODEX_HOME/hooks.json the way
# Codex 0.169 does (key <hooks.json>:<snake_event>:<group>:<handler>; see the e2e test for
# the real CLI).
FAKE_CODEX = """#!{python}
import hashlib, json, os, re, sys
home = os.environ["CODEX_HOME"]
path = os.path.join(home, "hooks.json")
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("id") != 2:
        continue
    doc = json.load(open(path))
    hooks = []
    for event, groups in doc["hooks"].items():
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                command = handler["command"]
                hooks.append({{
                    "key": f"{{path}}:{{snake}}:{{g}}:{{h}}",
                    "command": command,
                    "currentHash": "sha256:" + hashlib.sha256(command.encode()).hexdigest(),
                    "trustStatus": "untrusted",
                }})
    print(json.dumps({{"id": 2, "result": {{"data": [{{"hooks": hooks}}]}}}}), flush=True)
"""


@pytest.fixture
def fake_codex_path(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "codex"
    script.write_text(FAKE_CODEX.format(python=sys.executable))
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


def test_trust_and_the_feature_flag_go_with_a_codex_home_install_created(
    tmp_path: Path, fake_codex_path: str
) -> None:
    codex_home = tmp_path / "fresh" / "codex-home"  # neither folder exists yet
    env = {"CODEX_HOME": str(codex_home), "PATH": fake_codex_path}
    result = run_cli("install", "codex", "--exe", EXE, "--trust", env=env)
    assert result.exit_code == 0, result.output
    config = tomllib.loads((codex_home / "config.toml").read_text())
    assert config["features"]["hooks"] is True
    assert len(config["hooks"]["state"]) == 6
    result = run_cli("uninstall", "codex", env=env)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "fresh").exists(), sorted(map(str, tmp_path.rglob("*")))


def test_trust_records_of_ours_go_and_the_users_stay(tmp_path: Path, fake_codex_path: str) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    original = (
        '[features]\nhooks = true\n\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\n'
        'trusted_hash = "sha256:users"\n'
    )
    (codex_home / "config.toml").write_text(original)
    user_hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    (codex_home / "hooks.json").write_text(json.dumps(user_hooks))
    env = {"CODEX_HOME": str(codex_home), "PATH": fake_codex_path}
    assert run_cli("install", "codex", "--exe", EXE, "--trust", env=env).exit_code == 0
    assert len(tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]) > 1
    result = run_cli("uninstall", "codex", env=env)
    assert result.exit_code == 0, result.output
    assert (codex_home / "config.toml").read_text() == original
    assert json.loads((codex_home / "hooks.json").read_text()) == user_hooks
    assert codex_home.is_dir()


def test_a_claude_folder_install_created_goes_and_a_users_folder_stays(tmp_path: Path) -> None:
    created = tmp_path / "new" / ".claude"
    env = {"CLAUDE_CONFIG_DIR": str(created)}
    assert run_cli("install", "claude", "--exe", EXE, env=env).exit_code == 0
    assert (created / "settings.json").is_file()
    result = run_cli("uninstall", "claude", env=env)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "new").exists()
    assert "removed (ovhooks had created it)" in result.output

    users = tmp_path / "users" / ".claude"
    users.mkdir(parents=True)
    env = {"CLAUDE_CONFIG_DIR": str(users)}
    assert run_cli("install", "claude", "--exe", EXE, env=env).exit_code == 0
    assert run_cli("uninstall", "claude", env=env).exit_code == 0
    assert users.is_dir() and list(users.iterdir()) == []


def test_uninstall_says_honestly_when_it_leaves_the_feature_flag(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    env = {"CODEX_HOME": str(codex_home)}
    assert run_cli("install", "codex", "--exe", EXE, "--no-mcp", env=env).exit_code == 0
    with (codex_home / "config.toml").open("a") as fh:
        fh.write('model = "gpt-5"\n')  # the user's own edit after the install
    result = run_cli("uninstall", "codex", env=env)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "ovhooks had not changed it" not in text
    assert "hooks feature stays on" in text
