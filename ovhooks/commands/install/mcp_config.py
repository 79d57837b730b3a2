"""The ``ovhooks mcp`` server's registration, as pure edits of each host's config text.

Codex (``config.toml``): one block appended at the end, ``[mcp_servers.ovhooks]`` (command,
args, the environment variables to forward: Codex gives a stdio server only a small
allow-list, spec mcp.md §1.5) and ``approval_mode = "approve"`` for the two write tools
(``codex exec`` refuses a tool that is not read-only otherwise, §1.6). Appending, rather than
a ``tomlkit`` edit, is what lets uninstall take back exactly those bytes: the block starts
with a marker comment and ends the file, so removing it restores the text before it.

Claude Code: ``mcpServers.ovhooks`` in ``~/.claude.json`` (user scope; ``alwaysLoad`` so
2.1.330's tool search does not hide the tools, §2.3) and a ``permissions.allow`` rule per tool
in ``settings.json`` (``claude -p`` refuses every MCP tool until one names it, §2.2).
"""

from __future__ import annotations

import os
import re
import shlex

from ovhooks.hosts import registry as _registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SERVER = "ovhooks"
# The hosts install registers ``ovhooks mcp`` with: every host that takes MCP servers.
MCP_HOSTS = tuple(spec.name for spec in _registry.specs() if spec.mcp is not None)
MARKER = "# ovhooks memory tools (ovhooks install; ovhooks uninstall removes this block)"
WRITE_TOOLS = ("remember", "forget")
# Settings the memory tools read from the environment (connection, identity, where the
# store and state live, transport, scrubbing), plus what the platform and proxies use, and
# where the launcher keeps its hang marker (XDG_RUNTIME_DIR, TMPDIR): without them the
# server's launcher looks in /tmp while the same Codex process's hooks look in the runtime
# folder, and a hang one of them met would not spare the other (hosts/launch.py).
# The embedding settings too: a memory tool may be the first to start the embedding service,
# which then serves the hooks with the model it was started with.
FORWARDED_SETTINGS = (
    "url", "api_key", "account", "user", "actor_peer", "auth_mode", "backend",
    "connect_timeout_s", "request_timeout_s", "ca_bundle", "state_dir", "data_dir",
    "log_level", "scrub", "scrub_emails", "scrub_phones",
    "semantic", "embed_url", "embed_model", "embed_key_env", "embed_api",
)  # fmt: skip
FORWARDED_EXTRA = (
    "OVHOOKS_CONFIG", "OPENVIKING_CLI_CONFIG_FILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    "XDG_STATE_HOME", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
    "all_proxy", "NO_PROXY", "no_proxy", "XDG_RUNTIME_DIR", "TMPDIR",
)  # fmt: skip
_HEADER = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:ovhooks|\"ovhooks\")\s*[.\]]")
_ANY_HEADER = re.compile(r"^\s*\[")
_OUR_KEY = re.compile(r"^\s*(?:command|args|env_vars|approval_mode)\s*=")


class ForeignEntryError(ValueError):
    """The server name is taken by a table the user wrote (``codex mcp add``, by hand)."""


def forwarded_environment() -> list[str]:
    """The variables Codex passes to the server: the settings', the platform's, and the one
    that holds the embedding endpoint's key when ``OVHOOKS_EMBED_KEY_ENV`` names it now."""
    from ovhooks.settings import config

    names = [name for key in FORWARDED_SETTINGS for name in config._FIELDS[key][0]]
    key_env = os.environ.get("OVHOOKS_EMBED_KEY_ENV", "").strip()
    key = [key_env] if key_env.isidentifier() and key_env.isascii() else []
    return names + list(FORWARDED_EXTRA) + key


def server_argv(exe: str) -> list[str]:
    """``ovhooks mcp`` as a host runs it, from the hooks' (shell-quoted) executable string:
    under the launcher that bounds its start (``hosts.launch.mcp_argv``); ``mcp`` is last."""
    from ovhooks.hosts.launch import mcp_argv

    return mcp_argv([*shlex.split(exe, posix=os.name != "nt"), "mcp"])


def tool_rules(names: tuple[str, ...]) -> list[str]:
    return [f"mcp__{SERVER}__{name}" for name in names]


# --- Codex config.toml -----------------------------------------------------------------------


def codex_block(exe: str, newline: str = "\n") -> str:
    import json

    argv = server_argv(exe)
    lines = [
        MARKER,
        f"[mcp_servers.{SERVER}]",
        f"command = {json.dumps(argv[0])}",
        f"args = {json.dumps(argv[1:])}",
        f"env_vars = {json.dumps(forwarded_environment())}",
    ]
    for tool in WRITE_TOOLS:
        lines += ["", f"[mcp_servers.{SERVER}.tools.{tool}]", 'approval_mode = "approve"']
    return newline.join(lines) + newline


