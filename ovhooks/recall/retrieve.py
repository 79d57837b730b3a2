"""Candidates for a recall query: the store's context search (plain find on servers without
it), a bridged second search on an embedding server, and the old peer's folders."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ovhooks.backend.base import JSON, Backend
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.recall.rank import Candidate
    from ovhooks.recall.state import ServerState
    from ovhooks.settings.config import Settings
    from ovhooks.transport.errors import BackendError

# How long a server that lacks context search is sent plain find instead (it may be upgraded).
FIND_FALLBACK_S = 6 * 3600.0

# Candidates asked of an embedding server when the local model reads them too (``recall.
# rating``): OpenViking's coding preset returns ten, and with a small server model a Chinese
# question's English answer is often not among them. Measured on batch 3 (OpenViking 0.5.2,
# multilingual-e5-small, memories written per category): the right cross-lingual memory is
# among the ten for 22 of 36 prompts, among 25 for 35 of 36; the server's time did not change
# (~100 ms, the query's embedding dominates). Memories the server extracts from captured
# sessions all land in two categories (entities and preferences). With 8 and 6 of them (25
# entries) the English answer of a Chinese question was missing for 12 of 24 cross-lingual
# misses; with 16 and 10 (about 37) cross-lingual hits rose on three sets at unchanged
# clean but for one prompt (twelfth session; docs/SEMANTIC.md). The token budget lets every
# abstract through.
WIDE_QUOTAS = {"events": 4, "entities": 16, "preferences": 10, "experiences": 4, "skills": 3}
WIDE_RESOURCES = 3
WIDE_MAX_TOKENS = 4000
# At most this many candidates only the bridged search found are kept (``gather``).
BRIDGED_EXTRA_MAX = 10
# How much longer than the plain search the bridged one is waited for (``gather``).
BRIDGED_GRACE_S = 0.1


def _search_unsupported(exc: BackendError) -> bool:
    """A server that has no context search (older than the ``mode: context`` face)."""
    if exc.status in (404, 405, 501):
        return True
    if exc.status in (400, 422):
        text = exc.message.lower()
        return any(word in text for word in ("extra", "mode", "unexpected", "not permitted"))
    return False


def wide_quotas(resources: bool) -> dict[str, int]:
    """The wider candidate pool's quotas (resources only when recall shows them)."""
    return {**WIDE_QUOTAS, **({"resources": WIDE_RESOURCES} if resources else {})}


def gather(
    query: str,
    text: str,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    now: float,
    also_search: Sequence[tuple[Backend, str]],
) -> tuple[list[Candidate], str]:
    """Every candidate for the query: the store's, and the old peer's folders' ones; and
    why the bridged search (below) failed, "" when it did not.

    On an embedding server whose candidates the local model reads too, a prompt that names a
    glossary entry is searched a second time with the entry's words in the other language
    appended (``query.bridged_query``); what only that search finds is marked ``bridged``.
    Its scores answer another query, so such a candidate is weighed on its words and the
    local model's reading only (``recall.rating``). The plain search alone gives every
    server score that is read: appended to the one query, the bridge found more
    cross-lingual memories but made unrelated prompts score like related ones
    (docs/SEMANTIC.md).
    """
    bridged = _BridgedSearch.start(query, text, backend, settings, server, now)
    candidates = retrieve(
        query, backend=backend, settings=settings, server=server, now=now, prompt=text
    )
    failed = ""
    if bridged is not None:
        extra, failed = bridged.result({c.uri for c in candidates})
        candidates += extra
    for other, target in also_search:
        candidates += retrieve_under(query, target, backend=other, settings=settings)
    return candidates, failed


