"""Trust records for ovhooks' Codex hooks: only ours, replaced not duplicated, valid TOML."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ovhooks.commands.errors import CommandError
from ovhooks.commands.install.codex_trust import is_ours, trust_ovhooks, with_trust, without_trust

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


# Records as Codex or a person may have written them: each must be replaced where it stands,
# never declared a second time (which Codex, like tomllib, refuses to read).
WRITTEN = {
    "non-ASCII path": '[hooks.state."/home/josé/.codex/hooks.json:stop:0:0"]\n'
    'trusted_hash = "sha256:old" # by Codex\n',
    "literal-quoted key": "[hooks.state.'/home/josé/.codex/hooks.json:stop:0:0']\n"
    "trusted_hash = 'sha256:old'\n",
    "spaced header": '[ hooks.state . "/home/josé/.codex/hooks.json:stop:0:0" ]\n'
    'trusted_hash = "sha256:old"\n',
    "inline state": '[hooks]\nstate = { "/home/josé/.codex/hooks.json:stop:0:0" = '
    '{ trusted_hash = "sha256:old" } }\n',
    "inline, empty": "[hooks]\nstate = {}\n",
}
KEY = "/home/josé/.codex/hooks.json:stop:0:0"


@pytest.mark.parametrize("form", sorted(WRITTEN))
def test_a_record_in_any_form_is_replaced_not_doubled(form: str) -> None:
    text = 'model = "m" # mine\n\n' + WRITTEN[form] + '\n[other]\nkept = "yes"\n'
    out = with_trust(text, {KEY: "sha256:new"})
    doc = tomllib.loads(out)
    assert doc["hooks"]["state"][KEY]["trusted_hash"] == "sha256:new"
    assert doc["model"] == "m" and doc["other"] == {"kept": "yes"}
    assert "# mine" in out
    back = tomllib.loads(without_trust(out, {KEY}))
    assert KEY not in back.get("hooks", {}).get("state", {})
    assert back["other"] == {"kept": "yes"}


def test_added_records_come_off_again_byte_for_byte() -> None:
    records = {KEY: "sha256:1", "/h/hooks.json:session_start:0:0": "sha256:2"}
    for text in (USER_CONFIG, 'model = "m"\n\n[features]\nhooks = true\n', ""):
        assert without_trust(with_trust(text, records), set(records)) == text


def test_a_config_where_trust_cannot_go_is_refused_with_a_fix(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("hooks = 1\n")
    with pytest.raises(CommandError) as caught:
        trust_ovhooks(str(config), [_hook(KEY, "/v/bin/ovhooks stop --host codex")])
    assert "hooks" in caught.value.message and "/hooks" in caught.value.fix
    assert config.read_text() == "hooks = 1\n"
