"""Forget and undo (``ui.trash``) on each store: what comes back, exactly."""

from __future__ import annotations

import os
from pathlib import Path

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError
from ovhooks.ui import memories, trash
from tests.support.fake_openviking import FakeOpenViking

MEMORY = "viking://user/default/memories/preferences/default/pnpm.md"


def test_on_a_server_undo_writes_the_text_back_and_nothing_else(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """OpenViking 0.5.2 reads and writes a memory's text only: the undo is one
    ``content/write`` of the text at the same URI (the server stamps it as a new write)."""
    fake_ov.files[MEMORY] = "The user prefers pnpm over npm.\n"
    settings = load_settings({**os.environ, "OPENVIKING_URL": fake_ov.url})
    backend = OpenVikingBackend(settings, "")
    done = trash.forget(backend, str(tmp_path), [MEMORY], 1000.0)
    assert done["forgotten"] == [MEMORY] and MEMORY not in fake_ov.files
    before = len(fake_ov.requests)
    assert trash.undo(backend, str(tmp_path), done["undo"], 1001.0) == [MEMORY]
    sent = [r for r in fake_ov.requests[before:] if r["method"] != "GET"]
    assert [(r["path"], r["body"]["uri"], r["body"]["content"]) for r in sent] == [
        ("/api/v1/content/write", MEMORY, "The user prefers pnpm over npm.\n")
    ]
    assert fake_ov.files[MEMORY] == "The user prefers pnpm over npm.\n"


def test_the_profile_has_no_row_and_comes_back_as_its_text(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path / "data"))
    store.write(store.profile_uri, "Name: Ada\n")
    state = str(tmp_path / "state")
    done = trash.forget(store, state, [store.profile_uri], 1000.0)
    assert store.memory_record(store.profile_uri) is None
    assert trash.undo(store, state, done["undo"], 1001.0) == [store.profile_uri]
    assert store.read(store.profile_uri) == "Name: Ada\n"


class _Reads:
    """A store whose ``read`` answers as told (the viewer's row text, without a server)."""

    def __init__(self, answer: str | BackendError) -> None:
        self.answer = answer

    def read(self, uri: str, level: str = "full") -> str:
        if isinstance(self.answer, BackendError):
            raise self.answer
        return self.answer


def test_a_row_always_has_a_line_to_read() -> None:
    line = memories.readable_line
    assert line(_Reads("unused"), MEMORY, "  Prefers\n pnpm  ") == "Prefers pnpm"  # type: ignore[arg-type]
    assert line(_Reads("From the store"), MEMORY, "") == "From the store"  # type: ignore[arg-type]
    gone = BackendError("http", "File not found", 404, "NOT_FOUND")
    assert line(_Reads(gone), MEMORY, "") == "(text unavailable: no such memory now (forgotten?))"  # type: ignore[arg-type]
    down = BackendError("unreachable", "connection refused")
    assert line(_Reads(down), MEMORY, "") == "(text unavailable: connection refused)"  # type: ignore[arg-type]
    empty = "(text unavailable: the store holds no text for it)"
    assert line(_Reads("  \n"), MEMORY, "") == empty  # type: ignore[arg-type]
