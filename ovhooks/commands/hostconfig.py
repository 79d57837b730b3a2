"""Where each host keeps its hook configuration, and the hooks ovhooks registers there.

Gemini CLI: ``$GEMINI_CLI_HOME/.gemini/settings.json`` (default ``~/.gemini``) for the user,
``<project>/.gemini/settings.json`` for a project (its ``hooks`` object, beside every other
setting).

Copilot CLI: ``$COPILOT_HOME/hooks/ovhooks.json`` (a file of ovhooks' own; project:
``.github/hooks/ovhooks.json``); Qwen Code: ``~/.qwen/settings.json`` (``.qwen/``); Factory
Droid: ``~/.factory/hooks.json`` (``.factory/``), keyed by event at the top level.

Codex: ``$CODEX_HOME/hooks.json`` (default ``~/.codex``) for the user, ``<repo>/.codex/hooks.json``
for a project; its ``config.toml`` holds the hooks feature flag and the trust records.
Claude Code: ``$CLAUDE_CONFIG_DIR/settings.json`` (default ``~/.claude/settings.json``) for the
user, ``<project>/.claude/settings.json`` for a project.

The hook table below is the same registration as the repository's ``hooks.json`` (Codex) and
``hooks.claude.json`` (Claude Code); a test keeps them in step. It lives in the package because
an installed wheel does not carry the repository's top-level files.
"""

from __future__ import annotations

import os
import shlex
import sys

from ovhooks.hosts import launch
from ovhooks.ids import project_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

HOSTS = ("codex", "claude", "pi", "opencode", "gemini", "copilot", "qwen", "droid")
SCOPES = ("user", "project")
# Hosts that load a shim file: (project folder, file name); the user folder is the last part
# of the project folder under the host's config root (~/.pi/agent/extensions, ~/.config/
# opencode/plugins).
SHIM_FILES = {
    "pi": (os.path.join(".pi", "extensions"), "ovhooks.ts"),
    "opencode": (os.path.join(".opencode", "plugins"), "ovhooks.js"),
}
HOST_LABELS = {"codex": "Codex", "claude": "Claude Code", "pi": "Pi", "opencode": "OpenCode"}
HOST_LABELS["gemini"] = "Gemini CLI"
HOST_LABELS.update(copilot="GitHub Copilot CLI", qwen="Qwen Code", droid="Factory Droid")

