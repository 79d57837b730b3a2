"""SessionStart: register the session, commit sessions that have ended, inject context.

- startup / clear: the active-window heuristic and the idle sweep (``session/lifecycle.py``) pick
  other sessions to commit; their commits are queued and sent by a detached worker, as are
  writes left queued by an earlier outage.
- resume: never commits. When the session's turns were already committed (no live
  OpenViking session), the latest archive overview is injected for continuity.
- compact: the host dropped earlier context, so the session-start block is injected again and
  recalled memories may be injected again.
"""

from __future__ import annotations

import time

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event
    from ovhooks.project import ProjectIdentity
    from ovhooks.session.store import StateStore
    from ovhooks.settings.layout import Job, State


def handle(event: Event, ctx: HookContext) -> Reply:
    """Register the session, hand ended sessions' commits and queued writes to the worker,
    and reply with the session-start block and a notice of what was queued or failed."""
    if ctx.bypassed(event):
        return Reply()
    key = ctx.session_key(event)
    holder = _holder(ctx, key)
    if holder is None:
        return _handle(event, ctx, key, None)
    # A host that holds the block for the first prompt may start that prompt's hook at once
    # (Copilot CLI): it waits for the block while this mark says one is being built.
    state_dir = ctx.settings.state_dir
    holder.mark_start_pending(state_dir, key)
    try:
        return _handle(event, ctx, key, holder)
    finally:
        holder.clear_start_pending(state_dir, key)


def _holder(ctx: HookContext, key: str) -> Any:
    """The host's module that holds the session-start block for the first prompt, or None."""
    held = ctx.spec.held_start_context
    if not held or ctx.dry_run or not ctx.settings.session_context or not key:
        return None
    return __import__(held, fromlist=["hold_start_context"])


def _handle(event: Event, ctx: HookContext, key: str, holder: Any) -> Reply:
    settings = ctx.settings
    source = event.source or "startup"
    store = ctx.store()
    prior = store.load(key) if key else None
    if key:
        _register(event, ctx, store, key, source)
    states = store.all()
    commits, queued_keys, jobs = _jobs(ctx, key, source, states)
    if source in ("startup", "clear") and not ctx.dry_run:
        _forget_stale(ctx, store, states, keep={key, *queued_keys})
    ctx.hand_off(jobs)

    context = notice = None
    if settings.session_context and key:
        context, failed = _context_block(event, ctx, key, source, prior)
        if failed and queued_keys:
            notice = (
                f"ovhooks: memory server unreachable; writes for {len(queued_keys)} "
                "session(s) are queued and will be retried. See `ovhooks status`."
            )
    if context and holder is not None:
        # Gemini puts SessionStart's context before the prompt in -p mode, and a resume then
        # drops that message: the block waits for the first BeforeAgent (hosts/gemini).
        holder.hold_start_context(settings.state_dir, key, context)
        context = None
    identity = ctx.identity(event)
    if identity.legacy_peer and key and not ctx.dry_run and settings.recall:
        _refresh_legacy_peer(ctx, identity, key)
    if not ctx.dry_run:
        from ovhooks.session.commit_outcome import failure_notice

        failed_commits = failure_notice(store, states)
        if failed_commits:
            notice = f"{notice}\n{failed_commits}" if notice else failed_commits
    if commits and not notice:
        names = ", ".join(k for k, _r in commits[:3]) + ("…" if len(commits) > 3 else "")
        # handed to a detached worker: queued, not done (the worker may still fail to send)
        notice = f"ovhooks: queued {len(commits)} earlier session(s) for commit to memory ({names})"
    ctx.log.info(
        "session_start",
        session=key,
        source=source,
        commits=len(commits),
        replays=len(queued_keys),
        context_chars=len(context or ""),
        ms=round((time.monotonic() - ctx.started) * 1000, 1),
    )
    return Reply(context=context, system_message=notice)


