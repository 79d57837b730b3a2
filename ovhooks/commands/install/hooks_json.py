"""Pure edits of a host's hooks JSON document: ovhooks' groups merged in or taken out, the
user's hooks untouched and in place, and the text rendered in the file's own style."""

from __future__ import annotations

import copy
import json
import re

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


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


# Gemini CLI 0.24-0.25 kept these switches inside ``hooks``; Gemini still skips them there.
SETTINGS_KEYS = frozenset({"enabled", "disabled", "notifications"})


def _events(hooks: dict[str, Any]) -> list[str]:
    """The keys of ``hooks`` that are events (not Gemini's old switches)."""
    return [e for e in hooks if not (e in SETTINGS_KEYS and not isinstance(hooks[e], list))]


def _hooks_table(doc: dict[str, Any], path: str) -> dict[str, Any]:
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CommandError(
            f'{path}: "hooks" is not an object', fix="fix the file by hand, then run again"
        )
    for event in _events(hooks):
        groups = hooks[event]
        if event == "hooks" and isinstance(groups, dict):  # a top-level file, wrapped
            raise CommandError(
                f'{path}: the events are inside a "hooks" object, and this host reads them '
                "at the top level of the file",
                fix='move the events out of the "hooks" object and remove it, then run again',
            )
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
    _strip_events(hooks, [event for event in _events(hooks) if event not in wanted])
    for event, group in wanted.items():
        groups = list(hooks.get(event, []))
        if group in groups:
            hooks[event] = _strip_ours(groups, keep=groups.index(group))
        else:
            hooks[event] = [*_strip_ours(groups), copy.deepcopy(group)]
    new["hooks"] = hooks
    return new


def _strip_events(hooks: dict[str, Any], events: list[str]) -> None:
    """Remove ovhooks' handlers from ``events`` of ``hooks``; an event left empty goes."""
    for event in events:
        stripped = _strip_ours(hooks[event])
        if stripped != hooks[event]:
            if stripped:
                hooks[event] = stripped
            else:
                del hooks[event]


def remove_hooks(doc: dict[str, Any], path: str = "") -> dict[str, Any]:
    """``doc`` without any ovhooks handler; containers emptied by the removal go too."""
    new = copy.deepcopy(doc)
    if "hooks" not in new:
        return new
    hooks = _hooks_table(new, path)
    _strip_events(hooks, _events(hooks))
    if not hooks and doc.get("hooks"):
        del new["hooks"]
    return new


def wrapped(doc: dict[str, Any], top_level: bool) -> dict[str, Any]:
    """A hooks file keyed by event at its top level (``HostSpec.hooks_at_top``) as the
    ``{"hooks": …}`` document the functions here edit; ``unwrapped`` takes it back out."""
    return {"hooks": doc} if top_level else doc


def unwrapped(doc: dict[str, Any], top_level: bool) -> dict[str, Any]:
    if not top_level:
        return doc
    hooks = doc.get("hooks")
    return hooks if isinstance(hooks, dict) else {}


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


def normalized(doc: object) -> object:
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


def _pruned(value: object) -> object:
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def same_but_empty_tables(first: object, second: object) -> bool:
    """Equal but for empty tables and lists, at any depth: uninstall takes a table it left
    empty away, and the user's file may have held it empty before the install (``"mcpServers":
    {}``); their backup's bytes then still come back."""
    return _pruned(first) == _pruned(second)


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
