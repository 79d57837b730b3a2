"""``ovhooks install|uninstall`` with something other than a regular file where a host's
settings belong: a FIFO used to hang both commands forever and a link to ``/dev/zero`` made
them allocate without bound. Now each is refused at once, naming the file and the fix, and
nothing is written (campaign 5, repro/install_special_file.sh)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli

EXE = "/opt/ov/bin/ovhooks"
HOST_FILE_LIMIT = 64 * 1024 * 1024  # install reads no more of a host file

# (host, a file it edits, relative to HOME): every host's hooks file and MCP file.
HOST_FILES = [
    ("claude", ".claude/settings.json"),
    ("claude", ".claude.json"),
    ("gemini", ".gemini/settings.json"),
    ("qwen", ".qwen/settings.json"),
    ("droid", ".factory/hooks.json"),
    ("droid", ".factory/mcp.json"),
    ("copilot", ".copilot/hooks/ovhooks.json"),
    ("copilot", ".copilot/mcp-config.json"),
    ("opencode", ".config/opencode/plugins/ovhooks.js"),
    ("opencode", ".config/opencode/opencode.json"),
    ("pi", ".pi/agent/extensions/ovhooks.ts"),
    ("codex", ".codex/hooks.json"),
    ("codex", ".codex/config.toml"),
]
IDS = [f"{host}:{name}" for host, name in HOST_FILES]


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("COPILOT_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return isolated_home


def _tree(root: Path) -> dict[str, object]:
    """Every entry under ``root``: a link's target, a regular file's bytes, else its type."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[str(path)] = ("link", os.readlink(path))
        elif path.is_file():
            out[str(path)] = path.read_bytes()
        else:
            out[str(path)] = "dir" if path.is_dir() else "special"
    return out


def _limit_memory() -> None:
    # Without the bound, a read of /dev/zero would take the machine's memory, not the test's.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with a deadline: a command blocked on a FIFO fails the test
    (TimeoutExpired) instead of hanging the suite."""
    return subprocess.run(
        [sys.executable, "-m", "ovhooks", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ),
        preexec_fn=_limit_memory,
        check=False,
    )


def _assert_refused(result: subprocess.CompletedProcess[str], path: Path, what: str) -> None:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert f"cannot read {path}: it is {what}, not a regular file" in result.stderr
    assert "move it aside" in result.stderr
    assert "Traceback" not in result.stderr and "a bug in ovhooks" not in result.stderr


@pytest.mark.parametrize(("host", "name"), HOST_FILES, ids=IDS)
def test_a_fifo_is_refused_at_once_and_nothing_is_written(home: Path, host: str, name: str) -> None:
    fifo = home / name
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    before = _tree(home)
    _assert_refused(_cli("install", host, "--exe", EXE), fifo, "a FIFO (named pipe)")
    assert _tree(home) == before  # not even the other file of the host
    _assert_refused(_cli("uninstall", host), fifo, "a FIFO (named pipe)")
    assert _tree(home) == before


@pytest.mark.parametrize(("host", "name"), HOST_FILES, ids=IDS)
def test_a_link_to_dev_zero_is_refused_without_reading_it(home: Path, host: str, name: str) -> None:
    link = home / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to("/dev/zero")
    before = _tree(home)
    _assert_refused(_cli("install", host, "--exe", EXE), link, "a device")
    _assert_refused(_cli("uninstall", host), link, "a device")
    assert _tree(home) == before


def test_a_file_past_the_limit_is_refused_unread(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    with open(settings, "wb") as fh:
        fh.truncate(HOST_FILE_LIMIT + 1)  # sparse: no disk, and zeros to read
    result = run_cli("install", "claude", "--exe", EXE, "--no-mcp")
    assert result.exit_code == 1
    assert f"cannot read {settings}: it is larger than 64 MiB" in result.stderr
    assert settings.stat().st_size == HOST_FILE_LIMIT + 1
    assert not (home / ".claude" / "settings.json.ovhooks.bak").exists()


def test_a_large_settings_file_still_merges_and_comes_back(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    original = b'{"notes": "' + b"x" * (30 * 1024 * 1024) + b'"}\r\n'
    settings.write_bytes(original)
    assert run_cli("install", "gemini", "--exe", EXE).exit_code == 0
    assert b"ovhooks" in settings.read_bytes()
    assert run_cli("uninstall", "gemini").exit_code == 0
    assert settings.read_bytes() == original


def test_a_folder_where_the_file_belongs_keeps_its_own_fix(home: Path) -> None:
    (home / ".qwen" / "settings.json").mkdir(parents=True)
    result = run_cli("install", "qwen", "--exe", EXE)
    assert result.exit_code == 1
    assert "it is a folder, not a regular file" in result.stderr
    assert "a folder stands where the file belongs" in result.stderr


def test_doctor_and_status_pass_over_fifos_where_host_files_belong(home: Path) -> None:
    # They read the same files to report what is installed: a FIFO blocked them forever.
    for _host, name in [*HOST_FILES, ("openviking", ".openviking/ov.conf")]:
        fifo = home / name
        fifo.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(fifo)
    for command in ("doctor", "status"):
        result = _cli(command)  # TimeoutExpired without the bounded reads
        assert result.returncode in (0, 6), (command, result.returncode, result.stderr)
        assert "Traceback" not in result.stderr and "a bug in ovhooks" not in result.stderr


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("gemini", ".gemini/settings.json"),
        ("qwen", ".qwen/settings.json"),
        ("opencode", ".config/opencode/opencode.json"),
    ],
)
def test_settings_with_comments_are_left_alone_with_the_reason(
    home: Path, host: str, name: str
) -> None:
    # These hosts read JSON with comments: "not valid JSON ... fix the file" was wrong.
    settings = home / name
    settings.parent.mkdir(parents=True)
    original = '{\n  // the theme I like\n  "theme": "dark", /* see https://x.y/z */\n  "n": 1\n}\n'
    settings.write_text(original)
    result = run_cli("install", host, "--exe", EXE)
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())
    assert f"{settings} holds comments, which ovhooks would lose by rewriting it" in said
    assert "take the comments out" in said and "not valid JSON" not in said
    assert settings.read_text() == original


def test_comments_are_told_from_json_that_is_broken_or_only_looks_commented() -> None:
    from ovhooks.commands.install.files import holds_comments

    assert holds_comments('{"a": "http://x" // url in a string, then a comment\n}')
    assert holds_comments('{"a": "q\\\\"} /* after an escaped backslash */')
    assert not holds_comments('{"a": "//not a comment", "b": "/*nor this*/"}')
    assert not holds_comments('{"a": "q\\"//"}')  # an escaped quote keeps the string open
    assert not holds_comments('{ // a comment\n "a": 1,}')  # still not JSON without it
    assert not holds_comments('{"a": 1 /* never closed')
