"""Issue 39's canonical first-use case, end to end: a new user runs
``ovhooks remember "In this repository I always indent with tabs, never spaces"`` in their
project, and in a later session asks how to indent a new module. The real ``remember``
command, the real embedding service (warm, every row indexed) and the real
UserPromptSubmit hook process, on a fresh local store holding that one memory, and again
with 1,000 other ordinary memories (``tests/support/first_use.py``) around it.

On the code this was written against (50e8986) neither question got anything injected,
alone or among 1,000 (issue 39's first complaint). Two things stood in the way: "indent"
weighed as a plain shared word where "indentation" names the topic (the verb's forms now
name the topic, ``lexical.text.query_terms``), and, alone, a veto of the model over shared
words (the model puts the first question 2.7 spreads above the probes; the veto asked 3).
The veto is deleted: on held-out splits of five labelled sets it cost hits on three and
kept one unrelated prompt clean (docs/SEMANTIC.md §2.5). Every case here must now pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.commands.memory_ops import memory_uri
from tests.support.first_use import others
from tests.support.hooks import run_process
from tests.support.semantic import (
    hold_off_starts,
    local_user_env,
    start_service,
    stop_running,
    stop_service,
    wait_warm_and_indexed,
)

CANONICAL = "In this repository I always indent with tabs, never spaces"
HOW = "How should I indent the new config loader module?"
STYLE = "what indentation style do we use here?"
# Indexing a thousand rows on a loaded 2-core box takes minutes; the module's store is built
# once per size, inside the first test's setup.
pytestmark = pytest.mark.timeout(1200)


class NotInjectedError(AssertionError):
    """The memory was not in the block."""


def _write_others(data_dir: Path, count: int) -> None:
    """``count`` other memories where ``ovhooks remember`` would have put them."""
    backend = LocalBackend(str(data_dir))
    try:
        user = backend.whoami()
        for text in others(count):
            uri = memory_uri(user, text, kind="preferences", name=None, now=time.time())
            backend.write(uri, text + "\n", mode="replace")
    finally:
        backend.close()


@pytest.fixture(scope="module", params=(0, 1000), ids=("alone", "among-1000"))
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("first-use")
    env = local_user_env(root)
    (root / "home").mkdir()
    project = root / "home" / "src" / "config-tools"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    _write_others(root / "data", int(request.param))
    # The service is started below, by the test (so it ends it by pid), not by remember's nudge.
    hold_off_starts(str(root / "state"))
    done = subprocess.run(
        [sys.executable, "-m", "ovhooks", "remember", CANONICAL, "--json"],
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    uri = json.loads(done.stdout)["uri"]
    db = str(root / "data" / "memory.db")
    proc = start_service(str(root / "state"), db=db, env=env)
    try:
        wait_warm_and_indexed(str(root / "state"), db, timeout_s=800)
        yield {"env": env, "project": project, "uri": uri, "count": int(request.param) + 1}
    finally:
        stop_service(proc)
        stop_running(str(root / "state"))


def ask(store: dict[str, Any], prompt: str, session: str) -> str:
    """The real UserPromptSubmit hook process, in a new session in the project."""
    payload = {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(store["project"]),
        "hook_event_name": "UserPromptSubmit",
        "model": "first-use",
        "prompt": prompt,
    }
    proc, _seconds = run_process("user-prompt-submit", payload, store["env"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout or b"{}")
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext") or "")


def test_the_store_holds_what_the_case_says(store: dict[str, Any]) -> None:
    backend = LocalBackend(str(Path(store["env"]["OVHOOKS_DATA_DIR"])))
    try:
        user = backend.whoami()
        listed = backend.ls(f"viking://user/{user}/memories", recursive=True, limit=5000)
    finally:
        backend.close()
    files = [str(i["uri"]) for i in listed if not i.get("isDir")]
    assert store["uri"] in files
    assert len(files) == store["count"]
    # The same thousand on every run (seeded), so a result is reproducible.
    assert others() == others()


@pytest.mark.parametrize("question", (HOW, STYLE), ids=("how-to-indent", "what-style"))
def test_the_indentation_memory_is_injected(store: dict[str, Any], question: str) -> None:
    context = ask(store, question, f"first-use-{len(question)}")
    if "indent with tabs" not in context.lower():
        raise NotInjectedError(context or "(nothing injected)")
