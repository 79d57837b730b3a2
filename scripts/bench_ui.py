"""``ovhooks ui`` figures: ready time, page and search times at 100,000 memories, and what the
recall log costs UserPromptSubmit.

1. Fills a temporary local store with N synthetic memories (``bench_local_recall.populate``).
2. Starts the real ``ovhooks ui`` process K times: spawn -> URL printed -> first page served
   (the ``ready`` figure), then, on one of them, requests each page R times and reads the
   server's own ``Server-Timing`` (time to make the page, p50/p90).
3. A/B in one run, interleaved: the real UserPromptSubmit hook process with the recall log
   as shipped, and with ``journal.append`` replaced by a no-op, on the same store; plus
   ``python -c pass`` as the floor.

Usage: python scripts/bench_ui.py [--memories 100000] [--starts 10] [--requests 30]
           [--hook-runs 30]
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from ovhooks.backend.local import LocalBackend  # noqa: E402
from scripts.bench_local_recall import populate  # noqa: E402
from tests.support.viewer import running_viewer  # noqa: E402

PAGES = (
    ("memories, first page", "/memories"),
    ("memories, this project", "/memories?scope=project"),
    ("memories, page 500", "/memories?page=500"),
    ("search", "/memories?q=which+database+do+we+use+for+the+billing+service"),
    ("why this memory", "/why?prompt=how+do+we+deploy+the+worker+to+staging"),
    ("recall log", "/log"),
    ("sessions", "/sessions"),
)
PATCHED = (
    "import ovhooks.recall.journal as j; j.append = lambda *a, **k: None; "
    "import sys; sys.argv = ['ovhooks', *sys.argv[1:]]; "
    "from ovhooks.__main__ import main; main()"
)
SHIPPED = (
    "import sys; sys.argv = ['ovhooks', *sys.argv[1:]]; from ovhooks.__main__ import main; main()"
)


def pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ready_times(env: dict[str, str], cwd: str, starts: int) -> list[float]:
    times = []
    for _ in range(starts):
        began = time.perf_counter()
        with running_viewer(env, cwd) as viewer:
            viewer.sign_in()
            times.append(time.perf_counter() - began)
    return times


def page_times(env: dict[str, str], cwd: str, requests: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    with running_viewer(env, cwd) as viewer:
        viewer.sign_in()
        for label, path in PAGES:
            for _ in range(requests if label not in ("recall log", "why this memory") else 5):
                answer = viewer.get(path)
                assert answer.status == 200, (path, answer.text[-300:])
                dur = answer.headers["server-timing"].split("dur=")[1]
                out.setdefault(label, []).append(float(dur))
    return out


def hook_ab(env: dict[str, str], cwd: str, runs: int) -> dict[str, list[float]]:
    payload = json.dumps(
        {"session_id": "bench", "cwd": cwd, "prompt": "which database does billing use?"}
    ).encode()
    argv = {
        "shipped": [sys.executable, "-c", SHIPPED, "user-prompt-submit", "--host", "codex"],
        "no recall log": [sys.executable, "-c", PATCHED, "user-prompt-submit", "--host", "codex"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    out: dict[str, list[float]] = {k: [] for k in argv}
    for _ in range(runs):
        for label, command in argv.items():
            began = time.perf_counter()
            subprocess.run(command, input=payload, capture_output=True, env=env, check=True)
            out[label].append((time.perf_counter() - began) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--hook-runs", type=int, default=30)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="ovhooks-bench-ui-")
    try:
        data, state, home = (os.path.join(root, n) for n in ("data", "state", "home"))
        os.makedirs(home)
        store = LocalBackend(data, peer="proj-a")
        began = time.perf_counter()
        populate(store, args.memories, random.Random(7))
        store.close()
        print(f"{args.memories} memories in {time.perf_counter() - began:.1f} s")
        env = dict(os.environ, HOME=home, OVHOOKS_DATA_DIR=data, OVHOOKS_STATE_DIR=state)
        env["OPENVIKING_ACTOR_PEER_ID"] = "proj-a"
        env.pop("OPENVIKING_URL", None)
        ready = ready_times(env, root, args.starts)
        print(
            f"ready (spawn -> signed-in first page), {args.starts} starts: "
            f"p50 {statistics.median(ready):.2f} s, max {max(ready):.2f} s"
        )
        for label, values in page_times(env, root, args.requests).items():
            print(
                f"{label:24s} server-side p50 {statistics.median(values):7.1f} ms, "
                f"p90 {pct(values, 0.9):7.1f} ms ({len(values)} requests)"
            )
        ab = hook_ab(env, root, args.hook_runs)
        floor = statistics.median(ab["python -c pass"])
        for label, values in ab.items():
            p50 = statistics.median(values)
            print(f"UserPromptSubmit {label:16s} p50 {p50:6.1f} ms ({p50 / floor:.2f}x floor)")
        delta = statistics.median(ab["shipped"]) - statistics.median(ab["no recall log"])
        print(f"recall log cost (p50 shipped - p50 without): {delta:+.2f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