def _register(event: Event, ctx: HookContext, store: StateStore, key: str, source: str) -> None:
    """Create or refresh this session's document (and, after a compaction, its recall state)."""
    from ovhooks.session.store import new_state

    def register(doc: State) -> None:
        doc["registered_at"] = ctx.now
        # A resumed Gemini CLI session names a new, nearly empty file here, then goes on
        # writing the one it resumed (which its later hooks name): the known path stays.
        keeps = ctx.spec.resume_keeps_transcript and source == "resume"
        if event.transcript_path and not (keeps and doc.get("transcript_path")):
            doc["transcript_path"] = event.transcript_path
        if event.cwd:
            doc["cwd"] = event.cwd
        doc["peer"] = ctx.peer(event)
        doc["ended"] = False
        doc["last_source"] = source
        if source == "fork":  # its transcript starts with the parent's turns
            doc["forked"] = True

    store.update(key, register, create=lambda: new_state(key, ctx.host, event.session_id, ctx.now))
    if source == "compact" and not ctx.dry_run:
        from ovhooks.recall import reset_session

        reset_session(ctx.settings, key)


def _jobs(
    ctx: HookContext, key: str, source: str, states: list[State]
) -> tuple[list[tuple[str, str]], list[str], list[Job]]:
    """Sessions to commit (with why), sessions with queued writes, and the jobs for both."""
    from ovhooks.session.lifecycle import commit_job, session_start_commits
    from ovhooks.settings import layout

    settings = ctx.settings
    commits = session_start_commits(
        states,
        new_key=key,
        host=ctx.host,
        source=source,
        now=ctx.now,
        active_window_s=settings.active_window_s,
        idle_ttl_s=settings.idle_ttl_s,
        ends_previous=ctx.spec.commits_previous_on_start,
    )
    by_key = {str(s["key"]): s for s in states}
    jobs = [
        commit_job(by_key[other], reason, capture=settings.capture) for other, reason in commits
    ]
    # Writes an earlier outage left queued are replayed now, whatever the source.
    queued_keys = layout.queued_sessions(settings.state_dir, states)
    for other in queued_keys:
        if other not in {j["key"] for j in jobs}:
            jobs.append(layout.job_for_state(by_key.get(other) or {"key": other}))
    return commits, queued_keys, jobs


def _forget_stale(
    ctx: HookContext, store: StateStore, states: list[State], *, keep: set[str]
) -> None:
    """Delete the documents (and recall state) of sessions long over, except ``keep``."""
    from ovhooks.session.lifecycle import forgettable

    for stale in forgettable(states, now=ctx.now):
        if stale not in keep:
            store.delete(stale)
            from ovhooks.recall import reset_session

            reset_session(ctx.settings, stale)


def _context_block(
    event: Event, ctx: HookContext, key: str, source: str, prior: State | None
) -> tuple[str | None, bool]:
    """The session-start block (None when there is nothing to say), and whether building it
    failed. On resume, the last archive is included when the session has nothing live."""
    settings = ctx.settings
    include_archive = source == "resume" and (
        prior is None
        or (int(prior.get("uncommitted") or 0) == 0 and prior.get("last_commit_at") is not None)
    )
    backend = ctx.backend(event, deadline=ctx.started + settings.session_start_deadline_s)
    from ovhooks.context import build_session_start

    try:
        context = build_session_start(
            backend=backend,
            settings=settings,
            source=source,
            ov_session_id=key,
            include_archive=include_archive,
            now=ctx.now,
            host=ctx.host,
            unit=ctx.spec.context_unit,
        )
    except Exception as exc:  # context is a nicety: never let it cost the session
        from ovhooks.redact import describe_exception

        ctx.log.error("session_context_failed", session=key, error=describe_exception(exc))
        return None, True
    return context, False


def _refresh_legacy_peer(ctx: HookContext, identity: ProjectIdentity, key: str) -> None:
    """Record (at most daily) whether the project's old, path-based peer holds memories, so
    recall also searches it (``project/legacy.py``)."""
    from ovhooks.project.legacy import refresh

    try:
        deadline = ctx.started + ctx.settings.session_start_deadline_s
        from ovhooks.backend.factory import make_backend

        old = make_backend(ctx.settings, peer=identity.legacy_peer, deadline=deadline)
        refresh(ctx.settings.state_dir, identity.peer, identity.legacy_peer, old, ctx.now)
    except Exception as exc:  # a nicety, like the context block
        ctx.log.error("legacy_peer_check_failed", session=key, error=repr(exc))
