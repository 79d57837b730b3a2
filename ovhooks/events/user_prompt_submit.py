"""UserPromptSubmit: recall what memory holds about this prompt, fast, or nothing.

All ranking, budgeting, de-duplication and the circuit breaker live in ``recall/``; this
handler gathers the inputs (the prompt and the last few user turns) and the deadline.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import Backend
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event
    from ovhooks.recall import RecallOutcome

RECENT_USER_TURNS = 3


def handle(event: Event, ctx: HookContext) -> Reply:
    """Recall for this prompt (and the legacy peer's memories) within the deadline; on Gemini
    CLI, after the session-start block SessionStart held for this first prompt."""
    reply = _recall(event, ctx)  # first: a recall cut by the deadline leaves the block held
    start = ""
    held = ctx.spec.held_start_context
    if held and event.session_id and not ctx.dry_run:
        holder = __import__(held, fromlist=["take_start_context"])
        # A SessionStart started alongside this prompt (Copilot CLI) may still be building it
        start = holder.take_start_context(
            ctx.settings.state_dir, ctx.session_key(event), wait_s=holder.START_WAIT_S
        )
    if start:
        reply.context = f"{start}\n\n{reply.context}" if reply.context else start
    return reply


def _recall(event: Event, ctx: HookContext) -> Reply:
    settings = ctx.settings
    prompt = event.prompt.strip()
    if not settings.recall or not prompt or ctx.bypassed(event):
        return Reply()
    if len(prompt) < settings.recall_min_prompt_chars:
        return Reply()
    key = ctx.session_key(event)
    recent = _recent_user_texts(ctx.host, event.transcript_path, prompt)
    from ovhooks.recall import recall_for_prompt

    deadline = ctx.started + settings.recall_deadline_s
    identity = ctx.identity(event)
    also: list[tuple[Backend, str]] = []
    if identity.legacy_peer:
        from ovhooks.project.legacy import legacy_targets

        targets = legacy_targets(settings.state_dir, identity.peer, identity.legacy_peer)
        if targets:
            from ovhooks.backend.factory import make_backend

            old = make_backend(settings, peer=identity.legacy_peer, deadline=deadline)
            also = [(old, target) for target in targets]
    outcome = recall_for_prompt(
        prompt,
        recent_user_texts=recent,
        session_key=key or "no-session",
        ov_session_id=key or None,
        backend=ctx.backend(event, deadline=deadline),
        settings=ctx.scratch_settings(),
        now=ctx.now,
        also_search=also,
    )
    if settings.usage_view == "summary" and key and not ctx.dry_run:
        from ovhooks.recall.usage import note_supplied

        note_supplied(settings.state_dir, key, outcome.injected_uris, ctx.now)
    if not ctx.dry_run:
        _journal(ctx, key, identity.peer, outcome)
    return Reply(context=outcome.context, system_message=outcome.system_message)


def _journal(ctx: HookContext, key: str, peer: str, outcome: RecallOutcome) -> None:
    """One line in the recall log (``recall/journal``): what was injected, or why nothing."""
    from ovhooks.recall import journal

    entry = journal.entry_for(
        now=ctx.now,
        host=ctx.host,
        session=key,
        peer=peer,
        reason=outcome.reason,
        prompt_head=outcome.prompt_head,
        tokens=outcome.tokens,
        items=list(outcome.items),
    )
    journal.append(ctx.settings.state_dir, entry)


def _recent_user_texts(host: str, path: str, prompt: str) -> list[str]:
    """The user's last few messages before this prompt (seed 004: a better query)."""
    from ovhooks.transcripts import transcript_reader

    reader = transcript_reader(host) if path else None
    recent_user_texts = getattr(reader, "recent_user_texts", None)  # none: a store, not JSONL
    if recent_user_texts is None:
        return []
    from ovhooks.transcripts.reader import read_tail

    try:
        records = read_tail(path, 64 * 1024)
    except OSError:
        return []
    texts: list[str] = recent_user_texts(records, RECENT_USER_TURNS + 1)
    if texts and texts[-1].strip() == prompt:
        texts = texts[:-1]
    return texts[-RECENT_USER_TURNS:]
