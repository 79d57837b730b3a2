"""Doctor checks added for hosts and teams, one function each (issue 16).

Each returns one ``Check`` and reads only what it names, so the doctor package split can
move them as they are.
"""

from __future__ import annotations

from ovhooks.commands.doctor import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.commands.doctor import Check
    from ovhooks.config import Settings


def check_project(settings: Settings, cwd: str) -> Check:
    """Which project peer this folder's memories go to, and where that came from."""
    from ovhooks.project import resolve

    identity = resolve(cwd, actor_peer=settings.actor_peer)
    details = identity.as_dict()
    if identity.warnings:
        return check(
            "project",
            "warn",
            f"project {identity.peer or '(none)'} from {identity.source}; "
            + "; ".join(identity.warnings),
            "move credentials and URLs out of committed files (.ovhooks.local.toml is local)",
            **details,
        )
    summary = f"project {identity.peer or '(none)'} from {identity.source}"
    if identity.legacy_peer:
        summary += f" (memories under the old path peer {identity.legacy_peer} are still read)"
    return check("project", "ok", summary, **details)
