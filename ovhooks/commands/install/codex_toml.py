"""Codex ``config.toml``: the hooks feature flag and the hook trust records.

Reading is ``tomllib``'s (strict, as Codex is). Switching the flag on is an edit with
``tomlkit``, which keeps the user's comments, key order, quoting and layout, and extends the
table in whatever form it has (a ``[features]`` table, an inline ``features = {...}``, dotted
``features.hooks`` keys, quoted keys); the result is parsed again before anyone writes it.
Only human commands (install, uninstall) import ``tomlkit``: never a hook.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tomlkit import TOMLDocument
    from tomlkit.container import OutOfOrderTableProxy
    from tomlkit.items import InlineTable, Table

ENABLED = "enabled the hooks feature ([features] hooks = true)"
SWITCHED = "switched the hooks feature on ([features] hooks = true)"


def parse(text: str) -> dict[str, object]:
    from ovhooks.settings.toml_plain import loads

    return loads(text.encode("utf-8"))


def hooks_feature(text: str) -> str:
    """``on``, ``off``, ``absent``, ``alias-on``/``alias-off`` (deprecated ``codex_hooks``).

    Raises ``ValueError`` when the file is not valid TOML.
    """
    features = parse(text).get("features")
    if isinstance(features, dict):
        if "hooks" in features:
            return "on" if features["hooks"] is True else "off"
        if "codex_hooks" in features:
            return "alias-on" if features["codex_hooks"] is True else "alias-off"
    return "absent"


def enable_hooks_feature(text: str) -> tuple[str, str]:
    """(new text, what changed) with ``[features] hooks = true``; unchanged when already on.

    ``alias-on`` is left alone: the deprecated ``codex_hooks = true`` still switches hooks on;
    ``codex_hooks = false`` becomes ``hooks = true`` (its comment kept), so no two names can
    disagree. Raises ``ValueError`` when the file cannot be edited safely (then say how to do
    it by hand).
    """
    state = hooks_feature(text)
    if state in ("on", "alias-on"):
        return text, ""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    newline = "\r\n" if "\r\n" in text else "\n"
    source = text
    if "features" not in parse(text) and text and not text.endswith("\n"):
        source += newline  # the new table goes after a line of its own
    try:
        doc = tomlkit.parse(source)
        change = _switch_on(doc, separate=bool(text.strip()))
        change = SWITCHED if state in ("off", "alias-off") else change
        new = tomlkit.dumps(doc)
    except TOMLKitError as exc:
        raise ValueError(f"config.toml could not be edited: {exc}") from None
    if newline == "\r\n":  # new lines in the file's own line ends
        new = re.sub(r"(?<!\r)\n", newline, new)
    return _checked(new, change)


def _switch_on(doc: TOMLDocument, *, separate: bool) -> str:
    """Set ``features.hooks = true`` in ``doc``, in the form ``features`` already has."""
    import tomlkit
    from tomlkit.container import OutOfOrderTableProxy
    from tomlkit.items import AoT, InlineTable, Table

    features = doc.get("features")
    if features is None:
        table = tomlkit.table()
        table.add("hooks", True)
        if separate:
            doc.add(tomlkit.nl())
        doc.add("features", table)
        return ENABLED
    if isinstance(features, AoT):
        raise ValueError("`[[features]]` in config.toml is an array of tables, not a table")
    if not isinstance(features, Table | InlineTable | OutOfOrderTableProxy):
        value = features.as_string().strip()[:40]
        raise ValueError(f"`features = {value}` in config.toml is not a table")
    if isinstance(features, OutOfOrderTableProxy):
        features = _part_to_edit(doc, features)
    flag = tomlkit.item(True)
    if "codex_hooks" in features and "hooks" not in features:
        comment = _comment(features, "codex_hooks")
        if comment:
            flag.comment(comment)
        del features["codex_hooks"]
    features["hooks"] = flag
    return ENABLED


def _part_to_edit(doc: TOMLDocument, proxy: OutOfOrderTableProxy) -> Table | OutOfOrderTableProxy:
    """Of a ``[features]`` table written in parts (other tables between them), the part that
    holds the deprecated flag, else the first explicit ``[features]`` part."""
    from tomlkit.items import Table

    parts = [
        item
        for key, item in doc.body
        if key is not None and key.key == "features" and isinstance(item, Table)
    ]
    explicit = [p for p in parts if not p.is_super_table()]
    with_alias = [p for p in explicit if "codex_hooks" in p]
    chosen = with_alias or explicit
    return chosen[0] if chosen else proxy


def _comment(table: Table | InlineTable | OutOfOrderTableProxy, key: str) -> str:
    """The comment after ``key``'s value in ``table``, without its ``#``."""
    item = getattr(table, "item", None)
    trivia = getattr(item(key), "trivia", None) if item is not None else None
    return str(getattr(trivia, "comment", "")).lstrip("# ").strip()


def _checked(new: str, change: str) -> tuple[str, str]:
    if hooks_feature(new) != "on":
        raise ValueError("the edited file does not switch hooks on")
    return new, change


def trust_records(text: str) -> dict[str, str]:
    """Hook key (``<hooks.json>:<event>:<group>:<handler>``) -> ``trusted_hash``."""
    try:
        hooks = parse(text).get("hooks")
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
