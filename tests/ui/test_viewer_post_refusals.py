"""The viewer's POST verbs on a real ``ovhooks ui`` process and local store, given what a
stale tab, a double click or a hand-made request sends (campaign 6): each is a 4xx that says
why, and nothing is deleted or created that was not asked for.

Found: a bulk forget with an unknown scope (or one that is not a string) forgot every
memory; a BLOB in a row failed its forget with a 500; a lone surrogate in a URI or a text was
a 500; forgetting a gone memory was a 502; editing a gone memory created it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from tests.support.local_memories import records
from tests.support.viewer import Viewer, env_for_viewer, running_viewer

BASE = "viking://user/default/memories/preferences/default"
URIS = [f"{BASE}/pnpm.md", f"{BASE}/port.md", f"{BASE}/deploy.md"]
GONE = f"{BASE}/never-written.md"


def _data() -> str:
    return os.environ["OVHOOKS_DATA_DIR"]


def _trash() -> Path:
    return Path(os.environ["OVHOOKS_STATE_DIR"]) / "ui-trash"


def _world() -> None:
    store = LocalBackend(_data())
    for i, uri in enumerate(URIS):
        store.write(uri, f"memory number {i}\n")
    store.close()


def _viewer(tmp_path: Path) -> Any:
    return running_viewer(env_for_viewer(), str(tmp_path))


def _signed_in(viewer: Viewer) -> Viewer:
    viewer.sign_in()
    return viewer


@pytest.mark.parametrize(
    "body",
    [
        {"scope": "no-such-scope", "expect": 0},
        {"scope": "no-such-scope", "expect": 3},
        {"scope": ["user"], "expect": 3},
        {"scope": {"a": 1}, "expect": 3},
        {"scope": 0, "expect": 3},
        {"category": "no-such-category", "expect": 0},
        {"scope": "user", "category": ["preferences"], "expect": 3},
    ],
)
def test_bulk_forget_refuses_a_filter_the_list_does_not_know(
    tmp_path: Path, body: dict[str, Any]
) -> None:
    _world()
    before = records(_data())
    with _viewer(tmp_path) as viewer:
        answer = _signed_in(viewer).post("/api/memories/forget", body)
        assert answer.status == 400, answer.text
        assert "unknown" in answer.json()["error"] and "nothing was forgotten" in answer.text
        listed = viewer.get("/api/memories?scope=no-such-scope")
        assert listed.status == 400 and "unknown scope" in listed.json()["error"]
    assert records(_data()) == before


def test_bulk_forget_with_a_known_filter_still_forgets(tmp_path: Path) -> None:
    _world()
    with _viewer(tmp_path) as viewer:
        body = {"scope": "user", "category": "preferences", "expect": 3}
        answer = _signed_in(viewer).post("/api/memories/forget", body)
        assert answer.status == 200, answer.text
        assert sorted(answer.json()["forgotten"]) == sorted(URIS)
    assert records(_data()) == {}


@pytest.mark.parametrize("column", ["content", "title", "tags", "source", "scope", "terms"])
def test_a_row_with_a_blob_is_forgotten_and_undone_whole(tmp_path: Path, column: str) -> None:
    _world()
    con = sqlite3.connect(f"{_data()}/memory.db")
    con.execute(f"UPDATE memories SET {column} = ? WHERE uri = ?", (b"\xff\xfe blob", URIS[0]))
    con.commit()
    con.close()
    before = records(_data())
    with _viewer(tmp_path) as viewer:
        done = _signed_in(viewer).post("/api/memory/forget", {"uris": [URIS[0]]})
        assert done.status == 200, done.text
        assert os.listdir(_trash()) == [f"{done.json()['undo']}.json"]  # no *.tmp left
        undone = viewer.post("/api/memory/undo", {"undo": done.json()["undo"]})
        assert undone.status == 200, undone.text
    assert records(_data()) == before


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/memory/edit", {"uri": f"{BASE}/\ud800.md", "content": "x"}, "not valid Unicode"),
        ("/api/memory/forget", {"uris": [f"{BASE}/\ud800.md"]}, "not valid Unicode"),
        ("/api/memory/edit", {"uri": URIS[0], "content": "a\udc80b"}, "not valid Unicode"),
    ],
)
def test_a_lone_surrogate_is_refused_with_words(
    tmp_path: Path, path: str, body: dict[str, Any], words: str
) -> None:
    _world()
    before = records(_data())
    with _viewer(tmp_path) as viewer:
        answer = _signed_in(viewer).post(path, body)
        assert answer.status == 400, answer.text
        assert words in answer.json()["error"]
    assert records(_data()) == before


def test_forgetting_a_gone_memory_is_a_404_and_a_mixed_list_forgets_the_rest(
    tmp_path: Path,
) -> None:
    _world()
    with _viewer(tmp_path) as viewer:
        again = _signed_in(viewer).post("/api/memory/forget", {"uris": [GONE]})
        assert again.status == 404, again.text
        assert GONE in again.json()["error"]
        mixed = viewer.post("/api/memory/forget", {"uris": [URIS[0], GONE, URIS[0]]})
        assert mixed.status == 200, mixed.text
        doc = mixed.json()
        assert (doc["forgotten"], doc["failed"], doc["missing"]) == ([URIS[0]], [], [GONE])
    assert sorted(records(_data())) == sorted(URIS[1:])


def test_editing_a_gone_memory_is_a_404_and_creates_nothing(tmp_path: Path) -> None:
    _world()
    with _viewer(tmp_path) as running:
        viewer = _signed_in(running)
        assert viewer.post("/api/memory/forget", {"uris": [URIS[0]]}).status == 200
        for uri in (URIS[0], GONE):
            answer = viewer.post("/api/memory/edit", {"uri": uri, "content": "edited later"})
            assert answer.status == 404, answer.text
            assert "no such memory" in answer.json()["error"]
        kept = viewer.post("/api/memory/edit", {"uri": URIS[1], "content": "edited now"})
        assert kept.status == 200, kept.text
    assert sorted(records(_data())) == sorted(URIS[1:])
