"""The ``ovhooks`` console script (``__main__.entry``): a hook process leaves without the
interpreter's teardown, after its reply is out and its exit handlers have run.

A ``sitecustomize`` on the hook's path registers an exit handler and keeps an object whose
finalizer would run during module teardown; each writes its own marker file. The hook must
answer, run the handler, and skip the teardown. A human command keeps the normal exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hooks import REPO, hook_env

SITECUSTOMIZE = """
import atexit, os
_folder = os.environ["ENTRY_MARKS"]

def _handler():
    with open(os.path.join(_folder, "atexit"), "w") as fh:
        fh.write("ran")

atexit.register(_handler)

class _TornDown:
    # the path is made now: by teardown, this module's globals may be gone
    path = os.path.join(_folder, "teardown")

    def __del__(self, open=open):
        with open(self.path, "w") as fh:
            fh.write("ran")

kept = _TornDown()
"""


def _run(
    tmp_path: Path, argv: list[str], stdin: bytes
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = hook_env(PYTHONPATH=f"{site}:{REPO}", ENTRY_MARKS=str(marks), OVHOOKS_BACKEND="local")
    env.pop("OPENVIKING_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "ovhooks", *argv],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=str(tmp_path),
        timeout=30,
        check=False,
    )
    return done, marks


def test_a_hook_answers_runs_exit_handlers_and_skips_the_teardown(tmp_path: Path) -> None:
    payload = {
        "session_id": "entry-1",
        "transcript_path": None,
        "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt",
        "prompt": "which linter does this project use?",
    }
    done, marks = _run(
        tmp_path, ["user-prompt-submit", "--host", "codex"], json.dumps(payload).encode()
    )
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), dict)
    assert (marks / "atexit").read_text() == "ran"
    assert not (marks / "teardown").exists()


def test_a_command_exits_the_normal_way(tmp_path: Path) -> None:
    done, marks = _run(tmp_path, ["version"], b"")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert (marks / "atexit").read_text() == "ran"
    assert (marks / "teardown").read_text() == "ran"


def test_ctrl_c_while_a_command_loads_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fault campaign's SIGINT 0.1-0.3 s into `doctor`, `status`, `search`, `flush` landed
    # in the imports, before the app's own handler, and printed a traceback every time.
    import types

    from ovhooks import __main__ as entry_module

    class Interrupting(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "ovhooks.cli", Interrupting("ovhooks.cli"))
    monkeypatch.setattr(sys, "argv", ["ovhooks", "status"])
    with pytest.raises(SystemExit) as leave:
        entry_module.main()
    assert leave.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"
