"""The viewer's memory verbs on a real ``ovhooks ui`` process and local store: undo brings a
memory back whole, a body over the limit is a 413, the listing tells the true total, an edit
over the memory size is refused, and every row of search and "why" has text to read."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ovhooks.rules.limits import MEMORY_MAX_BYTES, VIEWER_BODY_MAX_BYTES
from tests.support.fake_openviking import FakeOpenViking
from tests.support.local_memories import extract, fill, records
from tests.support.viewer import Viewer, env_for_viewer, running_viewer


@pytest.fixture
def data_dir() -> str:
    return os.environ["OVHOOKS_DATA_DIR"]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    """Start the viewer (after the test filled its store), signed in."""
    folder = tmp_path / "proj"
    folder.mkdir()
    running: list[Any] = []

    def started() -> Viewer:
        context = running_viewer(env_for_viewer(), str(folder))
        viewer = context.__enter__()
        running.append(context)
        viewer.sign_in()
        return viewer

    yield started
    for context in running:
        context.__exit__(None, None, None)


def _provenance(viewer: Viewer, uri: str) -> dict[str, str]:
    answer = viewer.get(f"/api/memory?uri={uri}")
    assert answer.status == 200, answer.text
    facts: dict[str, str] = answer.json()["provenance"]
    return facts


def test_undo_brings_a_memory_back_whole_single_and_bulk(data_dir: str, start: Any) -> None:
    extracted = extract(data_dir, "sess-undo")
    fill(data_dir, 1362)  # the bulk undo of the report
    before = records(data_dir)
    viewer = start()
    uri = extracted[0]
    shown = _provenance(viewer, uri)
    assert shown["session"] == "sess-undo" and shown["commit"] and shown["turn"], shown
    assert "written explicitly" not in shown["source"]

    done = viewer.post("/api/memory/forget", {"uris": [uri]}).json()
    assert done["forgotten"] == [uri] and uri not in records(data_dir)
    time.sleep(1.1)  # a restore that wrote anew would show a later creation time
    assert viewer.post("/api/memory/undo", {"undo": done["undo"]}).json()["restored"] == [uri]
    assert records(data_dir)[uri] == before[uri]  # every column: id, source, tags, times…
    assert _provenance(viewer, uri) == shown

    total = viewer.get("/api/memories?scope=user").json()["total"]
    assert total == len(before) == 1365
    bulk = viewer.post("/api/memories/forget", {"scope": "user", "expect": total}).json()
    assert len(bulk["forgotten"]) == total and records(data_dir) == {}
    started = time.monotonic()
    restored = viewer.post("/api/memory/undo", {"undo": bulk["undo"]}).json()["restored"]
    took = time.monotonic() - started
    assert sorted(restored) == sorted(before)
    assert records(data_dir) == before, "a bulk undo restores every record whole"
    assert _provenance(viewer, uri) == shown
    assert took < 30, f"the bulk undo of {total} took {took:.1f} s"


def test_a_body_over_the_limit_is_a_413_with_words(start: Any) -> None:
    viewer = start()
    padding = "x" * VIEWER_BODY_MAX_BYTES
    answer = viewer.post(
        "/api/memory/edit", {"uri": "viking://~/memories/x.md", "content": padding}
    )
    assert answer.status == 413, answer.text
    error = answer.json()["error"]
    assert f"{VIEWER_BODY_MAX_BYTES:,}" in error and "bytes" in error
    assert viewer.get("/api/memories").status == 200  # the viewer goes on


def test_the_listing_tells_the_true_total(data_dir: str, start: Any) -> None:
    fill(data_dir, 8512)
    viewer = start()
    doc = viewer.get("/api/memories").json()
    assert (doc["total"], doc["complete"], len(doc["items"])) == (8512, True, 50)
    assert "8,512 memories, page 1 of 171" in viewer.get("/memories").text


def test_an_edit_over_the_memory_size_is_refused_and_changes_nothing(
    data_dir: str, start: Any
) -> None:
    fill(data_dir, 1)
    viewer = start()
    uri = viewer.get("/api/memories").json()["items"][0]["uri"]
    before = records(data_dir)[uri]
    big = viewer.post("/api/memory/edit", {"uri": uri, "content": "y" * (MEMORY_MAX_BYTES + 1)})
    assert big.status == 400 and f"{MEMORY_MAX_BYTES:,} bytes" in big.json()["error"], big.text
    assert records(data_dir)[uri] == before
    fits = viewer.post("/api/memory/edit", {"uri": uri, "content": "y" * MEMORY_MAX_BYTES})
    assert fits.status == 200, fits.text
    assert records(data_dir)[uri]["content"] == "y" * MEMORY_MAX_BYTES


STAGING = "viking://user/default/memories/entities/db/staging-port.md"
BASTION = "viking://user/default/memories/entities/db/bastion.md"


@pytest.fixture
def server() -> Iterator[FakeOpenViking]:
    running = FakeOpenViking().start()
    yield running
    running.stop()


def test_every_row_of_search_and_why_has_text_to_read(
    server: FakeOpenViking, tmp_path: Path
) -> None:
    """Every row the viewer lists for a prompt has a line to read; never an empty link. (A
    row the store gives without text reads the store's abstract, or says why there is none:
    ``ui.memories.readable_line``, tests/ui/test_trash.py; the local store's dropped rows
    carry their text, tests/semantic/test_trace_evidence.py.)"""
    server.files[STAGING] = "Our staging database listens on port 6543."
    server.files[BASTION] = "Jump host for the staging database: reach it over VPN first."
    env = env_for_viewer(OPENVIKING_URL=server.url, OVHOOKS_BACKEND="openviking")
    prompt = "which+port+does+the+staging+database+listen+on"
    with running_viewer(env, str(tmp_path)) as viewer:
        viewer.sign_in()
        for path in (f"/api/why?prompt={prompt}", f"/api/memories?q={prompt}"):
            rows = {r["uri"]: r for r in viewer.get(path).json()["rows"]}
            assert STAGING in rows and rows[STAGING]["decision"] == "injected", path
            for uri, row in rows.items():
                assert row["line"].strip() and row["line"] == " ".join(server.files[uri].split())
        for path in (f"/why?prompt={prompt}", f"/memories?q={prompt}"):
            page = viewer.get(path).text
            assert "listens on port 6543" in page
            assert '"></a>' not in page, f"a row of {path} links no text"


def test_a_memory_stored_before_the_limit_is_shown_in_part_without_an_editor(
    data_dir: str, start: Any
) -> None:
    from ovhooks.backend.local import LocalBackend

    store = LocalBackend(data_dir)
    uri = f"{store.memories_root}/entities/logs/pasted-log.md"
    store.write(uri, "log line\n" * 440_000)  # 3.96 MB, as the report had
    store.close()
    viewer = start()
    page = viewer.get(f"/memory?uri={uri}")
    assert page.status == 200
    assert len(page.body) < MEMORY_MAX_BYTES + 8000, len(page.body)
    assert "3,960,000 bytes, over the 16,384" in page.text
    assert '<textarea id="content"' not in page.text and f'data-forget="{uri}"' in page.text
