"""What most commands need: the settings in force, a backend, the project peer, the state."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings
    from ovhooks.project import ProjectIdentity


def settings_from(environ: Mapping[str, str] | None = None) -> Settings:
    from ovhooks.config import load_settings

    return load_settings(os.environ if environ is None else environ)


def current_peer(settings: Settings, cwd: str | None = None) -> str:
    """The peer hooks use for this folder (see :mod:`ovhooks.project`)."""
    return current_identity(settings, cwd).peer


def current_identity(settings: Settings, cwd: str | None = None) -> ProjectIdentity:
    from ovhooks.project import resolve

    return resolve(cwd if cwd is not None else os.getcwd(), actor_peer=settings.actor_peer)


def command_backend(
    settings: Settings, *, peer: str = "", timeout_s: float | None = None
) -> Backend:
    """A backend for a human command: pooled httpx for OpenViking, else the factory's."""
    if settings.backend == "openviking":
        from ovhooks.backend.http import HttpxTransport
        from ovhooks.backend.openviking import OpenVikingBackend

        return OpenVikingBackend(
            settings, peer, transport=HttpxTransport(), request_timeout_s=timeout_s
        )
    from ovhooks.backend.factory import make_backend

    return make_backend(settings, peer=peer)


def outbox_backlog(state_dir: str) -> dict[str, int]:
    """Session key -> queued outbox entries (``outbox/<key>/*.json``)."""
    root = os.path.join(state_dir, "outbox")
    out: dict[str, int] = {}
    try:
        keys = os.listdir(root)
    except OSError:
        return out
    for key in sorted(keys):
        if key == "dead" or key.startswith("."):
            continue
        try:
            names = os.listdir(os.path.join(root, key))
        except OSError:
            continue
        count = sum(1 for n in names if n.endswith(".json"))
        if count:
            out[key] = count
    return out


def dead_letters(state_dir: str) -> int:
    """Writes the server refused for good, kept under ``outbox/dead/`` for inspection."""
    root = os.path.join(state_dir, "outbox", "dead")
    total = 0
    for _dir, _subdirs, files in os.walk(root):
        total += sum(1 for n in files if n.endswith(".json"))
    return total
