#!/usr/bin/env python3
"""Record the Pi and OpenCode samples the tests read (tests/fixtures/pi, tests/fixtures/opencode).

Runs Pi 0.73.1 and OpenCode 1.18.33 offline through the test rig (tests/support: the chat
stub on loopback, isolated homes), with ovhooks' real shims installed by ``ovhooks install
--exe`` pointing at a logging hook instead of ovhooks, and writes:

- ``<host>/hook-payloads/<hook>-<event>[-<reason>].json``: the first stdin of each variant,
  exactly as the shim sent it;
- ``pi/session-branched.jsonl``: the session file of a Pi session with a real in-place branch
  (``/tree``-style navigation through a recording-only extension command), a tool call and a
  ``/compact``;
- ``opencode/session-store.json``: the ``session``, ``message`` and ``part`` rows (and their
  CREATE TABLE statements) of three OpenCode sessions (a tool call; an auto-compaction), so
  tests rebuild the SQLite store without the CLI;
- ``<host>/stub-requests/req-NNN-*.json``: what the model received, in order.

Long strings are trimmed (``…[trimmed N chars]``) and tool schemas reduced to their names.
A fresh recording has the same files and shapes but new ids, timestamps and stub reply
texts, which some tests name: re-record, then update those.

Usage: ``.venv/bin/python scripts/record_shim_fixtures.py [--out DIR] [--only pi|opencode]``
(needs the caches of ``scripts/ci-setup.sh``; about two minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from scripts.record_host_fixtures import trim  # noqa: E402
from tests.support.chat_stub import ChatStub  # noqa: E402
from tests.support.shim_hosts import (  # noqa: E402
    OPENCODE_VERSION,
    PI_VERSION,
    OpenCodeHost,
    PiHost,
    PiRpc,
)

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "ovhooks-ci")
PI_BIN = os.path.join(CACHE, f"hostcli-pi-{PI_VERSION}", "node_modules", ".bin", "pi")
OPENCODE_BIN = os.path.join(
    CACHE, f"hostcli-opencode-{OPENCODE_VERSION}", "node_modules", ".bin", "opencode"
)

LOGGING_HOOK = '''\
"""Recording hook: keep the payload, answer context-bearing hooks with a marker."""
import json, os, sys
hook = sys.argv[1]
raw = sys.stdin.read()
log_dir = os.environ["OVH_RECORD_DIR"]
os.makedirs(log_dir, exist_ok=True)
n = len(os.listdir(log_dir))
with open(os.path.join(log_dir, "%03d-%s.json" % (n, hook)), "w") as out:
    json.dump({"argv": sys.argv[1:], "payload": json.loads(raw or "{}")}, out)
if hook in ("session-start", "user-prompt-submit"):
    reply = {"additionalContext": "OVH-MARKER-" + hook}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": hook, **reply}}))
else:
    print("{}")
'''

# Recording only: lets an RPC prompt move Pi's leaf back to an earlier entry, as /tree does.
BRANCH_EXTENSION = """\
export default function (pi: any) {
\tpi.registerCommand("ovh-branch", {
\t\tdescription: "recording: move the leaf to an entry",
\t\thandler: async (args: string, ctx: any) => {
\t\t\tawait ctx.navigateTree(args.trim(), { summarize: false });
\t\t},
\t});
}
"""


def _base_env(record_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OVHOOKS_", "OPENVIKING_"))}
    env["OVH_RECORD_DIR"] = record_dir
    return env


def _install_args(work: str) -> list[str]:
    hook = os.path.join(work, "logging_hook.py")
    with open(hook, "w", encoding="utf-8") as handle:
        handle.write(LOGGING_HOOK)
    return ["--exe", f"{shlex.quote(sys.executable)} {shlex.quote(hook)}"]


def _copy_payloads(record_dir: str, out_dir: str) -> list[str]:
    """The first payload of each (hook, event, reason) variant, under a readable name."""
    target = os.path.join(out_dir, "hook-payloads")
    os.makedirs(target, exist_ok=True)
    written: list[str] = []
    for name in sorted(os.listdir(record_dir)):
        with open(os.path.join(record_dir, name), encoding="utf-8") as handle:
            doc = json.load(handle)
        payload = doc["payload"]
        variant = "-".join(
            str(part)
            for part in (doc["argv"][0], payload.get("hook_event_name"), payload.get("reason"))
            if part
        ).replace(".", "_")
        if variant in written:
            continue
        written.append(variant)
        with open(os.path.join(target, f"{variant}.json"), "w", encoding="utf-8") as handle:
            json.dump(trim(payload), handle, indent=1, ensure_ascii=False)
            handle.write("\n")
    return written


def _copy_requests(stub: ChatStub, out_dir: str) -> None:
    target = os.path.join(out_dir, "stub-requests")
    os.makedirs(target, exist_ok=True)
    for request in stub.turn_requests():
        name = f"req-{request.number:03d}-chat_completions.json"
        with open(os.path.join(target, name), "w", encoding="utf-8") as handle:
            json.dump(trim(request.as_json()), handle, indent=1, ensure_ascii=False)
            handle.write("\n")


def _assistant_entry(session_file: str) -> str:
    with open(session_file, encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            message = entry.get("message") or {}
            if entry.get("type") == "message" and message.get("role") == "assistant":
                return str(entry["id"])
    raise RuntimeError("no assistant entry in the session file")


def record_pi(out_root: str, work: str) -> None:
    out_dir = os.path.join(out_root, "pi")
    record_dir = os.path.join(work, "pi-payloads")
    with ChatStub(log_dir=os.path.join(work, "pi-stub")) as stub:
        pi = PiHost(
            PI_BIN,
            os.path.join(work, "pi"),
            stub,
            install_with=os.path.join(os.path.dirname(sys.executable), "ovhooks"),
            install_args=_install_args(work),
            base_env=_base_env(record_dir),
        )
        with open(
            os.path.join(pi.agent_dir, "extensions", "ovh-branch.ts"), "w", encoding="utf-8"
        ) as handle:
            handle.write(BRANCH_EXTENSION)
        rpc = PiRpc(pi)
        rpc.send({"type": "prompt", "message": "First turn: I prefer tabs"}, "agent_end")
        rpc.send({"type": "prompt", "message": "RUNSHELL please"}, "agent_end")
        branch_at = _assistant_entry(pi.session_files()[0])
        rpc.send({"type": "prompt", "message": f"/ovh-branch {branch_at}"}, "response")
        rpc.send({"type": "prompt", "message": "A turn on the new branch"}, "agent_end")
        rpc.send({"type": "compact"}, "response")
        rpc.close()
        pi.prompt("A print-mode turn", continue_session=True)
        session_files = pi.session_files()
        _copy_requests(stub, out_dir)
    shutil.copyfile(session_files[0], os.path.join(out_dir, "session-branched.jsonl"))
    print("pi payload variants:", _copy_payloads(record_dir, out_dir))


def _store_rows(db_path: str) -> dict[str, Any]:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        doc: dict[str, Any] = {"schema": {}, "rows": {}}
        for table in ("session", "message", "part"):
            (sql,) = db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone()
            doc["schema"][table] = " ".join(sql.split())
            rows = db.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
            doc["rows"][table] = [trim(dict(row)) for row in rows]
    return doc


def record_opencode(out_root: str, work: str) -> None:
    out_dir = os.path.join(out_root, "opencode")
    record_dir = os.path.join(work, "opencode-payloads")
    with ChatStub(log_dir=os.path.join(work, "opencode-stub")) as stub:
        oc = OpenCodeHost(
            OPENCODE_BIN,
            os.path.join(work, "opencode"),
            stub,
            install_with=os.path.join(os.path.dirname(sys.executable), "ovhooks"),
            install_args=_install_args(work),
            base_env=_base_env(record_dir),
        )
        oc.prompt("First turn: I prefer tabs").check()
        oc.prompt("RUNSHELL please", continue_session=True).check()
        oc.prompt("A second session").check()
        # a third session whose first reply overflows the model's context: auto-compaction
        stub.token_plan = [100000]
        compacting = OpenCodeHost(
            OPENCODE_BIN,
            os.path.join(work, "opencode"),
            stub,
            install_with=None,
            base_env=_base_env(record_dir),
            context_limit=50000,
        )
        compacting.prompt("A session that compacts").check()
        _copy_requests(stub, out_dir)
        rows = _store_rows(oc.db_path)
    with open(os.path.join(out_dir, "session-store.json"), "w", encoding="utf-8") as handle:
        json.dump(rows, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    print("opencode payload variants:", _copy_payloads(record_dir, out_dir))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures"))
    parser.add_argument("--only", choices=("pi", "opencode"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ovh-record-") as work:
        for host, record in (("pi", record_pi), ("opencode", record_opencode)):
            if args.only in (None, host):
                shutil.rmtree(os.path.join(args.out, host), ignore_errors=True)
                os.makedirs(os.path.join(args.out, host), exist_ok=True)
                record(args.out, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
