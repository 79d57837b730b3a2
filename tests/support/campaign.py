"""The exactly-once campaign rig: real worker processes, real faults, one session per scenario.

A ``Scenario`` owns a state dir, a transcript in its host's own format (Codex rollout, Claude
transcript, or the session file or store of Pi, OpenCode, Gemini CLI, Copilot CLI, Qwen Code or
Factory Droid: ``host_transcripts.writer``) whose every prompt and reply carries a unique token
(``u-3``, ``a-3``), and a backend (the fake OpenViking server or the local store). It runs the
real worker (``python -m ovhooks _worker JOBFILE``), optionally under ``tests/support/faults``
(SIGKILL before the N-th operation of a kind), runs one of the four recoveries, and compares
the tokens the backend received with the transcript: nothing lost, nothing twice, nothing out
of order.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

# Imported once here, so forked children start with them loaded (as a warm process would).
import ovhooks.backend.local
import ovhooks.backend.openviking
import ovhooks.capture
import ovhooks.cli
import ovhooks.commands.sessions
import ovhooks.events.session_start
import ovhooks.events.stop
import ovhooks.transcripts.claude
import ovhooks.transcripts.codex
import ovhooks.worker.run  # noqa: F401
from ovhooks.hosts.registry import spec as host_spec
from ovhooks.ids import prefixed_session_id
from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.host_transcripts import Conversation, writer
from tests.support.matrix_hosts import new_session_id
from tests.support.rollouts import CodexRollout

REPO = Path(__file__).resolve().parents[2]
FAULTS = Path(__file__).resolve().parent / "faults"
KINDS = ("fsync", "rename", "unlink", "lock", "open", "send", "recv", "sql")
RECOVERIES = ("next_stop", "flush", "session_start", "sweep")
TOKEN = re.compile(r"\b([ua]-\d+)\b")


class Scenario:
    def __init__(
        self,
        root: Path,
        *,
        host: str,
        backend: str,
        fake: FakeOpenViking | None = None,
        window_s: float = 0.3,
        timeout_s: float = 5.0,
        forked: bool = True,
        state_dir: Path | None = None,
        url: str = "",
    ) -> None:
        # forked: each ovhooks process is a fork of this one running ovhooks' real entry
        # point (no interpreter start-up: ~20x faster on a loaded machine); otherwise a new
        # interpreter, as hosts start hooks.
        self.forked = forked
        self.root = root
        self.host = host
        self.backend = backend
        self.fake = fake
        self.state_dir = state_dir or root / "state"
        self.work = root / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.sid = new_session_id(host) if host not in ("codex", "claude") else str(uuid.uuid4())
        self.key = prefixed_session_id(host_spec(host).session_prefix, self.sid)
        self.turns = 0
        self.pending_reply = ""  # Claude: a reply the host has not written to the file yet
        self.transcript: CodexRollout | ClaudeTranscript | Conversation
        if host == "codex":
            self.transcript = CodexRollout(root / "rollout.jsonl", self.sid)
            self.path = root / "rollout.jsonl"
        elif host == "claude":
            self.transcript = ClaudeTranscript(root / "claude", self.sid, self.work)
            self.path = self.transcript.path
        else:
            self.transcript = writer(host, root, self.sid, str(self.work))
            self.path = self.transcript.path
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("OVHOOKS_", "OPENVIKING_"))
        }
        self.env.update(
            HOME=str(root / "home"),
            OVHOOKS_STATE_DIR=str(self.state_dir),
            OVHOOKS_DATA_DIR=str(root / "data"),
            OVHOOKS_DETACH="0",
            OVHOOKS_LOG_LEVEL="info",
            # No embedding service: crash campaigns test the write path, and a service the
            # worker started would outlive the test by its idle time.
            OVHOOKS_SEMANTIC="off",
            OVHOOKS_RECALL="0",
            OVHOOKS_SESSION_CONTEXT="0",
            OVHOOKS_INFLIGHT_WINDOW_S=str(window_s),
            OVHOOKS_REQUEST_TIMEOUT_S=str(timeout_s),
            OVHOOKS_WORKER_LOCK_WAIT_S="20",
            OVHOOKS_COMMIT_TOKEN_THRESHOLD="0",
            # a late reply here stays late: the synthetic turn is what these campaigns test
            # (the wait for it: tests/events/test_claude_lifecycle.py)
            OVHOOKS_REPLY_WAIT_S="0",
        )
        if host == "opencode":  # where the plugin's payloads (no transcript_path) point ovhooks
            self.env["OPENCODE_DB"] = str(self.path)
        if backend == "local":
            self.env["OVHOOKS_BACKEND"] = "local"
        else:  # the fake server, or a real one at ``url``
            assert fake is not None or url
            self.env.update(OVHOOKS_BACKEND="openviking", OPENVIKING_URL=url or fake.url)  # type: ignore[union-attr]

    # --- the conversation -----------------------------------------------------------------
    def add_turns(self, n: int, *, late_reply: bool = False) -> None:
        """Append ``n`` turns; with ``late_reply`` (Claude) the last reply is not on disk yet."""
        self.flush_late_reply()
        for _ in range(n):
            i = self.turns
            self.turns += 1
            prompt = f"Please handle task u-{i} in the parser module, carefully."
            reply = f"Done with task a-{i}: the parser module now handles it."
            if isinstance(self.transcript, CodexRollout):
                self.transcript.user(prompt)
                self.transcript.assistant(reply)
            else:
                self.transcript.prompt(prompt)
                if late_reply and _ == n - 1 and self.host == "claude":
                    self.pending_reply = reply
                else:
                    self.transcript.reply(reply)

    def flush_late_reply(self) -> None:
        if self.pending_reply and isinstance(self.transcript, ClaudeTranscript):
            self.transcript.reply(self.pending_reply)
        self.pending_reply = ""

    def expected(self) -> list[str]:
        return [f"{side}-{i}" for i in range(self.turns) for side in ("u", "a")]

    def received(self) -> list[str]:
        texts: list[str] = []
        if self.backend == "local":
            db = self.root / "data" / "local.db"
            found = list((self.root / "data").rglob("*.db")) if not db.exists() else [db]
            if not found:
                return []
            con = sqlite3.connect(found[0])
            try:
                rows = con.execute(
                    "SELECT parts FROM messages WHERE session_id = ? ORDER BY seq", (self.key,)
                ).fetchall()
            finally:
                con.close()
            for (parts,) in rows:
                texts.append(json.dumps(json.loads(parts)))
        else:
            assert self.fake is not None
            texts = [json.dumps(m) for m in self.fake.messages(self.key)]
        return [tok for text in texts for tok in TOKEN.findall(text)]

    # --- processes ------------------------------------------------------------------------
    def stop_job(self) -> dict[str, Any]:
        # spelled out (not layout.new_job) so the campaign also runs against older ovhooks
        return {
            "key": self.key,
            "host": self.host,
            "host_session_id": self.sid,
            "transcript_path": str(self.path),
            "cwd": str(self.work),
            "peer": "",
            "capture": True,
            "last_assistant": self.pending_reply if self.host == "claude" else "",
        }

    def run_worker(
        self,
        job: dict[str, Any],
        *,
        fault: str = "",
        counts: Path | None = None,
        timeout_s: float = 60.0,
    ) -> int:
        """Run the real worker process on ``job``; returns its exit code (-9: killed)."""
        job_file = self.root / f"job-{time.monotonic_ns()}.json"
        job_file.write_text(json.dumps([job]))
        code, _out = self.main(
            ["_worker", str(job_file)], fault=fault, counts=counts, timeout_s=timeout_s
        )
        return code

    def main(
        self,
        argv: list[str],
        *,
        stdin: bytes = b"",
        fault: str = "",
        counts: Path | None = None,
        timeout_s: float = 60.0,
    ) -> tuple[int, bytes]:
        """``ovhooks ARGV`` in a child process; (exit code, -9 when killed; stdout)."""
        if not self.forked:
            env = dict(self.env)
            if fault or counts:
                env["PYTHONPATH"] = os.pathsep.join([str(FAULTS), str(REPO)])
                env["OVHOOKS_FAULT"] = fault
                env["OVHOOKS_FAULT_COUNTS"] = str(counts or "")
            proc = subprocess.run(
                [sys.executable, "-m", "ovhooks", *argv],
                input=stdin,
                env=env,
                cwd=str(REPO),
                timeout=timeout_s,
                capture_output=True,
                check=False,
            )
            return proc.returncode, proc.stdout
        return _forked_main(argv, stdin, self.env, fault, str(counts or ""), timeout_s)

    def stop(self, **kwargs: Any) -> int:
        return self.run_worker(self.stop_job(), **kwargs)

    def census(self) -> dict[str, int]:
        """How many operations of each kind one Stop's worker performs."""
        counts = self.root / f"counts-{time.monotonic_ns()}.json"
        self.stop(counts=counts)
        return {k: v for k, v in json.loads(counts.read_text()).items() if k in KINDS}

    def stop_hook(self) -> dict[str, Any]:
        """The real Stop hook (the worker runs inline: ``OVHOOKS_DETACH=0``); its reply."""
        payload: dict[str, Any] = {
            "session_id": self.sid,
            "transcript_path": str(self.path),
            "cwd": str(self.work),
            "hook_event_name": "Stop",
        }
        if self.host == "claude" and self.pending_reply:
            payload["last_assistant_message"] = self.pending_reply
        if self.host == "opencode":  # its plugin names no file: the store is $OPENCODE_DB
            del payload["transcript_path"]
        return self.hook("stop", payload)

    def cli(self, *args: str) -> int:
        return self.main(list(args))[0]

    def hook(self, command: str, payload: dict[str, Any]) -> dict[str, Any]:
        _code, out = self.main([command, "--host", self.host], stdin=json.dumps(payload).encode())
        text = out.decode().strip()
        return json.loads(text) if text else {}

    def recover(self, how: str) -> None:
        """One of the four ways a queue left by a killed worker gets drained."""
        if how == "next_stop":
            self.add_turns(1, late_reply=self.host == "claude")
            self.stop()
        elif how == "flush":
            self.cli("flush")
        elif how == "session_start":
            other = "0193bbbb-0000-7000-8000-00000000e002"
            payload = {
                "session_id": "ses_0193bbbb00007000800000" if self.host == "opencode" else other,
                "hook_event_name": "SessionStart",
                "source": "resume",
                "cwd": str(self.work),
                "transcript_path": str(self.root / "other.jsonl"),
            }
            if self.host == "opencode":  # the store is $OPENCODE_DB
                del payload["transcript_path"]
            self.hook("session-start", payload)
        elif how == "sweep":
            self.cli("sweep", "--ttl", "0")
        else:  # pragma: no cover
            raise ValueError(how)

    def settle(self, rounds: int = 4) -> None:
        """What later Stops eventually do: capture the rest and drain until nothing is left."""
        self.flush_late_reply()
        for _ in range(rounds):
            self.stop()
            if not self.queued():
                return
            time.sleep(float(self.env["OVHOOKS_INFLIGHT_WINDOW_S"]) + 0.05)

    def queued(self) -> int:
        try:
            doc = json.loads((self.state_dir / "sessions" / f"{self.key}.json").read_text())
        except (OSError, ValueError):
            doc = {}
        old_format = self.state_dir / "outbox" / self.key
        legacy = ("*-append.json", "*-commit.json")
        files = sum(len(list(old_format.glob(g))) for g in legacy) if old_format.is_dir() else 0
        return len(doc.get("queue") or []) + files

    def verdict(self) -> tuple[int, int, int]:
        """(lost, duplicated, reordered) tokens: all three are 0 when exactly-once held."""
        got, want = self.received(), self.expected()
        lost = len(set(want) - set(got))
        duplicated = len(got) - len(set(got))
        firsts = [t for n, t in enumerate(got) if t not in got[:n]]
        reordered = 0 if [t for t in firsts if t in want] == [t for t in want if t in firsts] else 1
        return lost, duplicated, reordered


def _forked_main(
    argv: list[str], stdin: bytes, env: dict[str, str], fault: str, counts: str, timeout_s: float
) -> tuple[int, bytes]:
    import importlib.util
    import signal
    import tempfile

    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out:
        inp.write(stdin)
        inp.flush()
        inp.seek(0)
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 70
            try:
                os.dup2(inp.fileno(), 0)
                os.dup2(out.fileno(), 1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)
                sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                os.environ.clear()
                os.environ.update(env)
                faults = None
                if fault or counts:
                    spec = importlib.util.spec_from_file_location(
                        "ovhooks_faults", FAULTS / "sitecustomize.py"
                    )
                    assert spec is not None and spec.loader is not None
                    faults = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(faults)
                    faults.install(fault, counts)
                sys.argv = ["ovhooks", *argv]
                from ovhooks.__main__ import main

                try:
                    main()
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                if faults is not None:
                    faults.finish()
                sys.stdout.flush()
            finally:
                os._exit(code)
        deadline = time.monotonic() + timeout_s
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise TimeoutError(f"ovhooks {argv} still running after {timeout_s} s")
            time.sleep(0.005)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        out.seek(0)
        return code, out.read()
