"""When sessions get committed: pure decisions over state documents, clock passed in.

The Codex host has no reliable end-of-session signal for every path (Ctrl+C, crashes), so a
SessionStart looks at the *other* sessions it knows (seed 001):

- active-window heuristic (Codex only, startup/clear): among other sessions with real
  conversation activity in the last ``active_window_s`` — exactly one means it is the
  session this terminal just left, so commit it; none means nothing to do; two or more
  means concurrent terminals, and which of them ended is unknowable, so leave them to the
  idle sweep. Activity is a captured turn, not registration: a session that merely started
  never counts (anchor bug #4), and registering the new session touches no other state.
- idle sweep (every host): a session with uncommitted turns and no activity for
  ``idle_ttl_s`` is committed; so is one whose transcript the worker did not find (a host
  that writes its file late, after every hook of a short session): the sweep reads it then.

A commit never deletes the session's state: the transcript cursor survives, so a session
that continues after being committed appends only new turns (anchor bug #3).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ovhooks.settings.layout import Job, State

# Committed, idle states are forgotten after this long; their transcripts are usually gone.
STATE_RETENTION_S = 30 * 24 * 3600
# How long the idle sweep keeps looking for a transcript the worker did not find. A session
# that ended before its host wrote anything (started and left) never gets one; a late host's
# file is there within seconds, so a day bounds the retries without losing one.
UNREAD_RETRY_S = 24 * 3600


def _last_seen(state: State) -> float:
    values = [state.get("last_activity_at"), state.get("registered_at"), state.get("created_at")]
    return max((float(v) for v in values if isinstance(v, int | float)), default=0.0)


def recently_active(
    states: Sequence[State], *, new_key: str, host: str, now: float, window_s: float
) -> list[State]:
    out = []
    for state in states:
        if state.get("key") == new_key or state.get("host") != host or state.get("parent"):
            continue
        activity = state.get("last_activity_at")
        if not isinstance(activity, int | float) or state.get("ended"):
            continue
        if now - activity <= window_s:  # a future timestamp (clock skew) also counts as active
            out.append(state)
    return out


def session_start_commits(
    states: Sequence[State],
    *,
    new_key: str,
    host: str,
    source: str,
    now: float,
    active_window_s: float,
    idle_ttl_s: float,
    ends_previous: bool = False,
) -> list[tuple[str, str]]:
    """(key, reason) for every session this SessionStart should commit, in a stable order.

    ``ends_previous``: the host starts a new session where the last one stopped (Codex's
    ``HostSpec.commits_previous_on_start``), so the one session active before it has ended."""
    decisions: dict[str, str] = {}
    if ends_previous and source in ("startup", "clear"):
        active = recently_active(
            states, new_key=new_key, host=host, now=now, window_s=active_window_s
        )
        if len(active) == 1 and int(active[0].get("uncommitted") or 0) > 0:
            decisions[str(active[0]["key"])] = "previous session ended"
    if source in ("startup", "clear"):  # resume never commits (the session is live again)
        for key in idle_sessions(states, exclude=new_key, now=now, idle_ttl_s=idle_ttl_s):
            decisions.setdefault(key, "idle")
    return sorted(decisions.items())


def idle_sessions(
    states: Sequence[State], *, exclude: str = "", now: float, idle_ttl_s: float
) -> list[str]:
    """Keys of sessions with uncommitted turns, or a transcript not read yet, and no activity
    for ``idle_ttl_s``.

    Activity stamped more than ``idle_ttl_s`` *ahead* of now was stamped by a clock since set
    back; it counts as idle too, or the session would wait out the whole skew (a day's turns
    uncommitted after a day's jump). Committing a session that is in fact active loses
    nothing: its later turns are committed later."""
    return sorted(
        str(s.get("key"))
        for s in states
        if str(s.get("key")) != exclude
        and (int(s.get("uncommitted") or 0) > 0 or _unread(s, now))
        and abs(now - _last_seen(s)) > idle_ttl_s
    )


def _unread(state: State, now: float) -> bool:
    since = state.get("transcript_unread_since")
    return isinstance(since, int | float) and now - since <= UNREAD_RETRY_S


def sweep_due(last_sweep_at: float | None, *, now: float, interval_s: float) -> bool:
    """Whether a background idle sweep should run now (at most once per ``interval_s``)."""
    return last_sweep_at is None or now - last_sweep_at >= interval_s or now < last_sweep_at


def forgettable(states: Sequence[State], *, now: float) -> list[str]:
    """Keys of states with nothing left to do and no activity for ``STATE_RETENTION_S``."""
    return sorted(
        str(s["key"])
        for s in states
        if int(s.get("uncommitted") or 0) == 0 and now - _last_seen(s) > STATE_RETENTION_S
    )


def commit_job(state: State, reason: str, *, capture: bool) -> Job:
    """A worker job that catches up with a known session's transcript, then commits it."""
    from ovhooks.settings.layout import job_for_state

    return job_for_state(
        state, capture=bool(state.get("transcript_path")) and capture, commit=reason
    )
