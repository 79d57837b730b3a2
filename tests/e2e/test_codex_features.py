"""doctor's view of Codex's native memories agrees with the real Codex CLI's own.

Codex 0.169.0 lists the flag as ``memories  stable  false`` by default; ``[features]
memories = true`` in config.toml turns it on (checked here with ``codex features list``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ovhooks.commands.doctor.codex import check_codex_native_memories

pytestmark = [pytest.mark.hosts_e2e]


def _codex_says(codex_cli: str, home: Path) -> bool:
    env = {"CODEX_HOME": str(home), "HOME": str(home), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [codex_cli, "features", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.split()[:1] == ["memories"])
    return line.split()[-1] == "true"


@pytest.mark.parametrize(
    "config", ["", "[features]\nmemories = true\n", "[features]\nmemories = false\n"]
)
def test_doctor_and_codex_agree_on_native_memories(
    codex_cli: str, tmp_path: Path, config: str
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(config, encoding="utf-8")
    enabled = _codex_says(codex_cli, home)
    result = check_codex_native_memories({"CODEX_HOME": str(home), "HOME": str(home)})
    assert (result["status"] == "warn") is enabled
    assert enabled is ("memories = true" in config)
