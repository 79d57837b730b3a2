"""Gemini CLI's dialect: its payloads read as the events ovhooks knows, replies as it accepts.

Gemini CLI (``settings.json`` command hooks, ``shared/spec/hosts-more.md`` §1) runs the same
``ovhooks`` commands as the other hosts, with ``--host gemini``: SessionStart, BeforeAgent ->
``user-prompt-submit``, AfterAgent -> ``stop``, PreCompress -> ``pre-compact``, SessionEnd,
BeforeTool -> ``pre-tool-use``, AfterTool -> ``post-tool-use``.

- Payloads: the ``<hook_context>`` blocks Gemini puts before the prompt (SessionStart's
  context in ``-p`` mode) are cut from ``prompt``; the file tools are read under the names the
  ``viking://`` guard and skill memory know (``read_file`` -> ``Read``, ``glob`` and
  ``list_directory`` -> ``Glob``, ``grep_search`` -> ``Grep``).
- Replies: exactly one JSON object, ``{}`` at the least (an empty stdout makes Gemini parse
  stderr instead); context as ``hookSpecificOutput.additionalContext`` under Gemini's event
  name; a denied tool as top-level ``decision``/``reason`` (a tool error for the model).
- SessionStart's context waits for the first BeforeAgent: in ``-p`` mode Gemini puts it
  *before* the prompt in the same message, and a resumed session then drops that whole
  message (user records starting with ``<hook_context>`` are skipped on resume), losing what
  the user said. BeforeAgent's context is a separate part after the prompt.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from ovhooks.hosts.spec import HostSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.hosts.reply import Reply

# The file tools the viking:// guard watches (BeforeTool's matcher, a regular expression).
FILE_TOOLS_MATCHER = "^(read_file|read_many_files|list_directory|glob|grep_search)$"
# ovhooks' event -> Gemini's name for it (the hookEventName of a reply).
GEMINI_EVENTS = {
    "SessionStart": "SessionStart",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
    "PreCompact": "PreCompress",
    "SessionEnd": "SessionEnd",
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
}
_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse"})
# Gemini's file tools -> the names the guard (events/pre_tool_use.py) knows; the shell is
# never guarded (``ovhooks read viking://…`` is what the guard tells the model to run).
TOOL_NAMES = {
    "read_file": "Read",
    "read_many_files": "Read",
    "list_directory": "Glob",
    "glob": "Glob",
    "grep_search": "Grep",
}


def gemini_dir(environ: Mapping[str, str]) -> str:
    """``$GEMINI_CLI_HOME/.gemini`` when set, else ``~/.gemini``."""
    from ovhooks.settings.layout import home_dir

    home = environ.get("GEMINI_CLI_HOME", "").strip()
    if home:
        return os.path.join(os.path.abspath(os.path.expanduser(home)), ".gemini")
    return os.path.join(home_dir(environ), ".gemini")


def _first_string(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        strings = [v for v in value if isinstance(v, str)]
        viking = [v for v in strings if v.strip().lower().startswith("viking://")]
        return (viking or strings or [""])[0]
    return ""


def _tool_input(gemini_tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """A Gemini tool's arguments under the keys the guard reads."""
    if gemini_tool == "read_file":
        return {"file_path": _first_string(args.get("file_path"))}
    if gemini_tool == "read_many_files":
        target = _first_string(args.get("include")) or _first_string(args.get("paths"))
        return {"file_path": target}
    if gemini_tool == "list_directory":
        return {"path": _first_string(args.get("dir_path") or args.get("path"))}
    out = {"pattern": _first_string(args.get("pattern"))}
    out["path"] = _first_string(args.get("dir_path") or args.get("path"))
    if gemini_tool == "grep_search":
        out["glob"] = _first_string(args.get("include"))
    return out


def normalize_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini's payload with the fields the events read in the form they read them."""
    out = dict(payload)
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and "<hook_context>" in prompt[:4096]:
        from ovhooks.transcripts.gemini import strip_hook_context

        out["prompt"] = strip_hook_context(prompt)
    tool = payload.get("tool_name")
    if isinstance(tool, str) and tool in TOOL_NAMES:
        args = payload.get("tool_input")
        out["gemini_tool_name"] = tool
        out["tool_name"] = TOOL_NAMES[tool]
        out["tool_input"] = _tool_input(tool, args if isinstance(args, dict) else {})
    return out


def render_reply(event_name: str, reply: Reply) -> str:
    """Exactly one JSON object Gemini accepts for ``event_name`` (ovhooks' name)."""
    from ovhooks.hosts.reply import cap_context

    out: dict[str, Any] = {}
    specific = reply.specific
    if event_name == "PreToolUse" and specific.get("permissionDecision") == "deny":
        out["decision"] = "deny"
        out["reason"] = str(specific.get("permissionDecisionReason") or "denied by ovhooks")
    elif event_name in _CONTEXT_EVENTS and reply.context:
        out["hookSpecificOutput"] = {
            "hookEventName": GEMINI_EVENTS[event_name],
            "additionalContext": cap_context(reply.context),
        }
    if reply.system_message:
        out["systemMessage"] = reply.system_message
    return json.dumps(out, ensure_ascii=False)


