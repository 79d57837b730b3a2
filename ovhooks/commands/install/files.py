"""What installing on either host shares: reading a host's files, writing them atomically in
their own mode with a private ``<file>.ovhooks.bak`` of what was there, the folders install
had to create, and ovhooks' groups merged into (or taken out of) a hooks file."""

from __future__ import annotations

import errno
import json
import os

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError
from ovhooks.commands.install.hooks_json import (
    merge_hooks,
    normalized,
    remove_hooks,
    render_like,
    same_but_empty_tables,
    unwrapped,
    wrapped,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BACKUP_SUFFIX = ".ovhooks.bak"


# Far above any host's settings file (a 30 MB one must still merge), yet a bound: a link to
# /dev/zero there would otherwise fill memory in one read.
HOST_FILE_LIMIT = 64 * 1024 * 1024


def read_bytes(path: str) -> bytes | None:
    """The file's bytes, or None when it does not exist. Only a regular file of at most
    ``HOST_FILE_LIMIT`` bytes is read: a FIFO there would hang the command forever."""
    from ovhooks.fsutil import read_bounded

    try:
        return read_bounded(path, HOST_FILE_LIMIT)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise read_failure(path, exc) from None


def read_text(path: str) -> str | None:
    """The file's text as it is on disk (``\r\n`` line ends kept: what uninstall restores
    must be the same bytes), or None when it does not exist."""
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(
            f"cannot read {path}: it is not UTF-8 text",
            fix="save it as UTF-8 (or move it aside), then run the command again",
        ) from None


def _what_stands(path: str) -> str:
    """What stands at ``path`` instead of a regular file, in a user's words."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "something other than a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "something other than a regular file"


def read_failure(path: str, exc: OSError) -> CommandError:
    """Why ``path`` could not be read, with the fix for that cause."""
    aside = "move it aside (ovhooks edits only a regular file there), then run the command again"
    reason = exc.strerror or str(exc)
    if isinstance(exc, NotADirectoryError):
        fix = "a file stands where a folder of its path belongs (is HOME a folder?)"
    elif isinstance(exc, IsADirectoryError):
        fix = "a folder stands where the file belongs: move it aside"
    elif exc.errno == errno.EINVAL:  # read_bounded: a FIFO, a device, a folder, a socket
        what = _what_stands(path)
        reason = f"it is {what}, not a regular file"
        fix = (
            "a folder stands where the file belongs: move it aside" if what == "a folder" else aside
        )
    elif exc.errno == errno.EFBIG:
        reason = f"it is larger than {HOST_FILE_LIMIT // (1024 * 1024)} MiB"
        fix = f"no host's settings are that large: {aside}"
    elif exc.errno == errno.ELOOP:
        fix = "a loop of symbolic links stands there: fix the link or remove it"
    else:
        fix = "check the file's permissions"
    return CommandError(f"cannot read {path}: {reason}", fix=fix)


def backup_doc(text: str) -> object:
    """A backup's JSON (raises ValueError); a blank one is the empty object install read it as,
    so its bytes (whitespace and all) still come back."""
    return json.loads(text) if text.strip() else {}


def read_json_doc(path: str) -> tuple[dict[str, Any], str | None]:
    text = read_text(path)
    if text is None or not text.strip():
        return {}, text
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        if holds_comments(text):
            # Gemini CLI, Qwen Code and OpenCode read JSON with comments: the file is fine for
            # the host, but a rewrite would drop them, so it is left alone with the reason
            raise CommandError(
                f"{path} holds comments, which ovhooks would lose by rewriting it; it is unchanged",
                fix="take the comments out of the file (or move it aside), then run the "
                "command again",
            ) from None
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise CommandError(
            f"{path} is not valid JSON ({why})",
            fix="fix the file (or move it aside), then run the command again",
        ) from None
    if not isinstance(doc, dict):
        raise CommandError(f"{path} is not a JSON object", fix="fix the file by hand")
    return doc, text


def holds_comments(text: str) -> bool:
    """Whether ``text`` is JSON once its ``//`` and ``/* */`` comments are taken out (the
    commented JSON some hosts read); text inside strings, URLs included, is never a comment."""
    out: list[str] = []
    at, end, in_string = 0, len(text), False
    found = False
    while at < end:
        ch = text[at]
        if in_string:
            out.append(text[at : at + 2] if ch == "\\" else ch)
            at += 2 if ch == "\\" else 1
            in_string = ch != '"'
            continue
        pair = text[at : at + 2]
        if pair in ("//", "/*"):
            close = text.find("\n" if pair == "//" else "*/", at + 2)
            at = end if close < 0 else close + (0 if pair == "//" else 2)
            found = True
            continue
        in_string = ch == '"'
        out.append(ch)
        at += 1
    if not found:
        return False
    try:
        json.loads("".join(out))
    except (ValueError, RecursionError):
        return False
    return True


def write_target(path: str) -> str:
    """The file a write to ``path`` must land in. A symbolic link there is a dotfiles
    manager's (stow, chezmoi, yadm, home-manager): the edit goes into the file it points to
    (chains and relative targets resolved) and the link stays; renaming over it would cut
    the user's settings off from the copy they track."""
    if not os.path.islink(path):
        return path
    target = os.path.realpath(path)
    if not os.path.isdir(os.path.dirname(target)):
        raise CommandError(
            f"{path} is a link to {target}, whose folder does not exist",
            fix="check out your dotfiles first, or remove the link, then run the command again",
        )
    return target


