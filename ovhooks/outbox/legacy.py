"""Entries an older ovhooks queued as files, moved into the session document's queue.

Before the queue lived in the session document, each entry was a file in the outbox folder
(``<seq>-append.json`` holding batches, the transcript cursor and turn uids, plus a
``.progress`` sidecar counting accepted batches). ``queue.Outbox.tidy`` hands such files here, so
an upgrade in the middle of an outage loses nothing and sends nothing twice.
"""

from __future__ import annotations

import json
import os

from ovhooks.fsutil import read_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.outbox.box import Box
    from ovhooks.settings.layout import State


def adopt_files(box: Box, names: list[str]) -> None:
    """Adopt the old-format entries ``names`` (in order), then delete their files.

    Their cursor used to be saved after the entry; the document takes whichever is further,
    in the same write that adopts the entry.
    """
    for name in names:
        path = os.path.join(box.dir, name)
        try:
            old = read_json(path)
        except (OSError, ValueError):
            old = None
        if isinstance(old, dict):
            _adopt(box, old, _batches_done(path + ".progress"))
        _unlink(path + ".progress")
        _unlink(path)


def _adopt(box: Box, old: dict[str, Any], done: int) -> None:
    now = box.clock()
    session = str(old.get("session") or box.key)
    fields: dict[str, Any]
    if old.get("op") == "append":
        old_batches = old.get("batches") or []
        flat = [m for b in old_batches for m in b]
        sent = sum(len(b) for b in old_batches[:done])
        fields = {"blob": box.write_blob(session, flat), "count": len(flat), "sent": sent}
    else:
        keep = int(old.get("keep_recent_count") or 0)
        fields = {"keep_recent_count": keep, "reason": str(old.get("reason") or "")}

    def adopt(doc: State) -> None:
        if old.get("op") == "append":
            cursor = old.get("cursor") or {}
            mine: Any = doc.get("cursor") or {}
            if int(cursor.get("offset") or 0) > int(mine.get("offset") or 0):
                moved: Any = {**mine, **cursor}
                doc["cursor"] = moved
            known = list(doc.get("recent_uids") or [])
            doc["recent_uids"] = known + [u for u in old.get("uids") or [] if u not in known]
        box.append_entry(doc, str(old.get("op")), session, now, **fields)

    box.store.update(box.key, adopt)


def _batches_done(path: str) -> int:
    """Batches an old-format sidecar says were accepted (in flight counts as not)."""
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read() or b"{}")
    except FileNotFoundError:
        return 0
    if isinstance(doc, int):
        return max(0, doc)
    done = doc.get("done") if isinstance(doc, dict) else None
    return max(0, done) if isinstance(done, int) else 0


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
