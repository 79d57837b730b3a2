"""Benchmark: every hook as the host runs it (a fresh process), against a loopback server.

Reports, per event: median wall time over N runs, the ratio to ``python -c pass`` run by the
same interpreter in the same run (the floor), peak RSS, and requests the hook made.
Writes the table to ``docs/BENCHMARKS.md`` with ``--write``.

    .venv/bin/python scripts/bench_hooks.py [--runs 15] [--write]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.fake_openviking import FakeOpenViking  # noqa: E402
from tests.support.rollouts import CodexRollout, codex_payload  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from bench_recorded_hosts import CASES, recorded_rows  # noqa: E402


def _pasted_prompt() -> str:
    from tests.support.scrub_texts import turn

    return "why does this fail? here is the log:\n" + turn("mixed", 65_536, 0)


def install_plain(tmp: Path) -> tuple[str, str]:
    """A fresh venv with a regular (non-editable) install and *no* dependencies.

    That is how the hook path should be measured: an editable install adds an import hook
    to every interpreter start, and leaving the dependencies out proves that no hook imports
    Typer, Rich, httpx, platformdirs or filelock (it would fail with ImportError).
    """
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            str(REPO),
        ],
        check=True,
    )
    return str(venv / "bin" / "python"), str(venv / "bin" / "ovhooks")


def run_once(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one process.

    Peak RSS comes from GNU time (``/usr/bin/time -f %M``), which execs the command itself:
    ``os.wait4`` after a Python ``Popen`` reports the forked image of *this* process (which
    holds the fake server's data) as the child's peak, inflating every figure.
    """
    gnu_time = shutil.which("time") or "/usr/bin/time"
    wrapped = [gnu_time, "-f", "%M", *argv] if os.path.exists(gnu_time) else argv
    start = time.perf_counter()
    proc = subprocess.run(wrapped, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr[-500:]!r}")
    peak = 0.0
    if wrapped is not argv:
        last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:]
        peak = int(last[0]) / 1024 if last and last[0].isdigit() else 0.0
    return elapsed, peak


def measure(name, argv, stdin_fn, env, runs, server=None, before=None):
    times, rss, reqs = [], [], []
    for _ in range(runs):
        if before:
            before()
        count = len(server.requests) if server else 0
        seconds, peak = run_once(argv, stdin_fn(), env)
        times.append(seconds)
        rss.append(peak)
        reqs.append((len(server.requests) - count) if server else 0)
    return {
        "name": name,
        "median_ms": statistics.median(times) * 1000,
        "p90_ms": sorted(times)[int(0.9 * (len(times) - 1))] * 1000,
        "rss_mib": max(rss),
        "rss_all": rss,
        "requests": statistics.median(reqs),
    }


LOCAL_MEMORIES = (
    "The user prefers tool number {i} for parsing nested lists in project {i}.",
    "Service {i} listens on port {port} in staging; production uses {port2}.",
    "在项目 {i} 里，部署之前必须先跑 make check 和集成测试。",
    "Team {i} reviews database migrations on Thursdays before the release train.",
)