def codex_server(text: str) -> dict[str, Any] | None:
    """The ``mcp_servers.ovhooks`` table of ``text``; ``ValueError`` when it is not TOML."""
    from ovhooks.commands.install.codex_toml import parse

    servers = parse(text).get("mcp_servers")
    entry = servers.get(SERVER) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def add_codex_server(text: str, exe: str) -> tuple[str, str]:
    """(new text, what changed); unchanged when the same registration is there. Raises
    ``ValueError`` when the file cannot be edited safely (then say how to do it by hand)."""
    import tomllib

    newline = "\r\n" if "\r\n" in text else "\n"
    block = codex_block(exe, newline)
    wanted = tomllib.loads(block)["mcp_servers"][SERVER]
    existing = codex_server(text)
    if existing == wanted:
        return text, ""
    if existing is not None and MARKER not in text:
        raise ForeignEntryError("its [mcp_servers.ovhooks] was not written by ovhooks install")
    base = drop_codex_server(text)[0] if existing is not None else text
    if base and not base.endswith(newline):
        base += newline
    new = base + (newline if base else "") + block
    try:
        if codex_server(new) != wanted:
            raise ValueError("the edited file does not hold the registration")
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config.toml could not be extended: {exc}") from None
    change = "updated" if existing is not None else "added"
    return new, f"{change} [mcp_servers.{SERVER}] (`ovhooks mcp`)"


def drop_codex_server(text: str) -> tuple[str, bool]:
    """``text`` without ovhooks' server tables (and the marker and blank line install put
    before them): byte for byte the text before ``add_codex_server`` when nothing else moved.

    A line the user added inside those tables that is not one of ours (a root key appended
    at the end of the file lands there) stays, where it would have been without them. Tables
    of that name without install's marker are the user's own, and stay.
    """
    if MARKER not in text:
        return text, False
    out: list[str] = []
    ours = removed = False
    for line in text.splitlines(keepends=True):
        if _HEADER.match(line) or line.strip() == MARKER:
            if not removed and out and not out[-1].strip():
                out.pop()  # the blank line install put before the block
            ours = removed = True
            continue
        if ours and _ANY_HEADER.match(line):
            ours = False
        if not ours or (line.strip() and not _OUR_KEY.match(line)):
            out.append(line)
    new = "".join(out)
    if removed and not new.strip():
        new = ""
    return new, removed


# --- Claude Code ~/.claude.json and settings.json --------------------------------------------


def claude_json_path(environ: Mapping[str, str]) -> str:
    from ovhooks.settings.layout import home_dir

    custom = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if custom:
        return os.path.join(os.path.abspath(os.path.expanduser(custom)), ".claude.json")
    return os.path.join(home_dir(environ), ".claude.json")


def claude_entry(exe: str) -> dict[str, Any]:
    argv = server_argv(exe)
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": {}, "alwaysLoad": True}


def _replaced(doc: dict[str, Any], key: str, value: object) -> dict[str, Any]:
    """``doc`` with ``key`` set to ``value`` in its place (``None`` drops it; a new key goes
    last), so a file rendered again keeps its key order."""
    new = {k: (value if k == key else v) for k, v in doc.items()}
    if key not in doc:
        new[key] = value
    return {k: v for k, v in new.items() if v is not None}


def with_claude_server(doc: dict[str, Any], exe: str) -> dict[str, Any]:
    servers = doc.get("mcpServers")
    servers = dict(servers) if isinstance(servers, dict) else {}
    return _replaced(doc, "mcpServers", {**servers, SERVER: claude_entry(exe)})


def foreign_claude_server(doc: dict[str, Any]) -> bool:
    """An ``mcpServers.ovhooks`` that install did not write (``claude mcp add``, by hand):
    install's entries are the only ones with ``alwaysLoad`` (``claude mcp add`` has no flag
    for it), so that is its signature in a file with no room for a marker."""
    servers = doc.get("mcpServers")
    entry = servers.get(SERVER) if isinstance(servers, dict) else None
    return entry is not None and not (isinstance(entry, dict) and entry.get("alwaysLoad") is True)


def without_claude_server(doc: dict[str, Any]) -> dict[str, Any]:
    servers = doc.get("mcpServers")
    if not isinstance(servers, dict) or SERVER not in servers or foreign_claude_server(doc):
        return doc
    rest = {k: v for k, v in servers.items() if k != SERVER}
    return _replaced(doc, "mcpServers", rest or None)


def with_permissions(doc: dict[str, Any], rules: list[str]) -> dict[str, Any]:
    permissions = doc.get("permissions")
    permissions = dict(permissions) if isinstance(permissions, dict) else {}
    allow = permissions.get("allow")
    allow = list(allow) if isinstance(allow, list) else []
    allow += [rule for rule in rules if rule not in allow]
    return _replaced(doc, "permissions", _replaced(permissions, "allow", allow))


def without_permissions(doc: dict[str, Any], rules: list[str]) -> dict[str, Any]:
    permissions = doc.get("permissions")
    if not isinstance(permissions, dict) or not isinstance(permissions.get("allow"), list):
        return doc
    allow = [rule for rule in permissions["allow"] if rule not in rules]
    if len(allow) == len(permissions["allow"]):
        return doc
    rest = _replaced(permissions, "allow", allow or None)
    return _replaced(doc, "permissions", rest or None)
