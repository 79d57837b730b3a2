"""Session-start context: who the user is and what memory holds, in one block.

Requests, one after another (each bounded by the backend's deadline): who am I, the profile,
the preferences and entities listings, the memory root listing for the index, this project's
peer memories when the backend knows the peer, and on resume the session's archive overview.
A missing file or directory (404) just leaves its section out. A failure that means the
server is down (unreachable, timeout, 5xx) stops at once, opens recall's circuit breaker so
the first prompt does not wait for the same dead server, and injects nothing.

Layout and budgets: ``context/render.py``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import ParamSpec, TypeVar

    from ovhooks.backend.base import JSON, Backend
    from ovhooks.context.render import Entry, Sources
    from ovhooks.settings.config import Settings

    P = ParamSpec("P")
    T = TypeVar("T")

__all__ = ["build_session_start", "mcp_marker"]

LIST_LIMIT = 512
INDEX_LIST_LIMIT = 1000
MAX_EVENT_YEARS = 2
FEW_EVENTS = 10


class _ServerDownError(Exception):
    pass


def mcp_marker(state_dir: str, host: str) -> str:
    """The file ``ovhooks install`` leaves while ``ovhooks mcp`` is registered for ``host``:
    one ``stat`` tells session start whether to name the memory tools (reading the hosts'
    own configs would cost a hook a TOML parse, or megabytes of ``~/.claude.json``)."""
    import os

    return os.path.join(state_dir, "mcp", f"{host}.registered")


def build_session_start(
    *,
    backend: Backend,
    settings: Settings,
    source: str,
    ov_session_id: str,
    include_archive: bool,
    now: float,
    host: str = "",
    unit: str = "bytes",
) -> str | None:
    """The complete ``<openviking-context source="session-start">`` block, or ``None``.

    ``source`` (startup, resume, clear, compact) does not change the content: after a
    compaction the host has dropped the earlier block, so the same one goes in again.
    """
    del source  # the block is the same for every source; the caller decides when to build it
    from ovhooks.recall import server_key
    from ovhooks.recall.state import ServerState
    from ovhooks.transport.errors import BackendError

    server = ServerState(settings.state_dir, server_key(backend, settings))
    if server.breaker_open(now):
        return None
    try:
        sources = _gather(backend, settings, ov_session_id, include_archive)
    except _ServerDownError as down:
        exc = down.args[0]
        assert isinstance(exc, BackendError)
        from ovhooks.recall import failure_reason

        # Recall tells the user on the next prompt (this hook has no place to say it).
        server.open_breaker(
            now, settings.recall_breaker_s, failure_reason(exc), noted=server.breaker_noted()
        )
        server.save()
        return None
    import os

    from ovhooks.capture.tokens import estimate_tokens
    from ovhooks.context.render import GUIDE, MCP_GUIDE, compose_for_host

    tools = os.path.exists(mcp_marker(settings.state_dir, host))
    return compose_for_host(
        sources,
        unit,
        max_tokens=settings.session_context_tokens,
        archive_max_chars=settings.resume_archive_max_chars,
        estimate=estimate_tokens,
        guide=MCP_GUIDE if tools else GUIDE,
    )


def _ask(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """``call()``; ``None`` for a missing file or a request the server rejects.

    A server that is down or refuses our credentials raises ``_ServerDownError``: asking it the
    next question would only spend the hook's deadline on the same failure.
    """
    from ovhooks.transport.errors import BackendError

    try:
        return call(*args, **kwargs)
    except BackendError as exc:
        if exc.retryable or exc.status in (401, 403):
            raise _ServerDownError(exc) from exc
        return None


def _deep_events(
    backend: Backend, memories: str, root: list[JSON], files: list[Entry]
) -> list[Entry]:
    """Event files, which a recursive listing of the root does not reach.

    OpenViking lists three levels deep and events live at ``events/YYYY/MM/DD/name.md``, so
    the root listing shows the year directories only. The newest year is listed on its own
    (three levels reach its files), and the year before when the newest holds few events.
    """
    from ovhooks.context.render import memory_files

    events = f"{memories}/events"
    if any(f.uri.startswith(events + "/") for f in files):
        return []  # a backend that lists everything already gave them
    years = sorted(
        {
            str(item["uri"])
            for item in root
            if item.get("isDir")
            and isinstance(item.get("uri"), str)
            and str(item["uri"]).startswith(events + "/")
            and str(item["uri"])[len(events) + 1 :].isdigit()
        },
        reverse=True,
    )
    found: list[Entry] = []
    for year in years[:MAX_EVENT_YEARS]:
        items = _ask(backend.ls, year, recursive=True, limit=LIST_LIMIT) or []
        found += memory_files(items, memories)
        if len(found) >= FEW_EVENTS:
            break
    return found


def _gather(
    backend: Backend, settings: Settings, ov_session_id: str, include_archive: bool
) -> Sources:
    from ovhooks.context.render import Sources, group_index, index_groups, memory_files

    sources = Sources()
    user = settings.user or _ask(backend.whoami) or "default"
    memories = f"viking://user/{user}/memories"
    sources.profile_uri = f"{memories}/profile.md"

    profile = _ask(backend.read, sources.profile_uri)
    sources.profile = profile.strip() if isinstance(profile, str) else ""

    # One recursive listing of the memory root serves the preferences, the entities and the
    # index; only when it was cut short are the two listings asked for on their own.
    root = _ask(backend.ls, memories, recursive=True, limit=INDEX_LIST_LIMIT) or []
    files = memory_files(root, memories)
    for category in ("preferences", "entities"):
        dir_uri = f"{memories}/{category}"
        if len(root) >= INDEX_LIST_LIMIT:
            items = _ask(backend.ls, dir_uri, recursive=True, limit=LIST_LIMIT) or []
            entries = memory_files(items, dir_uri)
        else:
            entries = memory_files(
                [{"uri": e.uri, "abstract": e.abstract, "modTime": e.mod_time} for e in files],
                dir_uri,
            )
        sources.listings.append((dir_uri, entries))

    files += _deep_events(backend, memories, root, files)
    groups = index_groups(files, memories, skip=("preferences", "entities", "profile.md"))
    peer = getattr(backend, "peer", "")
    if isinstance(peer, str) and peer:
        peer_uri = f"viking://user/{user}/peers/{peer}/memories"
        peer_items = _ask(backend.ls, peer_uri, recursive=True, limit=LIST_LIMIT) or []
        peer_files = memory_files(peer_items, peer_uri)
        if peer_files:
            # This project's memories first: they matter most in this working directory, so
            # they are listed before the preferences and keep their place in a tight budget.
            peer_files.sort(key=lambda e: (e.mod_time, e.name), reverse=True)
            sources.project = (peer_uri, peer_files, f"this project, {len(peer_files)} memories")
    sources.index = group_index(groups)

    if include_archive and ov_session_id:
        budget = max(1000, settings.resume_archive_max_chars)
        context = _ask(backend.session_context, ov_session_id, budget)
        overview = context.get("latest_archive_overview") if context else None
        sources.archive = overview if isinstance(overview, str) else ""
    return sources
