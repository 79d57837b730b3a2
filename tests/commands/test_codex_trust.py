"""Trust records for ovhooks' Codex hooks: only ours, replaced not duplicated, valid TOML."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ovhooks.commands.install.codex_trust import is_ours, trust_ovhooks, with_trust

USER_CONFIG = """model = "gpt-5"

[features]
hooks = true

[hooks.state."/h/hooks.json:stop:0:0"]
trusted_hash = "sha256:old"

[hooks.state."/h/hooks.json:stop:0:1"]
trusted_hash = "sha256:users-own-hook"
"""


def _hook(key: str, command: str, status: str = "untrusted") -> dict[str, str]:
    return {
        "key": key,
        "command": command,
        "currentHash": f"sha256:{key[-5:]}",
        "trustStatus": status,
    }


def test_only_ovhooks_commands_are_ours() -> None:
    assert is_ours({"command": "/home/u/.ovhooks/bin/ovhooks stop --host codex"})
    assert is_ours({"command": "/usr/bin/python3 -m ovhooks session-end --host codex"})
    assert not is_ours({"command": "python3 /x/my_hook.py stop"})
    assert not is_ours({"command": "ovhooks status"})
    assert not is_ours({"command": "ovhooks"})


def test_records_are_replaced_and_the_rest_is_kept() -> None:
    out = with_trust(USER_CONFIG, {"/h/hooks.json:stop:0:0": "sha256:new"})
    doc = tomllib.loads(out)
    state = doc["hooks"]["state"]
    assert state["/h/hooks.json:stop:0:0"] == {"trusted_hash": "sha256:new"}
    assert state["/h/hooks.json:stop:0:1"] == {"trusted_hash": "sha256:users-own-hook"}
    assert doc["model"] == "gpt-5" and doc["features"]["hooks"] is True
    assert out.count("stop:0:0") == 1


def test_trust_ovhooks_writes_only_untrusted_ovhooks_hooks(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    hooks = [
        _hook("/h/hooks.json:stop:0:0", "/v/bin/ovhooks stop --host codex"),
        _hook("/h/hooks.json:stop:0:1", "python3 mine.py", status="untrusted"),
        _hook(
            "/h/hooks.json:session_end:0:0", "/v/bin/ovhooks session-end --host codex", "trusted"
        ),
    ]
    result = trust_ovhooks(str(config), hooks, dry_run=True)
    assert result["trusted"] == ["/h/hooks.json:stop:0:0"]
    assert config.read_text() == USER_CONFIG  # dry run
    trust_ovhooks(str(config), hooks)
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert state["/h/hooks.json:stop:0:0"]["trusted_hash"] == "sha256:p:0:0"
    assert "/h/hooks.json:session_end:0:0" not in state  # already trusted: left alone
    assert state["/h/hooks.json:stop:0:1"]["trusted_hash"] == "sha256:users-own-hook"
    again = trust_ovhooks(str(config), [dict(h, trustStatus="trusted") for h in hooks])
    assert again["action"].startswith("unchanged")