def local_recall_rows(
    tmp: Path, env: dict[str, str], payload, python: str, ovhooks: str, runs: int
):
    """UserPromptSubmit on the local store: lexical only, with the embedding service warm
    (started from this interpreter's environment, which has the model), and with no service
    (the hook answers lexically and starts one; the plain install has no model, so the one it
    starts reports a broken model and answers nothing, as a missing model would)."""
    from ovhooks.backend.local import LocalBackend
    from tests.support.semantic import start_service, stop_service, wait_warm_and_indexed

    data = tmp / "local-data"
    store = LocalBackend(str(data))
    for i in range(40):
        for n, text in enumerate(LOCAL_MEMORIES):
            body = text.format(i=i, port=5400 + i, port2=6400 + i)
            store.write(f"viking://user/default/memories/preferences/m{i}-{n}.md", body + "\n")
    store.close()
    local = dict(env, OVHOOKS_BACKEND="local", OVHOOKS_DATA_DIR=str(data))
    local.pop("OPENVIKING_URL", None)
    data_in = payload("UserPromptSubmit", prompt="how should I check things before deploying?")
    argv = [ovhooks, "user-prompt-submit", "--host", "codex"]
    state = tmp / "state-semantic"
    cold = dict(local, OVHOOKS_SEMANTIC="on", OVHOOKS_STATE_DIR=str(tmp / "state-cold"))
    cold["OVHOOKS_SEMANTIC_IDLE_S"] = "5"
    configs = {
        "python -c pass (floor, interleaved)": (
            [python, "-c", "pass"],
            local,
        ),
        "UserPromptSubmit (local, lexical only)": (argv, dict(local, OVHOOKS_SEMANTIC="off")),
        "UserPromptSubmit (local, semantic warm)": (
            argv,
            dict(local, OVHOOKS_SEMANTIC="on", OVHOOKS_STATE_DIR=str(state)),
        ),
        "UserPromptSubmit (local, no warm model)": (argv, cold),
    }
    times: dict[str, list[float]] = {name: [] for name in configs}
    rss: dict[str, list[float]] = {name: [] for name in configs}
    proc = start_service(str(state), db=str(data / "memory.db"))
    try:
        wait_warm_and_indexed(str(state), str(data / "memory.db"))
        # Interleaved, so load swings on a shared machine hit every configuration alike.
        for _ in range(runs):
            for name, (command, run_env) in configs.items():
                seconds, peak = run_once(command, data_in, run_env)
                times[name].append(seconds)
                rss[name].append(peak)
    finally:
        stop_service(proc)
    return [
        {
            "name": name,
            "median_ms": statistics.median(times[name]) * 1000,
            "p90_ms": sorted(times[name])[int(0.9 * (len(times[name]) - 1))] * 1000,
            "rss_mib": max(rss[name]),
            "rss_all": rss[name],
            "requests": 0,
        }
        for name in configs
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--only-stop", action="store_true", help="only the inline Stop rows")
    parser.add_argument(
        "--only-recorded",
        action="store_true",
        help="only the hosts benchmarked on recorded payloads (Gemini, Copilot, Qwen, Droid)",
    )
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="ovhooks-bench-"))
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
    # One memory in Chinese: the calibration records that the store answers in both scripts,
    # without which no prompt is bridged into the other language (recall.calibrate.has_script).
    server.search_entries.append(
        {
            "uri": "viking://user/default/memories/preferences/default/pref-zh.md",
            "category": "preferences",
            "score": 0.7,
            "detail": "abstract",
            "text": "部署日志保存在 /var/log/deploy，保留三十天。",
            "abstract": "部署日志保留三十天",
        }
    )
    server.files["viking://user/default/memories/profile.md"] = "# Profile\nA Python developer.\n"
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
    work = tmp / "work"
    work.mkdir()
    rows = []
    floor = measure("python -c pass (floor)", [python, "-c", "pass"], lambda: b"", env, args.runs)
    rows.append(floor)

    sid = "bench-session"
    rollout = CodexRollout(tmp / "rollout.jsonl", sid)
    for i in range(10):
        rollout.turn(i)

    def payload(event: str, **extra: object) -> bytes:
        return json.dumps(codex_payload(event, sid, rollout.path, work, **extra)).encode()

    hooks = [
        (
            "UserPromptSubmit",
            "user-prompt-submit",
            {"prompt": "which parsing tool do I prefer for nested lists?"},
        ),
        # names glossary entries (deploy, log): a second, bridged search goes out alongside
        # the plain one, on its own thread and connection (recall.retrieve.gather)
        (
            "UserPromptSubmit (bridged search)",
            "user-prompt-submit",
            {"prompt": "where do the nightly deploy logs go?"},
        ),
        # a pasted 64 kB text: the hook scrubs only what its query can hold (issue 14)
        ("UserPromptSubmit (64 kB prompt)", "user-prompt-submit", {"prompt": _pasted_prompt()}),
        ("SessionStart (startup)", "session-start", {"source": "startup"}),
        ("SessionStart (resume)", "session-start", {"source": "resume"}),
        ("Stop (hand-off)", "stop", {}),
        ("PreCompact (hand-off)", "pre-compact", {"trigger": "auto"}),
        ("PostCompact", "post-compact", {"trigger": "auto"}),
        ("SessionEnd (hand-off)", "session-end", {"reason": "other"}),
    ]
    if not args.only_stop:
        for host in CASES:
            rows.extend(recorded_rows(host, ovhooks, env, tmp, args.runs, server, measure))
    if args.only_recorded:
        hooks = []
        args.only_stop = True  # and no inline rows either
    for name, command, extra in [] if args.only_stop else hooks:
        event = name.split(" ")[0]
        data = payload(event, **extra)
        rows.append(
            measure(
                name,
                [ovhooks, command, "--host", "codex"],
                lambda d=data: d,
                env,
                args.runs,
                server,
            )
        )
    if not args.only_stop:
        rows += local_recall_rows(tmp, env, payload, python, ovhooks, args.runs)
    time.sleep(1.0)  # let detached workers finish before the inline runs

    inline = dict(env, OVHOOKS_DETACH="0")
    inline_turns = () if args.only_recorded else (100, 20000)

    def fresh_rollout(turns: int) -> tuple[CodexRollout, str]:
        name = f"s{turns}"
        r = CodexRollout(tmp / f"{name}.jsonl", name)
        lines = []
        for i in range(turns):
            lines.append(
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "id": f"u{i}",
                        "role": "user",
                        "content": [
                            {
                                "type": "input_text",
                                "text": f"Question {i} about the nested list parser",
                            }
                        ],
                    },
                }
            )
            lines.append(
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "id": f"a{i}",
                        "role": "assistant",
                        "content": [
                            {"type": "output_text", "text": f"Answer {i}: recurse and flatten"}
                        ],
                    },
                }
            )
        with r.path.open("a") as fh:
            fh.writelines(json.dumps(x) + "\n" for x in lines)
        return r, name

    # Stop work itself (inline) on a 10-turn transcript: all 10 turns new each run.
    def stop_10() -> bytes:
        r, name = fresh_rollout(10)
        return json.dumps(
            codex_payload("Stop", name + f"-{time.monotonic_ns()}", r.path, work)
        ).encode()

    for label in () if args.only_recorded else ("Stop inline, 10 new turns",):
        rows.append(
            measure(label, [ovhooks, "stop", "--host", "codex"], stop_10, inline, args.runs, server)
        )

    for turns in inline_turns:
        r, name = fresh_rollout(turns)
        first = json.dumps(codex_payload("Stop", name, r.path, work)).encode()
        # capture everything once, with the budget a 40,000-message backlog needs inline
        priming = {**inline, "OVHOOKS_HOOK_DEADLINE_S": "600"}
        run_once([ovhooks, "stop", "--host", "codex"], first, priming)
        session = json.loads((tmp / "state" / "sessions" / f"cx-{name}.json").read_text())
        if session.get("queue"):
            raise SystemExit(f"priming left {len(session['queue'])} queued entries for {name}")
        counter = [0]

        def add_turn(r: CodexRollout = r, counter: list[int] = counter) -> None:
            counter[0] += 1
            r.user(f"follow-up question {counter[0]} about the parser")
            r.assistant(f"follow-up answer {counter[0]}")

        row = measure(
            f"Stop inline, 1 new turn after {turns}",
            [ovhooks, "stop", "--host", "codex"],
            lambda f=first: f,
            inline,
            args.runs,
            server,
            before=add_turn,
        )
        sent = [
            q for q in server.requests if q["path"] == f"/api/v1/sessions/cx-{name}/messages/batch"
        ]
        row["sent_per_run"] = (
            statistics.median(len(q["body"]["messages"]) for q in sent[1:]) if len(sent) > 1 else 0
        )
        rows.append(row)

    server.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    base = floor["median_ms"]
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}, {args.runs} runs each, loopback fake server.",
        "",
        "| hook | median ms | p90 ms | × floor | peak RSS MiB | requests |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['name']} | {row['median_ms']:.1f} | {row['p90_ms']:.1f} | "
            f"{row['median_ms'] / base:.2f} | {row['rss_mib']:.1f} | {row['requests']:g} |"
        )
    table = "\n".join(lines)
    if os.environ.get("BENCH_DEBUG"):
        print([(r["name"], [round(x, 1) for x in r.get("rss_all", [])]) for r in rows])
    print(table)
    if args.write:
        out = REPO / "docs" / "BENCHMARKS.md"
        out.parent.mkdir(exist_ok=True)
        header = (
            "# Hook benchmark\n\nProduced by `scripts/bench_hooks.py --write`. Targets (issue 2): "
            "UserPromptSubmit ≤ 5× floor, SessionStart ≤ 6×, Stop hand-off ≤ 3.5×, Stop inline on "
            "10 turns ≤ 6×, 20,000 turns ≤ 1.2× the 100-turn figure, peak RSS ≤ 40 MiB.\n\n"
            "Each hook is the installed console script (a plain, non-editable install with no "
            "dependencies: a hook that imported Typer, Rich or httpx would fail here), run as a "
            "fresh process the way hosts run it; peak RSS is GNU time's. `requests` counts what "
            "the hook process itself sent: hand-offs send theirs from the detached worker, which "
            "the inline rows measure. The floor moves by several ms between runs on this "
            "2-core machine; compare ratios from the same run.\n\n"
        )
        # keep the sections other benchmarks own (local recall, the exactly-once campaign,
        # scripts/bench_transport.py): every "## " section after this table
        kept = ""
        if out.exists() and "\n## " in out.read_text():
            kept = "\n## " + out.read_text().split("\n## ", 1)[1]
        out.write_text(header + table + "\n" + kept)


if __name__ == "__main__":
    main()
