"""Installing on Codex: the hooks file, the hooks feature flag in ``config.toml`` (switched on,
and set back on uninstall when nothing else changed), and with ``--trust`` the trust records
Codex asks for (taken back on uninstall)."""

from __future__ import annotations

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.install.files import (
    BACKUP_SUFFIX,
    check_host_files,
    file_mode,
    install_hooks_file,
    read_json_doc,
    read_text,
    remove_file,
    uninstall_hooks_file,
    write_file,
)
from ovhooks.commands.install.hooks_json import our_handlers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def enable_codex_feature(path: str, *, dry_run: bool = False) -> dict[str, Any]:
    from ovhooks.commands.install.codex_toml import enable_hooks_feature

    text = read_text(path)
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
        mode = file_mode(path)
        if text is not None:
            backup = path + BACKUP_SUFFIX
            write_file(backup, text, mode=0o600)  # a copy ovhooks made: private
        write_file(path, new, mode=mode)
    return {
        "path": path,
        "action": "created" if text is None else "updated",
        "detail": change,
        "backup": backup,
    }


def revert_codex_feature(
    path: str, *, dry_run: bool = False, trust_keys: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Undo ``enable_codex_feature`` (with ``--trust``'s records for ``trust_keys``, and the
    memory tools' ``[mcp_servers.ovhooks]``) when config.toml is otherwise as ovhooks left it."""
    from ovhooks.commands.install.codex_toml import enable_hooks_feature, trust_records
    from ovhooks.commands.install.codex_trust import without_trust
    from ovhooks.commands.install.mcp_config import drop_codex_server

    original = read_text(path)
    backup_path = path + BACKUP_SUFFIX
    backup = read_text(backup_path)
    if original is None:
        return {"path": path, "action": "absent", "detail": "", "backup": None}
    dropped = sorted(set(trust_records(original)) & trust_keys)
    text = without_trust(original, set(dropped)) if dropped else original
    text, unregistered = drop_codex_server(text)
    also = f"; {len(dropped)} trust record(s) of ovhooks' hooks removed" if dropped else ""
    also += "; memory tools ([mcp_servers.ovhooks]) removed" if unregistered else ""
    try:
        if backup is not None and enable_hooks_feature(backup)[0] == text:
            if not dry_run:
                write_file(path, backup, mode=file_mode(path))
                remove_file(backup_path)
            return {
                "path": path,
                "action": "restored",
                "detail": "hooks feature flag set back as it was" + also,
                "backup": None,
            }
        if backup is None and text.strip() == enable_hooks_feature("")[0].strip():
            if not dry_run:
                remove_file(path)
            return {
                "path": path,
                "action": "removed",
                "detail": "ovhooks had created it",
                "backup": None,
            }
    except ValueError:
        pass
    return _left_on(path, original, text, also, backup is None, dry_run=dry_run)


def _left_on(
    path: str, original: str, text: str, also: str, no_backup: bool, *, dry_run: bool
) -> dict[str, Any]:
    """The feature flag stays on: write what else uninstall took out, if anything."""
    if text != original:
        if not dry_run:
            write_file(path, text, mode=file_mode(path))
        return {
            "path": path,
            "action": "updated",
            "detail": also.lstrip("; ") + "; the hooks feature flag stays on "
            "(the file has other changes since the install, or ovhooks found it on)",
            "backup": None,
        }
    if no_backup:
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


def next_steps(scope: str, *, trust: bool) -> list[str]:
    steps = [
        "Start `codex` and type /hooks: review and trust the ovhooks hooks. Codex skips "
        "untrusted hooks without a word. (Or run `ovhooks install codex --trust`, which "
        "records Codex's trust for ovhooks' own hooks only.)",
        *(
            ["Codex reads project hooks only in a trusted project folder."]
            if scope == "project"
            else []
        ),
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ]
    return [s for s in steps if "/hooks" not in s] if trust else steps


def _record_trust(environ: Mapping[str, str], cwd: str, *, dry_run: bool) -> dict[str, Any]:
    from ovhooks.commands.install import codex_trust

    codex = codex_trust.find_codex(dict(environ))
    if codex is None:
        raise CommandError(
            "--trust needs the `codex` command on PATH to learn the hooks' trust hashes",
            fix="put codex on PATH, or trust the ovhooks hooks in Codex's /hooks",
            code=ExitCode.ERROR,
            slug="codex_trust",
        )
    hooks = codex_trust.list_hooks(codex, cwd, environ)
    return codex_trust.trust_ovhooks(hostconfig.codex_config_toml(environ), hooks, dry_run=dry_run)


def install(
    path: str,
    exe: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    dry_run: bool,
    trust: bool,
    mcp: bool = False,
) -> dict[str, Any]:
    """The hooks file, then the feature flag, then (``mcp``) the memory tools' server, then
    (``trust``) the trust records."""
    config_toml = hostconfig.codex_config_toml(environ)
    # One we cannot read (or a link into a missing folder) stops the install before any write.
    check_host_files(path, config_toml, writing=not dry_run)
    done: dict[str, Any] = {
        "hooks_file": install_hooks_file(path, "codex", exe, dry_run=dry_run),
        "config_toml": enable_codex_feature(config_toml, dry_run=dry_run),
    }
    if mcp and done["config_toml"]["action"] != "manual":  # a file we must not edit
        from ovhooks.commands.install.mcp_files import register_codex

        done["mcp"] = [register_codex(config_toml, exe, dry_run=dry_run)]
    if trust:
        done["trust"] = _record_trust(environ, cwd, dry_run=dry_run)
    return done


def _installed_in(path: str) -> bool:
    try:
        doc, _ = read_json_doc(path)
    except CommandError:
        return False
    return bool(our_handlers(doc))


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    """The hooks file; then, unless the other scope still has ovhooks' hooks, the feature
    flag and the trust records of the handlers just removed."""
    from ovhooks.commands.install.codex_trust import trust_key

    # Unreadable: nothing is changed. Uninstall writes only into files that exist, so a
    # dangling link is no reason to stop.
    check_host_files(path, hostconfig.codex_config_toml(environ), writing=False)
    try:
        installed, _ = read_json_doc(path)
    except CommandError:
        installed = {}
    trust_keys = frozenset(trust_key(path, e, g, h) for e, g, h, _c in our_handlers(installed))
    done: dict[str, Any] = {
        "hooks_file": uninstall_hooks_file(path, dry_run=dry_run),
        "config_toml": None,
    }
    other = "project" if scope == "user" else "user"
    other_path = hostconfig.hooks_file("codex", other, environ, cwd)
    config_toml = hostconfig.codex_config_toml(environ)
    if not (other_path != path and _installed_in(other_path)):
        done["config_toml"] = revert_codex_feature(
            config_toml, dry_run=dry_run, trust_keys=trust_keys
        )
    elif scope == "user":  # the project keeps its hooks and the flag; the tools go
        from ovhooks.commands.install.mcp_files import unregister_codex

        done["mcp"] = unregister_codex(config_toml, dry_run=dry_run)
    return done
