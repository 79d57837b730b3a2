"""Doctor's configuration checks: warnings from reading the settings, which backend and why,
and which project peer this folder's memories go to."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings


def check_config(settings: Settings) -> Check:
    if settings.warnings:
        return check(
            "config",
            "warn",
            "; ".join(settings.warnings),
            "correct or remove the values named (`ovhooks status` shows every source)",
        )
    return check("config", "ok", "configuration read without problems")


def check_backend_choice(settings: Settings) -> Check:
    where = (
        f" at {settings.url}" if settings.backend == "openviking" else (f" in {settings.data_dir}")
    )
    return check(
        "backend",
        "ok",
        f"{settings.backend}{where}: {settings.why_backend}",
        backend=settings.backend,
        why=settings.why_backend,
    )


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
        from ovhooks.project.legacy import legacy_targets

        # Said only when the last look (session start, at most daily) found memories there.
        if legacy_targets(settings.state_dir, identity.peer, identity.legacy_peer):
            summary += f" (memories under the old path peer {identity.legacy_peer} are still read)"
    return check("project", "ok", summary, **details)
