#!/usr/bin/env python3
"""Record the Gemini CLI samples the tests read (tests/fixtures/gemini) from the real CLI.

Runs the pinned Gemini CLI (scripts/ci-setup.sh, step ``gemini``) offline against the stub of
``tests/support/gemini_stub.py``, with a hook on every memory-relevant event that logs its
stdin and answers SessionStart and BeforeAgent with a marker holding ``<`` and ``>`` (Gemini
escapes them). Writes, in the style of ``record_host_fixtures.py``:

- ``hook-payloads/<Event>[-<variant>].json``: the first stdin of each event variant;
- ``hook-log.jsonl``: every hook call of the run, in order (event, payload, and how many bytes
  its transcript had then);
- ``session-transcript.jsonl``: the session's chat recording (all five calls), byte for byte
  (not trimmed: the PreCompress tests cut it at the sizes the hook log names);
- ``resume-stub-transcript.jsonl``: the file a resumed run creates first and names in
  SessionStart's ``transcript_path`` before it goes back to the session's own file (only when
  the minute changed between the calls: the file is named by the minute);
- ``stub-requests/req-NNN-*.json``: what the model received, in order;
- ``settings.json``: the user settings of the run.

The scripted session (each call a separate ``gemini -p`` process, the later ones ``-r latest``):
turn 1; a shell tool call; a ``read_file`` of a ``viking://`` URI; a shell call whose first
response reports 600,000 prompt tokens, so the history is really compressed before the second
model call of that turn; a plain turn after the compression.

Usage: ``.venv/bin/python scripts/record_gemini_fixtures.py [--out DIR]`` (about 30 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from scripts.record_host_fixtures import trim, write_json  # noqa: E402
from tests.support import gemini_host, hosts  # noqa: E402
from tests.support.gemini_stub import GeminiStub  # noqa: E402

GEMINI_VERSION = "0.61.0"
PROMPTS = (
    "hello first turn",
    "second turn RUNSHELL please",
    "third turn READVIKING please",
    "fourth turn RUNSHELL BIGTOKENS please",
    "fifth turn after the compression",
)

LOGGING_HOOK = '''\
"""Recorder hook: log the payload; answer the context events with a marker holding <, >."""
import json, os, sys

event, log_path = sys.argv[1], sys.argv[2]
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"unparsed": raw}
try:  # how much of its transcript existed when the hook ran
    size = os.path.getsize(payload.get("transcript_path") or "")
except (OSError, AttributeError):
    size = None
with open(log_path, "a", encoding="utf-8") as log:
    log.write(json.dumps({"event": event, "payload": payload, "transcript_bytes": size}) + "\\n")
marker = {
    "SessionStart": "OVH-MARKER-SS <b>%s</b>" % payload.get("source", ""),
    "BeforeAgent": "OVH-MARKER-BA <openviking-context>x</openviking-context>",
}.get(event)
if marker:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker}}))
else:
    print("{}")
'''


def variant(event: str, payload: dict[str, Any]) -> str:
    for field in ("source", "tool_name", "trigger", "reason"):
        value = payload.get(field)
        if isinstance(value, str) and value:
            return f"{event}-{value}"
    return event


def save_payloads(log_path: str, out_dir: str) -> dict[str, dict[str, Any]]:
    saved: dict[str, dict[str, Any]] = {}
    entries = hosts.read_hook_log(log_path)
    with open(os.path.join(out_dir, "hook-log.jsonl"), "w", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(trim(entry), ensure_ascii=False) + "\n")
    for entry in entries:
        payload = entry["payload"]
        if not isinstance(payload, dict):
            continue
        name = variant(str(entry["event"]), payload)
        if name not in saved:
            saved[name] = payload
            write_json(os.path.join(out_dir, "hook-payloads", f"{name}.json"), trim(payload))
    return saved


def record(gemini_bin: str, base: str, out: str) -> None:
    script = os.path.join(base, "log_hook.py")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(LOGGING_HOOK)
    log_path = os.path.join(base, "hooks.jsonl")
    python = shlex.quote(sys.executable)
    commands = {
        event: f"{python} {shlex.quote(script)} {event} {shlex.quote(log_path)}"
        for event in gemini_host.GEMINI_EVENTS
    }
    with GeminiStub() as stub:
        host = gemini_host.GeminiHost(
            gemini_bin,
            os.path.join(base, "gemini"),
            stub,
            hook_commands=commands,
            base_env=os.environ,
        )
        for index, prompt in enumerate(PROMPTS):
            host.prompt(prompt, resume=index > 0).check()
        payloads = save_payloads(log_path, out)
        turns = stub.requests_to("/v1beta/")
        for number, request in enumerate(turns, 1):
            method = request.path.split("?", 1)[0].rsplit(":", 1)[-1]
            write_json(
                os.path.join(out, "stub-requests", f"req-{number:03d}-{method}.json"),
                trim({**request.as_json(), "n": number, "kind": stub.replies.get(request.number)}),
            )
        shutil.copyfile(host.settings_path, os.path.join(out, "settings.json"))
    session = str(payloads["AfterAgent"]["transcript_path"])
    shutil.copyfile(session, os.path.join(out, "session-transcript.jsonl"))
    resumed = str(payloads["SessionStart-resume"]["transcript_path"])
    if resumed != session and os.path.exists(resumed):
        shutil.copyfile(resumed, os.path.join(out, "resume-stub-transcript.jsonl"))
    with open(session, encoding="utf-8") as handle:
        lines = sum(1 for line in handle if line.strip())
    print(f"gemini: {len(payloads)} payload variants, {len(turns)} model requests, {lines} lines")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "gemini"))
    args = parser.parse_args(argv)
    cache = os.environ.get("OVHOOKS_CI_CACHE") or os.path.expanduser("~/.cache/ovhooks-ci")
    bin_dir = os.environ.get("OVHOOKS_GEMINI_DIR") or os.path.join(
        cache, f"hostcli-gemini-{GEMINI_VERSION}", "node_modules", ".bin"
    )
    cli = os.path.join(bin_dir, "gemini")
    if not os.access(cli, os.X_OK):
        print(f"{cli} not found: run scripts/ci-setup.sh gemini", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="record-gemini-") as base:
        staging = os.path.join(base, "out")
        os.makedirs(staging)
        record(cli, base, staging)
        shutil.rmtree(args.out, ignore_errors=True)
        shutil.copytree(staging, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
