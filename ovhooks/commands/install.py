"""``ovhooks install`` / ``uninstall``: merge ovhooks' hooks into a host's config and back out.

Rules: other hooks are never touched; ovhooks' groups are appended after the user's (Codex
trust records are keyed by position, so inserting first would un-trust the user's hooks);
writes are atomic with a ``<file>.ovhooks.bak`` of what was there; installing twice changes
nothing; and uninstalling right after installing restores the original bytes exactly.
"""

from __future__ import annotations

import copy
import json
import os
import re

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    import typer

BACKUP_SUFFIX = ".ovhooks.bak"


# --- pure document edits -------------------------------------------------------------------------
def _strip_ours(groups: list[Any], keep: int | None = None) -> list[Any]:
    """``groups`` without ovhooks' handlers (except in group ``keep``); emptied groups go."""
    out = []
    for i, group in enumerate(groups):
        if i == keep or not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            out.append(group)
            continue
        handlers = group["hooks"]
        kept = [
            h
            for h in handlers
            if not (isinstance(h, dict) and hostconfig.is_ovhooks_command(h.get("command")))
        ]
        if len(kept) == len(handlers):
            out.append(group)
        elif kept:
            out.append({**group, "hooks": kept})
    return out


def _hooks_table(doc: dict[str, Any], path: str) -> dict[str, Any]:
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CommandError(
            f'{path}: "hooks" is not an object', fix="fix the file by hand, then run again"
        )
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise CommandError(
                f"{path}: hooks.{event} is not a list", fix="fix the file by hand, then run again"
            )
    return hooks


def merge_hooks(
    doc: dict[str, Any], wanted: Mapping[str, dict[str, Any]], path: str = ""
) -> dict[str, Any]:
    """``doc`` with exactly one ovhooks group per wanted event (and none elsewhere)."""
    new = copy.deepcopy(doc)
    hooks = _hooks_table(new, path)
    for event in list(hooks):
        if event not in wanted:
            stripped = _strip_ours(hooks[event])
            if stripped != hooks[event]:
                if stripped:
                    hooks[event] = stripped
                else:
                    del hooks[event]
    for event, group in wanted.items():
        groups = list(hooks.get(event, []))
        if group in groups:
            hooks[event] = _strip_ours(groups, keep=groups.index(group))
        else:
            hooks[event] = [*_strip_ours(groups), copy.deepcopy(group)]
    new["hooks"] = hooks
    return new


def remove_hooks(doc: dict[str, Any], path: str = "") -> dict[str, Any]:
    """``doc`` without any ovhooks handler; containers emptied by the removal go too."""
    new = copy.deepcopy(doc)
    if "hooks" not in new:
        return new
    hooks = _hooks_table(new, path)
    for event in list(hooks):
        stripped = _strip_ours(hooks[event])
        if stripped != hooks[event]:
            if stripped:
                hooks[event] = stripped
            else:
                del hooks[event]
    if not hooks and doc.get("hooks"):
        del new["hooks"]
    return new


