"""GitHub Copilot CLI 1.0.102, Qwen Code 0.24.4 and Factory Droid 0.225.2 + ovhooks, end to end
and offline (``ChatStub``, the local store), each installed by ``ovhooks install <host>``.

One story per host:

1. session 1 states a preference; ovhooks captures it from the host's transcript at Stop and
   commits it (at SessionEnd; Qwen fires none in ``-p`` mode, so ``ovhooks commit``, which is
   what a user's next interactive exit or the idle sweep does);
2. ``ovhooks remember`` stores a second fact directly;
3. session 2 asks about both: the model request the stub receives must carry both memories
   (Copilot and Qwen: recall for the prompt, after it; Droid runs no UserPromptSubmit in
   ``droid exec``, so its recall is SessionStart's block, its own message after the system
   prompt).

Then the prompt-cache check: three prompts in one session (``--continue`` / ``-c``; Droid:
three prompts on stdin of one ``droid exec``), and every model request's system prompt and
earlier messages byte for byte those of the request before.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.support import pytest_plugin, wave4_hosts
from tests.support import story as st
from tests.support.chat_stub import ChatStub, all_text
from tests.support.wave4_hosts import DroidHost, Wave4Host

pytestmark = [pytest.mark.hosts_e2e]

FACT = "The deploy target of this repo is staging-7."
FACT_PHRASE = "staging-7"
CACHE_PROMPTS = (
    "First prompt about the build scripts here.",
    "Second prompt about the build scripts here.",
    "Third prompt about the build scripts here.",
)


_cli = wave4_hosts.find_cli


def local_env(base: Path) -> dict[str, str]:
    """ovhooks on the local store, writes inline, private dirs (no embedding service)."""
    env = {
        k: v
        for k, v in pytest_plugin.real_environ().items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "XDG_"))
    }
    env.update(
        {
            "OVHOOKS_BACKEND": "local",
            "OVHOOKS_SEMANTIC": "off",
            "OVHOOKS_STATE_DIR": str(base / "ovhooks-state"),
            "OVHOOKS_DATA_DIR": str(base / "ovhooks-data"),
            "OVHOOKS_CONFIG": str(base / "ovhooks-config.toml"),
            "OPENVIKING_CLI_CONFIG_FILE": str(base / "ovcli.conf"),
            "OVHOOKS_DETACH": "0",
            "OVHOOKS_LOG_LEVEL": "debug",
        }
    )
    return env


def ovhooks(ovhooks_bin: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [ovhooks_bin, *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


class Story:
    def __init__(self, host: Wave4Host, stub: ChatStub, base: Path) -> None:
        self.host = host
        self.stub = stub
        self.base = base
        self.seconds: dict[str, float] = {}
        self.commit: dict[str, Any] = {}

    def question_requests(self) -> list[Any]:
        return [r for r in self.stub.turn_requests() if st.QUESTION in all_text(r.body)]

    def debug(self) -> str:
        logs = st.read_ovhooks_logs(str(self.base / "ovhooks-state"))
        return f"{self.host.describe()}\n{logs[-4000:]}"


def _session(host: Wave4Host, prompts: list[str]) -> None:
    if isinstance(host, DroidHost):
        host.conversation(prompts).check()
        return
    for index, prompt in enumerate(prompts):
        host.prompt(prompt, resume=index > 0).check()


@pytest.fixture(scope="module", params=["copilot", "qwen", "droid"])
def story(
    request: pytest.FixtureRequest, ovhooks_bin: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Story]:
    name = str(request.param)
    binary = _cli(name)
    base = tmp_path_factory.mktemp(f"{name}-story")
    env = local_env(base)
    with ChatStub(log_dir=str(base / "stub-requests")) as stub:
        host = wave4_hosts.make_host(
            name, binary, str(base / name), stub, install_with=ovhooks_bin, base_env=env
        )
        result = Story(host, stub, base)
        started = time.monotonic()
        host.prompt(st.PREFERENCE).check()
        if name == "qwen":  # no SessionEnd in -p mode: commit as the idle sweep would
            result.commit = ovhooks(ovhooks_bin, env, "commit", "--all")
        ovhooks(ovhooks_bin, env, "remember", FACT)
        result.seconds["session 1 + commit"] = time.monotonic() - started
        host.prompt(st.QUESTION).check()
        result.seconds["total"] = time.monotonic() - started
        for phase, seconds in result.seconds.items():
            pytest_plugin.record_timing(f"{name} local story: {phase}", seconds)
        yield result


def test_every_run_succeeds_and_the_hooks_log_no_error(story: Story) -> None:
    for run in story.host.runs:
        assert run.returncode == 0, run.describe()
    logs = st.read_ovhooks_logs(str(story.base / "ovhooks-state"))
    assert '"level": "error"' not in logs and "Traceback" not in logs, logs[-3000:]


def test_session_one_was_captured_from_the_transcript(story: Story) -> None:
    from tests.support.stores import LocalStore

    store = LocalStore(story.base / "ovhooks-data")
    first, second = story.host.ov_sessions()
    texts = store.texts(first)
    assert texts[0] == st.PREFERENCE, (texts, story.debug())
    assert store.commit_count(first) >= 1, story.debug()
    assert st.QUESTION in store.texts(second)
    assert any(t.startswith("STUB-") for t in texts), texts  # the reply, read from the file
    needles = (*st.FORBIDDEN_IN_CAPTURE, "qwen:", "system_reminder", "system-reminder")
    leaked = [t for t in texts for n in needles if n in t]
    assert not leaked, leaked


def test_session_two_model_request_carries_both_memories(story: Story) -> None:
    requests = story.question_requests()
    assert requests, story.debug()
    text = all_text(requests[0].body)
    assert st.MEMORY_PHRASE in text, story.debug()
    assert FACT_PHRASE in text, story.debug()


# --- the prompt cache: what the model request keeps from one prompt to the next -------------


def main_requests(stub: ChatStub) -> list[dict[str, Any]]:
    """The conversation's own model requests: one per prompt here (no tool calls), in order.

    Side calls are left out by what they are: Qwen's managed auto-memory extractor (a request
    whose system prompt is its own) and any request that holds none of the prompts."""
    out = []
    for request in stub.turn_requests():
        body = request.body if isinstance(request.body, dict) else {}
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        system = str(messages[0].get("content")) if messages else ""
        if users and any(p in users[-1] for p in CACHE_PROMPTS) and "Managed memory" not in system:
            out.append(body)
    return out


@pytest.fixture(scope="module", params=["copilot", "qwen", "droid"])
def cache_requests(
    request: pytest.FixtureRequest, ovhooks_bin: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, list[dict[str, Any]], Wave4Host]]:
    name = str(request.param)
    binary = _cli(name)
    base = tmp_path_factory.mktemp(f"{name}-cache")
    env = local_env(base)
    ovhooks(ovhooks_bin, env, "remember", "The build scripts here are run with make, not npm.")
    with ChatStub(log_dir=str(base / "stub-requests")) as stub:
        host = wave4_hosts.make_host(
            name, binary, str(base / name), stub, install_with=ovhooks_bin, base_env=env
        )
        _session(host, list(CACHE_PROMPTS))
        yield name, main_requests(stub), host


QWEN_OWN = "<system-reminder>"


def without_qwens_reminders(message: dict[str, Any]) -> dict[str, Any]:
    """A message without the ``<system-reminder>`` parts Qwen Code itself moves to the newest
    user message in every ``-c`` process (the current date; MCP servers' instructions)."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [p for p in content if not str(p.get("text", "")).startswith(QWEN_OWN)]
    return {**message, "content": kept}


def _changed(before: dict[str, Any], after: dict[str, Any], name: str) -> list[int]:
    old = [json.dumps(m, ensure_ascii=False) for m in before["messages"]]
    new = [json.dumps(m, ensure_ascii=False) for m in after["messages"]]
    assert new[0] == old[0], f"{name}: the system prompt changed"
    assert len(new) > len(old)
    return [i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]


def test_three_prompts_keep_the_system_prompt_and_earlier_messages_byte_for_byte(
    cache_requests: tuple[str, list[dict[str, Any]], Wave4Host],
) -> None:
    name, bodies, host = cache_requests
    assert len(bodies) == 3, (len(bodies), host.describe())
    recalled = [any("make, not npm" in str(m) for m in b["messages"]) for b in bodies]
    assert all(recalled), recalled  # recall really injected something each time
    for before, after in pairwise(bodies):
        changed = _changed(before, after, name)
        if name == "qwen" and changed:
            # Qwen's own reminders move with every -c process, with or without ovhooks (seen
            # with --no-mcp too: the date); everything else must stay as it was.
            strip = {"messages": [without_qwens_reminders(m) for m in before["messages"]]}
            kept = {"messages": [without_qwens_reminders(m) for m in after["messages"]]}
            changed = _changed(strip, kept, name)
        assert not changed, (name, changed, before["messages"][changed[0]])
