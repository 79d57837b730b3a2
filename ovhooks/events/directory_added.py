"""DirectoryAdded (Claude Code 2.1.219+): a working directory was added mid-session.

Claude Code 2.1.330 fires it for ``/add-dir`` and the SDK's ``register_repo_root`` (recorded:
``{"directory": "<abs path>", "source": "register_repo_root", "cwd": <unchanged>}``); the
directory is inside the session's folder (a nested repository, a submodule). Later events
still carry the old ``cwd``, so the session remembers the added directory, and the turns
captured from now on go to that directory's project (its own remote, files or path).
"""

from __future__ import annotations

import os

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event
    from ovhooks.settings.layout import State


def handle(event: Event, ctx: HookContext) -> Reply:
    """Move the session to the added directory's project: later captures go to its peer."""
    key = ctx.session_key(event)
    if not key or not event.directory or not os.path.isabs(event.directory):
        return Reply()
    from ovhooks.project import resolve

    identity = resolve(event.directory, actor_peer=ctx.settings.actor_peer)
    if not identity.peer:
        return Reply()
    from ovhooks.session.store import new_state

    def follow(doc: State) -> None:
        doc["project_dir"] = event.directory
        doc["peer"] = identity.peer

    ctx.store().update(
        key, follow, create=lambda: new_state(key, ctx.host, event.session_id, ctx.now)
    )
    ctx.log.info("project_followed", session=key, peer=identity.peer, source=identity.source)
    return Reply()
