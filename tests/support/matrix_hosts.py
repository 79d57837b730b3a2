"""The eight hosts as the cross-host matrix drives them: recorded payloads and transcripts in,
real ``ovhooks`` processes (the installed entry point, run in the project folder as each host
runs it), each host's reply shape out.

A *writer* replays one recorded session of a host (tests/fixtures/<host>/…) with its first user
prompt replaced by the fact to remember: the transcript keeps the host's own format, and the
hooks are fed the host's own recorded payloads, in the order the host fires them, ending with
what commits a session on that host. A *reader* is a new session of a host asking about the
fact in other words; its recall is read from the reply in that host's shape.

What each host fires comes from the recordings (tests/fixtures/<host>/fired.json and
hook-payloads/): Droid's ``droid exec`` fires no UserPromptSubmit, so a Droid reader's recall is
its SessionStart block; Qwen Code fires no SessionEnd in ``-p`` mode, so a Qwen session is
committed by ``ovhooks commit`` (what the idle sweep or the next interactive exit does).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

from ovhooks.hosts.base import EVENT_NAMES
from ovhooks.hosts.gemini import GEMINI_EVENTS
from ovhooks.hosts.registry import session_key as ov_session_id
from tests.support import opencode_store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# The payload fields that carry what the user typed (Qwen: ``submitted_prompt`` is the
# prompt proper; Copilot's SessionStart names the ``-p`` prompt ``initial_prompt``).
PROMPT_FIELDS = ("prompt", "submitted_prompt", "initial_prompt")
COMMIT_COMMAND = "ovhooks commit"


class HostSpec(NamedTuple):
    """One host's recorded session: its transcript, payloads and the events it fires."""

    host: str
    transcript: str  # under tests/fixtures; "" for OpenCode (its store is a database)
    recorded_prompt: str  # the first user prompt of that transcript
    session_id: str  # the host session the transcript belongs to
    payloads: dict[str, str]  # ovhooks hook -> recorded payload file under tests/fixtures
    writer_hooks: tuple[str, ...]  # what the host fires for a one-prompt session, in order
    commit: str  # the hook (or COMMIT_COMMAND) that commits the session on this host
    recall_hook: str  # the hook whose reply carries recall for a new session's prompt
    payload_prompt: str = ""  # the payloads' prompt, if they come from another recording


def _payload_files(folder: str, names: dict[str, str]) -> dict[str, str]:
    return {hook: f"{folder}/{name}" for hook, name in names.items()}


_CLAUDE_STYLE = {
    "session-start": "SessionStart-startup.json",
    "user-prompt-submit": "UserPromptSubmit.json",
    "stop": "Stop.json",
    "session-end": "SessionEnd.json",
}
_FULL = ("session-start", "user-prompt-submit", "stop")
_UPS = "user-prompt-submit"

SPECS: dict[str, HostSpec] = {
    "codex": HostSpec(
        "codex",
        "host-samples/codex/rollout-transcript.trimmed.jsonl",
        "hello first turn",
        "01a201de-87c7-7a30-ba45-7a6cf1e11575",
        _payload_files("host-samples/codex/hook-payloads", _CLAUDE_STYLE),
        _FULL,
        "session-end",
        _UPS,
    ),
    "claude": HostSpec(
        "claude",
        "claude-2.1.330/13889cd5-f4ed-4caf-96a1-623dc2d3fced.jsonl",
        "hello first turn, I prefer tabs",
        "13889cd5-f4ed-4caf-96a1-623dc2d3fced",
        _payload_files("host-samples/claude/hook-payloads", _CLAUDE_STYLE),
        _FULL,
        "session-end",
        _UPS,
        payload_prompt="hello first turn",  # host-samples/claude was another recording
    ),
    "gemini": HostSpec(
        "gemini",
        "gemini/session-transcript.jsonl",
        "hello first turn",
        "fa402d46-ed0e-48e7-bfff-299975c1a022",
        _payload_files(
            "gemini/hook-payloads",
            {
                "session-start": "SessionStart-startup.json",
                "user-prompt-submit": "BeforeAgent.json",
                "stop": "AfterAgent.json",
                "session-end": "SessionEnd-exit.json",
            },
        ),
        _FULL,
        "session-end",
        _UPS,
    ),
    "pi": HostSpec(
        "pi",
        "pi/session-branched.jsonl",
        "First turn: I prefer tabs",
        "01a2168f-2a64-72a8-84f6-eb588031bf04",
        _payload_files(
            "pi/hook-payloads",
            {
                "session-start": "session-start-session_start-startup.json",
                "user-prompt-submit": "user-prompt-submit-before_agent_start.json",
                "stop": "stop-agent_end.json",
                "session-end": "session-end-session_shutdown-quit.json",
            },
        ),
        _FULL,
        "session-end",
        _UPS,
    ),
    "opencode": HostSpec(
        "opencode",
        "",
        "First turn: I prefer tabs",
        "ses_de95bcfacffe8rIDyx7Gwoc3ck",
        _payload_files(
            "opencode/hook-payloads",
            {
                "session-start": "session-start-chat_message.json",
                "user-prompt-submit": "user-prompt-submit-chat_message.json",
                "stop": "stop-session_idle.json",
                "session-end": "session-end-dispose-dispose.json",
            },
        ),
        _FULL,
        "session-end",
        _UPS,
    ),
    "copilot": HostSpec(
        "copilot",
        "copilot/session-1.jsonl",
        "Remember that the deploy target is staging-7. RUNSHELL",
        "174f707a-342d-424f-8bec-15c474cfa61a",
        _payload_files(
            "copilot/hook-payloads", {**_CLAUDE_STYLE, "session-start": "SessionStart-new.json"}
        ),
        _FULL,
        "session-end",
        _UPS,
    ),
    "qwen": HostSpec(
        "qwen",
        "qwen/session-1.jsonl",
        "Remember that the deploy target is staging-7. RUNSHELL",
        "c872b74c-6e05-49c9-bc3c-4545d38a4fa9",
        _payload_files(
            "qwen/hook-payloads",
            {k: v for k, v in _CLAUDE_STYLE.items() if k != "session-end"},
        ),
        _FULL,
        COMMIT_COMMAND,  # no SessionEnd in -p mode
        _UPS,
    ),
    "droid": HostSpec(
        "droid",
        "droid/session-1.jsonl",
        "Remember that the deploy target is staging-7. RUNSHELL",
        "b3f37f25-56a8-4cf9-88f8-47b89321c569",
        _payload_files(
            "droid/hook-payloads",
            {k: v for k, v in _CLAUDE_STYLE.items() if k != "user-prompt-submit"},
        ),
        ("session-start", "stop"),  # droid exec: no UserPromptSubmit
        "session-end",
        "session-start",  # what droid exec fires before the model call
    ),
}
HOSTS = tuple(SPECS)


