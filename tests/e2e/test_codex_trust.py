"""`ovhooks install codex --trust` against the real Codex CLI: hooks run without the bypass flag.

Codex skips untrusted hooks silently (hosts-e2e §1.4); the installer asks Codex's app server
for the hooks' trust hashes and records them, so a plain `codex exec` runs ovhooks.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from tests.support import hosts
from tests.support.host_stubs import ResponsesStub


def _sessions(state_dir: Path) -> list[str]:
    folder = state_dir / "sessions"
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


def _run_codex(
    codex_cli: str, ovhooks_bin: str, base: Path, *, trust: bool
) -> tuple[Path, dict[str, Any]]:
    """One `codex exec` turn (no bypass flag) after `ovhooks install codex [--trust]`."""
    state_dir = base / "state"
    with ResponsesStub(log_dir=str(base / "stub-requests")) as stub:
        codex = hosts.CodexHost(
            codex_cli,
            str(base / "codex"),
            stub,
            install_with=ovhooks_bin,
            install_args=["--trust"] if trust else [],
            base_env=os.environ,
            extra_env={
                "OVHOOKS_STATE_DIR": str(state_dir),
                "OVHOOKS_DATA_DIR": str(base / "data"),
                "OVHOOKS_DETACH": "0",
            },
        )
        codex.exec("hello, please remember that I use tabs", bypass_trust=False).check()
        config = Path(codex.codex_home) / "config.toml"
        records = tomllib.loads(config.read_text()).get("hooks", {}).get("state", {})
    return state_dir, records


def test_untrusted_hooks_are_skipped_and_trusted_ones_run(
    codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    untrusted_state, records = _run_codex(codex_cli, ovhooks_bin, tmp_path / "plain", trust=False)
    assert records == {}
    assert _sessions(untrusted_state) == [], "Codex ran hooks nobody trusted"

    trusted_state, records = _run_codex(codex_cli, ovhooks_bin, tmp_path / "trusted", trust=True)
    assert len(records) == 6
    assert all(r["trusted_hash"].startswith("sha256:") for r in records.values())
    sessions = _sessions(trusted_state)
    assert len(sessions) == 1 and sessions[0].startswith("cx-"), sessions
    state = json.loads((trusted_state / "sessions" / sessions[0]).read_text())
    assert state["turns_captured"] >= 2, state  # Stop ran and captured the turn


def test_uninstall_takes_back_the_trust_records_install_wrote(
    codex_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    """Issue 11: `uninstall codex` after `install codex --trust` left six stale records."""
    import subprocess

    from ovhooks.commands.install.codex_toml import trust_records

    with ResponsesStub() as stub:
        codex = hosts.CodexHost(
            codex_cli,
            str(tmp_path / "codex"),
            stub,
            install_with=ovhooks_bin,
            install_args=["--trust"],
            base_env=os.environ,
        )
        before_install = hosts.codex_config_toml(stub.api_base)
    config = Path(codex.codex_home) / "config.toml"
    assert len(trust_records(config.read_text())) == 6
    completed = subprocess.run(
        [ovhooks_bin, "uninstall", "codex"],
        env={**codex.env, "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert config.read_text() == before_install
    assert not (Path(codex.codex_home) / "hooks.json").exists()
    assert "6 trust record(s) of ovhooks' hooks removed" in completed.stdout