def check_host_files(*paths: str, writing: bool, text: bool = True) -> None:
    """Read each host file (and, when ``writing``, find where its write lands) before the
    first write: a step that failed halfway would leave one file edited and the next not."""
    for path in paths:
        if not path:
            continue
        if text:
            read_text(path)
        else:
            read_bytes(path)
        if writing:
            write_target(path)


def write_bytes(path: str, data: bytes, *, mode: int | None) -> None:
    from ovhooks.fsutil import write_atomic

    target = write_target(path)
    try:
        write_atomic(target, data, private=False)
        if mode is not None:
            os.chmod(target, mode)
    except OSError as exc:
        raise CommandError(
            f"cannot write {path}: {exc}", fix="check the directory's permissions"
        ) from None


def write_file(path: str, text: str, *, mode: int | None) -> None:
    write_bytes(path, text.encode("utf-8"), mode=mode)


def file_mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def remove_file(path: str) -> None:
    """Remove the file at ``path``; through a link, the file it points to goes and the link
    stays as the user's dotfiles manager made it (dangling again, as before the install)."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    if target != path and os.path.islink(target):
        return  # a loop of links: nothing there is a file ovhooks wrote
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass


# Next to a hooks file install created: the directories it had to create for it, so uninstall
# removes those (once empty) and never a directory the user had.
CREATED_DIRS_SUFFIX = ".ovhooks-dirs"


def _missing_dirs(path: str) -> list[str]:
    """The directories a file at ``path`` still needs, deepest first."""
    from ovhooks.fsutil import missing_dirs

    return missing_dirs(os.path.dirname(os.path.abspath(path)))


def remove_created_dirs(hooks_path: str) -> list[str]:
    """Remove the directories install created for ``hooks_path`` once they are empty."""
    record = hooks_path + CREATED_DIRS_SUFFIX
    text = read_text(record)
    if text is None or os.path.exists(hooks_path):
        return []
    try:
        dirs = [d for d in json.loads(text) if isinstance(d, str)]
    except ValueError:
        dirs = []
    remove_file(record)
    removed = []
    for directory in sorted(dirs, key=len, reverse=True):  # deepest first
        try:
            os.rmdir(directory)
        except OSError:
            continue  # not empty: something else lives there now
        removed.append(directory)
    return removed


def install_hooks_file(
    path: str, host: str, executable: str, *, dry_run: bool = False, top_level: bool = False
) -> dict[str, Any]:
    """Merge ovhooks' groups into ``path``; returns ``{path, action, backup}``.
    ``top_level``: the file is keyed by event, with no ``hooks`` object around them."""
    doc, text = read_json_doc(path)
    merged = merge_hooks(wrapped(doc, top_level), hostconfig.desired_groups(host, executable), path)
    new = unwrapped(merged, top_level)
    if text is not None and new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    action = "created" if text is None else "updated"
    backup = None
    if not dry_run:
        created = _missing_dirs(path)
        if created:
            write_file(path + CREATED_DIRS_SUFFIX, json.dumps(created), mode=None)
        mode = file_mode(path)
        if text is not None:
            backup = path + BACKUP_SUFFIX
            write_file(backup, text, mode=0o600)  # a copy ovhooks made: private
        write_file(path, render_like(new, text), mode=mode)
    return {"path": path, "action": action, "backup": backup}


def uninstall_hooks_file(
    path: str, *, dry_run: bool = False, top_level: bool = False
) -> dict[str, Any]:
    """Remove ovhooks' handlers from ``path``; the original bytes come back when nothing else
    changed since the install."""
    doc, text = read_json_doc(path)
    if text is None:
        return {"path": path, "action": "absent", "backup": None}
    new = unwrapped(remove_hooks(wrapped(doc, top_level), path), top_level)
    if new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    backup_path = path + BACKUP_SUFFIX
    backup_text = read_text(backup_path)
    restored: str | None = None
    if backup_text is not None:
        try:
            if same_but_empty_tables(backup_doc(backup_text), new):
                restored = backup_text
        except ValueError:
            restored = None
    if restored is None and backup_text is None and normalized(new) == {}:
        # No backup: ovhooks created this file, and only its own hooks were in it.
        if not dry_run:
            remove_file(path)
        return {"path": path, "action": "removed", "backup": None}
    if dry_run:
        return {
            "path": path,
            "action": "restored" if restored is not None else "updated",
            "backup": None,
        }
    mode = file_mode(path)
    if restored is not None:
        write_file(path, restored, mode=mode)
        remove_file(backup_path)
        return {"path": path, "action": "restored", "backup": None}
    write_file(backup_path, text, mode=0o600)  # a copy ovhooks made: private
    write_file(path, render_like(new, text), mode=mode)
    return {"path": path, "action": "updated", "backup": backup_path}
