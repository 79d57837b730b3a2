"""Commit without a language model: an extractive overview and rule-based memory candidates.

Everything here is pure (messages in, text and candidates out) and deterministic, so a commit
on the local store gives the same archive for the same turns, and tests can pin it.

Honesty over cleverness: the overview only quotes what was said and done (requests, stated
decisions, files and commands from tool parts); a memory candidate is a sentence the *user*
wrote that matches an explicit trigger ("I prefer", "remember", "我喜欢", "决定" ...), kept
verbatim. Nothing is paraphrased or inferred.
"""

from __future__ import annotations

import re

from ovhooks.backend.local.text import has_cjk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

# --- message text -------------------------------------------------------------------------

# Any <tag>…</tag> block: injected context or host boilerplate that capture missed. Only used
# to keep such blocks out of overviews and candidates, never to alter stored messages.
_TAG_BLOCK_RE = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>.*?</\1\s*>", re.S)
_CODE_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.S)


def message_parts(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The message's parts, a plain ``content`` string becoming one text part."""
    parts = message.get("parts")
    if isinstance(parts, list) and parts:
        return [dict(p) for p in parts if isinstance(p, dict)]
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def parts_text(parts: Iterable[Mapping[str, Any]], *, tools: bool = True) -> str:
    """All text of the parts; tool parts as ``[tool name] input output`` when ``tools``."""
    import json

    chunks: list[str] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            chunks.append(part["text"])
        elif kind == "tool" and tools:
            name = part.get("tool_name") or "tool"
            tool_input = part.get("tool_input")
            text_in = (
                tool_input
                if isinstance(tool_input, str)
                else json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
                if tool_input
                else ""
            )
            output = part.get("tool_output")
            chunks.append(
                f"[tool {name}] {text_in} {output if isinstance(output, str) else ''}".strip()
            )
    return "\n".join(chunks)


def prose(text: str) -> str:
    """Text without tag blocks and code fences: what a person wrote, for quoting."""
    return _CODE_FENCE_RE.sub(" ", _TAG_BLOCK_RE.sub(" ", text)).strip()


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


# --- sentences and triggers ---------------------------------------------------------------

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def sentences(text: str) -> list[str]:
    """Sentences of prose, split on line breaks and on English and Chinese end marks."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _BULLET_RE.sub("", raw).strip()
        if not line:
            continue
        out.extend(s.strip() for s in _SENTENCE_SPLIT_RE.split(line) if s and s.strip())
    return out


class _Triggers:
    """The trigger patterns, compiled on first use (commit is a cold path)."""

    def __init__(self) -> None:
        flags = re.I
        self.question = re.compile(
            r"[?？]\s*$|^(?:who|what|when|where|why|how|which|is|are|do|does|did|can|could|"
            r"would|should|will)\b|^(?:什么|为什么|怎么|如何|哪|是否|能否|可以吗)|[吗呢]\s*$",
            flags,
        )
        self.command = re.compile(r"^/[\w-]{1,64}\b")
        self.remember = re.compile(
            r"\b(?:remember|don'?t forget|do not forget|keep in mind|note that|for future "
            r"reference|from now on|going forward|in the future)\b"
            r"|记住|记得|别忘|不要忘|以后|今后|从现在开始|往后",
            flags,
        )
        self.preference = re.compile(
            r"\b(?:i|we)\s+(?:really\s+|strongly\s+|usually\s+|always\s+|generally\s+)?"
            r"(?:prefer|like|love|hate|dislike|enjoy|avoid)\b"
            r"|\bprefer(?:s|red|ence|ences)?\b|\bfavou?rite\b|\b(?:always|never)\b"
            r"|\b(?:don'?t|do not|never)\s+use\b|\binstead of\b"
            r"|喜欢|偏好|偏爱|习惯|讨厌|倾向于|总是|永远|一律|务必|不要用|别用|请用|统一用|尽量",
            flags,
        )
        self.decision = re.compile(
            r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?decided\b|\bdecision\b|\bagreed\b"
            r"|\b(?:let'?s|let us|we'?ll|we will)\s+(?:go with|use|stick with|switch to|adopt|"
            r"keep)\b"
            r"|决定|决策|确定用|定了|就用|改用|采用|选定|商定|约定",
            flags,
        )
        self.identity = re.compile(
            r"\bmy\s+(?:name|email|e-mail|phone|birthday|timezone|time zone|github|handle|"
            r"username|team|company|role|job)\b|\bi\s+(?:live|am based|work)\s+(?:in|at|for)\b"
            r"|\bi'?m\s+from\b|\bcall me\b|[\w.+-]+@[\w-]+\.[\w.]+"
            r"|我叫|我的名字|我的邮箱|我住在|我来自|我是一名|叫我",
            flags,
        )
        self.project = re.compile(
            r"\b(?:this|our|the)\s+(?:project|repo|repository|codebase|app|service|package)\b"
            r"|这个项目|本项目|该项目|我们的项目|这个仓库|本仓库",
            flags,
        )
        self.important = re.compile(r"\bimportant\b|\bcritical\b|重要|关键", flags)
        self.first_person = re.compile(r"\b(?:i|i'm|me|my)\b|我", flags)


_TRIGGERS: list[_Triggers] = []  # filled on first use


def _triggers() -> _Triggers:
    if not _TRIGGERS:
        _TRIGGERS.append(_Triggers())
    return _TRIGGERS[0]


class Candidate:
    """A sentence worth keeping: ``category`` is preferences, entities or events."""

    __slots__ = ("category", "project", "subject", "text")

    def __init__(self, text: str, category: str, subject: str, project: bool) -> None:
        self.text = text
        self.category = category
        # entities: "person" or "project" or "facts"; otherwise "".
        self.subject = subject
        # True: belongs to the project (peer) it was said in; False: about the user anywhere.
        self.project = project

    def __repr__(self) -> str:
        return f"Candidate({self.category}, project={self.project}, {self.text!r})"


def classify(sentence: str) -> Candidate | None:
    """The memory a user's sentence states, or None when it states none (pure rules)."""
    text = sentence.strip()
    compact = "".join(text.split())
    cjk = has_cjk(compact)
    if len(compact) < (4 if cjk else 10) or len(text) > 400:
        return None
    t = _triggers()
    if t.command.search(text) or t.question.search(text):
        return None
    about_project = t.project.search(text) is not None
    if t.preference.search(text):
        personal = t.first_person.search(text) is not None and not about_project
        return Candidate(text, "preferences", "", project=not personal)
    if t.decision.search(text):
        return Candidate(text, "events", "", project=True)
    if t.identity.search(text):
        return Candidate(text, "entities", "person", project=False)
    if about_project and (t.remember.search(text) or t.important.search(text)):
        return Candidate(text, "entities", "project", project=True)
    if t.remember.search(text) or t.important.search(text):
        return Candidate(text, "entities", "facts", project=True)
    return None


def memory_candidates(user_texts: Iterable[str]) -> list[Candidate]:
    """Candidates from the user's turns, in order, without exact repeats."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for text in user_texts:
        for sentence in sentences(prose(text)):
            candidate = classify(sentence)
            if candidate is None:
                continue
            key = " ".join(candidate.text.lower().split())
            if key not in seen:
                seen.add(key)
                out.append(candidate)
    return out


# --- overview -----------------------------------------------------------------------------

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
    t = _triggers()
    for message in messages:
        role = message.get("role")
        parts = message_parts(message)
        text = prose(parts_text(parts, tools=False))
        if role == "user" and text:
            first = next(iter(sentences(text)), "")
            if first and not t.command.search(first):
                requests.append(_one_line(first, 160))
        for sentence in sentences(text):
            if t.question.search(sentence):
                continue
            if t.decision.search(sentence) or (role == "user" and t.preference.search(sentence)):
                decisions.append(_one_line(sentence, 200))
        for part in parts:
            if part.get("type") != "tool":
                continue
            name = str(part.get("tool_name") or "tool")
            tool_counts[name] = tool_counts.get(name, 0) + 1
            tool_input = part.get("tool_input")
            files.extend(_tool_files(tool_input))
            command = _tool_command(tool_input)
            if command:
                commands.append(_one_line(command, 160))
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
    return Overview("\n".join(lines).rstrip() + "\n", _one_line(abstract, 240))