class HookRun(NamedTuple):
    reply: dict[str, Any]
    seconds: float


class World:
    """One project folder and one local store shared by every session of the matrix."""

    def __init__(self, base: Path, ovhooks_bin: str, env: dict[str, str], project: Path) -> None:
        self.base = base
        self.ovhooks_bin = ovhooks_bin
        self.env = env
        self.project = project
        self.opencode_db = base / "opencode" / "opencode.db"
        self.copilot_home = base / "copilot-home"

    def logs(self) -> str:
        """ovhooks' log tail, for failure messages."""
        from tests.support.story import read_ovhooks_logs

        return read_ovhooks_logs(self.env["OVHOOKS_STATE_DIR"], 4000)

    def host_env(self, host: str, overrides: dict[str, str] | None = None) -> dict[str, str]:
        """Where the host keeps its sessions, as its hooks' environment says."""
        extra = {
            "copilot": {"COPILOT_HOME": str(self.copilot_home)},
            "opencode": {"OPENCODE_DB": str(self.opencode_db)},
        }.get(host, {})
        return {**self.env, **extra, **(overrides or {})}

    def run(
        self, command: list[str], host: str, stdin: bytes, overrides: dict[str, str] | None = None
    ) -> tuple[str, float]:
        started = time.monotonic()
        done = subprocess.run(
            [self.ovhooks_bin, *command],
            input=stdin,
            capture_output=True,
            env=self.host_env(host, overrides),
            cwd=str(self.project),
            timeout=60,
            check=False,
        )
        seconds = time.monotonic() - started
        out = done.stdout.decode("utf-8", "replace")
        assert done.returncode == 0, (command, done.returncode, out, done.stderr[-2000:])
        return out, seconds

    def hook(
        self,
        host: str,
        hook: str,
        payload: dict[str, Any],
        overrides: dict[str, str] | None = None,
    ) -> HookRun:
        """``ovhooks <hook> --host <host>`` with ``payload`` on stdin: exactly one JSON object."""
        stdin = json.dumps(payload).encode()
        out, seconds = self.run([hook, "--host", host], host, stdin, overrides)
        lines = out.splitlines()
        assert len(lines) == 1, (host, hook, out)
        reply = json.loads(lines[0])
        assert isinstance(reply, dict), (host, hook, out)
        return HookRun(reply, seconds)

    # --- payloads and transcripts -----------------------------------------------------------

    def payload(
        self, spec: HostSpec, hook: str, session_id: str, prompt: str, transcript: str
    ) -> dict[str, Any]:
        """The host's recorded payload for ``hook``, moved to this world: its session, its
        transcript, this project folder, and ``prompt`` where the user's words go."""
        recorded: dict[str, Any] = json.loads((FIXTURES / spec.payloads[hook]).read_text("utf-8"))
        payload = dict(recorded)
        payload["session_id"] = session_id
        payload["cwd"] = str(self.project)
        if "transcript_path" in payload:
            payload["transcript_path"] = transcript
        recorded_prompt = spec.payload_prompt or spec.recorded_prompt
        for field in PROMPT_FIELDS:
            if field in payload:
                assert recorded_prompt in payload[field], (spec.payloads[hook], field)
                payload[field] = payload[field].replace(recorded_prompt, prompt)
        return payload

    def transcript_path(self, spec: HostSpec, session_id: str) -> Path:
        if spec.host == "opencode":
            return self.opencode_db
        if spec.host == "copilot":  # where Copilot keeps it: session-state/<id>/events.jsonl
            return self.copilot_home / "session-state" / session_id / "events.jsonl"
        return self.base / spec.host / f"{session_id}.jsonl"

    def write_transcript(self, spec: HostSpec, fact: str) -> Path:
        """The recorded session in the host's own format, its first prompt now ``fact``."""
        path = self.transcript_path(spec, spec.session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        if spec.host == "opencode":
            opencode_store.build_store(path)
            with sqlite3.connect(path) as db:
                db.execute(
                    "UPDATE part SET data = replace(data, ?, ?)", (spec.recorded_prompt, fact)
                )
            return path
        text = (FIXTURES / spec.transcript).read_text("utf-8")
        assert spec.recorded_prompt in text, spec
        path.write_text(text.replace(spec.recorded_prompt, fact), "utf-8")
        return path

    # --- sessions ---------------------------------------------------------------------------

    def write_session(self, spec: HostSpec, fact: str) -> dict[str, float]:
        """One session of ``spec.host`` in which the user states ``fact``, then committed as
        the host commits it. Returns seconds per step."""
        transcript = str(self.write_transcript(spec, fact))
        seconds: dict[str, float] = {}
        for hook in (*spec.writer_hooks, spec.commit):
            if hook == COMMIT_COMMAND:
                key = ov_session_id(spec.host, spec.session_id)
                _out, took = self.run(["commit", key, "--json"], spec.host, b"")
            else:
                payload = self.payload(spec, hook, spec.session_id, fact, transcript)
                took = self.hook(spec.host, hook, payload).seconds
            seconds[hook] = took
        return seconds

    def read_session(
        self, spec: HostSpec, question: str, overrides: dict[str, str] | None = None
    ) -> tuple[dict[str, str], float]:
        """A new session of ``spec.host`` asking ``question``: the context each hook gave its
        model (read from the reply in the host's shape; hook -> text) and the seconds taken."""
        session_id = new_session_id(spec.host)
        transcript = str(self.transcript_path(spec, session_id))
        seconds = 0.0
        contexts: dict[str, str] = {}
        for hook in dict.fromkeys(("session-start", spec.recall_hook)):
            payload = self.payload(spec, hook, session_id, question, transcript)
            run = self.hook(spec.host, hook, payload, overrides)
            seconds += run.seconds
            contexts[hook] = context_of(spec.host, EVENT_NAMES[hook], run.reply)
        return contexts, seconds


def new_session_id(host: str) -> str:
    """A fresh id in the host's own form (OpenCode: ``ses_…``)."""
    if host == "opencode":
        return "ses_" + uuid.uuid4().hex[:26]
    return str(uuid.uuid4())


def context_of(host: str, event: str, reply: dict[str, Any]) -> str:
    """The context a host takes from ``reply``, checked against that host's reply shape:
    Copilot reads only a top-level ``additionalContext``; the others read
    ``hookSpecificOutput.additionalContext`` under their own name for the event."""
    if host == "copilot":
        assert set(reply) <= {"additionalContext"}, reply
        return str(reply.get("additionalContext", ""))
    assert "additionalContext" not in reply, reply
    specific = reply.get("hookSpecificOutput")
    if specific is None:
        return ""
    expected = GEMINI_EVENTS[event] if host == "gemini" else event
    assert specific.get("hookEventName") == expected, (host, reply)
    context = specific.get("additionalContext", "")
    assert isinstance(context, str), reply
    return context


def local_environment(base: Path) -> dict[str, str]:
    """ovhooks on the local store in ``base``, inline writes, a private home; nothing of the
    machine's own ovhooks, OpenViking or host settings."""
    foreign = (
        *("OVHOOKS_", "OPENVIKING_", "XDG_", "CODEX_", "CLAUDE", "GEMINI_", "COPILOT_"),
        *("QWEN_", "FACTORY_", "DROID_", "OPENCODE", "PI_"),
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(foreign)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # hooks keep bytecode, as installed ones do
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    config = base / "ovhooks-config.toml"
    config.write_text("", "utf-8")
    env.update(
        {
            "HOME": str(home),
            "OVHOOKS_BACKEND": "local",
            "OVHOOKS_SEMANTIC": "off",
            "OVHOOKS_STATE_DIR": str(base / "state"),
            "OVHOOKS_DATA_DIR": str(base / "data"),
            "OVHOOKS_CONFIG": str(config),
            "OPENVIKING_CLI_CONFIG_FILE": str(base / "ovcli.conf"),
            "OVHOOKS_DETACH": "0",
            # The matrix tests crossing, not latency: a loaded CI machine must not drop recall.
            "OVHOOKS_RECALL_DEADLINE_S": "5",
        }
    )
    return env
