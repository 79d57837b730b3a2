"""What one host declares about itself: the ``HostSpec`` each host package exposes as ``SPEC``.

A plain class with slots (no ``dataclasses`` at hook time): a hook imports its own host's
package, which builds one of these from constants. Behaviour the hook always needs (the
payload reader, the reply renderer) is a function of the host package; behaviour only some
events need is named by module path and imported there. The transcript reader is not named:
it is ``ovhooks/transcripts/<name>.py`` (the worker, below this layer, finds it by the name).
See ``ovhooks/hosts/README.md`` for how a host is added.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from ovhooks.hosts.reply import Reply

    # (host event, ovhooks hook command, matcher or None); the timeouts are the fail-open
    # launcher's per hook command (hosts/launch.py), the same on every host
    HookRow = tuple[str, str, str | None]
    Adapter = Callable[[str, dict[str, Any], Mapping[str, str]], dict[str, Any]]
    Renderer = Callable[[str, Reply], str]

__all__ = ["CLAUDE_STYLE_EVENTS", "INSTALL_KINDS", "MCP_KINDS", "HostSpec"]

# The hooks a host with Claude Code's event names and payloads takes without tool hooks
# (GitHub Copilot CLI, Qwen Code, Factory Droid): their file tools are not named as the
# viking:// guard knows them, and Copilot drops a whole hooks file over one bad matcher.
CLAUDE_STYLE_EVENTS: tuple[tuple[str, str, None], ...] = (
    ("SessionStart", "session-start", None),
    ("UserPromptSubmit", "user-prompt-submit", None),
    ("Stop", "stop", None),
    ("PreCompact", "pre-compact", None),
    ("SessionEnd", "session-end", None),
)

# How ``ovhooks install`` registers the hooks (commands/install/strategies.py):
#   hooks_json: a JSON document with a ``hooks`` object of matcher groups (Claude Code's shape)
#   shim:       a script the host loads from a folder (hosts/shims/<shim>)
#   codex:      Codex's hooks.json plus its config.toml feature flag and trust records
INSTALL_KINDS = ("hooks_json", "shim", "codex")
# How ``ovhooks install`` registers the memory tools (``ovhooks mcp``), user scope only:
#   codex_toml:   ``[mcp_servers.ovhooks]`` appended to Codex's config.toml
#   claude_json:  ``mcpServers.ovhooks`` in ~/.claude.json plus permission rules
#   mcp_servers:  ``mcpServers.ovhooks = {command, args, **mcp_entry}`` in ``mcp_file``
#   opencode_mcp: ``mcp.ovhooks`` (``type: local``, argv ``command``) in ``mcp_file``
MCP_KINDS = ("codex_toml", "claude_json", "mcp_servers", "opencode_mcp")


class HostSpec:
    """Everything that differs between hosts; core code reads these, never a host's name.

    ``config_dir`` is ``(variable, suffix, default)``: the host's config folder is
    ``$variable/suffix`` when the variable is set, else ``~/default`` (``/`` separated).
    ``hooks_file`` is ``(user path under config_dir, project path under the git root)``.
    ``activity`` is ``(folder under config_dir, file suffix, depth)`` where the host writes
    its transcripts (doctor's "capture stopped"), or None when ``last_used`` names a function.
    """

    __slots__ = (
        "activity",
        "adapt",
        "commits_previous_on_start",
        "config_dir",
        "context_unit",
        "detect_env",
        "detect_events",
        "detect_fields",
        "detect_path",
        "doctor",
        "events",
        "held_start_context",
        "hooks_at_top",
        "hooks_file",
        "hooks_off",
        "hooks_timeout_ms",
        "install",
        "label",
        "last_used",
        "mcp",
        "mcp_entry",
        "mcp_file",
        "name",
        "named_ms_handlers",
        "next_steps",
        "precompact_gate",
        "render",
        "reply_events",
        "reply_in_stop",
        "resume_keeps_transcript",
        "rival_configs",
        "rivals",
        "session_prefix",
        "shim",
        "shim_noun",
        "stop_before_transcript",
    )

    # the ``--host`` value, and the folder of its package
    name: str
    # what people read ("Claude Code")
    label: str
    # OpenViking session ids: prefix + host's id
    session_prefix: str
    # the hooks install registers, in file order
    events: tuple[HookRow, ...]
    config_dir: tuple[str, str, str]
    hooks_file: tuple[str, str]
    # one of INSTALL_KINDS
    install: str
    # the host's payload -> the field names the handlers read
    adapt: Adapter | None
    # a Reply -> the host's JSON; None: Claude Code's shape
    render: Renderer | None
    # events whose reply may carry hookSpecificOutput
    reply_events: frozenset[str]
    # variables that name this host when --host is missing
    detect_env: tuple[str, ...]
    # hook_event_name values only this host sends
    detect_events: frozenset[str]
    # payload keys only this host sends
    detect_fields: tuple[str, ...]
    # a part of transcript_path only this host writes
    detect_path: str
    # the file in hosts/shims/ install writes (install == "shim")
    shim: str | None
    # what the host calls it: "extension", "plugin"
    shim_noun: str
    # OpenViking's own integration for this host (it would store every turn a second
    # time): paths under config_dir, and config files under it that name "openviking"
    rivals: tuple[str, ...]
    rival_configs: tuple[str, ...]
    # handlers named, timeouts in milliseconds
    named_ms_handlers: bool
    # timeouts in milliseconds, handlers unnamed
    hooks_timeout_ms: bool
    # the hooks file is keyed by event at its top level, with no "hooks" object around
    hooks_at_top: bool
    # ("object.key", value): the setting that, at that value, switches every hook off
    hooks_off: tuple[str, bool] | None
    # what install tells people to do next
    next_steps: tuple[str, ...]
    # one of MCP_KINDS, or None: the host takes no MCP servers
    mcp: str | None
    # the MCP config file under config_dir (kinds that need it)
    mcp_file: str
    # fields the host wants in the server's entry beside command and args (mcp_servers):
    # Gemini CLI's ``trust``, a ``type`` or ``tools`` list another host requires
    mcp_entry: dict[str, object]
    # names of host-only doctor checks (commands/doctor/runner.py)
    doctor: tuple[str, ...]
    activity: tuple[str, str, int] | None
    # when the host last wrote (instead of ``activity``)
    last_used: Callable[[Mapping[str, str]], float] | None
    # how the host counts the context limit: chars, bytes
    context_unit: str
    # Stop's payload carries the final reply
    reply_in_stop: bool
    # Stop fires before the host has written the turn to its file, and carries no reply: the
    # worker waits for the turn's answer there, and on every capture job for the file itself
    # (Copilot CLI 1.0.102 writes in batches)
    stop_before_transcript: bool
    # module with hold_start_context/take_start_context: SessionStart's context is given
    # with the first prompt instead (Gemini CLI)
    held_start_context: str | None
    # module with compression_follows(...): PreCompact fires when nothing compacts
    precompact_gate: str | None
    # a new session (startup, clear) ends the one active before it: commit that one
    commits_previous_on_start: bool
    # a resumed session names a new file at SessionStart but goes on writing the old one
    resume_keeps_transcript: bool

    def __init__(
        self,
        *,
        name: str,
        label: str,
        session_prefix: str,
        events: tuple[HookRow, ...],
        config_dir: tuple[str, str, str],
        hooks_file: tuple[str, str],
        install: str = "hooks_json",
        adapt: Adapter | None = None,
        render: Renderer | None = None,
        reply_events: frozenset[str] = frozenset(),
        detect_env: tuple[str, ...] = (),
        detect_events: frozenset[str] = frozenset(),
        detect_fields: tuple[str, ...] = (),
        detect_path: str = "",
        shim: str | None = None,
        shim_noun: str = "extension",
        rivals: tuple[str, ...] = (),
        rival_configs: tuple[str, ...] = (),
        named_ms_handlers: bool = False,
        hooks_timeout_ms: bool = False,
        hooks_at_top: bool = False,
        hooks_off: tuple[str, bool] | None = None,
        next_steps: tuple[str, ...] = (),
        mcp: str | None = None,
        mcp_file: str = "",
        mcp_entry: Mapping[str, object] | None = None,
        doctor: tuple[str, ...] = (),
        activity: tuple[str, str, int] | None = None,
        last_used: Callable[[Mapping[str, str]], float] | None = None,
        context_unit: str = "bytes",
        reply_in_stop: bool = False,
        stop_before_transcript: bool = False,
        held_start_context: str | None = None,
        precompact_gate: str | None = None,
        commits_previous_on_start: bool = False,
        resume_keeps_transcript: bool = False,
    ) -> None:
        given = locals()
        for field in self.__slots__:
            setattr(self, field, given[field])
        self.mcp_entry = dict(mcp_entry or {})

    def commands(self) -> list[str]:
        """The hook commands this host runs, in file order."""
        return [command for _event, command, *_rest in self.events]
