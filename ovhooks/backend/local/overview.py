"""The archive's extractive overview: requests made, decisions stated, files and commands
touched, tools used. Pure and deterministic: the same turns give the same archive."""

from __future__ import annotations

import re

from ovhooks.backend.local.forms import (
    is_command,
    is_question,
    states_decision,
    states_preference,
)
from ovhooks.backend.local.messages import message_parts, one_line, parts_text, prose, sentences

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

_FILE_KEYS = ("file_path", "path", "notebook_path", "filePath", "filename", "target_file")
_COMMAND_KEYS = ("command", "cmd")
_PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)


def _tool_files(tool_input: Any) -> list[str]:
    files: list[str] = []
    if isinstance(tool_input, dict):
        for key in _FILE_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value.strip():
                files.append(value.strip())
        paths = tool_input.get("paths")
        if isinstance(paths, list):
            files.extend(p for p in paths if isinstance(p, str) and p.strip())
        patch = tool_input.get("patch") or tool_input.get("input")
        if isinstance(patch, str):
            files.extend(m.strip() for m in _PATCH_FILE_RE.findall(patch))
    elif isinstance(tool_input, str):
        files.extend(m.strip() for m in _PATCH_FILE_RE.findall(tool_input))
    return files


def _tool_command(tool_input: Any) -> str:
    if not isinstance(tool_input, dict):
        return ""
    for key in _COMMAND_KEYS:
        value = tool_input.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            return value.strip().splitlines()[0]
    return ""


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _section(title: str, items: Sequence[str], limit: int) -> list[str]:
    if not items:
        return []
    lines = [f"## {title}"]
    lines.extend(f"- {item}" for item in items[:limit])
    if len(items) > limit:
        lines.append(f"- (+{len(items) - limit} more)")
    return [*lines, ""]


class Overview:
    """The archive's extractive summary: Markdown ``text`` and a one-line ``abstract``."""

    __slots__ = ("abstract", "text")

    def __init__(self, text: str, abstract: str) -> None:
        self.text = text
        self.abstract = abstract


def build_overview(messages: Sequence[Mapping[str, Any]], title: str) -> Overview:
    """Requests made, decisions stated, files and commands touched, tools used."""
    requests: list[str] = []
    decisions: list[str] = []
    files: list[str] = []
    commands: list[str] = []
    tool_counts: dict[str, int] = {}
    for message in messages:
        role = message.get("role")
        parts = message_parts(message)
        text = prose(parts_text(parts, tools=False))
        if role == "user" and text:
            first = next(iter(sentences(text)), "")
            if first and not is_command(first):
                requests.append(one_line(first, 160))
        for sentence in sentences(text):
            if is_question(sentence):
                continue
            if states_decision(sentence) or (role == "user" and states_preference(sentence)):
                decisions.append(one_line(sentence, 200))
        for part in parts:
            if part.get("type") != "tool":
                continue
            name = str(part.get("tool_name") or "tool")
            tool_counts[name] = tool_counts.get(name, 0) + 1
            tool_input = part.get("tool_input")
            files.extend(_tool_files(tool_input))
            command = _tool_command(tool_input)
            if command:
                commands.append(one_line(command, 160))
    requests = _unique(requests)
    decisions = _unique(decisions)
    files = _unique(files)
    commands = _unique(commands)
    lines = [f"# {title}", ""]
    lines += _section("Requests", requests, 12)
    lines += _section("Decisions and preferences stated", decisions, 10)
    lines += _section("Files touched", files, 20)
    lines += _section("Commands run", [f"`{c}`" for c in commands], 12)
    if tool_counts:
        used = ", ".join(f"{name} ×{n}" for name, n in sorted(tool_counts.items()))
        lines += ["## Tools used", used, ""]
    n_user = sum(1 for m in messages if m.get("role") == "user")
    abstract = f"{len(messages)} messages, {n_user} from the user"
    if requests:
        abstract += f"; first request: {requests[0]}"
    if files:
        abstract += f"; {len(files)} file(s) touched"
    return Overview("\n".join(lines).rstrip() + "\n", one_line(abstract, 240))
