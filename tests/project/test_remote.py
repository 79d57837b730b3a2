"""Remote URLs of one repository, in every form git accepts, normalize to one name."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ovhooks.project.remote import apply_rewrites, normalize_remote, origin_of
from tests.support.repos import add_linked_worktree, make_clone

SAME_REPO = [
    "git@github.com:Acme/Widget.git",
    "git@github.com:acme/widget",
    "github.com:acme/widget.git",
    "ssh://git@github.com/acme/widget.git",
    "ssh://git@github.com:22/acme/widget",
    "git+ssh://git@github.com/acme/widget/",
    "https://github.com/acme/widget",
    "https://github.com/acme/widget.git",
    "https://alice:ghp_secret123@github.com/acme/widget.git",
    "https://oauth2@github.com:443/acme/widget.git",
    "http://www.github.com/acme/widget",
    "git://github.com/acme/widget.git",
    "  https://GitHub.com/ACME/widget.git  ",
]


@pytest.mark.parametrize("url", SAME_REPO)
def test_every_form_of_one_remote_gives_one_name(url: str) -> None:
    assert normalize_remote(url) == "github.com/acme/widget"


def test_nested_groups_and_other_hosts_keep_their_whole_path() -> None:
    assert normalize_remote("git@gitlab.example.org:team/sub/tool.git") == (
        "gitlab.example.org/team/sub/tool"
    )
    assert normalize_remote("https://gitlab.example.org/team/sub/tool") == (
        "gitlab.example.org/team/sub/tool"
    )
    assert normalize_remote("ssh://git@[::1]:2222/team/tool.git") == "::1/team/tool"


def test_different_repositories_stay_apart() -> None:
    names = {
        normalize_remote("git@github.com:acme/widget.git"),
        normalize_remote("git@github.com:acme/widget-docs.git"),
        normalize_remote("git@gitlab.com:acme/widget.git"),
        normalize_remote("git@github.com:other/widget.git"),
    }
    assert len(names) == 4


def test_azure_devops_ssh_and_https_agree() -> None:
    ssh = normalize_remote("git@ssh.dev.azure.com:v3/org/project/repo")
    https = normalize_remote("https://org@dev.azure.com/org/project/_git/repo")
    legacy = normalize_remote("https://org.visualstudio.com/project/_git/repo")
    assert ssh == https == legacy == "dev.azure.com/org/project/repo"


def test_local_paths_are_marked_local(tmp_path: Path) -> None:
    assert normalize_remote("/srv/git/widget.git").startswith("file")
    assert normalize_remote("file:///srv/git/widget.git") == normalize_remote("/srv/git/widget.git")
    assert normalize_remote("../widget.git", str(tmp_path / "a")).startswith("file")
    assert normalize_remote("C:\\src\\widget.git").startswith("file")
    assert normalize_remote("") == ""
    assert normalize_remote("svn://host/repo") == ""


def test_insteadof_rewrites_apply(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c", "gh:acme/widget")
    with open(clone / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write('[url "git@github.com:"]\n\tinsteadOf = gh:\n')
    name, url = origin_of(str(clone))
    assert (name, url) == ("origin", "git@github.com:acme/widget")
    assert apply_rewrites("x", []) == "x"


def test_config_quirks_comments_quotes_and_case(tmp_path: Path) -> None:
    clone = tmp_path / "c"
    (clone / ".git").mkdir(parents=True)
    (clone / ".git" / "config").write_text(
        '; comment\n[Remote "upstream"]\n  URL = git@github.com:up/widget.git\n'
        '[remote "origin"] # mine\n\tUrl = "https://github.com/acme/widget.git" ; trailing\n',
        encoding="utf-8",
    )
    assert origin_of(str(clone)) == ("origin", "https://github.com/acme/widget.git")


def test_a_lone_remote_not_called_origin_is_used(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c", "git@github.com:acme/widget.git", remote="upstream")
    assert origin_of(str(clone))[0] == "upstream"


def test_linked_worktree_reads_the_main_repository_config(tmp_path: Path) -> None:
    main = make_clone(tmp_path / "main", "git@github.com:acme/widget.git")
    linked = add_linked_worktree(main, tmp_path / "elsewhere" / "wt")
    assert normalize_remote(origin_of(str(linked))[1]) == "github.com/acme/widget"


def test_no_git_or_no_remote_gives_nothing(tmp_path: Path) -> None:
    assert origin_of(str(tmp_path)) == ("", "")
    assert origin_of(str(make_clone(tmp_path / "c", None))) == ("", "")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / ".git").write_text("not a pointer\n", encoding="utf-8")
    assert origin_of(str(tmp_path / "broken")) == ("", "")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_real_git_clone_and_worktree_agree(tmp_path: Path) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("remote", "add", "origin", "git@github.com:Acme/Widget.git", cwd=repo)
    git(
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=repo,
    )
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    git("submodule", "status", cwd=repo)
    for root in (repo, tmp_path / "wt"):
        assert normalize_remote(origin_of(str(root))[1]) == "github.com/acme/widget"
