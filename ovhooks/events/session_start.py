"""SessionStart: register the session, commit sessions that have ended, inject context.

- startup / clear: the active-window heuristic and the idle sweep (``lifecycle.py``) pick
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
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event
    from ovhooks.layout import Job, State


def handle(event: Event, ctx: HookContext) -> Reply:
    if ctx.bypassed(event):
        return Reply()
    from ovhooks import layout
    from ovhooks.lifecycle import commit_job, forgettable, session_start_commits
    from ovhooks.state import StateStore, new_state

    settings = ctx.settings
    source = event.source or "startup"
    key = ctx.session_key(event)
    store = StateStore(settings.state_dir, plan=ctx.plan, log=ctx.log)
    prior = store.load(key) if key else None

    if key:

        def register(doc: State) -> None:
            doc["registered_at"] = ctx.now
            if event.transcript_path:
                doc["transcript_path"] = event.transcript_path
            if event.cwd:
                doc["cwd"] = event.cwd
            doc["peer"] = ctx.peer(event)
            doc["ended"] = False
            doc["last_source"] = source
            if source == "fork":  # its transcript starts with the parent's turns
                doc["forked"] = True

        store.update(
            key,
            register,
            create=lambda: new_state(key, ctx.host, event.session_id, ctx.now),
        )
        if source == "compact" and not ctx.dry_run:
            from ovhooks.recall import reset_session

            reset_session(settings, key)

    states = store.all()
    jobs: list[Job] = []
    commits = session_start_commits(
        states,
        new_key=key,
        host=ctx.host,
        source=source,
        now=ctx.now,
        active_window_s=settings.active_window_s,
        idle_ttl_s=settings.idle_ttl_s,
    )
    by_key = {str(s["key"]): s for s in states}
    for other, reason in commits:
        jobs.append(commit_job(by_key[other], reason, capture=settings.capture))
    # Writes an earlier outage left queued are replayed now, whatever the source.
    queued_keys = layout.queued_sessions(settings.state_dir, states)
    for other in queued_keys:
        if other not in {j["key"] for j in jobs}:
            doc = by_key.get(other) or {"key": other}
            jobs.append(layout.job_for_state(doc))
    if source in ("startup", "clear") and not ctx.dry_run:
        for stale in forgettable(states, now=ctx.now):
            if stale != key and stale not in queued_keys:
                store.delete(stale)
                from ovhooks.recall import reset_session

                reset_session(settings, stale)
    ctx.hand_off(jobs)

    context = None
    notice = None
    if settings.session_context and key:
        include_archive = source == "resume" and (
            prior is None
            or (int(prior.get("uncommitted") or 0) == 0 and prior.get("last_commit_at") is not None)
        )
        deadline = ctx.started + settings.session_start_deadline_s
        backend = ctx.backend(event, deadline=deadline)
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
            )
        except Exception as exc:  # context is a nicety: never let it cost the session
            from ovhooks.redact import describe_exception

            ctx.log.error("session_context_failed", session=key, error=describe_exception(exc))
            if queued_keys:
                notice = (
                    f"ovhooks: memory server unreachable; writes for {len(queued_keys)} "
                    "session(s) are queued and will be retried. See `ovhooks status`."
                )
    identity = ctx.identity(event)
    if identity.legacy_peer and key and not ctx.dry_run and settings.recall:
        from ovhooks.project.legacy import refresh

        try:
            deadline = ctx.started + settings.session_start_deadline_s
            from ovhooks.backend.factory import make_backend

            old = make_backend(settings, peer=identity.legacy_peer, deadline=deadline)
            refresh(settings.state_dir, identity.peer, identity.legacy_peer, old, ctx.now)
        except Exception as exc:  # a nicety, like the context block
            ctx.log.error("legacy_peer_check_failed", session=key, error=repr(exc))
    if not ctx.dry_run:
        from ovhooks.commit_outcome import failure_notice

        failed = failure_notice(store, states)
        if failed:
            notice = f"{notice}\n{failed}" if notice else failed
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
