"""Recall on UserPromptSubmit: a little relevant memory, fast, or nothing.

One request in the common case: the server's context search (the user's memories, this
project's peer memories, skills; resources only when ``recall_resources`` is on). A server
without it answers 400/404 once; that is remembered per server for six hours and plain
``find`` is used instead, so later prompts do not pay twice.

Client side, whatever the server did: the score threshold is honoured, scaffolding never gets
through, memories already injected in this session are skipped (until ``reset_session``, which
the host's compaction triggers), duplicates collapse, and the rest is capped per item and
fitted to a token budget, with the overflow degraded to URI hints.

Which candidates are worth injecting is decided in one place, ``recall/decision.py``, from
the signals each backend gives: the local store's lexical evidence and semantic strength, an
embedding server's scores read against its own calibration.

Failures open a circuit breaker: for ``recall_breaker_s`` no request is made at all, and the
user is told once per outage through ``system_message``. Nothing here sleeps or retries.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from ovhooks.backend.base import Backend
    from ovhooks.recall.rank import Candidate
    from ovhooks.recall.state import ServerState
    from ovhooks.recall.trace import Trace
    from ovhooks.settings.config import Settings
    from ovhooks.transport.errors import BackendError

__all__ = ["RecallOutcome", "recall_for_prompt", "recall_paused", "reset_session"]


class RecallOutcome:
    """What the hook injects: ``context`` (a complete block) and/or a one-off user note."""

    __slots__ = (
        "context",
        "injected_uris",
        "items",
        "prompt_head",
        "reason",
        "system_message",
        "tokens",
    )

    def __init__(
        self,
        context: str | None = None,
        system_message: str | None = None,
        injected_uris: tuple[str, ...] = (),
        *,
        reason: str = "ok",
        tokens: int = 0,
        prompt_head: str = "",
        items: tuple[tuple[str, float], ...] = (),
    ) -> None:
        self.context = context
        self.system_message = system_message
        self.injected_uris = injected_uris
        # Why nothing was injected (``skipped:ack``, ``breaker``, ``no_results``…), for logs.
        self.reason = reason
        self.tokens = tokens
        # The prompt as the query saw it (after the scrubber; "" when skipped before it), and
        # each injected URI with its score: what the recall log keeps (``recall/journal``).
        self.prompt_head = prompt_head
        self.items = items

    def __repr__(self) -> str:
        return (
            f"RecallOutcome(reason={self.reason!r}, tokens={self.tokens}, "
            f"uris={self.injected_uris!r}, system_message={self.system_message!r})"
        )


def server_key(backend: Backend, settings: Settings) -> str:
    name = getattr(backend, "name", "") or "backend"
    return f"{name} {settings.url}" if name == "openviking" else name


def recall_paused(settings: Settings, backend_name: str, now: float) -> bool:
    """Whether the breaker is open for this server (lets a caller skip building a backend)."""
    from ovhooks.recall.state import ServerState

    key = f"{backend_name} {settings.url}" if backend_name == "openviking" else backend_name
    return ServerState(settings.state_dir, key).breaker_open(now)


def reset_session(settings: Settings, session_key: str) -> None:
    """Forget what this session was shown: after a compaction it may be injected again."""
    from ovhooks.recall.state import forget_session

    forget_session(settings.state_dir, session_key)


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def failure_reason(exc: BackendError) -> str:
    """How a failure reads in the user's note: "memory server <reason>; recall paused…"
    (the short wording of ``backend.errors.failure_kind``; commands word it at length)."""
    from ovhooks.transport.errors import failure_kind

    kind = failure_kind(exc)
    if kind == "unreachable":
        return "unreachable"
    if kind == "timeout":
        return "not answering in time"
    if kind in ("unauthenticated", "permission_denied"):
        return f"refusing our credentials (HTTP {exc.status})"
    return f"failing ({exc})"


def recall_for_prompt(
    prompt: str,
    *,
    recent_user_texts: Sequence[str],
    session_key: str,
    ov_session_id: str | None,
    backend: Backend,
    settings: Settings,
    now: float,
    also_search: Sequence[tuple[Backend, str]] = (),
    trace: Trace | None = None,
) -> RecallOutcome:
    """Search memory for ``prompt`` and build the block to inject (see the module docstring).
    With a ``trace`` it records each step and marks nothing as shown (the viewer's "why").

    ``also_search``: ``(backend, memory folder)`` searched besides the usual scopes (a
    project's old peer: OpenViking shows a peer's memories only to a caller acting as it).

    ``ov_session_id`` is deliberately not sent to the server: with a session id OpenViking
    runs an LLM query planner on the session's live messages, seconds the hook cannot spend.
    The recent user turns give the query the same context at no cost.
    """
    del ov_session_id  # see the docstring
    from ovhooks.capture.noise import is_noise
    from ovhooks.capture.sanitize import strip_injected

    text = strip_injected(prompt)
    if len(text) < settings.recall_min_prompt_chars:
        return RecallOutcome(reason="skipped:short")
    noise = is_noise(text, "user")
    if noise is not None:
        return RecallOutcome(reason=f"skipped:{noise}")
    from ovhooks.recall.state import ServerState, add_injected, injected_uris

    server = ServerState(settings.state_dir, server_key(backend, settings))
    if server.breaker_open(now):
        return _paused(server, settings)
    from ovhooks.transport.errors import BackendError

    text, query = _outbound_query(text, recent_user_texts, settings)
    seen = injected_uris(settings.state_dir, session_key)
    head = text[:200]
    if trace is not None:
        trace.query, trace.seen = query, frozenset(seen)

    from ovhooks.recall.retrieve import gather

    try:
        candidates, failed = gather(query, text, backend, settings, server, now, also_search)
    except BackendError as exc:
        if trace is not None:
            trace.error = str(exc)
        tell = not server.breaker_noted()
        server.open_breaker(now, settings.recall_breaker_s, failure_reason(exc), noted=True)
        server.save()
        note = _paused_note(server, settings) if tell else None
        return RecallOutcome(system_message=note, reason=f"error:{exc.kind}", prompt_head=head)
    server.close_breaker()
    server.save()
    # With session context on, the profile is already in the session-start block.
    candidates = [c for c in candidates if c.category != "profile" or not settings.session_context]
    from ovhooks.recall.decision import judge

    candidates, dropped = judge(candidates, text, backend, settings, server, now)
    if trace is not None:
        trace.store_dropped = dropped
        trace.candidates = list(candidates)
    outcome = _outcome(candidates, text, head, settings, seen, trace)
    if outcome.reason == "no_results" and dropped:
        outcome.reason = "abstained"  # found, and judged too weak: not "nothing found"
    if failed:
        # The plain search answered; only the bridged one did not (``retrieve.gather``).
        outcome.reason = f"{outcome.reason} (bridged search: {failed})"
    if trace is None and outcome.injected_uris:
        add_injected(settings.state_dir, session_key, seen, outcome.injected_uris, now)
    return outcome


def _outcome(
    candidates: list[Candidate],
    text: str,
    head: str,
    settings: Settings,
    seen: Collection[str],
    trace: Trace | None,
) -> RecallOutcome:
    """The block for the ``candidates`` found, or why there is none."""
    if not candidates:
        return RecallOutcome(reason="no_results", prompt_head=head)
    from ovhooks.recall import confidence
    from ovhooks.recall.decision import decide

    ranked = decide(candidates, text, seen)
    minimum = settings.recall_min_confidence
    ranked, below = confidence.apply(ranked, minimum)
    if trace is not None:
        trace.kept = list(ranked)
        trace.min_confidence = minimum
        trace.below_confidence = {c.uri: c.confidence or 0.0 for c in below}
    if below and not ranked:
        return RecallOutcome(reason="below_min_confidence", prompt_head=head)
    if not ranked:
        # Nothing new (all shown this session), or nothing with enough evidence.
        fresh = [c for c in candidates if c.uri not in seen]
        return RecallOutcome(reason="abstained" if fresh else "all_seen", prompt_head=head)
    return _block(ranked, settings, head, trace)


def _block(
    ranked: list[Candidate], settings: Settings, head: str, trace: Trace | None
) -> RecallOutcome:
    """The block injected for the ``ranked`` memories, within the item and token budgets."""
    from ovhooks.recall.render import render_within

    block = render_within(ranked, settings)
    if block is None:
        return RecallOutcome(reason="over_budget", prompt_head=head)
    uris = block.shown_uris + block.hint_uris
    if trace is not None:
        trace.shown = block.shown_uris
        trace.hints = block.hint_uris
        trace.block = block.text
        trace.tokens = block.tokens
    scores = {c.uri: c.score for c in ranked}
    items = tuple((uri, scores.get(uri, 0.0)) for uri in uris)
    return RecallOutcome(block.text, None, uris, tokens=block.tokens, prompt_head=head, items=items)


def _paused(server: ServerState, settings: Settings) -> RecallOutcome:
    """Recall while the breaker is open: nothing, and the note once per outage."""
    if server.breaker_noted():
        return RecallOutcome(reason="breaker")
    # The breaker was opened where the user could not be told (session start): tell now.
    server.mark_noted()
    server.save()
    return RecallOutcome(system_message=_paused_note(server, settings), reason="breaker")


def _outbound_query(
    text: str, recent_user_texts: Sequence[str], settings: Settings
) -> tuple[str, str]:
    """``(prompt, search query)``, both scrubbed: the query leaves the machine, so the prompt
    and the recent turns go through the same scrub as captured text (before ``build_query``
    cuts them). Only the start of each that the query can hold is scrubbed (with a margin,
    so a secret across the cut is read whole): a pasted 64 kB prompt and three long earlier
    turns would otherwise cost the hook four full scrubs. The prompt returned, which ranks
    locally, is that scrubbed start."""
    from ovhooks.capture.noise import is_noise
    from ovhooks.capture.sanitize import strip_injected
    from ovhooks.capture.scrub import clean_outbound_head
    from ovhooks.recall.query import PROMPT_QUERY_CHARS, TURN_QUERY_CHARS, build_query

    text = clean_outbound_head(text, PROMPT_QUERY_CHARS, settings)
    recent: list[str] = []
    for turn in recent_user_texts:
        cleaned = strip_injected(turn)
        if cleaned and is_noise(cleaned, "user") is None:
            recent.append(clean_outbound_head(cleaned, TURN_QUERY_CHARS, settings))
    return text, build_query(text, recent)


def _paused_note(server: ServerState, settings: Settings) -> str:
    reason = server.entry.get("reason") or "unreachable"
    return (
        f"ovhooks: memory server {reason}; recall paused for "
        f"{_seconds(settings.recall_breaker_s)} s"
    )
