"""Where everything lives under the state directory, and the shapes of what is stored there.

``user_dir`` finds ovhooks' own directories (state, data, config) when no setting names them.

Every path under ``settings.state_dir`` is built here and nowhere else::

    sessions/<key>.json               the session document: state AND its queue (``State``)
    sessions/.<key>.lock              held for every read-modify-write of that document
    sessions/.<key>.notice-<tag>      created once per outage / set-aside report (claims)
    outbox/<key>/<blob>.json          the messages of one queued capture (written once)
    outbox/dead/<key>/                records the server refused as malformed, set aside
    locks/<key>.worker                held by the one worker running for the session
    locks/<key>.waiting               held by the (at most one) worker waiting for it
    locks/<key>.handoff               later jobs handed to the waiting worker
    logs/ovhooks.log                  JSONL log
    recall/, export/, last-sweep      recall's files, export progress, sweep stamp

The session document is the single commit point: a capture's blob is written first (under a
never-reused name), then one atomic write of the document adds the queue entry *and* moves
the cursor, uids and synthetic tail. A blob no queue entry names is an orphan of a crash and
is removed by the next drain; progress through an entry lives inside the entry.

The ``TypedDict`` shapes are for the type checker only (``typing`` costs start-up time).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, NotRequired, TypedDict

    class Cursor(TypedDict, total=False):
        offset: int
        turns: int
        tail_hash: str

    class Inflight(TypedDict, total=False):
        start: int  # first message of the batch, as an index into the blob
        count: int
        at: float  # wall time the request started
        answered: bool  # the server answered with an error: processing is over

    class QueueEntry(TypedDict, total=False):
        op: str  # "append" | "commit"
        seq: int  # never reused within a session document
        session: str  # the OpenViking session id
        created_at: float
        # append
        blob: str
        count: int
        sent: int  # messages of the blob the server has taken (or set aside)
        split_until: int  # messages before this index are sent one by one (poison search)
        inflight: Inflight | None
        # commit
        keep_recent_count: int
        reason: str

    class Outage(TypedDict):
        since: float
        last_failure_at: float

    class State(TypedDict, total=False):
        v: int
        key: str
        host: str
        host_session_id: str
        ov_session_id: str
        parent: str | None
        transcript_path: str
        cwd: str
        peer: str
        created_at: float
        registered_at: float | None
        last_activity_at: float | None
        cursor: Cursor
        recent_uids: list[str]
        held: list[Any]
        synthetic_tail: str
        last_assistant_text: str
        recent_replies: list[str]  # the ends of the last replies read (worker.intake)
        turns_captured: int
        messages_sent: int
        uncommitted: int
        pending_tokens: int
        commit_count: int
        last_commit_at: float | None
        commit_requested_at: float
        ended: bool
        end_reason: str
        last_error: dict[str, Any] | None
        outage: Outage | None
        queue: list[QueueEntry]
        next_seq: int
        set_aside: int
        agent_id: str
        agent_type: str
        last_source: str
        forked: bool  # a Claude fork: its transcript starts with the parent's turns
        project_dir: str  # DirectoryAdded: the project new turns belong to
        last_extraction: dict[str, Any]  # the newest commit's extraction outcome
        # the worker found no transcript file (a host writing it late): the idle sweep reads
        # it again, so a session whose every hook came first is still captured and committed
        transcript_unread_since: float

    class Job(TypedDict, total=False):
        key: str
        host: str | None
        host_session_id: str | None
        transcript_path: str | None
        cwd: str | None
        peer: str | None
        parent: str | None
        capture: bool
        commit: str
        end: str
        last_assistant: str
        wait_for_transcript_s: float
        wait_for_reply_s: float  # Claude's Stop: how long to wait for last_assistant in the file
        wait_for_answer_s: float  # Copilot's Stop: how long to wait for the turn's answer
        handed: NotRequired[int]


def home_dir(environ: Mapping[str, str]) -> str:
    """The user's home: ``HOME`` when it is an absolute path, else the account's own. An
    empty ``HOME`` put the store under ``/.local``, a relative one inside the project the
    hook ran in."""
    home = environ.get("HOME", "")
    if os.path.isabs(home):
        return home
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):  # no account database (Windows): the platform's rule
        return os.path.expanduser("~")


def user_dir(kind: str, environ: Mapping[str, str]) -> str:
    """The platform user directory ``kind`` (``state``, ``data``, ``config``) for ovhooks.

    On Linux this follows the XDG base-directory spec directly, as platformdirs does, because
    importing platformdirs costs ~13 ms on every hook; other platforms ask platformdirs.
    """
    home = home_dir(environ)
    if sys.platform.startswith("linux"):
        xdg_var, fallback = {
            "state": ("XDG_STATE_HOME", ".local/state"),
            "data": ("XDG_DATA_HOME", ".local/share"),
            "config": ("XDG_CONFIG_HOME", ".config"),
        }[kind]
        base = environ.get(xdg_var, "").strip()
        if not base or not os.path.isabs(base):
            base = os.path.join(home, fallback)
        return os.path.join(base, "ovhooks")
    import platformdirs

    getter = {
        "state": platformdirs.user_state_dir,
        "data": platformdirs.user_data_dir,
        "config": platformdirs.user_config_dir,
    }[kind]
    return str(getter("ovhooks", appauthor=False))


def sessions_dir(state_dir: str) -> str:
    return os.path.join(state_dir, "sessions")


def state_path(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "sessions", key + ".json")


def state_lock_path(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "sessions", f".{key}.lock")


def notice_path(state_dir: str, key: str, tag: str) -> str:
    return os.path.join(state_dir, "sessions", f".{key}.notice-{tag}")


def outbox_root(state_dir: str) -> str:
    return os.path.join(state_dir, "outbox")


def outbox_dir(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "outbox", key)


def dead_root(state_dir: str) -> str:
    return os.path.join(state_dir, "outbox", "dead")


def dead_dir(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "outbox", "dead", key)


def worker_lock_path(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "locks", f"{key}.worker")


def waiting_lock_path(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "locks", f"{key}.waiting")


def handoff_path(state_dir: str, key: str) -> str:
    return os.path.join(state_dir, "locks", f"{key}.handoff")


def log_path(state_dir: str) -> str:
    return os.path.join(state_dir, "logs", "ovhooks.log")


def sweep_stamp_path(state_dir: str) -> str:
    return os.path.join(state_dir, "last-sweep")


def recall_dir(state_dir: str) -> str:
    return os.path.join(state_dir, "recall")


def project_marker_path(state_dir: str, peer: str) -> str:
    """What recall knows of a project's old path-based peer (``project/legacy.py``)."""
    return os.path.join(state_dir, "projects", f"{peer}.json")


