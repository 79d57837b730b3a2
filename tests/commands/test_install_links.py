"""A host file that is a symbolic link (GNU stow, chezmoi/yadm symlink mode, home-manager):
install edits the file the link points to and the link stays a link; uninstall puts the
target's bytes back. The backup stays next to the link, never in the dotfiles folder. A
dangling link is written through when its target's folder exists, and refused when not
(campaign 5, repro/install_roundtrip.sh). Also: a blank settings file comes back blank."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.commands.test_install_special_files import HOST_FILES, IDS, _tree
from tests.support.cli import run_cli

EXE = "/opt/ov/bin/ovhooks"

# What a user keeps in each kind of file before the install.
SEEDS = {
    ".json": '{\n  "model": "x"\n}\n',
    ".toml": 'model = "gpt-5"\n',
    ".ts": "export default function () {}\n",
    ".js": "export const mine = 1;\n",
}
# Droid's hooks file is keyed by event: a hook of the user's own.
DROID_HOOKS = '{"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}\n'


def _seed(name: str) -> bytes:
    return (DROID_HOOKS if name == ".factory/hooks.json" else SEEDS[Path(name).suffix]).encode()


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("COPILOT_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return isolated_home


def _ok(*args: str) -> None:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output


def _link(link: Path, target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


@pytest.mark.parametrize("style", ["absolute", "relative chain"])
@pytest.mark.parametrize(("host", "name"), HOST_FILES, ids=IDS)
def test_install_edits_the_links_target_and_uninstall_restores_it(
    home: Path, tmp_path: Path, host: str, name: str, style: str
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / ("tracked" + Path(name).suffix)
    original = _seed(name)
    target.write_bytes(original)
    link = home / name
    if style == "absolute":
        _link(link, str(target))
    else:  # link -> (relative) another link -> (relative) the file, as stow makes them
        (dotfiles / "stow").mkdir()
        (dotfiles / "stow" / "hop").symlink_to(os.path.join("..", target.name))
        _link(link, os.path.relpath(dotfiles / "stow" / "hop", link.parent))
    home_before, dotfiles_before = _tree(home), _tree(dotfiles)

    _ok("install", host, "--exe", EXE)
    assert link.is_symlink() and _tree(home)[str(link)] == home_before[str(link)]
    assert b"ovhooks" in target.read_bytes()
    assert sorted(_tree(dotfiles)) == sorted(dotfiles_before)  # backup next to the link
    assert os.path.exists(f"{link}.ovhooks.bak")

    _ok("uninstall", host)
    assert _tree(dotfiles) == dotfiles_before  # the target's bytes back, the chain intact
    assert _tree(home) == home_before  # the link as it was, no backup left


@pytest.mark.parametrize(("host", "name"), HOST_FILES, ids=IDS)
def test_a_dangling_link_gets_its_target_and_loses_it_again(
    home: Path, tmp_path: Path, host: str, name: str
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()  # checked out, but without this host's file yet
    target = dotfiles / ("tracked" + Path(name).suffix)
    link = home / name
    _link(link, str(target))
    before = _tree(home)

    _ok("install", host, "--exe", EXE)
    assert link.is_symlink() and target.is_file()
    assert b"ovhooks" in target.read_bytes() or host == "codex"  # config.toml: the flag

    _ok("uninstall", host)
    assert not target.exists() and not list(dotfiles.iterdir())
    assert _tree(home) == before  # the link dangling exactly as it was


@pytest.mark.parametrize(("host", "name"), HOST_FILES, ids=IDS)
def test_a_link_into_a_missing_folder_is_refused_before_any_write(
    home: Path, tmp_path: Path, host: str, name: str
) -> None:
    target = tmp_path / "dotfiles" / "not-checked-out" / ("tracked" + Path(name).suffix)
    link = home / name
    _link(link, str(target))
    before = _tree(tmp_path / "home")

    result = run_cli("install", host, "--exe", EXE)
    assert result.exit_code == 1, result.output
    assert f"{link} is a link to {target}, whose folder does not exist" in result.stderr
    assert "check out your dotfiles first, or remove the link" in result.stderr
    assert _tree(home) == before and not (tmp_path / "dotfiles").exists()

    _ok("uninstall", host)  # nothing of ovhooks' there: nothing to refuse
    assert _tree(home) == before


# The JSON files a user may keep blank (whitespace only), for the hosts that read them.
BLANK_FILES = [(host, name) for host, name in HOST_FILES if name.endswith(".json")]


@pytest.mark.parametrize(("host", "name"), BLANK_FILES, ids=[f"{h}:{n}" for h, n in BLANK_FILES])
def test_a_blank_settings_file_comes_back_byte_for_byte(home: Path, host: str, name: str) -> None:
    blank = home / name
    blank.parent.mkdir(parents=True, exist_ok=True)
    blank.write_bytes(b"  \n\n")
    before = _tree(home)
    _ok("install", host, "--exe", EXE)
    assert b"ovhooks" in blank.read_bytes()
    _ok("uninstall", host)
    assert _tree(home) == before


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_a_loop_of_links_is_refused_and_left_alone(home: Path, host: str) -> None:
    name = dict(HOST_FILES)[host]
    link = home / name
    _link(link, str(home / "loop"))
    (home / "loop").symlink_to(link)
    before = _tree(home)
    for args in (("install", host, "--exe", EXE), ("uninstall", host)):
        result = run_cli(*args)
        assert result.exit_code == 1, result.output
        assert f"cannot read {link}" in result.stderr and "loop of symbolic links" in result.stderr
    assert _tree(home) == before
