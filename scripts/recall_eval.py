"""Scripted recall evaluation: seeded memories, relevant and irrelevant prompts, hit rate.

    .venv/bin/python scripts/recall_eval.py                 # in-process fake backend
    .venv/bin/python scripts/recall_eval.py --url URL       # a real OpenViking server (dev mode)

The fake backend scores like OpenViking with hash embeddings ((1 + cos) / 2 over word counts,
unrelated memories near 0.5). With ``--url`` the memories are first written to the server
through ``POST /api/v1/content/write`` (``viking://user/default/memories/…``), then every
prompt goes through ``recall_for_prompt`` with a fresh session, exactly as the hook calls it.

Reported: hit rate (the expected memory shown in full), top-1 rate, precision of what was
injected, clean rate on irrelevant prompts (nothing injected), injected tokens (CJK-aware
estimate) and latency.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

M = "viking://user/default/memories"

MEMORIES: dict[str, str] = {
    f"{M}/preferences/default/code_editor.md": (
        "The user's favourite code editor is Helix with vim keybindings."
    ),
    f"{M}/preferences/default/python_tooling.md": (
        "For Python projects the user uses uv as the package manager and ruff for linting and "
        "formatting."
    ),
    f"{M}/preferences/default/commit_style.md": (
        "Commit messages follow Conventional Commits, written in English, with a short imperative"
        " subject line."
    ),
    f"{M}/preferences/default/test_runner.md": (
        "Go tests are run with gotestsum, never with plain go test, because its output is readable."
    ),
    f"{M}/preferences/default/indentation.md": (
        "Go code uses tabs; YAML and JSON files use two spaces for indentation."
    ),
    f"{M}/preferences/default/review_language.md": (
        "代码评审意见用中文写，提交信息和代码注释用英文写。"
    ),
    f"{M}/entities/project/deploy_stack.md": (
        "The billing API deploys to Fly.io in region ams and uses a Postgres 16 database with "
        "pgbouncer."
    ),
    f"{M}/entities/project/ci_pipeline.md": (
        "CI runs on Buildkite; the pipeline lints, runs unit tests, builds the Docker image and "
        "pushes it to GHCR."
    ),
    f"{M}/entities/project/feature_flags.md": (
        "Feature flags are managed with Unleash; flags are cleaned up after two releases."
    ),
    f"{M}/entities/people/alice.md": (
        "Alice is the tech lead of the billing team and must approve every database migration."
    ),
    f"{M}/entities/project/前端.md": "前端项目使用 React 18 和 Vite 构建，状态管理用 Zustand。",
    f"{M}/events/2026/05/20/billing_migration.md": (
        "On 2026-05-20 the billing service database was migrated from MySQL to Postgres 16 with "
        "zero downtime."
    ),
    f"{M}/events/2026/06/02/incident_redis.md": (
        "On 2026-06-02 a Redis memory leak caused checkout timeouts; fixed by setting "
        "maxmemory-policy to allkeys-lru."
    ),
    f"{M}/events/2026/06/15/release_v3.md": (
        "Release v3.0 of the billing API shipped on 2026-06-15 with the new invoices endpoint."
    ),
}

# (prompt, acceptable URIs or () for an irrelevant prompt)
PROMPTS: list[tuple[str, tuple[str, ...]]] = [
    ("which code editor do I like to use?", (f"{M}/preferences/default/code_editor.md",)),
    (
        "set up linting and the package manager for this new python project",
        (f"{M}/preferences/default/python_tooling.md",),
    ),
    (
        "write a commit message for the change to the invoices endpoint",
        (f"{M}/preferences/default/commit_style.md",),
    ),
    ("run the go tests for the payments package", (f"{M}/preferences/default/test_runner.md",)),
    ("how should I indent this yaml file?", (f"{M}/preferences/default/indentation.md",)),
    ("请帮我写这段代码评审意见", (f"{M}/preferences/default/review_language.md",)),
    (
        "where does the billing api deploy and which database does it use?",
        (f"{M}/entities/project/deploy_stack.md",),
    ),
    (
        "the buildkite pipeline failed while pushing the docker image",
        (f"{M}/entities/project/ci_pipeline.md",),
    ),
    (
        "can we remove the old unleash feature flags now?",
        (f"{M}/entities/project/feature_flags.md",),
    ),
    (
        "who needs to approve my database migration for billing?",
        (f"{M}/entities/people/alice.md", f"{M}/events/2026/05/20/billing_migration.md"),
    ),
    ("前端项目用什么构建工具和状态管理？", (f"{M}/entities/project/前端.md",)),
    (
        "when did we migrate the billing database to postgres?",
        (f"{M}/events/2026/05/20/billing_migration.md",),
    ),
    (
        "checkout timeouts again, was there a redis incident before?",
        (f"{M}/events/2026/06/02/incident_redis.md",),
    ),
    ("what shipped in release v3.0 of the billing api?", (f"{M}/events/2026/06/15/release_v3.md",)),
    (
        "configure pgbouncer for the postgres database on fly.io",
        (f"{M}/entities/project/deploy_stack.md",),
    ),
    # irrelevant
    ("how do I bake sourdough bread at home?", ()),
    ("explain the difference between TCP and UDP", ()),
    ("write a haiku about autumn leaves", ()),
    ("what is the capital of Australia?", ()),
    ("convert this list comprehension into a generator expression", ()),
    ("帮我翻译这句话：今天天气很好", ()),
    ("sort an array of integers in rust without allocating", ()),
]


def seed_server(url: str) -> None:
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.config import load_settings

    settings = load_settings({"OPENVIKING_URL": url, "HOME": tempfile.gettempdir()})
    backend = OpenVikingBackend(settings, peer="")
    for uri, text in MEMORIES.items():
        backend.write(uri, text)


def make_backend(url: str | None, state_dir: str) -> tuple[Any, Any]:
    from ovhooks.config import load_settings

    env = {
        "HOME": state_dir,
        "OVHOOKS_STATE_DIR": state_dir,
        "OVHOOKS_CONFIG": os.path.join(state_dir, "none.toml"),
        "OPENVIKING_CLI_CONFIG_FILE": os.path.join(state_dir, "none.conf"),
        "OPENVIKING_URL": url or "http://127.0.0.1:9",
        # Calibration probes inline (not in a forked child), so every prompt is decided alike.
        "OVHOOKS_DETACH": "0",
    }
    settings = load_settings(env)
    if url:
        from ovhooks.backend.openviking import OpenVikingBackend

        return OpenVikingBackend(settings, peer="", request_timeout_s=5.0), settings
    from tests.recall.fake_backend import FakeBackend

    return FakeBackend(MEMORIES), settings


def evaluate(url: str | None, *, verbose: bool) -> dict[str, Any]:
    from ovhooks.capture.tokens import estimate_tokens
    from ovhooks.recall import recall_for_prompt

    state_dir = tempfile.mkdtemp(prefix="ovhooks-recall-eval-")
    backend, settings = make_backend(url, state_dir)
    rows: list[dict[str, Any]] = []
    for i, (prompt, expected) in enumerate(PROMPTS):
        started = time.perf_counter()
        out = recall_for_prompt(
            prompt,
            recent_user_texts=[],
            session_key=f"eval-{i}",
            ov_session_id=None,
            backend=backend,
            settings=settings,
            now=time.time(),
        )
        ms = (time.perf_counter() - started) * 1000
        context = out.context or ""
        shown = [u for u in out.injected_uris if f"({u})" in context]
        rows.append(
            {
                "prompt": prompt,
                "expected": list(expected),
                "shown": shown,
                "hints": [u for u in out.injected_uris if u not in shown],
                "hit": bool(expected) and any(u in shown for u in expected),
                "top1": bool(expected) and bool(shown) and shown[0] in expected,
                "clean": not expected and not out.injected_uris,
                "relevant_shown": sum(1 for u in shown if u in expected),
                "tokens": estimate_tokens(context) if context else 0,
                "ms": ms,
                "reason": out.reason,
                "note": out.system_message,
            }
        )
        if verbose:
            print(f"--- {prompt}\n{context or '(nothing)'}\n")
    relevant = [r for r in rows if r["expected"]]
    irrelevant = [r for r in rows if not r["expected"]]
    shown_total = sum(len(r["shown"]) for r in rows)
    injected = [r["tokens"] for r in rows if r["tokens"]]
    return {
        "backend": url or "fake (hash-embedding-like scores)",
        "prompts": len(rows),
        "relevant": len(relevant),
        "irrelevant": len(irrelevant),
        "hit_rate": sum(1 for r in relevant if r["hit"]) / len(relevant),
        "top1_rate": sum(1 for r in relevant if r["top1"]) / len(relevant),
        "precision": (sum(int(r["relevant_shown"]) for r in rows) / shown_total)
        if shown_total
        else 1.0,
        "clean_rate": sum(1 for r in irrelevant if r["clean"]) / len(irrelevant),
        "injected_tokens_total": sum(injected),
        "injected_tokens_mean": statistics.mean(injected) if injected else 0,
        "injected_tokens_max": max(injected) if injected else 0,
        "latency_ms_median": statistics.median(r["ms"] for r in rows),
        "latency_ms_max": max(r["ms"] for r in rows),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", help="a real OpenViking server (dev mode); seeded first")
    parser.add_argument("--no-seed", action="store_true", help="do not write the memories")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every block")
    args = parser.parse_args(argv)
    if args.url and not args.no_seed:
        seed_server(args.url)
    result = evaluate(args.url, verbose=args.verbose)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    for row in result["rows"]:
        mark = "HIT " if row["hit"] else ("ok  " if row["clean"] else "MISS")
        got = ", ".join(u.rsplit("/", 1)[-1] for u in row["shown"]) or "-"
        if row["hints"]:
            got += f" (+{len(row['hints'])} hints)"
        print(
            f"{mark} {row['tokens']:4d} tok {row['ms']:6.1f} ms  {row['prompt'][:60]:60}  -> {got}"
        )
    print()
    print(f"backend:            {result['backend']}")
    print(
        f"prompts:            {result['prompts']} ({result['relevant']} relevant, "
        f"{result['irrelevant']} irrelevant)"
    )
    print(f"hit rate:           {result['hit_rate']:.0%}   top-1: {result['top1_rate']:.0%}")
    print(f"precision:          {result['precision']:.0%} of injected memories were expected ones")
    print(f"clean (irrelevant): {result['clean_rate']:.0%} injected nothing")
    print(
        f"injected tokens:    total {result['injected_tokens_total']}, "
        f"mean {result['injected_tokens_mean']:.0f}, max {result['injected_tokens_max']}"
    )
    print(
        f"latency:            median {result['latency_ms_median']:.1f} ms, "
        f"max {result['latency_ms_max']:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
