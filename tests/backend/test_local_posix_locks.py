"""Two connections to the local store in one process survive a third process closing its own.

Closing any descriptor of a file drops every POSIX lock the process holds on it. When opening
a connection opened and closed the database's -shm file to fix its mode, it stripped the
locks of the process's other open connection; another process closing the store then took
itself for the last user and reset the WAL index under that connection ("disk I/O error").
Long-lived processes (the viewer, the MCP server) hold connections while hooks come and go.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ovhooks.backend.local import LocalBackend

URI = "viking://user/default/memories/preferences/default/tabs.md"
OTHER_PROCESS = """
import sys
from ovhooks.backend.local import LocalBackend
store = LocalBackend(sys.argv[1])
print(store.read(sys.argv[2]))
store.close()
"""


def test_a_held_connection_survives_a_second_one_and_another_process(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    held = LocalBackend(data)
    held.write(URI, "always tabs")
    assert held.read(URI) == "always tabs"
    for round_ in range(3):
        second = LocalBackend(data)  # opening it must not touch the held one's locks
        second.write(URI, f"always tabs {round_}")
        second.close()
        done = subprocess.run(
            [sys.executable, "-c", OTHER_PROCESS, data, URI],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        assert done.stdout.strip() == f"always tabs {round_}"
        third = LocalBackend(data)
        assert third.read(URI) == f"always tabs {round_}"
        held.write(URI, f"held {round_}")
        assert third.read(URI) == f"held {round_}"
        third.close()
    held.close()
