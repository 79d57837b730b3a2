"""Where each host keeps its hook configuration, and the hooks ovhooks registers there
(read from the hosts' packages: ``HostSpec.config_dir``, ``hooks_file``, ``events``).

Each host's own files (where they are, which shape they take) are said in its package,
``ovhooks/hosts/<name>/__init__.py``; nothing here names a host beyond the ``*_dir`` helpers
older callers read.

The hook table is the same registration as the repository's ``hooks.json`` (Codex) and
``hooks.claude.json`` (Claude Code); a test keeps them in step. It lives in the package because
an installed wheel does not carry the repository's top-level files.
"""

from __future__ import annotations

import os
import shlex
import sys

from ovhooks.hosts import launch
from ovhooks.hosts import registry as _registry
from ovhooks.ids import project_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

HOSTS = _registry.HOSTS
SCOPES = ("user", "project")
# Derived from the hosts' packages (hosts/registry.py), kept under the names commands and
# tests have always read.
HOST_LABELS = _registry.labels()
# (host event, hook command, matcher or None, timeout in seconds), per host, in file order.
# The timeouts are the fail-open launcher's (hosts/launch.py): the host's a second after the
# launcher's own kill, which comes a second after the hook's own deadline.
# A shim host (Pi, OpenCode) bounds each process itself: the launcher's kill time is its bound.
HOOK_TABLE: dict[str, tuple[tuple[str, str, str | None, int], ...]] = {
    spec.name: tuple(
        (
            event,
            command,
            matcher,
            (launch.kill_after_s if spec.install == "shim" else launch.host_timeout_s)(command),
        )
        for event, command, matcher in spec.events
    )
    for spec in _registry.specs()
}


def _home(environ: Mapping[str, str]) -> str:
    from ovhooks.settings.layout import home_dir

    return home_dir(environ)


def config_dir(host: str, environ: Mapping[str, str]) -> str:
    """``host``'s config folder (``HostSpec.config_dir``): ``$VAR/suffix``, else ``~/default``."""
    variable, suffix, default = _registry.spec(host).config_dir
    custom = environ.get(variable, "").strip()
    if custom:
        return os.path.join(os.path.abspath(os.path.expanduser(custom)), *_parts(suffix))
    return os.path.join(_home(environ), *_parts(default))


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def codex_home(environ: Mapping[str, str]) -> str:
    return config_dir("codex", environ)


def gemini_dir(environ: Mapping[str, str]) -> str:
    return config_dir("gemini", environ)


def host_label(host: str) -> str:
    return HOST_LABELS.get(host, host)


def codex_config_toml(environ: Mapping[str, str]) -> str:
    return os.path.join(codex_home(environ), "config.toml")


def hooks_file(host: str, scope: str, environ: Mapping[str, str], cwd: str) -> str:
    """The file ovhooks' hooks (or its shim) go into for ``host`` at ``scope``."""
    user, project = _registry.spec(host).hooks_file
    if scope == "project":
        return os.path.join(project_root(cwd), *_parts(project))
    return os.path.join(config_dir(host, environ), *_parts(user))


def mcp_file(host: str, environ: Mapping[str, str]) -> str:
    """The user file ``host`` reads its MCP servers from (``HostSpec.mcp_file``), or ``""``."""
    name = _registry.spec(host).mcp_file
    return os.path.join(config_dir(host, environ), *_parts(name)) if name else ""


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
        spec = _registry.spec(host)
        if spec.named_ms_handlers:  # Gemini: ms; a name for /hooks panel
            handler = {"name": f"ovhooks-{command}", **handler, "timeout": timeout * 1000}
        elif spec.hooks_timeout_ms:
            handler = {**handler, "timeout": timeout * 1000}
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
