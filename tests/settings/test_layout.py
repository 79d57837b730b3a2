"""layout.py owns every path under the state directory: no module joins them by hand."""

from __future__ import annotations

import re
from pathlib import Path

from ovhooks.settings import layout

PACKAGE = Path(layout.__file__).resolve().parent
HAND_JOINED = re.compile(
    r"""os\.path\.join\(\s*(?:self\.|ctx\.)?(?:settings\.)?state_dir\s*,\s*["']"""
    r"""|join\(.*state_dir.*["'](?:sessions|outbox|locks|logs|recall|export)["']"""
)


def test_no_module_joins_state_paths_by_hand() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "layout.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if HAND_JOINED.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_queued_sessions_come_from_documents_old_files_and_hand_offs(tmp_path: Path) -> None:
    from ovhooks.outbox.queue import Outbox
    from ovhooks.session.store import StateStore

    state = str(tmp_path)
    Outbox(StateStore(state), "cx-doc").enqueue("commit", "cx-doc", reason="t")
    old = tmp_path / "outbox" / "cx-old"
    old.mkdir(parents=True)
    (old / "0000000001-append.json").write_text("{}")
    (tmp_path / "locks").mkdir()
    (tmp_path / "locks" / "cx-hand.handoff").write_text("{}")
    states = StateStore(state).all()
    assert layout.queued_counts(state, states) == {"cx-doc": 1, "cx-hand": 1, "cx-old": 1}
    assert layout.queued_sessions(state, states) == ["cx-doc", "cx-hand", "cx-old"]
