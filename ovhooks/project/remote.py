"""The repository a folder belongs to, from its git ``origin`` remote, without running git.

Clones of one repository at different paths, over ssh or https, must land on one project
peer. The remote URL is read from the repository's config file (following a ``.git`` file to
a linked worktree's or submodule's git dir) and reduced to ``host/path``: user, credentials,
port, scheme, ``.git`` and case dropped, since those differ between the forms of one remote.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_SCHEMES = ("ssh", "git+ssh", "ssh+git", "https", "http", "git", "ftp", "ftps")


def git_dir_of(root: str) -> str:
    """The git dir for a work tree root: ``.git`` itself, or where a ``.git`` file points."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as fh:
            first = fh.readline().strip()
    except OSError:
        return ""
    if not first.startswith("gitdir:"):
        return ""
    target = first[len("gitdir:") :].strip()
    return os.path.normpath(os.path.join(root, target)) if target else ""


def config_path_of(git_dir: str) -> str:
    """A linked worktree keeps its config in the main repository (named by ``commondir``)."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = fh.readline().strip()
    except OSError:
        common = ""
    base = os.path.normpath(os.path.join(git_dir, common)) if common else git_dir
    return os.path.join(base, "config")


def _unquote(value: str) -> str:
    """A git config value: comments cut outside quotes, quotes removed, escapes applied."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and i + 1 < len(value):
            i += 1
            out.append({"n": "\n", "t": "\t"}.get(value[i], value[i]))
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _entries(text: str) -> Iterator[tuple[str, str, str]]:
    """``(section, key, value)`` for every ``key = value`` line; section like ``remote.origin``."""
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            end = line.find("]")
            head = line[1:end] if end > 0 else line[1:]
            name, _sep, sub = head.partition(" ")
            sub = sub.strip()
            if sub.startswith('"') and sub.endswith('"') and len(sub) >= 2:
                sub = sub[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            section = f"{name.strip().lower()}.{sub}" if sub else name.strip().lower()
            line = line[end + 1 :].strip() if end > 0 else ""
            if not line:
                continue
        key, sep, value = line.partition("=")
        yield section, key.strip().lower(), _unquote(value) if sep else "true"


def read_remotes(config_file: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Remote name -> first URL, and the ``insteadOf`` rewrites, from one git config file."""
    try:
        with open(config_file, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20)
    except OSError:
        return {}, []
    remotes: dict[str, str] = {}
    rewrites: list[tuple[str, str]] = []
    for section, key, value in _entries(text):
        if section.startswith("remote.") and key == "url" and value:
            remotes.setdefault(section[len("remote.") :], value)
        elif section.startswith("url.") and key == "insteadof" and value:
            rewrites.append((value, section[len("url.") :]))
    return remotes, rewrites


def apply_rewrites(url: str, rewrites: list[tuple[str, str]]) -> str:
    """git's ``url.<base>.insteadOf``: the longest matching prefix wins."""
    best = max((r for r in rewrites if url.startswith(r[0])), key=lambda r: len(r[0]), default=None)
    return best[1] + url[len(best[0]) :] if best else url


def _local_path(url: str, root: str) -> str:
    path = url[len("file://") :] if url.startswith("file://") else url
    return os.path.normpath(os.path.join(root, path)) if root else os.path.normpath(path)


def normalize_remote(url: str, root: str = "") -> str:
    """``host/owner/repo`` (lower case) for any form of a remote URL; ``""`` if unusable.

    ``git@github.com:Org/Repo.git``, ``ssh://git@github.com:22/org/repo`` and
    ``https://user:token@github.com/org/repo.git`` all give ``github.com/org/repo``. A local
    path or ``file://`` remote gives ``file`` + its absolute path.
    """
    url = url.strip()
    if not url:
        return ""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in _SCHEMES:
        authority, _slash, path = rest.partition("/")
        host = authority.rpartition("@")[2]
        if host.startswith("["):  # [IPv6]:port
            host = host[1 : host.find("]")] if "]" in host else host[1:]
        else:
            host = host.partition(":")[0]
    elif sep and scheme.lower() == "file":
        return "file" + _local_path(url, root).lower()
    elif sep:
        return ""
    else:
        # scp-like ``[user@]host:path``; a colon after a slash means a local path instead.
        colon = url.find(":")
        slash = url.find("/")
        drive = colon == 1 and url[0].isalpha()  # C:\src\repo is a Windows path, like git
        if colon <= 0 or (0 <= slash < colon) or drive:
            return "file" + _local_path(url, root).lower()
        host = url[:colon].rpartition("@")[2]
        path = url[colon + 1 :]
    host = host.lower().strip().rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if parts and parts[0].startswith("~"):
        parts[0] = parts[0][1:]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [p for p in parts if p]
    host, parts = _azure(host, parts)
    if not host or not parts:
        return ""
    return "/".join([host, *parts]).lower()


def _azure(host: str, parts: list[str]) -> tuple[str, list[str]]:
    """Azure DevOps spells one repo differently over ssh (``v3/org/project/repo``) and https
    (``org/project/_git/repo``); both become ``dev.azure.com/org/project/repo``."""
    if host in ("ssh.dev.azure.com", "vs-ssh.visualstudio.com") and parts[:1] == ["v3"]:
        return "dev.azure.com", parts[1:]
    if host == "dev.azure.com" and "_git" in parts:
        return host, [p for p in parts if p != "_git"]
    if host.endswith(".visualstudio.com") and "_git" in parts:
        org = host[: -len(".visualstudio.com")]
        return "dev.azure.com", [org, *[p for p in parts if p not in ("_git", "DefaultCollection")]]
    return host, parts


def remotes_of(root: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The remotes and URL rewrites of the repository whose work tree root is ``root``."""
    git_dir = git_dir_of(root)
    return read_remotes(config_path_of(git_dir)) if git_dir else ({}, [])


def origin_of(root: str) -> tuple[str, str]:
    """``(remote name, URL)`` for a work tree root: ``origin``, else a lone remote; else ``""``."""
    remotes, rewrites = remotes_of(root)
    name = "origin" if "origin" in remotes else (next(iter(remotes)) if len(remotes) == 1 else "")
    if not name:
        return "", ""
    return name, apply_rewrites(remotes[name], rewrites)
