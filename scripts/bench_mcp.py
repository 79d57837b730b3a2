"""``ovhooks mcp``'s figures (issue 24's targets): start-up, tool list size, search time.

1. Cold start: N fresh ``ovhooks mcp`` processes (the console script, as hosts spawn it), each
   timed from spawn to the ``tools/list`` reply after ``initialize`` (target: p50 <= 0.5 s),
   interleaved with ``python -c pass`` runs for the machine's floor at that moment. With
   ``--sdk-python PATH`` (a Python that has the ``mcp`` 1.x SDK), the same count of fresh
   ``from mcp.server.fastmcp import FastMCP`` imports, for the choice against the SDK.
2. The tool list as the server sends it, in characters (target: <= 2,500).
3. Search over a local store of M synthetic memories (``bench_local_recall.populate``): one
   server process, K ``tools/call search`` round trips timed at the client (target: p50 <=
   150 ms), after a few warm-up calls.

Usage: python scripts/bench_mcp.py [--starts 10] [--memories 100000] [--searches 50]
           [--sdk-python /path/to/python]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ovhooks.backend.local import LocalBackend
from scripts.bench_local_recall import make_queries, populate
from tests.support.mcp_client import McpClient

SDK_IMPORT = "from mcp.server.fastmcp import FastMCP"


def _ovhooks() -> list[str]:
    """``ovhooks mcp`` as install registers it: the console script under the launcher that
    bounds its start (``hosts/launch.py``), which is how hosts spawn it."""
    from ovhooks.commands.install.mcp_config import server_argv

    script = os.path.join(os.path.dirname(sys.executable), "ovhooks")
    if os.access(script, os.X_OK):
        return server_argv(script)
    return [sys.executable, "-m", "ovhooks", "mcp"]


def cold_start(env: dict[str, str]) -> tuple[float, int]:
    """Seconds from spawn to the tools/list reply; the tool list's size in characters."""
    started = time.perf_counter()
    with McpClient(env, command=_ovhooks()) as client:
        client.initialize()
        tools = client.list_tools()
        elapsed = time.perf_counter() - started
    return elapsed, len(json.dumps(tools, separators=(",", ":")))


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - started


def search_times(env: dict[str, str], queries: list[str], cwd: str) -> tuple[float, list[float]]:
    """(the first call's ms: it loads settings, the scrubber and opens the store; the
    later calls' ms)."""
    with McpClient(env, command=_ovhooks(), cwd=cwd) as client:
        client.initialize()
        started = time.perf_counter()
        client.call("search", {"query": queries[0]})
        first = (time.perf_counter() - started) * 1000
        for query in queries[1:5]:
            client.call("search", {"query": query})
        times = []
        for query in queries:
            started = time.perf_counter()
            _text, is_error = client.call("search", {"query": query})
            times.append((time.perf_counter() - started) * 1000)
            assert not is_error, _text
    return first, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--sdk-python", default="")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="ovhooks-bench-mcp-")
    env = {
        **os.environ,
        "OVHOOKS_DATA_DIR": os.path.join(tmp, "data"),
        "OVHOOKS_STATE_DIR": os.path.join(tmp, "state"),
        "OVHOOKS_BACKEND": "local",
    }
    try:
        starts, floor, sdk = [], [], []
        size = 0
        for _ in range(args.starts):
            elapsed, size = cold_start(env)
            starts.append(elapsed)
            floor.append(_timed([sys.executable, "-c", "pass"]))
            if args.sdk_python:
                sdk.append(_timed([args.sdk_python, "-c", SDK_IMPORT]))
        print(
            f"ovhooks mcp, spawn -> tools/list reply, {len(starts)} cold starts: "
            f"p50 {statistics.median(starts):.3f} s, max {max(starts):.3f} s "
            f"(python -c pass p50 {statistics.median(floor):.3f} s)"
        )
        if sdk:
            print(
                f"SDK `from mcp.server.fastmcp import FastMCP` alone, {len(sdk)} runs: "
                f"p50 {statistics.median(sdk):.3f} s, max {max(sdk):.3f} s"
            )
        print(f"tool list: {size} characters (compact JSON, as sent)")
        if args.memories:
            rng = random.Random(7)
            work = os.path.join(tmp, "work")
            os.makedirs(work)
            from ovhooks.ids import project_peer

            peer = project_peer(work)
            backend = LocalBackend(env["OVHOOKS_DATA_DIR"], user="default", peer=peer)
            texts = populate(backend, args.memories, rng, ["", "", peer, "proj-b", "proj-c"])
            backend.close()
            queries = make_queries(texts, rng, args.searches)
            first, times = search_times(env, queries, work)
            print(
                f"search tool over {args.memories} memories, {len(times)} calls: "
                f"p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms "
                f"(the server's first call: {first:.0f} ms)"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
