#!/usr/bin/env python3
"""Record the host samples the tests read (tests/fixtures/host-samples) from the real CLIs.

Runs Codex CLI 0.169 and Claude Code 2.1.197 offline through the test rig (tests/support:
stub model servers, isolated homes, a hook that logs every payload) and writes:

- ``<host>/hook-payloads/<Event>[-<variant>].json``: the first stdin of each event variant;
- ``codex/rollout-transcript.trimmed.jsonl``, ``claude/session-transcript.trimmed.jsonl``,
  ``claude/subagent-transcript.trimmed.jsonl``: the transcripts of those runs;
- ``<host>/stub-requests/req-NNN-*.json``: what the model received, in order;
- ``codex/config.toml`` (with Codex's own trust records), ``codex/config-hooks.json``,
  ``claude/settings.json``: the host configs of the run.

Long strings are trimmed (``…[trimmed N chars]``) and tool schemas reduced to their names,
so the files stay small and diffable. The scripted sessions:

- Codex: turn 1; turn 2 runs the shell tool; turn 3 auto-compacts (tiny token limit).
- Claude (seven calls, each ``--continue``): turn 1; Bash; Agent (subagent); ``/compact``; a
  turn reporting 190k tokens; a plain turn; a turn that auto-compacts.

A fresh recording has the same files, events and request kinds as the committed one, but new
ids, timestamps and stub reply texts, which some tests name: re-record, then update those.

Usage: ``.venv/bin/python scripts/record_host_fixtures.py [--out DIR]`` (needs the caches of
``scripts/ci-setup.sh``; about a minute).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from ovhooks.commands.install import codex_trust  # noqa: E402
from tests.support import hosts  # noqa: E402
from tests.support.host_stubs import MessagesStub, ResponsesStub  # noqa: E402

KEEP_CHARS = 300
TRIM_OVER = 600


def trim(value: Any) -> Any:
    """Long strings shortened with a marker; tool schemas reduced to names."""
    if isinstance(value, str) and len(value) > TRIM_OVER:
        return f"{value[:KEEP_CHARS]}…[trimmed {len(value) - KEEP_CHARS} chars]"
    if isinstance(value, list):
        return [trim(item) for item in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "tools" and isinstance(item, list):
                out[key] = [
                    t.get("name", t.get("type")) if isinstance(t, dict) else t for t in item
                ]
            else:
                out[key] = trim(item)
        return out
    return value


def variant(event: str, payload: dict[str, Any]) -> str:
    for field in ("source", "tool_name", "trigger", "agent_type"):
        if field in payload and event != "SessionEnd":
            text = str(payload[field]) or ("compaction-agent" if field == "agent_type" else "")
            return f"{event}-{text}" if text else event
    return event


def write_json(path: str, document: Any) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, ensure_ascii=False)
        handle.write("\n")


def write_jsonl(source: str, target: str) -> int:
    lines = []
    with open(source, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                lines.append(json.dumps(trim(json.loads(line)), ensure_ascii=False))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return len(lines)


def save_payloads(log_path: str, out_dir: str) -> dict[str, dict[str, Any]]:
    saved: dict[str, dict[str, Any]] = {}
    for entry in hosts.read_hook_log(log_path):
        payload = entry["payload"]
        if not isinstance(payload, dict):
            continue
        name = variant(str(entry["event"]), payload)
        if name not in saved:
            saved[name] = payload
            write_json(os.path.join(out_dir, "hook-payloads", f"{name}.json"), trim(payload))
    return saved


def save_requests(stub: ResponsesStub | MessagesStub, out_dir: str) -> int:
    turns = stub.turn_requests()
    for index, request in enumerate(turns, 1):
        safe = request.path.split("?", 1)[0].strip("/").replace("/", "_")
        document = trim({**request.as_json(), "n": index})
        write_json(
            os.path.join(out_dir, "stub-requests", f"req-{index:03d}-{request.method}-{safe}.json"),
            document,
        )
    return len(turns)


def hook_script(base: str) -> str:
    path = os.path.join(base, "log_hook.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(hosts.LOGGING_HOOK_SOURCE)
    return path


def record_codex(codex_bin: str, base: str, out: str) -> None:
    log_path = os.path.join(base, "codex-hooks.jsonl")
    commands = hosts.logging_hook_commands(hook_script(base), "codex", log_path, hosts.CODEX_EVENTS)
    with ResponsesStub() as stub:
        codex = hosts.CodexHost(
            codex_bin,
            os.path.join(base, "codex"),
            stub,
            hook_commands=commands,
            base_env=os.environ,
        )
        codex.exec("hello first turn").check()
        codex.exec("second turn RUNSHELL please", resume=True).check()
        codex.exec(
            "third turn after compaction", resume=True, config=["model_auto_compact_token_limit=20"]
        ).check()
        payloads = save_payloads(log_path, out)
        requests = save_requests(stub, out)
        # Trust as a user does in /hooks: Codex names each hook and its hash itself.
        config = os.path.join(codex.codex_home, "config.toml")
        listed = codex_trust.list_hooks(codex_bin, codex.workdir, codex.env)
        records = {str(h["key"]): str(h["currentHash"]) for h in listed if h.get("currentHash")}
        with open(config, encoding="utf-8") as handle:
            text = codex_trust.with_trust(handle.read(), records)
        with open(os.path.join(out, "config.toml"), "w", encoding="utf-8") as handle:
            handle.write(text)
        shutil.copyfile(
            os.path.join(codex.codex_home, "hooks.json"), os.path.join(out, "config-hooks.json")
        )
    rollout = str(payloads["Stop"]["transcript_path"])
    lines = write_jsonl(rollout, os.path.join(out, "rollout-transcript.trimmed.jsonl"))
    print(f"codex: {len(payloads)} payload variants, {requests} model requests, {lines} lines")


def record_claude(claude_bin: str, base: str, out: str) -> None:
    log_path = os.path.join(base, "claude-hooks.jsonl")
    commands = hosts.logging_hook_commands(
        hook_script(base), "claude", log_path, hosts.CLAUDE_EVENTS
    )
    auto_compact = {
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000",
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50",
    }
    with MessagesStub() as stub:
        claude = hosts.ClaudeHost(
            claude_bin,
            os.path.join(base, "claude"),
            stub,
            hook_commands=commands,
            base_env=os.environ,
        )
        claude.prompt("hello first turn", tools=False).check()
        claude.prompt("second turn RUNSHELL please", continue_session=True).check()
        claude.prompt("third turn RUNAGENT please", continue_session=True).check()
        claude.prompt("/compact", continue_session=True, tools=False).check()
        claude.prompt("fifth turn after compact BIGTOKENS", continue_session=True).check()
        claude.prompt("sixth turn", continue_session=True).check()
        claude.prompt(
            "seventh turn, auto-compact expected", continue_session=True, env=auto_compact
        ).check()
        payloads = save_payloads(log_path, out)
        requests = save_requests(stub, out)
        shutil.copyfile(
            os.path.join(claude.config_dir, "settings.json"), os.path.join(out, "settings.json")
        )
    lines = write_jsonl(
        str(payloads["Stop"]["transcript_path"]),
        os.path.join(out, "session-transcript.trimmed.jsonl"),
    )
    sub = payloads["SubagentStop-general-purpose"]
    write_jsonl(
        str(sub["agent_transcript_path"]), os.path.join(out, "subagent-transcript.trimmed.jsonl")
    )
    print(f"claude: {len(payloads)} payload variants, {requests} model requests, {lines} lines")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "host-samples"))
    parser.add_argument("--host", choices=("codex", "claude"), action="append")
    args = parser.parse_args(argv)
    cache = os.environ.get("OVHOOKS_CI_CACHE") or os.path.expanduser("~/.cache/ovhooks-ci")
    bin_dir = os.environ.get("OVHOOKS_HOSTCLI_DIR") or os.path.join(
        cache, "hostcli", "node_modules", ".bin"
    )
    for host in args.host or ("codex", "claude"):
        cli = os.path.join(bin_dir, host)
        if not os.access(cli, os.X_OK):
            print(f"{cli} not found: run scripts/ci-setup.sh", file=sys.stderr)
            return 1
        target = os.path.join(args.out, host)
        with tempfile.TemporaryDirectory(prefix=f"record-{host}-") as base:
            staging = os.path.join(base, "out")
            os.makedirs(staging)
            (record_codex if host == "codex" else record_claude)(cli, base, staging)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(staging, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
