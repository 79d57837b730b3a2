#!/usr/bin/env python3
"""Record the Copilot CLI, Qwen Code and Factory Droid samples the tests read
(``tests/fixtures/<host>/``) from the real CLIs, offline.

Each host (scripts/ci-setup.sh steps ``copilot``, ``qwen``, ``droid``) runs against
``tests/support/chat_stub.ChatStub`` with a hook on every memory-relevant event that logs its
stdin and answers SessionStart and UserPromptSubmit with a marker in the host's reply shape.
Three headless calls: a prompt that asks for a shell tool (``RUNSHELL``), the same session
continued, and a fresh session. Written in the style of ``record_host_fixtures.py``:

- ``hook-log.jsonl``: every hook call, in order (event, payload, names of the host's env);
- ``hook-payloads/<Event>[-<variant>].json``: the first stdin of each event variant;
- ``fired.json``: which events fired in each call;
- ``session-1.jsonl``, ``session-2.jsonl``: the transcripts of the two sessions (long strings
  trimmed);
- ``stub-requests/req-NNN-*.json``: what the model received, in order.

Usage: ``.venv/bin/python scripts/record_wave4_fixtures.py [copilot|qwen|droid …]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from scripts.record_host_fixtures import (  # noqa: E402
    save_payloads,
    save_requests,
    write_json,
    write_jsonl,
)
from tests.support import wave4_hosts  # noqa: E402
from tests.support.chat_stub import ChatStub  # noqa: E402
from tests.support.hosts import HostRun, read_hook_log  # noqa: E402

PROMPTS = (
    ("Remember that the deploy target is staging-7. RUNSHELL", False),
    ("Second prompt of the same session.", True),
    ("A fresh session: what is the deploy target?", False),
)


def _calls(host: wave4_hosts.Wave4Host) -> list[Callable[[], HostRun]]:
    """The scripted calls: Droid cannot resume offline, so its first session is one
    ``droid exec`` with both prompts on stdin (``DroidHost.conversation``)."""
    (first, _), (second, _), (fresh, _) = PROMPTS
    if isinstance(host, wave4_hosts.DroidHost):
        droid = host
        return [lambda: droid.conversation([first, second]), lambda: droid.prompt(fresh)]
    return [lambda p=p, r=r: host.prompt(p, resume=r) for p, r in PROMPTS]


def _fired_per_call(log_path: str, counts: list[int]) -> list[list[str]]:
    events = [str(entry["event"]) for entry in read_hook_log(log_path)]
    out, start = [], 0
    for end in counts:
        out.append(events[start:end])
        start = end
    return out


def record(host_name: str, binary: str, base: str, out: str) -> dict[str, Any]:
    script = os.path.join(base, "log_hook.py")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(wave4_hosts.LOGGING_HOOK_SOURCE)
    log_path = os.path.join(base, "hooks.jsonl")
    commands = wave4_hosts.logging_hook_commands(script, host_name, log_path)
    counts: list[int] = []
    with ChatStub() as stub:
        host = wave4_hosts.make_host(
            host_name,
            binary,
            os.path.join(base, host_name),
            stub,
            hook_commands=commands,
            base_env=os.environ,
        )
        for calls in _calls(host):
            run = calls()
            if run.returncode != 0:
                raise SystemExit(f"{host_name} failed:\n{run.describe()}")
            counts.append(len(read_hook_log(log_path)))
        requests = save_requests(stub, out)
    save_payloads(log_path, out)
    write_jsonl(log_path, os.path.join(out, "hook-log.jsonl"))
    fired = _fired_per_call(log_path, counts)
    write_json(
        os.path.join(out, "fired.json"), {"prompts": [p for p, _r in PROMPTS], "fired": fired}
    )
    transcripts = host.transcripts()
    for index, path in enumerate(transcripts, 1):
        write_jsonl(path, os.path.join(out, f"session-{index}.jsonl"))
    return {"requests": requests, "fired": fired, "transcripts": len(transcripts)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("hosts", nargs="*", default=list(wave4_hosts.PREFIXES))
    args = parser.parse_args(argv)
    cache = os.environ.get("OVHOOKS_CI_CACHE") or os.path.expanduser("~/.cache/ovhooks-ci")
    for host_name in args.hosts:
        binary = wave4_hosts.cli_path(host_name, cache)
        if not os.access(binary, os.X_OK):
            print(f"{binary} not found: run scripts/ci-setup.sh {host_name}", file=sys.stderr)
            return 1
        with tempfile.TemporaryDirectory(prefix=f"record-{host_name}-") as base:
            staging = os.path.join(base, "out")
            os.makedirs(staging)
            summary = record(host_name, binary, base, staging)
            target = os.path.join(REPO, "tests", "fixtures", host_name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(staging, target)
        print(f"{host_name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
