"""Recall query time of the local store over a large synthetic memory set.

Generates N memories (default 100,000; about 12% Chinese, the rest English coding notes,
spread over a user level and a few projects) into a temporary database, then times
``LocalBackend.search_context`` — the whole recall path: term lookup, FTS5 BM25, scoring,
budgeting — for a mix of queries: ones that paraphrase a stored memory, long prompts, Chinese
queries, and queries with no match. Prints median and p90 in milliseconds.

``--compare-trigram`` also builds an FTS5 ``trigram`` index over the raw texts in the same
database and times equivalent queries on it, with both index sizes, to back the tokenizer
choice documented in ``ovhooks/lexical/text.py``.

Then the figure the issue sets a budget for (UserPromptSubmit with 100,000 memories: p50 at
most 5x ``python -c pass`` in the same run, peak RSS at most 60 MiB): the real hook,
``python -m ovhooks user-prompt-submit --host codex``, as fresh processes on that store (half
of the memories belong to the hook's own user and project), each under GNU time for its peak
RSS, interleaved with ``python -c pass`` runs.

Usage: python scripts/bench_local_recall.py [--memories 100000] [--queries 300] [--seed 7]
           [--hook-runs 30]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local.memories import insert_memory

ENGLISH = """
python rust typescript javascript golang java kotlin swift ruby shell bash zsh docker
kubernetes helm terraform ansible nginx postgres mysql sqlite redis kafka rabbitmq grpc
http rest graphql websocket oauth jwt token session cookie cache queue worker scheduler
cron retry backoff timeout deadline latency throughput benchmark profile flamegraph
memory leak garbage collector allocator pointer reference borrow lifetime trait interface
class function method module package import export dependency lockfile pnpm npm yarn pip
poetry uv venv conda pytest unittest hypothesis fixture mock stub fake integration e2e
coverage lint ruff mypy eslint prettier black isort format indentation tabs spaces
newline encoding utf8 unicode locale timezone datetime parser lexer tokenizer grammar
compiler interpreter runtime wasm binary release version semver changelog tag branch
merge rebase commit push pull review approve deploy staging production canary rollback
feature flag config environment variable secret vault credential permission role admin
user account tenant project repository monorepo workspace directory file path symlink
stream buffer socket thread process async await future promise callback event loop
signal handler logger metric trace span alert dashboard incident outage postmortem
database migration schema index query transaction lock deadlock replication backup
restore snapshot volume container image registry build pipeline ci runner artifact
""".split()  # noqa: SIM905
SENTENCES = [
    "I prefer {a} over {b} for {c}",
    "we decided to use {a} with {b} in the {c} service",
    "remember that {a} needs {b} before {c}",
    "always run {a} before {b} and {c}",
    "never use {a} in {b} code, prefer {c}",
    "the {a} {b} breaks when {c} is slow",
    "our {a} depends on {b} and {c} {d}",
    "use {a} instead of {b} for the {c} {d}",
]
CHINESE = (
    "我们决定使用数据库缓存队列服务接口测试部署配置环境变量权限用户项目仓库目录文件路径"
    "线程进程异步事件循环日志指标追踪告警监控故障迁移索引查询事务备份恢复镜像构建流水线"
    "喜欢偏好习惯缩进空格制表符格式化代码风格提交合并分支版本发布回滚上线预发生产开发"
)
CHINESE_SENTENCES = [
    "我喜欢{x}，不要{y}",
    "以后{x}都用{y}",
    "我们决定{x}改用{y}",
    "记住{x}需要先{y}",
]


def _word(rng: random.Random) -> str:
    # Zipf-like: a few words are everywhere, most are rare; plus synthetic identifiers.
    if rng.random() < 0.25:
        return f"{rng.choice(ENGLISH)}_{rng.randrange(5000)}"
    index = min(int(rng.paretovariate(1.1)) - 1, len(ENGLISH) - 1)
    return ENGLISH[(index * 7919) % len(ENGLISH)] if rng.random() < 0.5 else rng.choice(ENGLISH)


def _chinese(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(CHINESE) for _ in range(n))


def make_text(rng: random.Random) -> str:
    if rng.random() < 0.12:
        return rng.choice(CHINESE_SENTENCES).format(
            x=_chinese(rng, rng.randint(2, 6)), y=_chinese(rng, rng.randint(2, 6))
        )
    words = {k: _word(rng) for k in "abcd"}
    return rng.choice(SENTENCES).format(**words)


def populate(
    backend: LocalBackend, count: int, rng: random.Random, peers: list[str] | None = None
) -> list[str]:
    peers = peers or ["", "", "proj-a", "proj-b", "proj-c"]
    texts: list[str] = []
    con = backend.db()
    now = time.time()
    con.execute("BEGIN")
    for i in range(count):
        text = make_text(rng)
        texts.append(text)
        peer = rng.choice(peers)
        category = ("preferences", "entities", "events")[i % 3]
        root = backend.memory_root_for(peer)
        insert_memory(
            backend,
            con,
            uri=f"{root}/{category}/bench/m{i:06d}.md",
            peer=peer,
            category=category,
            content=text,
            tags=f"memory_type={category}",
            source="bench",
            now=now - rng.random() * 365 * 86400,
        )
    con.execute("COMMIT")
    return texts


def make_queries(texts: list[str], rng: random.Random, n: int) -> list[str]:
    queries: list[str] = []
    for i in range(n):
        kind = i % 4
        if kind == 0:  # paraphrase of a stored memory
            words = rng.choice(texts).split()
            queries.append(" ".join(rng.sample(words, k=min(len(words), 4))) + " please")
        elif kind == 1:  # a long coding prompt
            queries.append(
                "Can you refactor the " + " ".join(_word(rng) for _ in range(25)) + " module?"
            )
        elif kind == 2:  # Chinese
            queries.append(f"我们的{_chinese(rng, 4)}应该用什么{_chinese(rng, 3)}？")
        else:  # nothing like it in the store
            queries.append(f"zzunknown{i} qqnothing{i} completely unrelated")
    return queries


FRESH = """
import sys, time
started = time.perf_counter()
from ovhooks.backend.local import LocalBackend
LocalBackend(sys.argv[1], user="default", peer="proj-b").search_context(
    sys.argv[2], score_threshold=0.55, max_tokens=1200
)
print((time.perf_counter() - started) * 1000)
"""


def fresh_process_times(data_dir: str, queries: list[str]) -> list[float]:
    """What a hook pays: a new interpreter imports the store, opens it and recalls once."""
    import subprocess

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=repo)
    times = []
    for query in queries:
        out = subprocess.run(
            [sys.executable, "-c", FRESH, data_dir, query],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout
        times.append(float(out.strip()))
    return times


def _timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(ms, peak RSS MiB) of one process, RSS from GNU time (it execs the command itself)."""
    import shutil
    import subprocess

    gnu_time = shutil.which("time") or "/usr/bin/time"
    wrapped = [gnu_time, "-f", "%M", *argv] if os.path.exists(gnu_time) else argv
    started = time.perf_counter()
    proc = subprocess.run(wrapped, input=stdin, capture_output=True, env=env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr[-400:]!r}")
    last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:]
    peak = int(last[0]) / 1024 if wrapped is not argv and last and last[0].isdigit() else 0.0
    return elapsed, peak


