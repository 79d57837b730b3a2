"""Benchmark: Pi and OpenCode — hook speeds per host, and each shim's own overhead.

1. Hook speeds: every hook the shims start, as a fresh ``ovhooks <hook> --host pi|opencode``
   process (a plain, non-editable install with no dependencies, as in ``bench_hooks.py``)
   with the payload the shim sends, against a loopback fake server; plus the inline capture
   from Pi's session file and OpenCode's SQLite store.
2. Shim overhead: the real shim (``ovhooks install``'s rendering) loaded in the host's own
   runtime — Pi's extension through jiti on Node (as Pi loads it), OpenCode's plugin on the
   Bun inside the ``opencode`` binary (``BUN_BE_BUN=1``) — calls its handler for an event;
   the same runtime spawns the same ``ovhooks`` command with the same stdin directly. The
   runs alternate; the overhead is the median of the paired differences (handler − direct).

    .venv/bin/python scripts/bench_shims.py [--runs 15] [--write]

Needs the Pi and OpenCode prefixes of ``scripts/ci-setup.sh``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ovhooks.commands.install.shim_file import render, template  # noqa: E402
from scripts.bench_hooks import install_plain, measure  # noqa: E402
from tests.support.fake_openviking import FakeOpenViking  # noqa: E402
from tests.support.shim_hosts import OPENCODE_VERSION, PI_VERSION  # noqa: E402

CACHE = Path.home() / ".cache" / "ovhooks-ci"
PI_PREFIX = CACHE / f"hostcli-pi-{PI_VERSION}"
BUN = (
    CACHE
    / f"hostcli-opencode-{OPENCODE_VERSION}"
    / "node_modules"
    / "opencode-linux-x64"
    / "bin"
    / "opencode"
)
SECTION = "## Pi and OpenCode (`scripts/bench_shims.py`)"

# One harness for both shims: load the shim, find the handler for an event, then alternate
# "through the shim" and "direct spawn" runs; prints the times (ms) as JSON.
HARNESS = r"""
import { spawn } from "node:child_process";
const [shimPath, host, event, payloadJson, runsText, argvJson] = process.argv.slice(2);
const runs = Number(runsText);
const payload = JSON.parse(payloadJson);
const argv = JSON.parse(argvJson);
let handler;
if (host === "pi") {
  const { createJiti } = await import(process.env.JITI_MODULE);
  const jiti = createJiti(import.meta.url, { moduleCache: false });
  const factory = (await jiti.import(shimPath, { default: true }));
  const handlers = {};
  factory({ on: (name, fn) => { handlers[name] = fn; } });
  const ctx = {
    cwd: payload.cwd,
    sessionManager: {
      getSessionId: () => payload.session_id,
      getSessionFile: () => payload.transcript_path,
      getLeafId: () => payload.leaf_id,
    },
  };
  handler = () => handlers[event]({ type: event, reason: payload.reason, prompt: payload.prompt,
                                    systemPrompt: "You are Pi." }, ctx);
} else {
  const mod = await import(shimPath);
  const hooks = await mod.OvhooksMemory({ directory: payload.cwd });
  if (event === "session.idle") {
    handler = () => hooks.event({ event: { type: "session.idle",
                                           properties: { sessionID: payload.session_id } } });
  } else {
    handler = () => hooks["chat.message"]({ sessionID: payload.session_id },
      { message: {}, parts: [{ type: "text", text: payload.prompt }] });
  }
}
function direct() {
  return new Promise((resolve) => {
    // detached as the shims spawn (a new session: the same scheduling group on Linux)
    const child = spawn(argv[0], argv.slice(1),
                        { stdio: ["pipe", "pipe", "ignore"], detached: true });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", () => { JSON.parse(out || "{}"); resolve(); });
    child.stdin.end(JSON.stringify(payload));
  });
}
const shim = [], plain = [];
await handler(); await direct();  // warm both paths once
for (let i = 0; i < runs; i++) {
  let t = performance.now(); await handler(); shim.push(performance.now() - t);
  t = performance.now(); await direct(); plain.push(performance.now() - t);
}
console.log(JSON.stringify({ shim, plain }));
"""


def _pi_session(path: Path, turns: int) -> None:
    """A Pi session file with ``turns`` user/assistant pairs on one branch."""
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "bench", "cwd": "/w"}]
    parent = None
    for i in range(turns):
        for role, text in (("user", f"Question {i} about the parser"), ("assistant", f"A {i}")):
            entry_id = f"{role[0]}{i:07d}"
            content: Any = [{"type": "text", "text": text}]
            lines.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": "2026-11-26T00:00:00.000Z",
                    "message": {"role": role, "content": content},
                }
            )
            parent = entry_id
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


def _opencode_store(path: Path, session: str, turns: int) -> None:
    from tests.support.opencode_store import add_message, build_store

    if not path.exists():
        build_store(path)
    for i in range(turns):
        stamp = f"{time.monotonic_ns():020d}"
        add_message(
            path,
            session,
            f"msg_b{stamp}u",
            {"role": "user"},
            [{"type": "text", "text": f"Question {i}"}],
        )
        add_message(
            path,
            session,
            f"msg_b{stamp}v",
            {"role": "assistant", "time": {"completed": 1}},
            [{"type": "text", "text": f"Answer {i}"}],
        )


def hook_rows(
    ovhooks: str, env: dict[str, str], tmp: Path, runs: int, server: Any
) -> list[dict[str, Any]]:
    rows = []
    work = tmp / "work"
    for host in ("pi", "opencode"):
        transcript = tmp / ("pi.jsonl" if host == "pi" else "opencode.db")
        if host == "pi":
            _pi_session(transcript, 10)
        else:
            _opencode_store(transcript, "ses_bench", 10)
        base = {"session_id": "ses_bench", "cwd": str(work), "transcript_path": str(transcript)}
        hooks = [
            ("user-prompt-submit", {"prompt": "which parsing tool do I prefer for nested lists?"}),
            ("session-start", {"reason": "startup"}),
            ("stop", {}),
            ("pre-compact", {}),
            ("session-end", {"reason": "quit"}),
        ]
        for hook, extra in hooks:
            data = json.dumps({**base, **extra}).encode()
            rows.append(
                measure(
                    f"{host} {hook}",
                    [ovhooks, hook, "--host", host],
                    lambda d=data: d,
                    env,
                    runs,
                    server,
                )
            )
        time.sleep(1.0)  # detached workers of the hand-offs finish first
        inline = dict(env, OVHOOKS_DETACH="0")
        counter = [0]

        def fresh(host: str = host, counter: list[int] = counter) -> bytes:
            """A session of its own with 10 turns, all new to ovhooks."""
            counter[0] += 1
            sid = f"ses_inline{counter[0]:04d}"
            if host == "pi":
                path = tmp / f"pi-{sid}.jsonl"
                _pi_session(path, 10)
            else:
                path = tmp / f"opencode-{sid}.db"
                shutil.copyfile(tmp / "opencode.db", path)
                _opencode_store(path, sid, 10)
            return json.dumps(
                {"session_id": sid, "cwd": str(work), "transcript_path": str(path)}
            ).encode()

        rows.append(
            measure(
                f"{host} stop inline, 10 new turns",
                [ovhooks, "stop", "--host", host],
                fresh,
                inline,
                runs,
                server,
            )
        )
    return rows


def shim_rows(ovhooks: str, env: dict[str, str], tmp: Path, runs: int) -> list[dict[str, Any]]:
    harness = tmp / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    rows = []
    work = tmp / "work"
    cases = [
        ("pi", "before_agent_start", "user-prompt-submit", {"prompt": "which parsing tool?"}),
        ("pi", "agent_end", "stop", {}),
        ("opencode", "chat.message", "user-prompt-submit", {"prompt": "which parsing tool?"}),
        ("opencode", "session.idle", "stop", {}),
    ]
    for host, event, hook, extra in cases:
        suffix = ".ts" if host == "pi" else ".js"
        shim = tmp / f"shim-{host}{suffix}"
        shim.write_text(
            render(template("pi_extension.ts" if host == "pi" else "opencode_plugin.js"), ovhooks),
            encoding="utf-8",
        )
        transcript = tmp / ("pi.jsonl" if host == "pi" else "opencode.db")
        payload = {
            "session_id": "ses_bench",
            "cwd": str(work),
            "transcript_path": str(transcript),
            "leaf_id": "",
            **extra,
        }
        direct = [ovhooks, hook, "--host", host]
        runtime = ["node", str(harness)] if host == "pi" else [str(BUN), str(harness)]
        run_env = dict(
            env,
            JITI_MODULE=str(PI_PREFIX / "node_modules" / "jiti" / "lib" / "jiti.mjs"),
            BUN_BE_BUN="1",
        )
        # the shim sends its own payload: the direct run gets the same one it would send
        sent = _shim_payload(host, event, payload)
        proc = subprocess.run(
            [*runtime, str(shim), host, event, json.dumps(sent), str(runs), json.dumps(direct)],
            capture_output=True,
            text=True,
            env=run_env,
            check=False,
            timeout=600,
        )
        if proc.returncode != 0:
            raise SystemExit(f"harness failed for {host} {event}: {proc.stderr[-800:]}")
        times = json.loads(proc.stdout.strip().splitlines()[-1])
        diffs = [s - p for s, p in zip(times["shim"], times["plain"], strict=True)]
        rows.append(
            {
                "name": f"{host} {event} -> {hook}",
                "shim_ms": statistics.median(times["shim"]),
                "direct_ms": statistics.median(times["plain"]),
                "overhead_ms": statistics.median(diffs),
            }
        )
    return rows


def _shim_payload(host: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """What the shim writes on stdin for ``event`` (its own field choice, reproduced)."""
    if host == "pi":
        out = {
            "hook_event_name": event,
            "session_id": payload["session_id"],
            "transcript_path": payload["transcript_path"],
            "leaf_id": "",
            "cwd": payload["cwd"],
        }
    else:
        out = {"hook_event_name": event, "session_id": payload["session_id"], "cwd": payload["cwd"]}
    if "prompt" in payload:
        out["prompt"] = payload["prompt"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ovhooks-bench-shims-"))
    python, ovhooks = install_plain(tmp)
    server = FakeOpenViking().start()
    server.search_entries = [
        {
            "uri": f"viking://user/default/memories/preferences/default/pref{i}.md",
            "category": "preferences",
            "score": 0.8 - i * 0.01,
            "detail": "abstract",
            "text": f"The user prefers tool number {i} for parsing.",
            "abstract": f"prefers tool {i}",
        }
        for i in range(8)
    ]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp / "home"),
        "OPENVIKING_URL": server.url,
        "OVHOOKS_STATE_DIR": str(tmp / "state"),
        "OVHOOKS_CONFIG": str(tmp / "none.toml"),
        "OPENVIKING_CLI_CONFIG_FILE": str(tmp / "none.conf"),
        "OVHOOKS_LOG_LEVEL": "error",
    }
    (tmp / "home").mkdir()
    (tmp / "work").mkdir()
    floor = measure("python -c pass (floor)", [python, "-c", "pass"], lambda: b"", env, args.runs)
    rows = [floor, *hook_rows(ovhooks, env, tmp, args.runs, server)]
    overhead = shim_rows(ovhooks, env, tmp, args.runs)
    server.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    base = floor["median_ms"]
    lines = [
        SECTION,
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}, {args.runs} runs each, loopback fake server. "
        "Hooks run as fresh processes with the payloads the shims send (as in the table above).",
        "",
        "| hook | median ms | p90 ms | × floor | peak RSS MiB | requests |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['name']} | {row['median_ms']:.1f} | {row['p90_ms']:.1f} | "
            f"{row['median_ms'] / base:.2f} | {row['rss_mib']:.1f} | {row['requests']:g} |"
        )
    lines += [
        "",
        "Shim overhead (target ≤ 30 ms p50 above the ovhooks process): the shim's handler in the "
        "host's runtime (Pi: Node + jiti; OpenCode: the Bun inside `opencode`) against the same "
        "runtime spawning the same command with the same stdin, alternating; overhead = median "
        "of the paired differences.",
        "",
        "| event | through the shim ms | direct spawn ms | overhead ms (p50) |",
        "|---|---:|---:|---:|",
    ]
    for row in overhead:
        lines.append(
            f"| {row['name']} | {row['shim_ms']:.1f} | {row['direct_ms']:.1f} | "
            f"{row['overhead_ms']:.1f} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.write:
        out = REPO / "docs" / "BENCHMARKS.md"
        text = out.read_text(encoding="utf-8")
        if SECTION in text:
            head, _sep, tail = text.partition(SECTION)
            rest = tail.split("\n## ", 1)
            text = head + table + ("\n\n## " + rest[1] if len(rest) > 1 else "\n")
        else:
            text = text.rstrip("\n") + "\n\n" + table + "\n"
        out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
