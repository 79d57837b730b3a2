"""Tool traffic, compacted: what the agent chose to do, not the bytes it moved.

Users measured tool payloads at 78-79 % of captured bytes, mostly file bodies in Write/Edit
inputs and command output, and memory extraction drowned in them. So:

- file-writing tools (Write, Edit, MultiEdit, NotebookEdit, Codex ``apply_patch`` in any of
  its forms) keep the path, sizes and a short preview of what was written instead of the body;
- shell commands are kept (long ones cut in the middle, heredoc bodies included);
- any other input keeps its keys, with long strings cut to a preview;
- results are dropped unless asked for, then cut to a cap;
- each assistant turn gets a one-line summary: ``Tools: Bash×2, Edit(src/app.py)``.

Strings pass through ``clean`` (the secret scrubber, supplied by the caller) before they are
kept, so a key in a command line or a file body never survives into the preview.
"""

from __future__ import annotations

from ovhooks.capture.caps import cut_middle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ovhooks.model import ToolUse

PREVIEW_CHARS = 240  # preview of a written file body or an edit
SHELL_MAX_CHARS = 2000  # a shell command longer than this is cut in the middle
STRING_MAX_CHARS = 1000  # any other string input
PROMPT_MAX_CHARS = 2000  # sub-agent prompts are the agent's own words: keep more
LIST_MAX_ITEMS = 50
SUMMARY_MAX_CHARS = 400

# Lower-cased tool names whose input carries a whole file body or a patch.
_WRITE_TOOLS = frozenset({"write", "create_file", "write_file", "str_replace_based_edit_tool"})
_EDIT_TOOLS = frozenset({"edit", "edit_file", "str_replace_editor", "replace"})
_MULTI_EDIT_TOOLS = frozenset({"multiedit", "multi_edit"})
_NOTEBOOK_TOOLS = frozenset({"notebookedit", "notebook_edit"})
_PATCH_TOOLS = frozenset({"apply_patch", "applypatch", "patch"})
_SHELL_TOOLS = frozenset(
    {"bash", "shell", "exec_command", "local_shell", "container.exec", "run_command", "powershell"}
)
_PROMPT_KEYS = frozenset({"prompt", "description", "query", "pattern", "task"})
_PATH_KEYS = ("file_path", "path", "notebook_path", "filename", "file")


def _preview(text: str, clean: Callable[[str], str], limit: int = PREVIEW_CHARS) -> str:
    text = clean(text)
    return text if len(text) <= limit else text[:limit] + f"… [+{len(text) - limit} chars]"


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _path_of(data: Mapping[str, object]) -> str:
    for key in _PATH_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _patch_text(data: Mapping[str, object]) -> str:
    for key in ("input", "patch", "content", "value", "diff"):
        value = data.get(key)
        if isinstance(value, str):
            return value
    return ""


def patch_files(patch: str) -> list[dict[str, str]]:
    """The files a Codex ``*** Begin Patch`` envelope (or a unified diff) touches."""
    files: list[dict[str, str]] = []
    for line in patch.splitlines():
        for prefix, op in (
            ("*** Add File: ", "add"),
            ("*** Update File: ", "update"),
            ("*** Delete File: ", "delete"),
            ("*** Move to: ", "move"),
            ("+++ b/", "update"),
        ):
            if line.startswith(prefix):
                files.append({"op": op, "path": line[len(prefix) :].strip()})
                break
    return files


def _compact_patch(patch: str, clean: Callable[[str], str]) -> dict[str, object]:
    return {
        "files": patch_files(patch)[:LIST_MAX_ITEMS],
        "patch_chars": len(patch),
        "patch_lines": _lines(patch),
        "preview": _preview(patch, clean),
    }


def _compact_value(
    value: object, clean: Callable[[str], str], limit: int, depth: int = 0
) -> object:
    if isinstance(value, str):
        return cut_middle(clean(value), limit)
    if isinstance(value, dict):
        if depth > 4:
            return "{…}"
        return {
            str(k): _compact_value(v, clean, limit, depth + 1)
            for k, v in list(value.items())[:LIST_MAX_ITEMS]
        }
    if isinstance(value, list | tuple):
        if depth > 4:
            return "[…]"
        items = [_compact_value(v, clean, limit, depth + 1) for v in value[:LIST_MAX_ITEMS]]
        if len(value) > LIST_MAX_ITEMS:
            items.append(f"… [{len(value) - LIST_MAX_ITEMS} more]")
        return items
    if value is None or isinstance(value, bool | int | float):
        return value
    return cut_middle(clean(str(value)), limit)


def _shell_command(data: Mapping[str, object]) -> tuple[str, str]:
    """The key holding the command line and the command as one string."""
    for key in ("command", "cmd", "script"):
        value = data.get(key)
        if isinstance(value, str):
            return key, value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return key, " ".join(str(v) for v in value)
    return "", ""