# --- SessionStart's context, held for the first BeforeAgent ---------------------------------


def _pending_path(state_dir: str, key: str) -> str:
    from ovhooks.ids import safe_id

    return os.path.join(state_dir, "recall", f"{safe_id(key)}.gemini-start")


# Copilot CLI starts SessionStart and the first UserPromptSubmit together: a prompt that
# finds SessionStart still building its block waits this long for it (else the block goes
# out a prompt late). A mark older than ``START_PENDING_S`` is a SessionStart that died.
START_WAIT_S = 1.0
START_PENDING_S = 10.0
_POLL_S = 0.02


def mark_start_pending(state_dir: str, key: str) -> None:
    """SessionStart is building a block it will hold (``hold_start_context``)."""
    from ovhooks.fsutil import ensure_dir, write_atomic

    path = _pending_path(state_dir, key) + ".pending"
    ensure_dir(os.path.dirname(path))
    write_atomic(path, b"")


def clear_start_pending(state_dir: str, key: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(_pending_path(state_dir, key) + ".pending")


def hold_start_context(state_dir: str, key: str, text: str) -> None:
    """Keep the session-start block for the session's next BeforeAgent."""
    from ovhooks.fsutil import ensure_dir, write_atomic

    path = _pending_path(state_dir, key)
    ensure_dir(os.path.dirname(path))
    write_atomic(path, text.encode("utf-8"))
    clear_start_pending(state_dir, key)


def _building(path: str) -> bool:
    """Whether a SessionStart is building the block at ``path`` now (a fresh mark)."""
    try:
        age = time.time() - os.stat(path + ".pending").st_mtime
    except OSError:
        return False
    return age < START_PENDING_S


def take_start_context(state_dir: str, key: str, wait_s: float = 0.0) -> str:
    """The held session-start block (removed as it is taken), or ``""``; with ``wait_s``,
    waits up to that long for a SessionStart that is still building it."""
    from ovhooks.transcripts.reader import open_regular

    path = _pending_path(state_dir, key)
    end = time.monotonic() + wait_s
    while not os.path.exists(path) and time.monotonic() < end and _building(path):
        time.sleep(_POLL_S)
    try:
        fd = open_regular(path)
    except OSError:
        return ""
    try:
        data = os.read(fd, 64 * 1024)
    finally:
        os.close(fd)
    try:
        os.unlink(path)
    except OSError:
        return ""  # another BeforeAgent took it first
    return data.decode("utf-8", "replace")


def adapt(event_name: str, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The registry's payload reader: ``normalize_payload`` for every event."""
    return normalize_payload(payload)


SPEC = HostSpec(
    name="gemini",
    label="Gemini CLI",
    session_prefix="gm-",
    # Timeouts are written in milliseconds (named_ms_handlers); tool matchers are regular
    # expressions on Gemini's tool names (TOOL_NAMES maps them for the guard).
    events=(
        ("SessionStart", "session-start", None),
        ("BeforeAgent", "user-prompt-submit", None),
        ("AfterAgent", "stop", None),
        ("PreCompress", "pre-compact", None),
        ("SessionEnd", "session-end", None),
        ("BeforeTool", "pre-tool-use", FILE_TOOLS_MATCHER),
        ("AfterTool", "post-tool-use", "^read_file$"),
    ),
    config_dir=("GEMINI_CLI_HOME", ".gemini", ".gemini"),
    hooks_file=("settings.json", ".gemini/settings.json"),
    adapt=adapt,
    render=render_reply,
    # Gemini CLI sets CLAUDE_PROJECT_DIR too; the registry asks the newer host first.
    detect_env=("GEMINI_SESSION_ID", "GEMINI_PROJECT_DIR"),
    named_ms_handlers=True,
    hooks_off=("hooksConfig.enabled", False),
    next_steps=(
        "Start Gemini CLI in a folder you trust (it skips settings hooks in untrusted ones); "
        "`/hooks panel` lists them.",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ),
    mcp="mcp_servers",
    mcp_file="settings.json",
    # trust: no confirmation (`gemini -p` cannot ask for one). timeout bounds Gemini's
    # connect, tool listing and each call (0.61: 10 minutes by default), so a hung
    # `ovhooks mcp`, which the hook launcher does not run, delays a start by seconds
    mcp_entry={"trust": True, "timeout": 15000},
    doctor=("gemini_settings",),
    activity=("tmp", ".jsonl", 2),  # ~/.gemini/tmp/<project>/chats/session-*.jsonl
    held_start_context="ovhooks.hosts.gemini",
    resume_keeps_transcript=True,
    precompact_gate="ovhooks.hosts.gemini.compress",
)
