"""Every registered host's recorded payloads, found by the host's name.

The first two hosts keep theirs in ``tests/fixtures/host-samples/<host>/hook-payloads``, the
later ones in ``tests/fixtures/<host>/hook-payloads``. A file is named after the hook command
it was recorded for (``session-start-…``, what the shims send), or after the host's event
(``BeforeAgent.json``, ``SessionStart-startup.json``).
"""

from __future__ import annotations

from pathlib import Path

from ovhooks.hosts.base import EVENT_NAMES
from ovhooks.hosts.registry import spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def payload_dir(host: str) -> Path | None:
    for folder in (FIXTURES / "host-samples" / host, FIXTURES / host):
        if (folder / "hook-payloads").is_dir():
            return folder / "hook-payloads"
    return None


def command_for(host: str, file_name: str) -> str | None:
    """The hook command a recorded payload file is for (None: no hook of ovhooks')."""
    stem = file_name.removesuffix(".json")
    for command in sorted(EVENT_NAMES, key=len, reverse=True):
        if stem == command or stem.startswith(command + "-"):
            return command
    event = stem.split("-", 1)[0]
    for host_event, command, *_rest in spec(host).events:
        if host_event == event:
            return command
    ours = {name: command for command, name in EVENT_NAMES.items()}
    return ours.get(event)


def recorded_payloads(host: str) -> list[tuple[str, str, bytes]]:
    """``(hook command, file name, payload bytes)`` for each recorded payload of ``host``."""
    folder = payload_dir(host)
    if folder is None:
        return []
    out = []
    for path in sorted(folder.glob("*.json")):
        command = command_for(host, path.name)
        if command is not None:
            out.append((command, path.name, path.read_bytes()))
    return out