def usage_note_path(state_dir: str, session_key: str) -> str:
    """The memories supplied during a session's last turn (``recall/usage.py``)."""
    return os.path.join(state_dir, "usage", f"{session_key}.json")


def export_progress_path(state_dir: str, name: str) -> str:
    return os.path.join(state_dir, "export", name + ".json")


def is_legacy_entry(name: str) -> bool:
    """An outbox entry written by ovhooks before the queue moved into the session document."""
    return name.endswith(("-append.json", "-commit.json"))


def queued_counts(state_dir: str, states: list[State]) -> dict[str, int]:
    """Session key -> writes still queued for it, for every session that has any.

    Counts the queue inside each session document of ``states`` (the caller loads them:
    ``StateStore(state_dir).all()``; the paths never reach up to the store), plus entries an
    older ovhooks left in ``outbox/<key>/`` (adopted into the document by the next drain),
    plus jobs handed to a waiting worker that did not live to run them.
    """
    out: dict[str, int] = {}
    for doc in states:
        queue = doc.get("queue") or []  # a list of entries: StateStore.load sees to it
        if queue:
            out[str(doc.get("key"))] = len(queue)
    root = outbox_root(state_dir)
    try:
        keys = os.listdir(root)
    except OSError:
        keys = []
    for key in keys:
        if key == "dead" or key.startswith("."):
            continue
        try:
            legacy = sum(1 for n in os.listdir(os.path.join(root, key)) if is_legacy_entry(n))
        except OSError:
            continue
        if legacy:
            out[key] = out.get(key, 0) + legacy
    try:
        locks = os.listdir(os.path.join(state_dir, "locks"))
    except OSError:
        locks = []
    for name in locks:
        if name.endswith(".handoff"):
            out.setdefault(name[: -len(".handoff")], 1)
    return dict(sorted(out.items()))


def queued_sessions(state_dir: str, states: list[State]) -> list[str]:
    """Keys of sessions with writes still to send (see ``queued_counts``)."""
    return list(queued_counts(state_dir, states))


def new_job(
    key: str,
    *,
    host: str | None = None,
    host_session_id: str | None = None,
    transcript_path: str | None = None,
    cwd: str | None = None,
    peer: str | None = None,
    **work: Any,
) -> Job:
    """The one constructor of worker jobs (hooks, lifecycle, commands, import)."""
    job: dict[str, Any] = {
        "key": key,
        "host": host,
        "host_session_id": host_session_id,
        "transcript_path": transcript_path,
        "cwd": cwd,
        "peer": peer,
    }
    job.update(work)
    return job  # type: ignore[return-value]


def job_for_state(state: State, **work: Any) -> Job:
    """A job for a session known from its state document (drain; catch-up; commit)."""
    return new_job(
        str(state.get("key")),
        host=state.get("host"),
        host_session_id=state.get("host_session_id"),
        transcript_path=state.get("transcript_path"),
        peer=state.get("peer"),
        **work,
    )
