"""Each network situation through each path that talks to the server: a real
``ovhooks user-prompt-submit`` process, the worker (a Stop process with OVHOOKS_DETACH=0) and
``doctor``. TLS with a throwaway CA, a CONNECT proxy, ``[::1]``, redirects, a trickling
server, a 40 MiB answer, and header values that cannot be sent."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_json
from tests.support.connect_proxy import ConnectProxy
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_process
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.transport_rig import fake_server, make_ca, proxy

MEMORY = "The user deploys the parser service with blue-green releases."
# the middle of the key must never appear in any output
KEYS = {"crlf": "sk-MIDDLESECRET-1234\r\nX-Injected: yes", "latin1": "sk-MIDDLESECRET-ключ"}


class Rig:
    def __init__(self, server: FakeOpenViking, url: str, env: dict[str, str]) -> None:
        self.server = server
        self.url = url
        self.env = env
        self.proxy: ConnectProxy | None = None


@contextmanager
def rig(kind: str, tmp_path: Path) -> Iterator[Rig]:
    """A fake OpenViking set up for ``kind``; ``env`` is what a hook process needs."""
    with ExitStack() as stack:
        env: dict[str, str] = {}
        ca = None
        if kind in ("tls", "proxy", "trickle"):
            ca = make_ca(tmp_path)
            env["OVHOOKS_CA_BUNDLE"] = str(ca.pem)
        server = stack.enter_context(
            fake_server(host="::1" if kind == "ipv6" else "127.0.0.1", ca=ca)
        )
        server.search_entries = [
            {
                "uri": "viking://user/default/memories/preferences/deploys.md",
                "category": "preferences",
                "score": 0.9,
                "detail": "abstract",
                "text": MEMORY,
                # scores as unrelated for recall's calibration probes (see FakeOpenViking)
                "_matches": ["deploy"],
            }
        ]
        made = Rig(server, server.url, env)
        if kind in ("proxy", "http_proxy"):
            made.proxy = stack.enter_context(proxy())
            env["HTTPS_PROXY" if kind == "proxy" else "HTTP_PROXY"] = made.proxy.url
        if kind.startswith("redirect"):
            server.redirect_status = int(kind.removeprefix("redirect"))
        if kind == "cross_origin":
            elsewhere = stack.enter_context(fake_server())
            server.redirect_status, server.redirect_base = 307, elsewhere.url
        if kind == "trickle":
            server.mode, server.trickle_s = "trickle", 0.2
        if kind == "big":
            server.mode = "big"
        if kind in KEYS:
            env["OPENVIKING_API_KEY"] = KEYS[kind]
        yield made


# "big" bounds whole hook runs by wall time (a 40 MiB answer inside recall's 3 s, the worker's
# 8 s): measured beside a second test worker it failed once on a loaded 2-core box (CI 0/1,
# here 1 of 2 full runs at load 6-7), so it runs with the other timing-bound suites, alone.
WORKING = [
    "tls",
    "proxy",
    "http_proxy",
    "ipv6",
    "redirect307",
    "redirect308",
    pytest.param("big", marks=pytest.mark.serial),
]
REDIRECTS = ["redirect301", "redirect302", "cross_origin"]


def location(made: Rig) -> str:
    base = made.server.redirect_base or made.server.url
    return base + "/moved/"


def check_route(made: Rig, kind: str) -> None:
    if kind == "proxy":
        assert made.proxy is not None
        assert made.proxy.seen and all(s.startswith("CONNECT localhost:") for s in made.proxy.seen)
    if kind == "http_proxy":
        assert made.proxy is not None
        assert made.proxy.seen and all(s.split()[1].startswith(made.url) for s in made.proxy.seen)
    if kind == "ipv6":
        assert {r["headers"]["Host"] for r in made.server.requests} == {f"[::1]:{made.server.port}"}


# --- a hook process -------------------------------------------------------------------------------
def prompt_hook(made: Rig, tmp_path: Path, **env: str) -> tuple[dict[str, Any], float]:
    payload = codex_payload(
        "UserPromptSubmit",
        "h1",
        tmp_path / "none.jsonl",
        tmp_path,
        prompt="how do we deploy the parser service?",
    )
    proc, seconds = run_process(
        "user-prompt-submit", payload, hook_env(made.url, **made.env, **env)
    )
    assert proc.returncode == 0
    return json.loads(proc.stdout), seconds


@pytest.mark.parametrize("kind", WORKING)
def test_hook_recalls_through(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        # a 40 MiB answer must fit the hook's budget (old code: 9.4 s). Detached, as users
        # run it: recall's calibration probes (one more 40 MiB answer each) then run after the
        # hook answered instead of inside its deadline.
        detach = "1" if kind == "big" else "0"
        reply, _ = prompt_hook(made, tmp_path, OVHOOKS_RECALL_DEADLINE_S="3", OVHOOKS_DETACH=detach)
        check_route(made, kind)
    assert MEMORY in reply["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("kind", REDIRECTS)
def test_hook_names_the_redirect(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        reply, _ = prompt_hook(made, tmp_path)
    assert location(made) in reply["systemMessage"]


@pytest.mark.parametrize("kind", ["crlf", "latin1"])
def test_hook_refuses_bad_header_values(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        reply, _ = prompt_hook(made, tmp_path)
        assert made.server.requests == []  # nothing was sent, so nothing was injected
    assert "header cannot be sent" in reply["systemMessage"]
    assert "MIDDLESECRET" not in json.dumps(reply)


def test_hook_deadline_holds_against_a_trickling_tls_server(tmp_path: Path) -> None:
    with rig("trickle", tmp_path) as made:
        reply, seconds = prompt_hook(made, tmp_path, OVHOOKS_RECALL_DEADLINE_S="1")
    # the transport's own deadline answered (the hook's alarm would leave no message)
    assert "not answering in time" in reply["systemMessage"]
    assert seconds < 1 + 1.0  # the budget plus interpreter start-up


# --- the worker -----------------------------------------------------------------------------------
def stop_hook(made: Rig, tmp_path: Path, turns: int = 2, **env: str) -> float:
    rollout = CodexRollout(tmp_path / "r.jsonl", "w1")
    rollout.environment()
    for i in range(turns):
        rollout.turn(i)
    payload = codex_payload("Stop", "w1", rollout.path, tmp_path)
    proc, seconds = run_process(
        "stop", payload, hook_env(made.url, **made.env, OVHOOKS_DETACH="0", **env), timeout=60
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) is not None
    return seconds


def drain_errors(tmp_path: Path) -> list[str]:
    log = tmp_path / "state" / "logs" / "ovhooks.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [str(r.get("error")) for r in map(json.loads, lines) if r["event"] == "drain_failed"]


def queued(tmp_path: Path) -> int:
    return len(list((tmp_path / "state" / "outbox").glob("cx-w1/*.json")))


@pytest.mark.parametrize("kind", WORKING)
def test_worker_delivers_through(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        seconds = stop_hook(made, tmp_path)
        check_route(made, kind)
        texts = made.server.texts("cx-w1")
    assert [t.split(":")[0] for t in texts] == [
        "Question number 0",
        "Answer number 0",
        "Question number 1",
        "Answer number 1",
    ]
    assert queued(tmp_path) == 0 and seconds < 8  # old code: 9.4 s per 40 MiB answer


def test_worker_keeps_one_connection_across_batches(tmp_path: Path) -> None:
    with rig("tls", tmp_path) as made:
        stop_hook(made, tmp_path, turns=160)  # 320 messages: four batches of at most 100
        batches = [r for r in made.server.requests if r["path"].endswith("/batch")]
        assert len(batches) == 4 and len(made.server.texts("cx-w1")) == 320
        assert len(made.server.connections) == 1


@pytest.mark.parametrize("kind", REDIRECTS)
def test_worker_keeps_the_queue_and_names_the_redirect(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        stop_hook(made, tmp_path)
        asked = len(made.server.requests)
    errors = drain_errors(tmp_path)
    assert errors and location(made) in errors[0]
    assert queued(tmp_path) == 1 and asked == 1  # kept for later, not retried in a loop


@pytest.mark.parametrize("kind", ["crlf", "latin1"])
def test_worker_sends_nothing_with_a_bad_header_value(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        stop_hook(made, tmp_path)
        assert made.server.requests == []
    errors = drain_errors(tmp_path)
    assert errors and "header cannot be sent" in errors[0]
    assert queued(tmp_path) == 1  # nothing lost: sent once the key is corrected
    log = (tmp_path / "state" / "logs" / "ovhooks.log").read_text()
    assert "MIDDLESECRET" not in log


def test_worker_deadline_holds_against_a_trickling_tls_server(tmp_path: Path) -> None:
    with rig("trickle", tmp_path) as made:
        seconds = stop_hook(made, tmp_path, OVHOOKS_REQUEST_TIMEOUT_S="1")
    errors = drain_errors(tmp_path)
    assert errors and errors[0].startswith("timeout")
    assert seconds < 4, f"the Stop hook took {seconds:.1f} s with a 1 s request timeout"


# --- doctor ---------------------------------------------------------------------------------------
def doctor(made: Rig, *args: str) -> tuple[dict[str, dict[str, Any]], str, float]:
    env = {"OPENVIKING_URL": made.url, "OVHOOKS_BACKEND": "openviking", **made.env}
    start = time.monotonic()
    _code, doc = run_json("doctor", *args, env=env)
    checks = {c["name"]: c for c in doc["checks"]}
    return checks, json.dumps(doc), time.monotonic() - start


@pytest.mark.parametrize("kind", WORKING)
def test_doctor_checks_the_hooks_path(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        checks, _text, _s = doctor(made)
        check_route(made, kind)
    assert checks["server"]["status"] == "ok"
    assert checks["hook_path"]["status"] == "ok"
    network = checks["network"]
    if kind in ("proxy", "http_proxy"):
        assert made.proxy is not None and made.proxy.url in network["summary"]
    else:
        assert network["details"]["route"] == "direct"
    if kind in ("tls", "proxy"):
        assert network["details"]["ca_source"] == "OVHOOKS_CA_BUNDLE"
        assert str(tmp_path / "test-ca.pem") in network["summary"]


@pytest.mark.parametrize("kind", REDIRECTS)
def test_doctor_names_the_redirect(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        checks, _text, _s = doctor(made)
    assert checks["server"]["status"] == "fail"
    assert location(made) in checks["server"]["summary"]
    assert checks["server"]["details"]["error"] == "redirect"


@pytest.mark.parametrize("kind", ["crlf", "latin1"])
def test_doctor_names_the_header_not_the_key(kind: str, tmp_path: Path) -> None:
    with rig(kind, tmp_path) as made:
        checks, text, _s = doctor(made)
        assert made.server.requests == []
    assert checks["server"]["status"] == "fail"
    assert "header cannot be sent" in checks["server"]["summary"]
    assert "MIDDLESECRET" not in text


def test_doctor_deadline_holds_against_a_trickling_tls_server(tmp_path: Path) -> None:
    with rig("trickle", tmp_path) as made:
        checks, _text, seconds = doctor(made, "--timeout", "1")
    assert (
        checks["server"]["status"] == "fail" and checks["server"]["details"]["error"] == "timeout"
    )
    # 1 s for doctor's request and 1.5 s for the hook-path request, nothing more
    assert seconds < 1 + 1.5 + 1.0


def test_doctor_reports_when_the_hooks_budget_is_too_short(tmp_path: Path) -> None:
    with rig("tls", tmp_path) as made:
        made.server.delay_s = 0.8  # within doctor's 5 s, past a 0.5 s hook budget
        made.env["OVHOOKS_RECALL_DEADLINE_S"] = "0.5"
        checks, _text, _s = doctor(made)
    assert checks["server"]["status"] == "ok"
    assert checks["hook_path"]["status"] == "fail"
    assert "disagreement" in checks["hook_path"]["summary"]
