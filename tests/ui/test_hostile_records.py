"""One state record with a wrong-typed or out-of-range value, beside good ones, and a real
``ovhooks ui`` process: every page still answers 200 and still shows the good records.

Campaign 5 found each of these answering 500 ("internal error: TypeError …") for the whole
page: a session document's time of ``"yesterday"``, ``NaN`` or ``1e308``, a count of
``"many"`` or ``Infinity``; a recall log line whose ``t`` is ``"abc"`` or whose ``items`` is
a string; a memory row whose ``updated_at`` is ``'x'`` or ``1e308``, or whose text is a BLOB.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.viewer import Viewer, env_for_viewer, running_viewer

BASE = "viking://user/default/memories/preferences/default"
GOOD_URI, BAD_URI = f"{BASE}/staging_port.md", f"{BASE}/deploy_day.md"
GOOD_TEXT = "Our staging database listens on port 6543"
BAD_TEXT = "Deploys happen on Tuesdays after the standup"
GOOD_PROMPT = "which port does the staging database listen on?"
GOOD_KEY, BAD_KEY = "cc-good-1", "cc-bad-1"


def _state() -> Path:
    return Path(os.environ["OVHOOKS_STATE_DIR"])


def _world() -> None:
    """Two memories, two session documents and one recall log line, by the real writers."""
    import time

    from ovhooks.backend.local import LocalBackend
    from ovhooks.recall import journal
    from ovhooks.session.store import StateStore, new_state

    store = LocalBackend(os.environ["OVHOOKS_DATA_DIR"])
    store.write(GOOD_URI, GOOD_TEXT + "\n")
    store.write(BAD_URI, BAD_TEXT + "\n")
    store.close()
    now = time.time()
    sessions = StateStore(str(_state()))
    for key in (GOOD_KEY, BAD_KEY):
        doc = new_state(key, "claude", key.removeprefix("cc-"), now)
        doc["last_activity_at"] = now
        doc["turns_captured"] = 2
        sessions.save(doc)
    line = journal.entry_for(
        now=now,
        host="claude",
        session=GOOD_KEY,
        peer="",
        reason="ok",
        prompt_head=GOOD_PROMPT,
        tokens=40,
        items=[(GOOD_URI, 0.9)],
    )
    journal.append(str(_state()), line)


def _session(**fields: Any) -> Callable[[], None]:
    def edit() -> None:
        path = _state() / "sessions" / f"{BAD_KEY}.json"
        doc = json.loads(path.read_text())
        doc.update(fields)
        path.write_text(json.dumps(doc))  # NaN and Infinity written as Python's json does

    return edit


def _journal(line: str) -> Callable[[], None]:
    def edit() -> None:
        with open(_state() / "recall" / "journal.jsonl", "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    return edit


def _memory(assignment: str) -> Callable[[], None]:
    def edit() -> None:
        con = sqlite3.connect(Path(os.environ["OVHOOKS_DATA_DIR"]) / "memory.db")
        con.execute(f"UPDATE memories SET {assignment} WHERE uri = ?", (BAD_URI,))
        con.commit()
        con.close()

    return edit


HOSTILE = {
    "session last_activity_at string": _session(last_activity_at="yesterday"),
    "session last_activity_at NaN": _session(last_activity_at=float("nan")),
    "session turns_captured Infinity": _session(turns_captured=float("inf")),
    "session turns_captured string": _session(turns_captured="many"),
    "session created_at 1e308": _session(created_at=1e308, last_activity_at=None),
    "session last_commit_at 1e308": _session(last_commit_at=1e308, commit_count=1),
    "session queue entry garbled": _session(queue=[{"seq": "a", "count": float("nan")}]),
    "session queue not a list": _session(queue=7),
    "session error and outage garbled": _session(
        last_error={"error": "x", "at": "then", "queued": "lots"}, outage={"since": float("nan")}
    ),
    "journal t string": _journal('{"t":"abc","items":[]}'),
    "journal t NaN": _journal('{"t":NaN,"items":[]}'),
    "journal items string": _journal('{"t":1,"items":"x"}'),
    "journal items dict": _journal('{"t":1,"items":{"uri":"viking://x"}}'),
    "journal item without score": _journal('{"t":1,"items":[{"uri":"viking://x","title":"y"}]}'),
    "journal item without uri": _journal('{"t":1,"items":[{"score":1},5]}'),
    "journal other fields garbled": _journal('{"t":1e308,"session":7,"tokens":"many"}'),
    "memory updated_at string": _memory("updated_at = 'x'"),
    "memory updated_at 1e308": _memory("updated_at = 1e308"),
    "memory content BLOB": _memory("content = CAST(content AS BLOB)"),
    "memory abstract BLOB": _memory("abstract = CAST(abstract AS BLOB)"),
}


def _strict_json(body: bytes) -> Any:
    """JSON as a browser parses it: ``NaN`` and ``Infinity`` are not JSON."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the API's JSON")

    return json.loads(body, parse_constant=refuse)


