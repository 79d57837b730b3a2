"""Codex ``config.toml``: the hooks feature flag and the hook trust records.

Python can read TOML (``tomllib``) but not write it, and a user's ``config.toml`` carries
comments and layout worth keeping, so the flag is switched on by a minimal text edit that is
then checked by parsing the result.
"""

from __future__ import annotations

import re

_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ARRAY_TABLE = re.compile(r"^\s*\[\[")


def _parse(text: str) -> dict[str, object]:
    import tomllib

    return tomllib.loads(text)


def hooks_feature(text: str) -> str:
    """``on``, ``off``, ``absent``, ``alias-on``/``alias-off`` (deprecated ``codex_hooks``).

    Raises ``ValueError`` when the file is not valid TOML.
    """
    features = _parse(text).get("features")
    if isinstance(features, dict):
        if "hooks" in features:
            return "on" if features["hooks"] is True else "off"
        if "codex_hooks" in features:
            return "alias-on" if features["codex_hooks"] is True else "alias-off"
    return "absent"


def enable_hooks_feature(text: str) -> tuple[str, str]:
    """(new text, what changed) with ``[features] hooks = true``; unchanged when already on.

    ``alias-on`` is left alone: the deprecated ``codex_hooks = true`` still switches hooks on.
    Raises ``ValueError`` when the file cannot be edited safely (then say how to do it by hand).
    """
    state = hooks_feature(text)
    if state in ("on", "alias-on"):
        return text, ""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    table = ""
    header_at: int | None = None
    for i, line in enumerate(lines):
        if _ARRAY_TABLE.match(line):
            table = "[[array]]"
            continue
        match = _TABLE.match(line)
        if match:
            table = match.group(1).replace(" ", "")
            if table == "features" and header_at is None:
                header_at = i
            continue
        off = re.match(
            r"^(\s*)(features\.)?(hooks|codex_hooks)(\s*=\s*)false\b(.*)$", line, re.DOTALL
        )
        if off and state in ("off", "alias-off"):
            dotted = bool(off.group(2))
            if (dotted and table == "") or (not dotted and table == "features"):
                prefix = "features." if dotted else ""
                lines[i] = f"{off.group(1)}{prefix}hooks{off.group(4)}true{off.group(5)}"
                new = "".join(lines)
                change = "switched the hooks feature on ([features] hooks = true)"
                return _checked(new, change)
    if state in ("off", "alias-off"):
        raise ValueError("the hooks feature is off in a form ovhooks cannot edit")
    if header_at is not None:
        lines.insert(header_at + 1, f"hooks = true{newline}")
        new = "".join(lines)
    else:
        sep = ""
        if text and not text.endswith(("\n", "\r")):
            sep = newline
        if text.strip():
            sep += newline
        new = f"{text}{sep}[features]{newline}hooks = true{newline}"
    return _checked(new, "enabled the hooks feature ([features] hooks = true)")


def _checked(new: str, change: str) -> tuple[str, str]:
    if hooks_feature(new) != "on":
        raise ValueError("the edited file does not switch hooks on")
    return new, change


def trust_records(text: str) -> dict[str, str]:
    """Hook key (``<hooks.json>:<event>:<group>:<handler>``) -> ``trusted_hash``."""
    try:
        hooks = _parse(text).get("hooks")
    except ValueError:
        return {}
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return {}
    out: dict[str, str] = {}
    for key, record in state.items():
        if isinstance(record, dict) and isinstance(record.get("trusted_hash"), str):
            out[str(key)] = record["trusted_hash"]
    return out