_host_s, _kill_s = launch.host_timeout_s, launch.kill_after_s
GEMINI_FILE_TOOLS = "^(read_file|read_many_files|list_directory|glob|grep_search)$"
# (host event, hook command, matcher or None, timeout in seconds), per host, in file order.
# The timeouts are the fail-open launcher's (hosts/launch.py): the host's a second after the
# launcher's own kill, which comes a second after the hook's own deadline.
HOOK_TABLE: dict[str, tuple[tuple[str, str, str | None, int], ...]] = {
    "codex": (
        ("SessionStart", "session-start", "startup|resume|clear|compact", _host_s("session-start")),
        ("UserPromptSubmit", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("Stop", "stop", None, _host_s("stop")),
        ("PreCompact", "pre-compact", None, _host_s("pre-compact")),
        ("PostCompact", "post-compact", None, _host_s("post-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
    ),
    "claude": (
        ("SessionStart", "session-start", None, _host_s("session-start")),
        ("UserPromptSubmit", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("PreToolUse", "pre-tool-use", "Read|Glob|Grep", _host_s("pre-tool-use")),
        ("PostToolUse", "post-tool-use", "Read", _host_s("post-tool-use")),
        ("Stop", "stop", None, _host_s("stop")),
        ("SubagentStart", "subagent-start", None, _host_s("subagent-start")),
        ("SubagentStop", "subagent-stop", None, _host_s("subagent-stop")),
        ("PreCompact", "pre-compact", None, _host_s("pre-compact")),
        ("PostCompact", "post-compact", None, _host_s("post-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
        ("DirectoryAdded", "directory-added", None, _host_s("directory-added")),
    ),
    # Gemini CLI: timeouts are written in milliseconds (``desired_groups``); tool matchers
    # are regular expressions on its tool names (hosts/gemini.py maps them for the guard).
    "gemini": (
        ("SessionStart", "session-start", None, _host_s("session-start")),
        ("BeforeAgent", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("AfterAgent", "stop", None, _host_s("stop")),
        ("PreCompress", "pre-compact", None, _host_s("pre-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
        ("BeforeTool", "pre-tool-use", GEMINI_FILE_TOOLS, _host_s("pre-tool-use")),
        ("AfterTool", "post-tool-use", "^read_file$", _host_s("post-tool-use")),
    ),
    # Copilot CLI, Qwen Code, Factory Droid (``hosts/copilot.py``, ``qwen.py``, ``droid.py``):
    # Claude-style keys; Qwen's timeouts are written in milliseconds (``desired_groups``).
    # No tool hooks: Copilot drops a whole file over one bad matcher, and none of the three
    # names its file tools as the viking:// guard knows them.
    "copilot": (
        ("SessionStart", "session-start", None, _host_s("session-start")),
        ("UserPromptSubmit", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("Stop", "stop", None, _host_s("stop")),
        ("PreCompact", "pre-compact", None, _host_s("pre-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
    ),
    "qwen": (
        ("SessionStart", "session-start", None, _host_s("session-start")),
        ("UserPromptSubmit", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("Stop", "stop", None, _host_s("stop")),
        ("PreCompact", "pre-compact", None, _host_s("pre-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
    ),
    "droid": (
        ("SessionStart", "session-start", None, _host_s("session-start")),
        ("UserPromptSubmit", "user-prompt-submit", None, _host_s("user-prompt-submit")),
        ("Stop", "stop", None, _host_s("stop")),
        ("PreCompact", "pre-compact", None, _host_s("pre-compact")),
        ("SessionEnd", "session-end", None, _host_s("session-end")),
    ),
    # Pi and OpenCode: the events their shims (ovhooks/hosts/shims/) map onto ovhooks' hooks,
    # with the shim's own bound on each process (``launch.kill_after_s``: it kills the
    # process group then; each hook answers sooner, under hookrun's deadlines).
    "pi": (
        ("session_start", "session-start", None, _kill_s("session-start")),
        ("before_agent_start", "user-prompt-submit", None, _kill_s("user-prompt-submit")),
        ("agent_end", "stop", None, _kill_s("stop")),
        ("session_before_compact", "pre-compact", None, _kill_s("pre-compact")),
        ("session_shutdown", "session-end", None, _kill_s("session-end")),
        ("tool_call", "pre-tool-use", "read|grep|find|ls", _kill_s("pre-tool-use")),
    ),
    "opencode": (
        ("session.created", "session-start", None, _kill_s("session-start")),
        ("chat.message", "user-prompt-submit", None, _kill_s("user-prompt-submit")),
        ("session.idle", "stop", None, _kill_s("stop")),
        ("experimental.session.compacting", "pre-compact", None, _kill_s("pre-compact")),
        ("dispose", "session-end", None, _kill_s("session-end")),
        ("tool.execute.before", "pre-tool-use", "read|glob|grep|list", _kill_s("pre-tool-use")),
    ),
}


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def codex_home(environ: Mapping[str, str]) -> str:
    custom = environ.get("CODEX_HOME", "").strip()
    return (
        os.path.abspath(os.path.expanduser(custom))
        if custom
        else os.path.join(_home(environ), ".codex")
    )


def claude_dir(environ: Mapping[str, str]) -> str:
    custom = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (
        os.path.abspath(os.path.expanduser(custom))
        if custom
        else os.path.join(_home(environ), ".claude")
    )


def gemini_dir(environ: Mapping[str, str]) -> str:
    from ovhooks.hosts.gemini import gemini_dir as gemini_home

    return gemini_home(environ)


def _copilot_file(environ: Mapping[str, str], project: str) -> str:
    """A hooks file of ovhooks' own (Copilot reads every ``hooks/*.json``)."""
    from ovhooks.hosts.copilot import copilot_home

    if project:
        return os.path.join(project, ".github", "hooks", "ovhooks.json")
    return os.path.join(copilot_home(environ), "hooks", "ovhooks.json")


def _qwen_file(environ: Mapping[str, str], project: str) -> str:
    from ovhooks.hosts.qwen import qwen_dir

    return os.path.join(project, ".qwen") if project else qwen_dir(environ)


def _droid_file(environ: Mapping[str, str], project: str) -> str:
    """``hooks.json``, keyed by event at the top level (``install/droid.py`` wraps it)."""
    from ovhooks.hosts.droid import factory_dir

    return os.path.join(project, ".factory") if project else factory_dir(environ)


def _qwen_settings(environ: Mapping[str, str], project: str) -> str:
    return os.path.join(_qwen_file(environ, project), "settings.json")


def _droid_hooks(environ: Mapping[str, str], project: str) -> str:
    return os.path.join(_droid_file(environ, project), "hooks.json")


WAVE4_FILES = {"copilot": _copilot_file, "qwen": _qwen_settings, "droid": _droid_hooks}


def host_dir(host: str, environ: Mapping[str, str]) -> str:
    """The host's own config folder (doctor: is the host there at all)."""
    if host == "copilot":
        from ovhooks.hosts.copilot import copilot_home

        return copilot_home(environ)
    if host in ("qwen", "droid"):
        return (_qwen_file if host == "qwen" else _droid_file)(environ, "")
    getter = {"codex": codex_home, "gemini": gemini_dir}.get(host, claude_dir)
    return getter(environ)


def host_label(host: str) -> str:
    return HOST_LABELS.get(host, host)


def pi_agent_dir(environ: Mapping[str, str]) -> str:
    """Pi's config root: ``$PI_CODING_AGENT_DIR``, default ``~/.pi/agent``."""
    custom = environ.get("PI_CODING_AGENT_DIR", "").strip()
    if custom:
        return os.path.abspath(os.path.expanduser(custom))
    return os.path.join(_home(environ), ".pi", "agent")


def opencode_config_dir(environ: Mapping[str, str]) -> str:
    """OpenCode's global config folder: ``$XDG_CONFIG_HOME/opencode`` (``~/.config``)."""
    xdg = environ.get("XDG_CONFIG_HOME", "").strip()
    base = (
        os.path.abspath(os.path.expanduser(xdg)) if xdg else os.path.join(_home(environ), ".config")
    )
    return os.path.join(base, "opencode")


def codex_config_toml(environ: Mapping[str, str]) -> str:
    return os.path.join(codex_home(environ), "config.toml")


def hooks_file(host: str, scope: str, environ: Mapping[str, str], cwd: str) -> str:
    """The file ovhooks' hooks go into for ``host`` at ``scope``."""
    if host in WAVE4_FILES:
        root = project_root(cwd) if scope == "project" else ""
        return WAVE4_FILES[host](environ, root)
    if host in SHIM_FILES:  # a shim file the host loads, not a hooks document
        folder, name = SHIM_FILES[host]
        if scope == "project":
            return os.path.join(project_root(cwd), folder, name)
        base = pi_agent_dir(environ) if host == "pi" else opencode_config_dir(environ)
        return os.path.join(base, os.path.basename(folder), name)
    if scope == "project":
        root = project_root(cwd)
        return os.path.join(
            root,
            {"codex": ".codex", "gemini": ".gemini"}.get(host, ".claude"),
            "hooks.json" if host == "codex" else "settings.json",
        )
    if host == "gemini":
        return os.path.join(gemini_dir(environ), "settings.json")
    if host == "codex":
        return os.path.join(codex_home(environ), "hooks.json")
    return os.path.join(claude_dir(environ), "settings.json")


def hook_executable() -> str:
    """The command that starts ovhooks, as an absolute, upgrade-stable string.

    The console script installed next to the running interpreter keeps its path across
    ``pip install -U`` (Codex ties hook trust to the exact command string). The interpreter
    path is used as it is, not resolved: resolving a venv's ``python`` symlink would land in a
    pyenv or system prefix that has no ``ovhooks`` script. A pyenv shim found on PATH is
    refused for the same reason: its target changes with the active Python version.
    """
    import shutil

    name = "ovhooks.exe" if os.name == "nt" else "ovhooks"
    bindir = os.path.dirname(os.path.abspath(sys.executable))
    for candidate in (os.path.join(bindir, name), os.path.join(bindir, "Scripts", name)):
        if os.path.isfile(candidate):
            return quote_arg(candidate)
    found = shutil.which("ovhooks")
    if found and "shims" not in os.path.abspath(found).split(os.sep):
        return quote_arg(os.path.abspath(found))
    return f"{quote_arg(os.path.abspath(sys.executable))} -m ovhooks"


def quote_arg(path: str) -> str:
    if os.name == "nt":  # pragma: no cover (Windows)
        import subprocess

        return subprocess.list2cmdline([path])
    return shlex.quote(path)


def hook_command(executable: str, command: str, host: str) -> str:
    """The fail-open command line the host runs (``hosts/launch.py``)."""
    return launch.command_line(executable, command, host)


def desired_groups(host: str, executable: str) -> dict[str, dict[str, object]]:
    """Event -> the one matcher group ovhooks registers for it."""
    out: dict[str, dict[str, object]] = {}
    for event, command, matcher, timeout in HOOK_TABLE[host]:
        group: dict[str, object] = {}
        if matcher is not None:
            group["matcher"] = matcher
        handler: dict[str, object] = {
            "type": "command",
            "command": hook_command(executable, command, host),
            "timeout": timeout,
        }
        if host == "gemini":  # milliseconds; a name for /hooks panel and hooksConfig.disabled
            handler = {"name": f"ovhooks-{command}", **handler, "timeout": timeout * 1000}
        elif host == "qwen":  # milliseconds
            handler["timeout"] = timeout * 1000
        group["hooks"] = [handler]
        out[event] = group
    return out


def _hook_commands() -> frozenset[str]:
    from ovhooks.hosts.base import EVENT_NAMES

    return frozenset(EVENT_NAMES)


def is_ovhooks_command(command: object) -> bool:
    """True for a hook handler command that runs ``ovhooks <hook-command>``.

    Recognises ``ovhooks stop``, ``/abs/bin/ovhooks stop``, ``"C:\\x\\ovhooks.exe" stop`` and
    ``python -m ovhooks stop``; never a user's own script that merely mentions ovhooks.
    """
    if not isinstance(command, str):
        return False
    try:
        tokens = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        tokens = command.split()
    tokens = [t.strip("\"'") for t in tokens]
    hook_commands = _hook_commands()
    for i, token in enumerate(tokens[:-1]):
        base = token.replace("\\", "/").rsplit("/", 1)[-1].lower()
        runs_ovhooks = base in ("ovhooks", "ovhooks.exe") or (
            token == "ovhooks" and i > 0 and tokens[i - 1] == "-m"
        )
        if runs_ovhooks and tokens[i + 1] in hook_commands:
            return True
    return False


def event_key(event: str) -> str:
    """``UserPromptSubmit`` -> ``user_prompt_submit`` (Codex trust-record keys)."""
    out = []
    for i, ch in enumerate(event):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
