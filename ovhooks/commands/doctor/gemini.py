"""Doctor's checks of Gemini CLI's settings: what makes it skip ovhooks' hooks without a word.

- ``hooksConfig.enabled: false`` (user or project ``settings.json``) switches every hook off;
- ``hooksConfig.disabled`` can name ovhooks' hooks (``ovhooks-stop``…) or their commands;
- folder trust (on unless ``security.folderTrust.enabled: false``): in a folder not trusted in
  ``trustedFolders.json`` Gemini skips every settings hook (and a headless run refuses to
  start), unless the run says ``--skip-trust`` or ``GEMINI_CLI_TRUST_WORKSPACE=true``.
"""

from __future__ import annotations

import json
import os

from ovhooks.commands import hostconfig
from ovhooks.fsutil import read_text_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    Registration = tuple[str, str, list[tuple[str, int, int, str]]]


def _read(path: str) -> dict[str, Any]:
    try:
        doc = json.loads(read_text_file(path))
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _setting(docs: list[dict[str, Any]], section: str, key: str) -> Any:
    """The value of ``section.key`` in the first document that has it (project first)."""
    for doc in docs:
        table = doc.get(section)
        if isinstance(table, dict) and key in table:
            return table[key]
    return None


def trust_of(cwd: str, rules: Mapping[str, Any]) -> bool | None:
    """Gemini's verdict on ``cwd``: the longest matching rule wins; None when no rule says."""
    location = os.path.realpath(cwd)
    best, verdict = -1, None
    for rule, level in rules.items():
        folder = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        folder = os.path.realpath(folder)
        inside = location == folder or location.startswith(folder.rstrip(os.sep) + os.sep)
        if inside and len(rule) > best:
            best, verdict = len(rule), level
    if verdict == "DO_NOT_TRUST":
        return False
    return True if verdict in ("TRUST_FOLDER", "TRUST_PARENT") else None


def check_settings(
    environ: Mapping[str, str],
    cwd: str,
    found: list[Registration],
    status: str,
    fix: str,
) -> tuple[str, str, list[str]]:
    """(status, fix, notes) after the settings checks, worsening what the caller had."""
    user = hostconfig.hooks_file("gemini", "user", environ, cwd)
    project = hostconfig.hooks_file("gemini", "project", environ, cwd)
    docs = [_read(project), _read(user)] if project != user else [_read(user)]
    notes: list[str] = []
    if _setting(docs, "hooksConfig", "enabled") is False:
        notes.append("hooksConfig.enabled is false: Gemini CLI runs no hook at all")
        return "fail", 'set "hooksConfig": {"enabled": true} in Gemini\'s settings.json', notes
    disabled = _setting(docs, "hooksConfig", "disabled")
    ours = {f"ovhooks-{command}" for _e, command, *_ in hostconfig.HOOK_TABLE["gemini"]}
    ours |= {handler[3] for _scope, _path, handlers in found for handler in handlers}
    if isinstance(disabled, list) and ours & {str(d) for d in disabled}:
        notes.append("hooksConfig.disabled lists ovhooks' hooks: Gemini CLI skips them")
        status, fix = "fail", "remove ovhooks' hooks from hooksConfig.disabled (or /hooks panel)"
    folder_trust = _setting(docs, "security", "folderTrust")
    trust_on = not (isinstance(folder_trust, dict) and folder_trust.get("enabled") is False)
    bypass = environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true"
    if trust_on and not bypass:
        rules_path = environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
            hostconfig.gemini_dir(environ), "trustedFolders.json"
        )
        if trust_of(cwd, _read(rules_path)) is not True:
            notes.append(
                f"{cwd} is not a trusted folder: Gemini CLI skips every settings hook here"
            )
            if status == "ok":
                status, fix = "warn", "trust this folder in Gemini CLI (it asks on start-up)"
    return status, fix, notes