def compact_input(
    name: str, data: Mapping[str, object], clean: Callable[[str], str]
) -> dict[str, object]:
    """The tool input as sent: metadata and previews for file bodies, commands cut if long."""
    lname = name.lower()
    path = _path_of(data)
    if lname in _WRITE_TOOLS and isinstance(data.get("content") or data.get("file_text"), str):
        body = str(data.get("content") or data.get("file_text"))
        out: dict[str, object] = {"file_path": path} if path else {}
        if isinstance(data.get("command"), str):
            out["command"] = data["command"]
        out.update(
            content_chars=len(body),
            content_lines=_lines(body),
            content_preview=_preview(body, clean),
        )
        return out
    if lname in _EDIT_TOOLS or (lname in _WRITE_TOOLS and "old_str" in data):
        old = str(data.get("old_string") or data.get("old_str") or "")
        new = str(data.get("new_string") or data.get("new_str") or "")
        out = {"file_path": path} if path else {}
        out.update(
            old_chars=len(old),
            new_chars=len(new),
            old_preview=_preview(old, clean, PREVIEW_CHARS // 2),
            new_preview=_preview(new, clean),
        )
        if data.get("replace_all"):
            out["replace_all"] = True
        return out
    raw_edits = data.get("edits")
    if lname in _MULTI_EDIT_TOOLS and isinstance(raw_edits, list):
        edits = [e for e in raw_edits if isinstance(e, dict)]
        return {
            "file_path": path,
            "edits": len(edits),
            "new_chars": sum(len(str(e.get("new_string") or "")) for e in edits),
            "new_preview": [
                _preview(str(e.get("new_string") or ""), clean, PREVIEW_CHARS // 2)
                for e in edits[:3]
            ],
        }
    if lname in _NOTEBOOK_TOOLS:
        source = str(data.get("new_source") or "")
        out = {
            str(k): _compact_value(v, clean, STRING_MAX_CHARS)
            for k, v in data.items()
            if k != "new_source"
        }
        out.update(source_chars=len(source), source_preview=_preview(source, clean))
        return out
    if lname in _PATCH_TOOLS:
        return _compact_patch(_patch_text(data), clean)
    if lname in _SHELL_TOOLS or "command" in data or "cmd" in data:
        command_key, command = _shell_command(data)
        if "*** Begin Patch" in command:
            # Codex sometimes applies patches through the shell: apply_patch <<'EOF' … EOF
            out = {command_key: cut_middle(clean(command.split("\n", 1)[0]), 200)}
            out.update(_compact_patch(command, clean))
            return out
        if command:
            out = {}
            for key, value in data.items():
                if key == command_key:
                    out[key] = cut_middle(clean(command), SHELL_MAX_CHARS)
                else:
                    out[str(key)] = _compact_value(value, clean, STRING_MAX_CHARS)
            return out
    result: dict[str, object] = {}
    for key, value in list(data.items())[:LIST_MAX_ITEMS]:
        limit = PROMPT_MAX_CHARS if key in _PROMPT_KEYS else STRING_MAX_CHARS
        result[str(key)] = _compact_value(value, clean, limit)
    return result


def tool_part(
    tool: ToolUse,
    clean: Callable[[str], str],
    *,
    fallback_id: str,
    results: bool = False,
    result_chars: int = 2000,
    clean_output: Callable[[str], str] | None = None,
) -> dict[str, object]:
    """One OpenViking tool part for a tool call, its output kept only when ``results``."""
    status = "error" if tool.is_error else ("running" if tool.output is None else "completed")
    part: dict[str, object] = {
        "type": "tool",
        "tool_id": tool.call_id or fallback_id,
        "tool_name": tool.name or "tool",
        "tool_input": compact_input(tool.name or "", dict(tool.input), clean),
        "tool_status": status,
    }
    if results and tool.output is not None and result_chars > 0:
        output = (clean_output or clean)(str(tool.output))
        if len(output) > result_chars:
            output = output[:result_chars] + f"\n… [truncated {len(output) - result_chars} chars]"
        part["tool_output"] = output
    return part


def _short_path(path: str) -> str:
    path = path.replace("\\", "/")
    if len(path) <= 48:
        return path
    parts = [p for p in path.split("/") if p]
    short = "/".join(parts[-2:])
    return "…/" + (short if len(short) <= 48 else short[-47:])


def summary_line(tools: Sequence[ToolUse]) -> str:
    """``Tools: Bash×2, Edit(src/app.py)``: what the agent did this turn, in order of first use."""
    order: list[str] = []
    counts: dict[str, int] = {}
    paths: dict[str, list[str]] = {}
    for tool in tools:
        name = tool.name or "tool"
        if name not in counts:
            order.append(name)
            counts[name] = 0
            paths[name] = []
        counts[name] += 1
        lname = name.lower()
        data = dict(tool.input)
        if lname in _PATCH_TOOLS:
            found = [f["path"] for f in patch_files(_patch_text(data))]
        elif lname in _WRITE_TOOLS | _EDIT_TOOLS | _MULTI_EDIT_TOOLS | _NOTEBOOK_TOOLS | {"read"}:
            found = [_path_of(data)] if _path_of(data) else []
        else:
            found = []
        for p in found:
            short = _short_path(p)
            if short not in paths[name]:
                paths[name].append(short)
    items = []
    for name in order:
        if paths[name]:
            shown = ", ".join(paths[name][:3])
            more = f", +{len(paths[name]) - 3}" if len(paths[name]) > 3 else ""
            items.append(f"{name}({shown}{more})")
        else:
            items.append(f"{name}×{counts[name]}" if counts[name] > 1 else name)
    line = "Tools: " + ", ".join(items)
    return line if len(line) <= SUMMARY_MAX_CHARS else line[: SUMMARY_MAX_CHARS - 1] + "…"
