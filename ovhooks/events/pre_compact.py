"""PreCompact: catch up with the transcript, then commit, before the host forgets.

Memories injected earlier in this session may be injected again after the compaction, since
the host drops them from its context.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """Let recalled memories be injected again; hand a catch-up and a commit to the worker."""
    if not event.session_id or ctx.bypassed(event):
        return Reply()
    gate = ctx.spec.precompact_gate
    if gate and not _compaction_follows(gate, event, ctx):
        return Reply()  # one of Gemini's per-turn attempts that compresses nothing
    key = ctx.session_key(event)
    if not ctx.dry_run:
        from ovhooks.recall import reset_session

        reset_session(ctx.settings, key)
    if ctx.settings.capture:
        trigger = event.trigger or "auto"
        ctx.hand_off([ctx.job(event, capture=True, commit=f"pre-compact ({trigger})")])
    return Reply()


def _compaction_follows(gate: str, event: Event, ctx: HookContext) -> bool:
    """A host that fires PreCompact before every model call (Gemini CLI's PreCompress): commit
    only when its gate module says a compaction follows (``hosts/gemini/compress.py``) or the
    server holds a commit's worth of tokens."""
    compression_follows = __import__(gate, fromlist=["compression_follows"]).compression_follows

    if compression_follows(
        event.transcript_path, event.trigger, ctx.environ, ctx.project_dir(event)
    ):
        return True
    threshold = ctx.settings.commit_token_threshold
    state = ctx.store().load(ctx.session_key(event)) if threshold else None
    pending = (state or {}).get("pending_tokens")
    return isinstance(pending, int) and pending >= threshold > 0
