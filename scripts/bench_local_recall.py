"""Recall query time of the local store over a large synthetic memory set.

Generates N memories (default 100,000; about 12% Chinese, the rest English coding notes,
spread over a user level and a few projects) into a temporary database, then times
``LocalBackend.search_context`` — the whole recall path: term lookup, FTS5 BM25, scoring,
budgeting — for a mix of queries: ones that paraphrase a stored memory, long prompts, Chinese
queries, and queries with no match. Prints median and p90 in milliseconds.

``--compare-trigram`` also builds an FTS5 ``trigram`` index over the raw texts in the same
database and times equivalent queries on it, with both index sizes, to back the tokenizer
choice documented in ``ovhooks/backend/local/text.py``.

Usage: python scripts/bench_local_recall.py [--memories 100000] [--queries 300] [--seed 7]
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


def populate(backend: LocalBackend, count: int, rng: random.Random) -> list[str]:
    peers = ["", "", "proj-a", "proj-b", "proj-c"]
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
LocalBackend(sys.argv[1], user="bench", peer="proj-a").search_context(
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
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="ovhooks-bench-")
    try:
        backend = LocalBackend(tmp, user="bench", peer="proj-a")
        started = time.perf_counter()
        texts = populate(backend, args.memories, rng)
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