def fill_vectors(backend: LocalBackend, seed: int) -> int:
    """Random unit vectors for every memory, written where the embedding service keeps them.

    For timing only: the service's search costs the same whatever the vectors mean, and
    embedding 100,000 rows for real takes minutes of CPU this benchmark need not spend."""
    import numpy as np

    from ovhooks.semantic import MODEL_KEY
    from ovhooks.semantic.vectors import TABLE, ensure_table

    con = backend.db()
    ensure_table(con)
    rows = con.execute("SELECT id, owner, peer, updated_at FROM memories").fetchall()
    gen = np.random.default_rng(seed)
    vectors = gen.standard_normal((len(rows), 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with con:
        con.executemany(
            f"INSERT OR REPLACE INTO {TABLE} VALUES (?, 'm', ?, ?, ?, ?, ?)",
            [
                (MODEL_KEY, rid, owner, peer, stamp, vec.astype(np.float16).tobytes())
                for (rid, owner, peer, stamp), vec in zip(rows, vectors, strict=True)
            ],
        )
    return len(rows)


def start_service(state: str, data_dir: str) -> dict[str, object]:
    """Start the embedding service on the bench store and wait until it is warm."""
    from ovhooks.semantic import client

    db = os.path.join(data_dir, "memory.db")
    client.start(state, idle_s=600.0, db=db, force=True)
    doc: dict[str, object] | None = None
    for _ in range(600):
        doc, _reason = client.request(state, {"op": "search", "db": db, "text": "warm up"}, 30.0)
        if doc is not None:
            break
        time.sleep(0.5)
    ping, _reason = client.ping(state, 5.0)
    return ping or {}


def hook_figures(
    data_dir: str, cwd: str, queries: list[str], runs: int, semantic: bool = False
) -> tuple[list[float], list[float], list[float], int]:
    """UserPromptSubmit as the host runs it: (hook ms, hook peak MiB, ``python -c pass`` ms,
    prompts that got context)."""
    import json

    state = tempfile.mkdtemp(prefix="ovhooks-bench-state-")
    if semantic:
        service = start_service(state, data_dir)
        print(f"embedding service: {service.get('state')}, RSS {service.get('rss_mib')} MiB")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OVHOOKS_", "OPENVIKING_"))}
    env.update(
        OVHOOKS_BACKEND="local",
        OVHOOKS_DATA_DIR=data_dir,
        OVHOOKS_STATE_DIR=state,
        HOME=state,
        XDG_CONFIG_HOME=os.path.join(state, "config"),
        OVHOOKS_SEMANTIC="on" if semantic else "off",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    hook = [sys.executable, "-m", "ovhooks", "user-prompt-submit", "--host", "codex"]
    times: list[float] = []
    peaks: list[float] = []
    bare: list[float] = []
    injected = 0
    try:
        for i in range(runs):
            query = queries[i % len(queries)]
            payload = {"session_id": f"bench-{i}", "cwd": cwd, "prompt": query}
            stdin = json.dumps(payload).encode()
            ms, peak = _timed(hook, stdin, env)
            times.append(ms)
            peaks.append(peak)
            bare.append(_timed([sys.executable, "-c", "pass"], b"", env)[0])
        for query in queries[:runs]:
            import subprocess

            out = subprocess.run(
                hook,
                input=json.dumps({"session_id": "x", "cwd": cwd, "prompt": query}).encode(),
                capture_output=True,
                env=env,
                check=False,
            ).stdout
            injected += b"additionalContext" in out
        if semantic:
            from ovhooks.semantic import client

            ping, _reason = client.ping(state, 5.0)
            print(f"embedding service after the runs: RSS {(ping or {}).get('rss_mib')} MiB")
    finally:
        if semantic:
            from ovhooks.semantic import client

            client.request(state, {"op": "stop"}, 5.0)
        shutil.rmtree(state, ignore_errors=True)
    return times, peaks, bare, injected


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_trigram(backend: LocalBackend, queries: list[str]) -> tuple[list[float], int]:
    con = backend.db()
    con.execute(
        "CREATE VIRTUAL TABLE tri USING fts5(content, content='memories',"
        " content_rowid='id', tokenize='trigram')"
    )
    con.execute("INSERT INTO tri (tri) VALUES ('rebuild')")
    size = _table_bytes(con, "tri")
    times = []
    for query in queries:
        words = [w for w in query.replace("？", " ").split() if len(w) >= 3]
        expr = " OR ".join('"' + w.replace('"', "") + '"' for w in words[:16])
        started = time.perf_counter()
        if expr:
            con.execute(
                "SELECT rowid, rank FROM tri WHERE tri MATCH ? ORDER BY rank LIMIT 40", (expr,)
            ).fetchall()
        times.append((time.perf_counter() - started) * 1000)
    return times, size


def _table_bytes(con: object, prefix: str) -> int:
    try:
        rows = con.execute(  # type: ignore[attr-defined]
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ?", (prefix + "%",)
        ).fetchone()
        return int(rows[0] or 0)
    except Exception:
        return -1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--compare-trigram", action="store_true")
    parser.add_argument("--hook-runs", type=int, default=30)
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="hooks with the embedding service warm (random vectors for every memory)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="ovhooks-bench-")
    try:
        from ovhooks.ids import project_peer

        work = os.path.join(tmp, "work")
        os.makedirs(work)
        peer = project_peer(work)
        # The hook's own user, its project and three others: what one person's store holds.
        backend = LocalBackend(tmp, user="default", peer=peer)
        started = time.perf_counter()
        texts = populate(backend, args.memories, rng, ["", "", peer, "proj-b", "proj-c"])
        print(f"populated {args.memories} memories in {time.perf_counter() - started:.1f} s")
        queries = make_queries(texts, rng, args.queries)
        for query in queries[:20]:  # warm the page cache, as a long-lived store would be
            backend.search_context(query)
        times: list[float] = []
        hits = 0
        for query in queries:
            started = time.perf_counter()
            result = backend.search_context(query, score_threshold=0.55, max_tokens=1200)
            times.append((time.perf_counter() - started) * 1000)
            hits += bool(result["entries"])
        print(
            f"search_context over {args.memories} memories, {len(queries)} queries: "
            f"median {statistics.median(times):.2f} ms, p90 {percentile(times, 0.9):.2f} ms, "
            f"max {max(times):.2f} ms; {hits} queries returned entries"
        )
        con = backend.db()
        print(
            f"db size {os.path.getsize(backend.db_path) / 1e6:.1f} MB (+WAL); "
            f"memory_fts {_table_bytes(con, 'memory_fts') / 1e6:.1f} MB"
        )
        backend.close()
        cold = fresh_process_times(tmp, queries[:: max(1, len(queries) // 10)])
        print(
            f"fresh process (import + open + one recall), {len(cold)} runs: "
            f"median {statistics.median(cold):.1f} ms, max {max(cold):.1f} ms"
        )
        if args.semantic:
            print(f"vectors written for {fill_vectors(LocalBackend(tmp), args.seed)} memories")
        if args.hook_runs:
            hook_ms, hook_mib, bare_ms, injected = hook_figures(
                tmp, work, queries, args.hook_runs, args.semantic
            )
            p50, bare50 = statistics.median(hook_ms), statistics.median(bare_ms)
            print(
                f"UserPromptSubmit hook process, {len(hook_ms)} runs: p50 {p50:.1f} ms, "
                f"p90 {percentile(hook_ms, 0.9):.1f} ms; `python -c pass` p50 {bare50:.1f} ms; "
                f"ratio {p50 / bare50:.2f}x (budget 5x); peak RSS max {max(hook_mib):.1f} MiB "
                f"(budget 60); {injected} of {len(hook_ms)} prompts got context"
            )
        if args.compare_trigram:
            tri_times, size = bench_trigram(backend, queries)
            print(
                f"trigram index: {size / 1e6:.1f} MB; MATCH only: median "
                f"{statistics.median(tri_times):.2f} ms, p90 {percentile(tri_times, 0.9):.2f} ms"
            )
        backend.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
