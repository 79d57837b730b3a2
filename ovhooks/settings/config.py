"""Settings: one object, resolved once per process from flags, environment, files and defaults.

Precedence (interface §3): flags > environment > ovhooks config file (TOML) > OpenViking's
``ovcli.conf`` (connection fields only) > defaults. Every value remembers where it came from so
``ovhooks status`` can show it.

Nothing here reads ``os.environ`` itself: the entry point passes the environment in.
"""

from __future__ import annotations

import os

from ovhooks.settings.layout import home_dir, user_dir
from ovhooks.settings.values import (
    _choice,
    _parse_bool,
    _parse_header,
    _parse_int,
    _parse_list,
    _parse_nonneg_float,
    _parse_probability,
    _parse_str,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

DEFAULT_URL = "http://127.0.0.1:1933"


# name: (environment variables, parser, default). The config-file key is the name itself.
# ``None`` defaults are derived after resolution (see ``_derive``).
_FIELDS: dict[str, tuple[tuple[str, ...], Callable[[object], object], object]] = {
    # connection
    "url": (("OPENVIKING_URL", "OPENVIKING_BASE_URL"), _parse_str, None),
    "api_key": (("OPENVIKING_API_KEY", "OPENVIKING_BEARER_TOKEN"), _parse_header, ""),
    "account": (("OPENVIKING_ACCOUNT",), _parse_header, ""),
    "user": (("OPENVIKING_USER",), _parse_header, ""),
    "actor_peer": (("OPENVIKING_ACTOR_PEER_ID", "OPENVIKING_PEER_ID"), _parse_header, ""),
    "auth_mode": (
        ("OVHOOKS_AUTH_MODE", "OPENVIKING_AUTH_MODE"),
        _choice("auto", "dev", "api_key", "trusted"),
        "auto",
    ),
    "backend": (("OVHOOKS_BACKEND",), _choice("auto", "openviking", "local"), "auto"),
    "connect_timeout_s": (("OVHOOKS_CONNECT_TIMEOUT_S",), _parse_nonneg_float, 2.0),
    "request_timeout_s": (("OVHOOKS_REQUEST_TIMEOUT_S",), _parse_nonneg_float, 15.0),
    "ca_bundle": (("OVHOOKS_CA_BUNDLE",), _parse_str, ""),
    # where things live
    "state_dir": (("OVHOOKS_STATE_DIR",), _parse_str, None),
    "data_dir": (("OVHOOKS_DATA_DIR",), _parse_str, None),
    # lifecycle
    "active_window_s": (("OVHOOKS_ACTIVE_WINDOW_S",), _parse_nonneg_float, 120.0),
    "idle_ttl_s": (("OVHOOKS_IDLE_TTL_S",), _parse_nonneg_float, 1800.0),
    "commit_token_threshold": (("OVHOOKS_COMMIT_TOKEN_THRESHOLD",), _parse_int, 20000),
    "commit_keep_recent": (("OVHOOKS_COMMIT_KEEP_RECENT",), _parse_int, 0),
    "detach": (("OVHOOKS_DETACH",), _parse_bool, True),
    "log_level": (
        ("OVHOOKS_LOG_LEVEL",),
        _choice("silent", "error", "info", "debug"),
        "error",
    ),
    "worker_lock_wait_s": (("OVHOOKS_WORKER_LOCK_WAIT_S",), _parse_nonneg_float, 120.0),
    # how long a write the client gave up on may still land on the server (never resent before)
    "inflight_window_s": (("OVHOOKS_INFLIGHT_WINDOW_S",), _parse_nonneg_float, 30.0),
    # the budget of hooks other than recall and session start; 0: a second under the host's
    # own timeout (hookrun.HOST_TIMEOUT_DEADLINES_S)
    "hook_deadline_s": (("OVHOOKS_HOOK_DEADLINE_S",), _parse_nonneg_float, 0.0),
    # recall
    "recall": (("OVHOOKS_RECALL",), _parse_bool, True),
    "recall_deadline_s": (("OVHOOKS_RECALL_DEADLINE_S",), _parse_nonneg_float, 1.5),
    "recall_score_threshold": (("OVHOOKS_RECALL_SCORE_THRESHOLD",), _parse_nonneg_float, 0.55),
    # shown memories under this probability of being right are dropped (recall/confidence.py)
    "recall_min_confidence": (("OVHOOKS_RECALL_MIN_CONFIDENCE",), _parse_probability, 0.0),
    "recall_max_tokens": (("OVHOOKS_RECALL_MAX_TOKENS",), _parse_int, 1200),
    "recall_max_items": (("OVHOOKS_RECALL_MAX_ITEMS",), _parse_int, 6),
    "recall_item_chars": (("OVHOOKS_RECALL_ITEM_CHARS",), _parse_int, 600),
    "recall_min_prompt_chars": (("OVHOOKS_RECALL_MIN_PROMPT_CHARS",), _parse_int, 3),
    "recall_breaker_s": (("OVHOOKS_RECALL_BREAKER_S",), _parse_nonneg_float, 60.0),
    "recall_resources": (("OVHOOKS_RECALL_RESOURCES",), _parse_bool, False),
    # recall by meaning: the per-user embedding service (ovhooks/semantic)
    "semantic": (("OVHOOKS_SEMANTIC",), _parse_bool, True),
    "semantic_deadline_ms": (("OVHOOKS_SEMANTIC_DEADLINE_MS",), _parse_nonneg_float, 80.0),
    "semantic_idle_s": (("OVHOOKS_SEMANTIC_IDLE_S",), _parse_nonneg_float, 1800.0),
    # the user's own embedding model (semantic/remote.py); embed_key_env NAMES the key's variable
    "embed_url": (("OVHOOKS_EMBED_URL",), _parse_str, ""),
    "embed_model": (("OVHOOKS_EMBED_MODEL",), _parse_str, ""),
    "embed_key_env": (("OVHOOKS_EMBED_KEY_ENV",), _parse_str, ""),
    "embed_api": (("OVHOOKS_EMBED_API",), _choice("auto", "openai", "ollama"), "auto"),
    "usage_view": (("OVHOOKS_USAGE_VIEW",), _choice("off", "summary"), "off"),
    "skill_memory": (("OVHOOKS_SKILL_MEMORY",), _parse_bool, True),
    "skill_memory_deadline_s": (("OVHOOKS_SKILL_MEMORY_DEADLINE_S",), _parse_nonneg_float, 1.0),
    # session-start context
    "session_context": (("OVHOOKS_SESSION_CONTEXT",), _parse_bool, True),
    "session_context_tokens": (("OVHOOKS_SESSION_CONTEXT_TOKENS",), _parse_int, 2500),
    "session_start_deadline_s": (("OVHOOKS_SESSION_START_DEADLINE_S",), _parse_nonneg_float, 1.5),
    "resume_archive_max_chars": (("OVHOOKS_RESUME_ARCHIVE_MAX_CHARS",), _parse_int, 6000),
    # capture
    "capture": (("OVHOOKS_CAPTURE",), _parse_bool, True),
    "capture_mode": (("OVHOOKS_CAPTURE_MODE",), _choice("semantic", "keyword"), "semantic"),
    "capture_assistant": (("OVHOOKS_CAPTURE_ASSISTANT",), _parse_bool, True),
    "capture_tool_results": (("OVHOOKS_CAPTURE_TOOL_RESULTS",), _parse_bool, False),
    "capture_tool_result_chars": (("OVHOOKS_CAPTURE_TOOL_RESULT_CHARS",), _parse_int, 2000),
    "capture_max_chars": (("OVHOOKS_CAPTURE_MAX_CHARS",), _parse_int, 24000),
    # Claude's Stop: how long the worker waits for the final reply to reach the transcript
    "reply_wait_s": (("OVHOOKS_REPLY_WAIT_S",), _parse_nonneg_float, 1.5),
    "scrub": (("OVHOOKS_SCRUB",), _parse_bool, True),
    "scrub_emails": (("OVHOOKS_SCRUB_EMAILS",), _parse_bool, False),
    "scrub_phones": (("OVHOOKS_SCRUB_PHONES",), _parse_bool, False),
    "bypass": (("OVHOOKS_BYPASS",), _parse_list, ()),
}


class Settings:
    """The configuration in force. Read-only after ``load_settings`` builds it."""

    url: str
    api_key: str
    account: str
    user: str
    actor_peer: str
    auth_mode: str
    backend: str
    connect_timeout_s: float
    request_timeout_s: float
    ca_bundle: str
    state_dir: str
    data_dir: str
    active_window_s: float
    idle_ttl_s: float
    commit_token_threshold: int
    commit_keep_recent: int
    detach: bool
    log_level: str
    worker_lock_wait_s: float
    inflight_window_s: float
    hook_deadline_s: float
    recall: bool
    recall_deadline_s: float
    recall_score_threshold: float
    recall_min_confidence: float
    recall_max_tokens: int
    recall_max_items: int
    recall_item_chars: int
    recall_min_prompt_chars: int
    recall_breaker_s: float
    recall_resources: bool
    semantic: bool
    semantic_deadline_ms: float
    semantic_idle_s: float
    embed_url: str
    embed_model: str
    embed_key_env: str
    embed_api: str
    usage_view: str
    skill_memory: bool
    skill_memory_deadline_s: float
    session_context: bool
    session_context_tokens: int
    session_start_deadline_s: float
    resume_archive_max_chars: int
    capture: bool
    capture_mode: str
    capture_assistant: bool
    capture_tool_results: bool
    capture_tool_result_chars: int
    capture_max_chars: int
    reply_wait_s: float
    scrub: bool
    scrub_emails: bool
    scrub_phones: bool
    bypass: tuple[str, ...]

    __slots__ = (*_FIELDS, "sources", "warnings", "why_backend")

    def __init__(
        self,
        values: Mapping[str, object],
        sources: Mapping[str, str],
        warnings: tuple[str, ...] = (),
        why_backend: str = "",
    ) -> None:
        for name in _FIELDS:
            object.__setattr__(self, name, values[name])
        object.__setattr__(self, "sources", dict(sources))
        object.__setattr__(self, "warnings", warnings)
        object.__setattr__(self, "why_backend", why_backend)

    sources: dict[str, str]
    warnings: tuple[str, ...]
    why_backend: str

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Settings are read-only")

    def replace(self, **changes: object) -> Settings:
        """A copy with some values changed (tests, ``--flag`` overrides)."""
        values = {name: getattr(self, name) for name in _FIELDS}
        sources = dict(self.sources)
        for name, value in changes.items():
            if name not in _FIELDS:
                raise AttributeError(name)
            values[name] = value
            sources[name] = "override"
        return Settings(values, sources, self.warnings, self.why_backend)

    def as_dict(self, *, reveal_secrets: bool = False) -> dict[str, object]:
        """Every value, with the API key masked unless asked otherwise."""
        out: dict[str, object] = {}
        for name in _FIELDS:
            value = getattr(self, name)
            if name == "api_key" and value and not reveal_secrets:
                value = mask_secret(str(value))
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @property
    def effective_auth_mode(self) -> str:
        """How identity headers are sent; see ``backend/openviking.py`` for the policy."""
        if self.auth_mode != "auto":
            return self.auth_mode
        if not self.api_key:
            return "dev"
        if self.account and self.user:
            return "trusted"
        return "api_key"


def mask_secret(value: str) -> str:
    """Show enough of a key to recognise it, never enough to use it."""
    if len(value) <= 8:
        return "****"
    return f"{value[:4]}…{value[-2:]} ({len(value)} chars)"


def _config_file(environ: Mapping[str, str], warnings: list[str]) -> tuple[str, dict[str, object]]:
    """(path, values) of ovhooks' config file. Silent only when the default file is simply
    absent; a path the user named, or a config.toml that is a folder, is a set-up mistake
    worth a word."""
    named = environ.get("OVHOOKS_CONFIG", "").strip()
    path = named or os.path.join(user_dir("config", environ), "config.toml")
    if os.path.isfile(path):
        from ovhooks.settings.files import config_toml

        return path, config_toml(path, known=tuple(_FIELDS), warnings=warnings)
    if named or os.path.lexists(path):
        what = "does not exist" if not os.path.lexists(path) else "is not a file"
        warnings.append(
            f"{'OVHOOKS_CONFIG names' if named else 'config file'} {path}, which {what}: ignored"
        )
    return path, {}


def _ovcli(
    environ: Mapping[str, str], home: str, warnings: list[str]
) -> tuple[str, dict[str, object]]:
    """(path, the settings it supplies) of OpenViking's ``ovcli.conf``, if there is one."""
    path = environ.get("OPENVIKING_CLI_CONFIG_FILE", "").strip()
    path = os.path.expanduser(path) if path else os.path.join(home, ".openviking", "ovcli.conf")
    if not os.path.isfile(path):
        return path, {}
    from ovhooks.settings.files import ovcli_conf

    return path, ovcli_conf(path, warnings=warnings)


def _candidates(
    name: str,
    flags: Mapping[str, object],
    environ: Mapping[str, str],
    files: tuple[tuple[str, dict[str, object]], ...],
) -> list[tuple[str, object]]:
    """Every (source, raw value) offered for setting ``name``, highest precedence first;
    ``files`` are (source, values by setting name), config.toml's before ovcli.conf's."""
    found: list[tuple[str, object]] = []
    if flags.get(name) is not None:
        found.append(("flag", flags[name]))
    found += [
        (f"env:{var}", environ[var]) for var in _FIELDS[name][0] if environ.get(var, "").strip()
    ]
    found += [(source, values[name]) for source, values in files if name in values]
    return found


def _derive(values: dict[str, object], sources: dict[str, str], environ: Mapping[str, str]) -> str:
    """Fill the values whose default depends on others (URL, directories, backend); returns
    why the backend is the one chosen."""
    server_configured = sources["url"] != "default"
    values["url"] = str(DEFAULT_URL if values["url"] is None else values["url"]).rstrip("/")
    for name, kind in (("state_dir", "state"), ("data_dir", "data")):
        if values[name] is None:
            values[name] = user_dir(kind, environ)
            sources[name] = "platform"
        values[name] = os.path.abspath(os.path.expanduser(str(values[name])))
    if values["backend"] != "auto":
        return f"chosen by {sources['backend']}"
    sources["backend"] = "derived"
    if server_configured:
        values["backend"] = "openviking"
        return f"a server is configured ({sources['url']})"
    values["backend"] = "local"
    return "no OpenViking server is configured (set OPENVIKING_URL to use one)"


def default_of(name: str) -> object:
    """A setting's default value (what is in force before any file or variable is read)."""
    return _FIELDS[name][2]


def load_settings(
    environ: Mapping[str, str], flags: Mapping[str, object] | None = None
) -> Settings:
    """Resolve the settings in force. Never raises for bad values: they become warnings."""
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    warnings: list[str] = []
    home = home_dir(environ)
    config_path, config = _config_file(environ, warnings)
    ovcli_path, ovcli = _ovcli(environ, home, warnings)
    files = ((f"config:{config_path}", config), (f"ovcli:{ovcli_path}", ovcli))
    for name, (_env_vars, parse, default) in _FIELDS.items():
        candidates = _candidates(name, flags or {}, environ, files)
        if name == "api_key":
            from ovhooks.redact import remember_secret

            for _source, raw in candidates:  # valid or not, no output may show any of them
                remember_secret(raw)
        values[name], sources[name] = default, "default"
        for source, raw in candidates:
            try:
                values[name] = parse(raw)
            except (ValueError, TypeError) as exc:
                warnings.append(f"{name} from {source} ignored: {exc}")
                continue
            sources[name] = source
            break
    if any(values[name] for name in ("api_key", "account", "user", "actor_peer")):
        from ovhooks.settings.files import header_warnings

        warnings.extend(header_warnings(values, sources))
    why = _derive(values, sources, environ)
    return Settings(values, sources, tuple(warnings), why)
