"""Forget with an undo window: what the viewer deletes is kept, 0600, for ``UNDO_WINDOW_S``.

A forget reads each memory whole, writes it to ``<state dir>/ui-trash/<id>.json`` (one file
per forget, bulk or single, written atomically before anything is deleted), then deletes it
through the backend. Undo puts the memories back and removes the file.

What comes back: on the local store, the whole record (the row: text, category, type tags,
the session it was extracted from, hence its turn and commit, its creation and update times,
its id), in one transaction. An OpenViking server has no call that reads or writes a
memory's metadata (0.5.2: ``content/read`` gives the text, ``content/write`` takes a URI, the
text and a mode): undo writes the text back at the same URI, and the server records the
write as new (its own times and summary); the session link the server kept is not restored.
A row holding a BLOB (a text column written as bytes by another tool) is kept with each
bytes value as ``{"bytes_b64": …}`` (SQLite never returns a dict, so the tag is unambiguous)
and restored as the same bytes. Undo claims the file first (an atomic rename): of two undos
of one forget, one restores and the other is told it is gone; a restore that fails puts the
file back under its name, so the record is not lost.
Files older than the window are purged whenever the trash is touched, so a forgotten memory
does not outlive the window on disk by more than the next use of the viewer.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import time

from ovhooks.fsutil import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ovhooks.backend.base import Backend

UNDO_WINDOW_S = 600.0


class TrashError(Exception):
    """Undo asked for something the trash no longer holds."""


def trash_dir(state_dir: str) -> str:
    return os.path.join(state_dir, "ui-trash")


def forget(backend: Backend, state_dir: str, uris: Sequence[str], now: float) -> dict[str, Any]:
    """Delete ``uris`` (kept for undo); returns ``{undo, forgotten, failed, missing}``.

    ``missing``: URIs the store has no memory at (forgotten already, in another tab); nothing
    is kept or deleted for them. ``undo`` is None when every URI was missing."""
    from ovhooks.transport.errors import BackendError

    purge(state_dir, now)
    kept: list[dict[str, Any]] = []
    missing: list[str] = []
    for uri in dict.fromkeys(uris):  # a URI named twice is forgotten once
        try:
            content = backend.read(uri, "full")
        except BackendError as exc:
            if not exc.not_found:
                raise
            missing.append(uri)
            continue
        item: dict[str, Any] = {"uri": uri, "content": content}
        saved = _record(backend, uri)
        if saved is not None:
            item["record"] = _storable(saved)
        kept.append(item)
    if not kept:
        return {"undo": None, "forgotten": [], "failed": [], "missing": missing}
    undo_id = secrets.token_hex(8)
    _write(os.path.join(trash_dir(state_dir), undo_id + ".json"), {"t": now, "items": kept})
    forgotten: list[str] = []
    failed: list[str] = []
    for item in kept:
        try:
            backend.delete(item["uri"])
        except BackendError:
            failed.append(item["uri"])
        else:
            forgotten.append(item["uri"])
    return {"undo": undo_id, "forgotten": forgotten, "failed": failed, "missing": missing}


def undo(backend: Backend, state_dir: str, undo_id: str, now: float) -> list[str]:
    """Write back what forget ``undo_id`` deleted; returns the URIs restored."""
    if not undo_id.isalnum() or len(undo_id) > 32:
        raise TrashError("no such forget")
    purge(state_dir, now)
    path = os.path.join(trash_dir(state_dir), undo_id + ".json")
    # Claimed by a rename before anything is restored: a second undo of the same forget (a
    # double click, another tab) finds no file and is told so, instead of restoring twice
    # and failing on the unlink.
    claimed = f"{path}.{os.getpid()}.{time.monotonic_ns()}.claimed"
    try:
        os.rename(path, claimed)
    except OSError as exc:
        raise TrashError("nothing to undo: already undone, or the undo window has passed") from exc
    try:
        restored = _undo_file(backend, claimed)
    except BaseException:
        # The restore did not happen (or not whole): the record stays undoable.
        with contextlib.suppress(OSError):
            os.rename(claimed, path)
        raise
    os.unlink(claimed)
    return restored


def _undo_file(backend: Backend, path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as exc:
        raise TrashError("nothing to undo: the forget's record cannot be read") from exc
    items = list(doc.get("items") or ())
    records = [_restorable(i["record"]) for i in items if isinstance(i.get("record"), dict)]
    restored = _restore(backend, records) if records else []
    for item in items:
        if not isinstance(item.get("record"), dict):
            backend.write(item["uri"], item["content"])
            restored.append(item["uri"])
    return restored


_BYTES_TAG = "bytes_b64"


def _storable(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` fit for JSON: bytes values tagged (see the module's docstring)."""
    return {
        k: {_BYTES_TAG: base64.b64encode(v).decode("ascii")} if isinstance(v, bytes) else v
        for k, v in row.items()
    }


def _restorable(row: dict[str, Any]) -> dict[str, Any]:
    """The row ``_storable`` kept, its bytes values bytes again."""
    return {
        k: base64.b64decode(v[_BYTES_TAG]) if isinstance(v, dict) and _BYTES_TAG in v else v
        for k, v in row.items()
    }


def _record(backend: Backend, uri: str) -> dict[str, Any] | None:
    """The local store's whole record of ``uri`` (None elsewhere, and for the profile)."""
    from ovhooks.backend.local import LocalBackend

    return backend.memory_record(uri) if isinstance(backend, LocalBackend) else None


def _restore(backend: Backend, records: list[dict[str, Any]]) -> list[str]:
    from ovhooks.backend.local import LocalBackend

    if not isinstance(backend, LocalBackend):  # a trash file from the local store, now a server
        for saved in records:
            backend.write(str(saved["uri"]), str(saved["content"]))
        return [str(saved["uri"]) for saved in records]
    return backend.restore_memories(records)


def purge(state_dir: str, now: float) -> None:
    root = trash_dir(state_dir)
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            if now - os.stat(path).st_mtime > UNDO_WINDOW_S:
                os.unlink(path)
        except OSError:
            continue


def _write(path: str, doc: dict[str, Any]) -> None:
    # write_atomic: private, durable, and a failed write leaves no half-written copy of a
    # memory on disk (no undo could reach it, and the forget that wrote it is refused)
    write_atomic(path, json.dumps(doc, ensure_ascii=False).encode("utf-8"))
