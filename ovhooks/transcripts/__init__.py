"""Reading host transcripts incrementally and turning their records into Turns.

Each host's reader is ``ovhooks/transcripts/<host>.py`` (the ``--host`` name; a host that
writes another host's format re-exports that reader): ``records_to_turns(records)`` always;
``recent_user_texts(records, limit)`` for a JSONL transcript; ``read_new(path, session_id,
cursor)`` instead of the JSONL reader when the transcript is a store (OpenCode's SQLite).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType


def transcript_reader(host: str) -> ModuleType | None:
    """``host``'s reader module, imported on first use; None for a host without one."""
    if not host.isidentifier():
        return None
    try:
        return __import__(f"ovhooks.transcripts.{host}", fromlist=["records_to_turns"])
    except ImportError:
        return None