def _ok(viewer: Viewer, path: str) -> str:
    answer = viewer.get(path)
    assert answer.status == 200, (path, answer.text[-600:])
    return answer.text


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_one_bad_record_leaves_every_page_up_with_the_good_ones(tmp_path: Path, case: str) -> None:
    _world()
    HOSTILE[case]()
    with running_viewer(env_for_viewer(), str(tmp_path)) as viewer:
        viewer.sign_in()
        assert GOOD_TEXT in _ok(viewer, "/memories")
        listed = _strict_json(viewer.get("/api/memories").body)
        assert GOOD_URI in [m["uri"] for m in listed["items"]]
        for uri in (GOOD_URI, BAD_URI):
            _ok(viewer, f"/memory?uri={quote(uri)}")
            assert _strict_json(viewer.get(f"/api/memory?uri={quote(uri)}").body)["uri"] == uri
        assert GOOD_URI in _ok(viewer, "/why?prompt=" + quote(GOOD_PROMPT))
        assert GOOD_TEXT in _ok(viewer, "/memories?q=" + quote("staging database port"))
        assert GOOD_PROMPT in _ok(viewer, "/log")
        log = _strict_json(viewer.get("/api/log?since=0").body)["entries"]
        assert GOOD_PROMPT in [e["prompt"] for e in log]
        sessions = _ok(viewer, "/sessions")
        assert GOOD_KEY in sessions and BAD_KEY in sessions
        listed = _strict_json(viewer.get("/api/sessions").body)["sessions"]
        assert {GOOD_KEY, BAD_KEY} <= {s["key"] for s in listed}
        for key in (GOOD_KEY, BAD_KEY):
            assert key in _ok(viewer, f"/session?key={key}")
        _ok(viewer, "/health")


def test_an_unreadable_value_is_null_in_the_api_and_a_dash_on_the_page(tmp_path: Path) -> None:
    """The documented behaviour: the record is listed, its unreadable value is unknown."""
    _world()
    _session(turns_captured="many", last_activity_at=float("nan"), created_at="x")()
    with running_viewer(env_for_viewer(), str(tmp_path)) as viewer:
        viewer.sign_in()
        listed = _strict_json(viewer.get("/api/sessions").body)["sessions"]
        bad = next(s for s in listed if s["key"] == BAD_KEY)
        good = next(s for s in listed if s["key"] == GOOD_KEY)
        assert bad["turns_captured"] is None and bad["last_activity_at"] is None
        assert good["turns_captured"] == 2 and isinstance(good["last_activity_at"], float)
        page = _ok(viewer, "/sessions")
    row = page.split(f'data-key="{BAD_KEY}"', 1)[1].split("</tr>", 1)[0]
    assert "<td>—</td>" in row and "many" not in row
