"""Every file ovhooks creates is 0600 and every directory 0700 (issue 14, item 4), whatever
the umask and whether the directory already existed: the state directory, the local store
(``memory.db`` and its ``-wal``/``-shm``), the log, export progress, install backups."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_process
from tests.support.rollouts import CodexRollout, codex_payload

SID = "3b4c5d6e-7f80-4912-a3b4-c5d6e7f80912"


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most permissive umask: nothing protects a file but the mode ovhooks gives it."""
    old = os.umask(0)
    yield
    os.umask(old)


def _loose(*roots: Path) -> list[str]:
    out = []
    for root in roots:
        for path in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            if path.is_symlink():
                continue
            want = 0o700 if path.is_dir() else 0o600
            if mode != want:
                out.append(f"{oct(mode)} {path}")
    return out


def test_state_and_local_store_are_private(tmp_path: Path, open_umask: None) -> None:
    state = Path(os.environ["OVHOOKS_STATE_DIR"])
    data = tmp_path / "data"
    for d in (state, state / "logs", data):
        d.mkdir(parents=True, exist_ok=True, mode=0o755)
        d.chmod(0o755)  # left world-readable by an older version or by hand
    (state / "logs" / "ovhooks.log").write_text("")
    (state / "logs" / "ovhooks.log").chmod(0o644)
    env = hook_env(None, OVHOOKS_BACKEND="local", OVHOOKS_DATA_DIR=str(data))
    env.pop("OPENVIKING_URL", None)
    env["OVHOOKS_LOG_LEVEL"] = "debug"
    project = tmp_path / "work"
    project.mkdir()
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.user("Remember: the parser tests use pytest, always")
    rollout.assistant("Noted, pytest for the parser tests.")
    for command, payload in (
        ("session-start", codex_payload("SessionStart", SID, rollout.path, project, source="new")),
        ("stop", codex_payload("Stop", SID, rollout.path, project)),
        ("session-end", codex_payload("SessionEnd", SID, rollout.path, project, reason="other")),
    ):
        proc, _ = run_process(command, payload, env)
        assert proc.returncode == 0
    assert (data / "memory.db").exists()
    assert not _loose(state, data)


def test_sqlite_side_files_follow_the_database(tmp_path: Path, open_umask: None) -> None:
    from ovhooks.backend.local import LocalBackend

    data = tmp_path / "data"
    backend = LocalBackend(str(data), user="default", peer="")
    backend.append_messages("cx-m", [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}])
    side = [p for p in data.iterdir() if p.name.startswith("memory.db")]
    assert {p.name for p in side} >= {"memory.db", "memory.db-wal", "memory.db-shm"}
    assert not _loose(data)
    backend.close()


def test_export_progress_and_install_backups_are_private(
    tmp_path: Path, fake_ov: FakeOpenViking, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovhooks.backend.local import LocalBackend

    data = Path(os.environ.get("OVHOOKS_DATA_DIR") or tmp_path / "data")
    monkeypatch.setenv("OVHOOKS_DATA_DIR", str(data))
    local = LocalBackend(str(data), user="default", peer="")
    local.append_messages("cx-e", [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}])
    local.close()
    code, doc = run_json("export", "--to", "openviking", "--url", fake_ov.url)
    assert code == 0, doc
    progress = list((Path(os.environ["OVHOOKS_STATE_DIR"]) / "export").glob("*.json"))
    assert progress and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in progress)

    codex = tmp_path / "codex-home"
    codex.mkdir(mode=0o755)
    codex.chmod(0o755)
    hooks = codex / "hooks.json"
    hooks.write_text(json.dumps({"hooks": {}}))
    hooks.chmod(0o644)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    result = run_cli("install", "codex", "--exe", "/opt/ovhooks/bin/ovhooks")
    assert result.exit_code == 0, result.output
    backups = list(codex.glob("*.ovhooks.bak"))
    assert backups and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in backups)
    assert stat.S_IMODE(hooks.stat().st_mode) == 0o644, "the host's own file keeps its mode"
    assert stat.S_IMODE(codex.stat().st_mode) == 0o755, "the host's directory is not ours"


def test_every_folder_a_first_write_makes_is_private(
    tmp_path: Path, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first thing to write may be the embedding service's start stamp, the recall
    journal or the viewer's trash, in a state dir none of whose folders exist yet (a new
    user's ``~/.local/state/ovhooks``): each folder made on the way is 0700, not only the
    last one (``os.makedirs(mode=...)`` gave the parents 0755 under this umask)."""
    from ovhooks import spawn
    from ovhooks.recall import journal
    from ovhooks.semantic import client
    from ovhooks.ui import trash

    def no_launch(_launch: object) -> int:
        raise OSError("not launched in a test")

    monkeypatch.setattr(spawn, "run_detached", no_launch)
    for name, write in (
        ("service", lambda state: client.start(state, idle_s=1.0, force=True)),
        ("journal", lambda state: journal.append(state, {"prompt_id": "p"})),
        ("trash", lambda state: trash._write(os.path.join(trash.trash_dir(state), "t.json"), {})),
    ):
        root = tmp_path / name
        write(str(root / "home" / ".local" / "state" / "ovhooks"))
        assert _loose(root / "home") == [], name


def test_host_folders_install_makes_are_private(
    tmp_path: Path, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folders install creates for a host's files (Pi's extension folder, Gemini's settings
    folder) are 0700; the files in them keep their own modes."""
    home = tmp_path / "fresh-home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(home))
    for name in ("PI_CODING_AGENT_DIR", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    for host in ("pi", "gemini"):
        result = run_cli("install", host, "--exe", "/opt/ovhooks/bin/ovhooks")
        assert result.exit_code == 0, result.output
    folders = [p for p in home.rglob("*") if p.is_dir()]
    assert folders and all(stat.S_IMODE(p.stat().st_mode) == 0o700 for p in folders), [
        f"{oct(stat.S_IMODE(p.stat().st_mode))} {p}" for p in folders
    ]
