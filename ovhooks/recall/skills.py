"""Skill memory (seed 004, component 4): what memory holds about a skill, when it is opened.

A skill memory is anchored to one skill, so the moment the agent reads
``skills/<name>/SKILL.md`` is the moment it is useful: the PostToolUse hook adds it next to the
file the agent just read (usage, tips, known pitfalls), and the SKILL.md itself stays as it is.

Where the memories are: OpenViking keeps one file per skill in the ``skills`` memory category,
``memories/skills/<name>.md`` (read exactly), and its agent-evolution ``experiences`` that
mention the skill (found by search). Both look-ups share one short deadline and fail open: a
slow or missing server means no block, never a slow Read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.backend.base import Backend

SKILL_FILE = "SKILL.md"
SKILL_MEMORY_DIR = "viking://~/memories/skills/"
EXPERIENCE_DIR = "viking://~/memories/experiences"
# Front matter is at the top; a skill's name is never further in than this.
HEAD_BYTES = 4096
MAX_BLOCK_CHARS = 3000
MAX_EXPERIENCES = 3
_NAME_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def skill_file(tool_name: str, tool_input: Mapping[str, Any]) -> str:
    """The path of the SKILL.md a Read opened, or ``""`` for any other call."""
    if tool_name != "Read":
        return ""
    path = tool_input.get("file_path") or tool_input.get("path")
    if not isinstance(path, str):
        return ""
    parts = path.replace("\\", "/").split("/")
    # skills/<name>/SKILL.md, possibly deeper (plugins nest skills/<group>/<name>/SKILL.md)
    if len(parts) < 3 or parts[-1] != SKILL_FILE or "skills" not in parts[:-2]:
        return ""
    return path


def skill_name(path: str, head: str) -> str:
    """The skill's name: front matter ``name:``, else its directory's name."""
    if head.startswith("---"):
        for line in head.splitlines()[1:]:
            if line.strip() == "---":
                break
            key, sep, value = line.partition(":")
            if sep and key.strip() == "name":
                name = value.strip().strip("\"'").strip()
                if name:
                    return name
    parts = path.replace("\\", "/").split("/")
    return parts[-2] if len(parts) >= 2 else ""


def memory_uri(name: str) -> str:
    """``memories/skills/<name>.md``; names are mapped to the characters a URI keeps as is."""
    safe = "".join(ch if ch in _NAME_SAFE else "-" for ch in name.strip()).strip(".-")
    return SKILL_MEMORY_DIR + safe + ".md" if safe else ""


def read_head(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


def escape(text: str) -> str:
    """Keep memory text from closing or opening our envelope (anchor G14)."""
    return text.replace("<openviking-context", "&lt;openviking-context").replace(
        "</openviking-context", "&lt;/openviking-context"
    )


def lookup(backend: Backend, name: str) -> tuple[str, list[dict[str, Any]]]:
    """(the skill's memory file text, related experiences); raises ``BackendError``.

    A missing memory file is normal (most skills have none yet); it is not an error.
    """
    from ovhooks.transport.errors import BackendError

    text = ""
    uri = memory_uri(name)
    if uri:
        try:
            text = backend.read(uri)
        except BackendError as exc:
            if not exc.not_found:
                raise
    found = backend.find(
        f"skill {name}: usage, tips, known pitfalls",
        target_uri=EXPERIENCE_DIR,
        limit=MAX_EXPERIENCES * 2,
    )
    experiences = []
    for hit in found.get("memories") or []:
        if not isinstance(hit, dict):
            continue
        hit_uri = str(hit.get("uri") or "")
        if not hit_uri or hit_uri == uri or hit_uri.endswith(("/.abstract.md", "/.overview.md")):
            continue
        if not str(hit.get("abstract") or "").strip():
            continue
        experiences.append(hit)
        if len(experiences) == MAX_EXPERIENCES:
            break
    return text.strip(), experiences


def render(name: str, text: str, experiences: list[dict[str, Any]]) -> str:
    """The additionalContext block, or ``""`` when memory has nothing on this skill."""
    if not text and not experiences:
        return ""
    lines = [
        f'<openviking-context source="skill-memory" skill="{escape(name).replace(chr(34), "")}">',
        f"What memory holds about the skill {name!r} from earlier sessions (usage, tips, "
        "known pitfalls). Advisory: the SKILL.md you just read stays authoritative.",
    ]
    budget = MAX_BLOCK_CHARS
    if text:
        body = escape(text)
        if len(body) > budget:
            body = (
                body[: budget - 40].rstrip()
                + "\n[…truncated; `ovhooks read "
                + (memory_uri(name) + "` for the rest]")
            )
        lines += [f"## {memory_uri(name)}", body]
        budget -= len(body)
    if experiences:
        lines.append("## Related experience")
        for hit in experiences:
            abstract = " ".join(str(hit.get("abstract") or "").split())[:300]
            line = f"- {escape(abstract)} ({hit.get('uri')})"
            if len(line) > budget:
                break
            lines.append(line)
            budget -= len(line)
    lines.append("</openviking-context>")
    return "\n".join(lines)
