"""Git work trees for tests, written as git writes them (no git binary needed)."""

from __future__ import annotations

from pathlib import Path


def make_clone(path: Path, remote_url: str | None, *, remote: str = "origin") -> Path:
    """A work tree at ``path`` whose ``.git/config`` names ``remote_url`` (None: no remote)."""
    git = path / ".git"
    git.mkdir(parents=True)
    lines = ["[core]", "\trepositoryformatversion = 0", "\tbare = false"]
    if remote_url is not None:
        lines += [
            f'[remote "{remote}"]',
            f"\turl = {remote_url}",
            f"\tfetch = +refs/heads/*:refs/remotes/{remote}/*",
        ]
    (git / "config").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return path


def add_linked_worktree(main: Path, path: Path, name: str = "wt") -> Path:
    """A ``git worktree add``-style tree: a ``.git`` file pointing into the main git dir."""
    admin = main / ".git" / "worktrees" / name
    admin.mkdir(parents=True)
    (admin / "commondir").write_text("../..\n", encoding="utf-8")
    (admin / "gitdir").write_text(f"{path}/.git\n", encoding="utf-8")
    path.mkdir(parents=True)
    (path / ".git").write_text(f"gitdir: {admin}\n", encoding="utf-8")
    return path
