"""The hosts ovhooks serves: one line per host, naming its package ``ovhooks.hosts.<name>``.

This is the only list of hosts. Core code asks ``spec(host)`` (or walks ``specs()``) for what
differs, never compares a host's name. Importing this module imports nothing; ``spec`` imports
only the package of the host asked for, so a hook pays for its own host alone.

Adding a host: write ``ovhooks/hosts/<name>/__init__.py`` exposing ``SPEC = HostSpec(...)``
(``hosts/spec.py`` says what each field means, ``hosts/README.md`` walks through it), add its
line to ``PACKAGES`` below, its transcript reader ``ovhooks/transcripts/<name>.py``, and its
recorded payloads (tests/fixtures/<name>/hook-payloads/).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.hosts.spec import HostSpec

# Host name (``--host``) -> its package: one line per host. Display order (status, help);
# detection walks it backwards: a newer host often sets an older one's variables too (Gemini
# CLI sets CLAUDE_PROJECT_DIR), so the newer one is asked first.
PACKAGES = {
    "codex": "ovhooks.hosts.codex",
    "claude": "ovhooks.hosts.claude",
    "pi": "ovhooks.hosts.pi",
    "opencode": "ovhooks.hosts.opencode",
    "gemini": "ovhooks.hosts.gemini",
    "copilot": "ovhooks.hosts.copilot",
    "qwen": "ovhooks.hosts.qwen",
    "droid": "ovhooks.hosts.droid",
}
HOSTS = tuple(PACKAGES)

_LOADED: dict[str, HostSpec] = {}


def spec(host: str) -> HostSpec:
    """The ``SPEC`` of ``host``'s package; ``KeyError`` for a name not in ``HOSTS``."""
    found = _LOADED.get(host)
    if found is None:
        module = __import__(PACKAGES[host], fromlist=["SPEC"])  # KeyError: not a host
        found = _LOADED[host] = module.SPEC
    return found


def session_key(host: str, host_session_id: str) -> str:
    """ovhooks' session key for ``host``'s session id: its ``session_prefix`` + the safe id."""
    from ovhooks.ids import prefixed_session_id

    return prefixed_session_id(spec(host).session_prefix, host_session_id)


def specs() -> list[HostSpec]:
    """Every host's spec, in ``HOSTS`` order (imports every host package: not for hooks)."""
    return [spec(host) for host in HOSTS]


def labels() -> dict[str, str]:
    return {host.name: host.label for host in specs()}


def detect(payload: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """Which host sent this when ``--host`` was not given (shipped configs always give it):
    one whose own event name is ``hook_event_name``, else one whose variable is set, else one
    whose payload fields or transcript path say so, else the first host."""
    candidates = [spec(host) for host in reversed(HOSTS)]
    event = payload.get("hook_event_name")
    for host in candidates:
        if isinstance(event, str) and event in host.detect_events:
            return host.name
    for host in candidates:
        if any(environ.get(name) for name in host.detect_env):
            return host.name
    path = payload.get("transcript_path")
    path = path if isinstance(path, str) else ""
    for host in candidates:
        if any(key in payload for key in host.detect_fields) or (
            host.detect_path and host.detect_path in path
        ):
            return host.name
    return HOSTS[0]