def our_handlers(doc: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    """(event, group index, handler index, command) of every ovhooks handler in ``doc``."""
    out: list[tuple[str, int, int, str]] = []
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and hostconfig.is_ovhooks_command(
                    handler.get("command")
                ):
                    out.append((str(event), gi, hi, str(handler.get("command"))))
    return out


def _normalized(doc: object) -> object:
    """Equal for documents that differ only by empty ``hooks`` containers."""
    if not isinstance(doc, dict):
        return doc
    out = dict(doc)
    hooks = out.get("hooks")
    if isinstance(hooks, dict):
        hooks = {k: v for k, v in hooks.items() if v != []}
        if hooks:
            out["hooks"] = hooks
        else:
            del out["hooks"]
    return out


def render_like(doc: object, original: str | None) -> str:
    """JSON text for ``doc`` in the original file's indentation and final-newline style."""
    indent: str | None = "  "
    if original is not None:
        match = re.search(r"\n([ \t]+)\S", original)
        if match:
            indent = match.group(1)
        elif original.strip():
            indent = None  # a one-line file stays one line
    text = json.dumps(doc, ensure_ascii=False, indent=indent)
    if original is None or original.endswith("\n"):
        text += "\n"
    return text


# --- files ---------------------------------------------------------------------------------------
def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(
            f"cannot read {path}: {exc}", fix="check the file's permissions"
        ) from None


def read_json_doc(path: str) -> tuple[dict[str, Any], str | None]:
    text = _read_text(path)
    if text is None or not text.strip():
        return {}, text
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise CommandError(
            f"{path} is not valid JSON ({exc})",
            fix="fix the file (or move it aside), then run the command again",
        ) from None
    if not isinstance(doc, dict):
        raise CommandError(f"{path} is not a JSON object", fix="fix the file by hand")
    return doc, text


def _write(path: str, text: str, *, mode: int | None) -> None:
    from ovhooks.fsutil import write_atomic

    try:
        write_atomic(path, text.encode("utf-8"), private=False)
        if mode is not None:
            os.chmod(path, mode)
    except OSError as exc:
        raise CommandError(
            f"cannot write {path}: {exc}", fix="check the directory's permissions"
        ) from None


def _mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# Next to a hooks file install created: the directories it had to create for it, so uninstall
# removes those (once empty) and never a directory the user had.
CREATED_DIRS_SUFFIX = ".ovhooks-dirs"


def _missing_dirs(path: str) -> list[str]:
    missing = []
    probe = os.path.dirname(os.path.abspath(path))
    while probe and not os.path.isdir(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return missing


def remove_created_dirs(hooks_path: str) -> list[str]:
    """Remove the directories install created for ``hooks_path`` once they are empty."""
    record = hooks_path + CREATED_DIRS_SUFFIX
    text = _read_text(record)
    if text is None or os.path.exists(hooks_path):
        return []
    try:
        dirs = [d for d in json.loads(text) if isinstance(d, str)]
    except ValueError:
        dirs = []
    _unlink(record)
    removed = []
    for directory in sorted(dirs, key=len, reverse=True):  # deepest first
        try:
            os.rmdir(directory)
        except OSError:
            continue  # not empty: something else lives there now
        removed.append(directory)
    return removed


def install_hooks_file(
    path: str, host: str, executable: str, *, dry_run: bool = False
) -> dict[str, Any]:
    """Merge ovhooks' groups into ``path``; returns ``{path, action, backup}``."""
    doc, text = read_json_doc(path)
    new = merge_hooks(doc, hostconfig.desired_groups(host, executable), path)
    if text is not None and new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    action = "created" if text is None else "updated"
    backup = None
    if not dry_run:
        created = _missing_dirs(path)
        if created:
            _write(path + CREATED_DIRS_SUFFIX, json.dumps(created), mode=None)
        mode = _mode(path)
        if text is not None:
            backup = path + BACKUP_SUFFIX
            _write(backup, text, mode=0o600)  # a copy ovhooks made: private
        _write(path, render_like(new, text), mode=mode)
    return {"path": path, "action": action, "backup": backup}


def uninstall_hooks_file(path: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Remove ovhooks' handlers from ``path``; the original bytes come back when nothing else
    changed since the install."""
    doc, text = read_json_doc(path)
    if text is None:
        return {"path": path, "action": "absent", "backup": None}
    new = remove_hooks(doc, path)
    if new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    backup_path = path + BACKUP_SUFFIX
    backup_text = _read_text(backup_path)
    restored: str | None = None
    if backup_text is not None:
        try:
            if _normalized(json.loads(backup_text or "{}")) == _normalized(new):
                restored = backup_text
        except ValueError:
            restored = None
    if restored is None and backup_text is None and _normalized(new) == {}:
        # No backup: ovhooks created this file, and only its own hooks were in it.
        if not dry_run:
            _unlink(path)
        return {"path": path, "action": "removed", "backup": None}
    if dry_run:
        return {
            "path": path,
            "action": "restored" if restored is not None else "updated",
            "backup": None,
        }
    mode = _mode(path)
    if restored is not None:
        _write(path, restored, mode=mode)
        _unlink(backup_path)
        return {"path": path, "action": "restored", "backup": None}
    _write(backup_path, text, mode=0o600)  # a copy ovhooks made: private
    _write(path, render_like(new, text), mode=mode)
    return {"path": path, "action": "updated", "backup": backup_path}


def enable_codex_feature(path: str, *, dry_run: bool = False) -> dict[str, Any]:
    from ovhooks.commands.codex_toml import enable_hooks_feature

    text = _read_text(path)
    try:
        new, change = enable_hooks_feature(text or "")
    except ValueError as exc:
        return {
            "path": path,
            "action": "manual",
            "detail": f"could not switch the hooks feature on ({exc})",
            "fix": f"run `codex features enable hooks`, or set [features] hooks = true in {path}",
            "backup": None,
        }
    if not change:
        return {
            "path": path,
            "action": "unchanged",
            "detail": "hooks feature already on",
            "backup": None,
        }
    backup = None
    if not dry_run:
        mode = _mode(path)
        if text is not None:
            backup = path + BACKUP_SUFFIX
            _write(backup, text, mode=0o600)  # a copy ovhooks made: private
        _write(path, new, mode=mode)
    return {
        "path": path,
        "action": "created" if text is None else "updated",
        "detail": change,
        "backup": backup,
    }


def revert_codex_feature(
    path: str, *, dry_run: bool = False, trust_keys: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Undo ``enable_codex_feature`` (and ``--trust``'s records for ``trust_keys``) when
    config.toml is otherwise as ovhooks left it."""
    from ovhooks.commands.codex_toml import enable_hooks_feature, trust_records
    from ovhooks.commands.codex_trust import without_trust

    original = _read_text(path)
    backup_path = path + BACKUP_SUFFIX
    backup = _read_text(backup_path)
    if original is None:
        return {"path": path, "action": "absent", "detail": "", "backup": None}
    dropped = sorted(set(trust_records(original)) & trust_keys)
    text = without_trust(original, set(dropped)) if dropped else original
    untrusted = f"; {len(dropped)} trust record(s) of ovhooks' hooks removed" if dropped else ""
    try:
        if backup is not None and enable_hooks_feature(backup)[0] == text:
            if not dry_run:
                _write(path, backup, mode=_mode(path))
                _unlink(backup_path)
            return {
                "path": path,
                "action": "restored",
                "detail": "hooks feature flag set back as it was" + untrusted,
                "backup": None,
            }
        if backup is None and text.strip() == enable_hooks_feature("")[0].strip():
            if not dry_run:
                _unlink(path)
            return {
                "path": path,
                "action": "removed",
                "detail": "ovhooks had created it",
                "backup": None,
            }
    except ValueError:
        pass
    if dropped:
        if not dry_run:
            _write(path, text, mode=_mode(path))
        return {
            "path": path,
            "action": "updated",
            "detail": untrusted.lstrip("; ") + "; the hooks feature flag stays on "
            "(the file has other changes since the install, or ovhooks found it on)",
            "backup": None,
        }
    if backup is None:
        return {
            "path": path,
            "action": "unchanged",
            "detail": "left as it is: ovhooks found the hooks feature already on, or created "
            "the file and it has changed since; the hooks feature stays on",
            "backup": None,
        }
    return {
        "path": path,
        "action": "unchanged",
        "detail": "changed since the install, so left as it is; the hooks feature stays on",
        "backup": None,
    }


# --- commands ------------------------------------------------------------------------------------
def _check_host_scope(host: str, scope: str) -> None:
    if host not in hostconfig.HOSTS:
        raise CommandError(
            f"unknown host {host!r}", fix="use codex or claude", code=ExitCode.USAGE, slug="usage"
        )
    if scope not in hostconfig.SCOPES:
        raise CommandError(
            f"unknown scope {scope!r}", fix="use user or project", code=ExitCode.USAGE, slug="usage"
        )


def next_steps(host: str, scope: str) -> list[str]:
    if host == "codex":
        return [
            "Start `codex` and type /hooks: review and trust the ovhooks hooks. Codex skips "
            "untrusted hooks without a word. (Or run `ovhooks install codex --trust`, which "
            "records Codex's trust for ovhooks' own hooks only.)",
            *(
                ["Codex reads project hooks only in a trusted project folder."]
                if scope == "project"
                else []
            ),
            "Then run `ovhooks doctor` to check the server, the key and the hooks.",
        ]
    return [
        "Restart Claude Code (it reads hooks at start-up); `/hooks` lists them.",
        "Then run `ovhooks doctor` to check the server, the key and the hooks.",
    ]


def do_install(
    host: str,
    scope: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    executable: str | None = None,
    dry_run: bool = False,
    trust: bool = False,
) -> dict[str, Any]:
    _check_host_scope(host, scope)
    if trust and host != "codex":
        raise CommandError(
            "--trust is for Codex (Claude Code has no hook trust step)",
            fix="drop --trust",
            code=ExitCode.USAGE,
            slug="usage",
        )
    exe = executable or hostconfig.hook_executable()
    path = hostconfig.hooks_file(host, scope, environ, cwd)
    result: dict[str, Any] = {
        "host": host,
        "scope": scope,
        "dry_run": dry_run,
        "executable": exe,
        "events": [event for event, *_ in hostconfig.HOOK_TABLE[host]],
        "hooks_file": install_hooks_file(path, host, exe, dry_run=dry_run),
        "config_toml": None,
    }
    if host == "codex":
        result["config_toml"] = enable_codex_feature(
            hostconfig.codex_config_toml(environ), dry_run=dry_run
        )
    if trust:
        from ovhooks.commands import codex_trust

        codex = codex_trust.find_codex(dict(environ))
        if codex is None:
            raise CommandError(
                "--trust needs the `codex` command on PATH to learn the hooks' trust hashes",
                fix="put codex on PATH, or trust the ovhooks hooks in Codex's /hooks",
                code=ExitCode.ERROR,
                slug="codex_trust",
            )
        hooks = codex_trust.list_hooks(codex, cwd, environ)
        result["trust"] = codex_trust.trust_ovhooks(
            hostconfig.codex_config_toml(environ), hooks, dry_run=dry_run
        )
    result["next_steps"] = next_steps(host, scope)
    if trust:
        result["next_steps"] = [s for s in result["next_steps"] if "/hooks" not in s]
    return result


def do_uninstall(
    host: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool = False
) -> dict[str, Any]:
    _check_host_scope(host, scope)
    path = hostconfig.hooks_file(host, scope, environ, cwd)
    trust_keys: frozenset[str] = frozenset()
    if host == "codex":
        from ovhooks.commands.codex_trust import trust_key

        try:
            installed, _ = read_json_doc(path)
        except CommandError:
            installed = {}
        trust_keys = frozenset(trust_key(path, e, g, h) for e, g, h, _c in our_handlers(installed))
    result: dict[str, Any] = {
        "host": host,
        "scope": scope,
        "dry_run": dry_run,
        "hooks_file": uninstall_hooks_file(path, dry_run=dry_run),
        "config_toml": None,
    }
    if host == "codex":
        other = "project" if scope == "user" else "user"
        other_path = hostconfig.hooks_file(host, other, environ, cwd)
        still_used = other_path != path and _installed_in(other_path)
        if not still_used:
            result["config_toml"] = revert_codex_feature(
                hostconfig.codex_config_toml(environ), dry_run=dry_run, trust_keys=trust_keys
            )
    if not dry_run:
        result["removed_dirs"] = remove_created_dirs(path)
    return result


def _installed_in(path: str) -> bool:
    try:
        doc, _ = read_json_doc(path)
    except CommandError:
        return False
    return bool(our_handlers(doc))


def _render_install(result: dict[str, Any], *, removing: bool) -> Any:
    from rich.markup import escape

    def render(console: Any) -> None:
        host = "Codex" if result["host"] == "codex" else "Claude Code"
        verb = "removed from" if removing else "installed for"
        prefix = "(dry run) would be " if result["dry_run"] else ""
        console.print(f"[bold]ovhooks {prefix}{verb} {host}[/] ({result['scope']} scope)")
        for label, key in (
            ("hooks", "hooks_file"),
            ("config.toml", "config_toml"),
            ("trust", "trust"),
        ):
            info = result.get(key)
            if not info:
                continue
            line = f"  {label}: {escape(info['path'])} — {info['action']}"
            if info.get("detail"):
                line += f" ({escape(info['detail'])})"
            if info.get("backup"):
                line += f"; backup: {escape(info['backup'])}"
            console.print(line)
            if info.get("fix"):
                console.print(f"  [yellow]fix:[/] {escape(info['fix'])}")
        for directory in result.get("removed_dirs") or []:
            console.print(f"  folder: {escape(directory)} — removed (ovhooks had created it)")
        if not removing:
            console.print(
                f"  command: {escape(result['executable'])} <hook> --host {result['host']}"
            )
            console.print("[bold]Next:[/]")
            for step in result["next_steps"]:
                console.print(f"  • {escape(step)}")

    return render


def register(app: typer.Typer) -> None:
    import typer

    from ovhooks.commands.output import JsonOption, Output, boundary

    host_arg = typer.Argument(..., help="codex or claude")
    scope_opt = typer.Option(
        "user",
        "--scope",
        help="user: the host's user config (~/.codex/hooks.json, ~/.claude/settings.json); "
        "project: the current git project's .codex/hooks.json or .claude/settings.json.",
    )
    dry_opt = typer.Option(False, "--dry-run", help="Say what would change; write nothing.")

    @app.command("install", rich_help_panel="Set-up")
    @boundary("install")
    def install(
        host: str = host_arg,
        scope: str = scope_opt,
        exe: str = typer.Option(
            None,
            "--exe",
            help="Command that starts ovhooks in the hooks (default: the absolute path of the "
            "ovhooks script of this installation). Use `ovhooks` for a shared project file.",
        ),
        dry_run: bool = dry_opt,
        trust: bool = typer.Option(
            False,
            "--trust",
            help="Codex only: record Codex's trust for ovhooks' own hooks now (asks Codex for "
            "their hashes), instead of reviewing them in Codex's /hooks.",
        ),
        as_json: bool = JsonOption,
    ) -> int:
        """Register ovhooks' hooks with Codex or Claude Code (idempotent; other hooks kept).

        Merges one entry per hook event into the host's hooks file, keeps a backup
        (<file>.ovhooks.bak), writes atomically, and for Codex switches the hooks feature on.
        Running it again changes nothing.
        """
        result = do_install(
            host, scope, os.environ, os.getcwd(), executable=exe, dry_run=dry_run, trust=trust
        )
        Output("install", as_json=as_json).emit(result, _render_install(result, removing=False))
        return 0

    @app.command("uninstall", rich_help_panel="Set-up")
    @boundary("uninstall")
    def uninstall(
        host: str = host_arg,
        scope: str = scope_opt,
        dry_run: bool = dry_opt,
        as_json: bool = JsonOption,
    ) -> int:
        """Remove exactly ovhooks' hooks from Codex or Claude Code; nothing else changes.

        Right after an install, the files come back byte for byte as they were.
        """
        result = do_uninstall(host, scope, os.environ, os.getcwd(), dry_run=dry_run)
        Output("uninstall", as_json=as_json).emit(result, _render_install(result, removing=True))
        return 0
