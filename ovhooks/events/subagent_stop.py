"""SubagentStop: capture the subagent's transcript into its own session, then commit it.

The subagent's session is derived from the parent's and the agent id (interface §4), never
the parent's own: the parent's transcript holds only the Agent call and its result. Capture is
incremental like every other (a subagent continued later appends only what is new, anchor
G3) and goes through the same cleaning. Claude writes transcripts asynchronously, so the
subagent's final reply from the payload is handed to the worker as well.

Compaction runs as a subagent too: ``agent_type`` is empty and its transcript file does not
exist. Its "reply" is the compaction summary of the parent's own conversation; it is not a
subagent's work and is skipped quietly.
"""

from __future__ import annotations

import os

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event
    from ovhooks.settings.layout import State


# How long the worker waits for a subagent transcript Claude has not written yet. Inline
# (OVHOOKS_DETACH=0) the host waits too, and its timeout for this hook is 10 s.
SUBAGENT_TRANSCRIPT_WAIT_S = 10.0
INLINE_TRANSCRIPT_WAIT_S = 1.0


def is_compaction(event: Event) -> bool:
    """The compaction agent: ``agent_type`` present and empty (absent means an older build)."""
    return "agent_type" in event.payload and not event.agent_type.strip()


def handle(event: Event, ctx: HookContext) -> Reply:
    """Register the subagent's session and hand its capture and commit to the worker."""
    if not event.session_id or not event.agent_id or not ctx.settings.capture:
        return Reply()
    if is_compaction(event):
        ctx.log.debug("subagent_stop_compaction", agent=event.agent_id)
        return Reply()
    path = event.agent_transcript_path
    if not path:
        ctx.log.info("subagent_transcript_missing", agent=event.agent_id)
        return Reply()
    # Claude may fire SubagentStop before it has written the subagent's file: the worker
    # (detached, off the agent's path) waits a little for it to appear.
    wait_s = 0.0
    if not os.path.isfile(path):
        wait_s = SUBAGENT_TRANSCRIPT_WAIT_S if ctx.settings.detach else INLINE_TRANSCRIPT_WAIT_S
    if ctx.bypassed(event):
        return Reply()
    from ovhooks.ids import subagent_session_id
    from ovhooks.session.store import new_state

    parent = ctx.session_key(event)
    key = subagent_session_id(parent, event.agent_id)
    peer = ctx.peer(event)

    # Registered here, before the worker runs, so every reader of the state (the commit
    # heuristics, status) sees at once that this session belongs to a parent.
    def register(doc: State) -> None:
        doc["parent"] = parent
        doc["agent_id"] = event.agent_id
        doc["agent_type"] = event.agent_type
        doc["transcript_path"] = path
        doc["registered_at"] = ctx.now
        if event.cwd:
            doc["cwd"] = event.cwd
        doc["peer"] = peer

    store = ctx.store()
    store.update(key, register, create=lambda: new_state(key, ctx.host, event.session_id, ctx.now))
    ctx.hand_off(
        [
            ctx.job(
                event,
                key=key,
                transcript_path=path,
                parent=parent,
                capture=True,
                last_assistant=event.last_assistant_message,
                commit="subagent stop",
                wait_for_transcript_s=wait_s,
            )
        ]
    )
    return Reply()