class _BridgedSearch:
    """The bridged search, sent on a thread and connection of its own while the plain one
    runs, so the prompt waits for the slower of the two, not their sum. It only reads: no
    server state is touched off the main thread."""

    def __init__(self, query: str, backend: OpenVikingBackend, settings: Settings) -> None:
        import threading
        import time

        self.query = query
        self.backend = backend.twin()
        self.settings = settings
        self.found: list[Candidate] = []
        self.failed = ""
        # When the search goes out: ``result`` waits for it about as long again as the
        # plain search took from here.
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="ovhooks-bridged", daemon=True)

    @classmethod
    def start(
        cls,
        query: str,
        text: str,
        backend: Backend,
        settings: Settings,
        server: ServerState,
        now: float,
    ) -> _BridgedSearch | None:
        """The search under way, or None when it cannot pay: the local model must read the
        candidates, the server must take the wide quotas (not plain find, not the narrow
        fallback), a fresh calibration must say that the store holds memories in the other
        language (``calibrate.has_script``), and the glossary must name something in the
        prompt."""
        if server.use_find(now) or not _asks_wide(backend, settings, server, now):
            return None
        from ovhooks.lexical.text import script_of
        from ovhooks.recall.calibrate import fresh, has_script

        doc = server.calibration()
        if not fresh(doc, now):
            return None  # no record of the scripts the store is written in
        if not has_script(doc, "en" if script_of(text) == "zh" else "zh"):
            return None  # a store without memories in the other language: nothing to bridge to
        from ovhooks.recall.query import bridged_query

        bridged = bridged_query(query, text)
        if bridged is None:
            return None
        job = cls(bridged, backend, settings)  # type: ignore[arg-type]
        job.thread.start()
        return job

    def _run(self) -> None:
        from ovhooks.recall.rank import from_context_entries
        from ovhooks.transport.errors import BackendError

        threshold = self.settings.recall_score_threshold
        try:
            result = self.backend.search_context(
                self.query,
                score_threshold=threshold,
                quotas=wide_quotas(self.settings.recall_resources),
                max_tokens=WIDE_MAX_TOKENS,
            )
            entries = result.get("entries")
            self.found, _scaffolds = from_context_entries(
                entries if isinstance(entries, list) else [],
                threshold=threshold,
                resources=self.settings.recall_resources,
            )
        except BackendError as exc:
            self.failed = exc.kind or "error"
        except Exception as exc:  # a thread's error reaches the hook as data, not a traceback
            self.failed = type(exc).__name__

    def result(self, known: set[str]) -> tuple[list[Candidate], str]:
        """What only the bridged search found, marked, and why it failed ("" if it did not).

        Called when the plain search has answered. The two cost the server about the same,
        so the bridged one is waited for at most as long again as the plain one took (plus
        ``BRIDGED_GRACE_S``), never past the backend's deadline: a server slow to answer the
        second costs the prompt that much, not the whole recall deadline.
        """
        import time

        plain_s = time.monotonic() - self.started
        self.thread.join(min(self._wait_s(), plain_s + BRIDGED_GRACE_S))
        if self.thread.is_alive():
            return [], "timeout"
        # The best few by the bridged search's score: the local model re-reads every
        # candidate, so this bounds its work (the additions measured were all in the top 4).
        fresh = [c for c in self.found if c.uri not in known]
        extra = sorted(fresh, key=lambda c: (-c.score, c.uri))[:BRIDGED_EXTRA_MAX]
        for cand in extra:
            cand.bridged = True
        return extra, self.failed

    def _wait_s(self) -> float:
        import time

        deadline = self.backend.deadline
        limit = self.settings.request_timeout_s
        if deadline is not None:
            limit = min(limit, deadline - time.monotonic())
        return max(0.0, limit) + 0.05


def retrieve(
    query: str,
    *,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    now: float,
    threshold: float | None = None,
    prompt: str | None = None,
) -> list[Candidate]:
    """Candidates from the server: context search, or plain find on servers without it.
    ``prompt`` (the prompt alone, without the recent turns) reaches the local store, whose
    embedding service matches it by meaning."""
    from ovhooks.recall.rank import from_context_entries, from_find_result
    from ovhooks.transport.errors import BackendError

    if threshold is None:
        threshold = settings.recall_score_threshold
    if not server.use_find(now):
        try:
            # Memories this session has seen are filtered here, not by the server's
            # exclude_uris: the best match must stay visible to measure the others against.
            if backend.rates_candidates:
                result = backend.search_context(query, score_threshold=threshold, prompt=prompt)
            elif _asks_wide(backend, settings, server, now):
                result = _wide_search(query, backend, settings, server, now, threshold)
            else:
                result = backend.search_context(query, score_threshold=threshold)
        except BackendError as exc:
            if not _search_unsupported(exc):
                raise
            server.remember_find(now, FIND_FALLBACK_S)
        else:
            entries = result.get("entries")
            # A store that rates its candidates returns them undecided, under the threshold
            # too (``recall.decision.judge_rated`` applies it); it applied the threshold
            # itself to whatever it could not rate.
            found, _scaffolds = from_context_entries(
                entries if isinstance(entries, list) else [],
                threshold=0.0 if backend.rates_candidates else threshold,
                resources=settings.recall_resources,
            )
            return found
    result = backend.find(
        query,
        limit=max(10, 2 * settings.recall_max_items),
        score_threshold=threshold,
    )
    found, _scaffolds = from_find_result(
        result, threshold=threshold, resources=settings.recall_resources
    )
    return found


def _asks_wide(backend: Backend, settings: Settings, server: ServerState, now: float) -> bool:
    """Whether the context search asks for the wider pool: the local model reads an
    embedding server's candidates, and this server has not refused the quotas lately. The
    bridged search goes out only where the plain one is wide (``_BridgedSearch.start``)."""
    return (
        settings.semantic
        and getattr(backend, "name", "") == "openviking"
        and not server.use_narrow(now)
    )


def _wide_search(
    query: str,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    now: float,
    threshold: float,
) -> JSON:
    """The context search with the wider pool's quotas; a server that refuses them (one
    with context search but without quotas) is asked again without, and not asked for them
    for ``FIND_FALLBACK_S``. Its refusal must not read as "no context search at all"."""
    from ovhooks.transport.errors import BackendError

    server_backend: OpenVikingBackend = backend  # type: ignore[assignment]
    try:
        return server_backend.search_context(
            query,
            score_threshold=threshold,
            quotas=wide_quotas(settings.recall_resources),
            max_tokens=WIDE_MAX_TOKENS,
        )
    except BackendError as exc:
        if not _search_unsupported(exc):
            raise
    server.remember_narrow(now, FIND_FALLBACK_S)
    return backend.search_context(query, score_threshold=threshold)


def retrieve_under(
    query: str, target_uri: str, *, backend: Backend, settings: Settings
) -> list[Candidate]:
    """Candidates from one memory folder (plain find scoped to ``target_uri``)."""
    from ovhooks.recall.rank import from_find_result

    threshold = settings.recall_score_threshold
    result = backend.find(
        query, target_uri=target_uri, limit=settings.recall_max_items, score_threshold=threshold
    )
    found, _scaffolds = from_find_result(
        result, threshold=threshold, resources=settings.recall_resources
    )
    return found
