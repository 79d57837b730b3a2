"""Memory never breaks the provider's prompt cache (issue 38), with the real CLIs, offline.

Three prompts in one session, each with a different recall (ovhooks is a stand-in that
recalls "ovh-recall for: <the prompt>" and gives a session-start block), on every host. Each
main-agent model request the stub records must repeat the previous one byte for byte (the
system prompt, and every earlier message) and only append new turns; the recall for a
prompt must be in its request, after the prompt, never in the system prompt. Side calls
(OpenCode's title generation) get no memory.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support import pytest_plugin
from tests.support.chat_stub import ChatStub
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import MessagesStub, ResponsesStub
from tests.support.hosts import ClaudeHost, CodexHost, HostRun, install_hooks
from tests.support.model_stub import RecordingServer
from tests.support.shim_hosts import OpenCodeHost, PiHost

pytestmark = [pytest.mark.hosts_e2e]

HOSTS = ["codex", "claude", "gemini", "pi", "opencode"]
PROMPTS = ("First question: alpha?", "Second question: beta?", "Third question: gamma?")
RECALL = "ovh-recall for: "
START = "ovh-start: the user writes Python."
STANDIN = """#!{python}
import json, sys
hook = sys.argv[1]
host = sys.argv[sys.argv.index("--host") + 1]
try:
    payload = json.loads(sys.stdin.read() or "{{}}")
except ValueError:
    payload = {{}}
prompt = str(payload.get("prompt") or "").strip()
if hook == "session-start" and host != "gemini":  # Gemini: ovhooks gives it with the prompt
    event, text = "SessionStart", {start!r}
elif hook == "user-prompt-submit":
    event = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
    text = {recall!r} + prompt.splitlines()[-1] if prompt else ""
else:
    event, text = "", ""
reply = {{"hookSpecificOutput": {{"hookEventName": event, "additionalContext": text}}}}
print(json.dumps(reply if text else {{}}))
"""

Prompt = Callable[[str, bool], HostRun]


@contextmanager
def _host(
    host: str, base: Path, exe: str, request: pytest.FixtureRequest
) -> Iterator[tuple[Prompt, RecordingServer]]:
    """A fresh ``host`` world with the stand-in installed; ``prompt(text, continue_session)``."""
    ovhooks_bin = str(request.getfixturevalue("ovhooks_bin"))
    cli = str(request.getfixturevalue(f"{host}_cli"))
    env = pytest_plugin.real_environ()
    args = ["--exe", exe, "--no-mcp"]  # the hooks only: a hung `ovhooks mcp` is another matter
    with ExitStack() as stack:
        if host == "codex":
            codex_stub = stack.enter_context(ResponsesStub())
            codex = CodexHost(
                cli, str(base), codex_stub, install_with=ovhooks_bin,
                install_args=args, base_env=env,
            )  # fmt: skip
            yield (lambda text, more: codex.exec(text, resume=more)), codex_stub
        elif host == "claude":
            claude_stub = stack.enter_context(MessagesStub())
            # one model for every run: Claude Code names it in its own system prompt
            pinned = {"ANTHROPIC_MODEL": "claude-opus-4-8"}
            claude = ClaudeHost(cli, str(base), claude_stub, base_env=env, extra_env=pinned)
            home = {"HOME": claude.home, "CLAUDE_CONFIG_DIR": claude.config_dir}
            install_hooks(ovhooks_bin, "claude", home, args)
            yield (
                (lambda text, more: claude.prompt(text, continue_session=more, tools=False)),
                claude_stub,
            )
        elif host == "gemini":
            gemini_stub = stack.enter_context(GeminiStub())
            gemini = GeminiHost(cli, str(base), gemini_stub, base_env=env)
            install_hooks(ovhooks_bin, "gemini", {"HOME": gemini.home}, args)
            yield (lambda text, more: gemini.prompt(text, resume=more)), gemini_stub
        elif host == "pi":
            pi_stub = stack.enter_context(ChatStub())
            pi = PiHost(
                cli, str(base), pi_stub, install_with=ovhooks_bin, install_args=args,
                base_env=env,
            )  # fmt: skip
            yield (lambda text, more: pi.prompt(text, continue_session=more)), pi_stub
        else:
            oc_stub = stack.enter_context(ChatStub())
            opencode = OpenCodeHost(
                cli, str(base), oc_stub, install_with=ovhooks_bin, install_args=args,
                base_env=env,
            )  # fmt: skip
            yield (lambda text, more: opencode.prompt(text, continue_session=more)), oc_stub


def _without_cache_marks(value: Any) -> Any:
    """``value`` without ``cache_control`` (Claude Code moves that mark to the newest turn)."""
    if isinstance(value, dict):
        return {k: _without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_marks(v) for v in value]
    return value


_SKILLS = re.compile(r"<available_skills>(.*?)</available_skills>", re.DOTALL)
_SKILL = re.compile(r"\s*<skill>.*?</skill>", re.DOTALL)


def _skills_sorted(value: Any) -> Any:
    """``value`` with the entries of Gemini CLI's ``<available_skills>`` list in one order.
    Gemini fills that list from its own bundled skills as its scans finish, so each process
    may list them in another order (seen once in four CI runs: two skills swapped); ovhooks
    never writes there, and that is Gemini's cache to keep."""
    if isinstance(value, dict):
        return {k: _skills_sorted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_skills_sorted(v) for v in value]
    if isinstance(value, str):

        def in_order(found: re.Match[str]) -> str:
            inner = found.group(1)
            entries = _SKILL.findall(inner)
            rest = _SKILL.sub("", inner)
            return f"<available_skills>{''.join(sorted(entries))}{rest}</available_skills>"

        return _SKILLS.sub(in_order, value)
    return value


def conversation(host: str, body: dict[str, Any]) -> tuple[str, list[str]]:
    """(the system prompt, each message) of one request, as canonical JSON texts."""
    if host == "codex":
        system, messages = body.get("instructions"), body.get("input") or []
    elif host == "claude":
        system, messages = body.get("system"), body.get("messages") or []
        # Claude Code's -c sends an earlier turn's text as a string where it first sent one
        # text block (it does so with no hooks at all); the Messages API reads both as the
        # same block, so they count as the same bytes here.
        messages = [
            {**m, "content": [{"text": m["content"], "type": "text"}]}
            if isinstance(m, dict) and isinstance(m.get("content"), str)
            else m
            for m in messages
        ]
    elif host == "gemini":
        system, messages = body.get("systemInstruction"), body.get("contents") or []
        system = _skills_sorted(system)
    else:
        every = body.get("messages") or []
        system = [m for m in every if m.get("role") in ("system", "developer")]
        messages = [m for m in every if m.get("role") not in ("system", "developer")]
    canon = [json.dumps(_without_cache_marks(m), sort_keys=True) for m in messages]
    return json.dumps(_without_cache_marks(system), sort_keys=True), canon


def _main_requests(stub: RecordingServer) -> list[dict[str, Any]]:
    replies: dict[int, str] = getattr(stub, "replies", {})
    turns = stub.turn_requests()  # type: ignore[attr-defined]
    return [r.body for r in turns if replies.get(r.number) == "text"]


def _diff(before: str, after: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), 0)
    return f"at {at}: {before[at - 80 : at + 120]!r} -> {after[at - 80 : at + 120]!r}"


@pytest.mark.parametrize("host", HOSTS)
def test_each_request_extends_the_previous_one_byte_for_byte(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    exe = tmp_path / "bin" / "ovhooks"
    exe.parent.mkdir()
    exe.write_text(STANDIN.format(python=sys.executable, start=START, recall=RECALL))
    exe.chmod(0o755)
    with _host(host, tmp_path / "world", str(exe), request) as (prompt, stub):
        for i, text in enumerate(PROMPTS):
            run = prompt(text, i > 0)
            assert run.returncode == 0, run.describe()
        bodies = _main_requests(stub)
        kinds: dict[int, str] = getattr(stub, "replies", {})
        sides = [
            (kinds.get(r.number), r.body)
            for r in stub.turn_requests()  # type: ignore[attr-defined]
            if kinds.get(r.number) != "text"
        ]
    assert len(bodies) == len(PROMPTS), [len(bodies), getattr(stub, "replies", {})]
    previous: tuple[str, list[str]] | None = None
    for text, body in zip(PROMPTS, bodies, strict=True):
        system, messages = conversation(host, body)
        assert RECALL not in system and START not in system, f"memory in the system prompt: {host}"
        needle, asked = json.dumps(RECALL + text)[1:-1], json.dumps(text)[1:-1]
        carrying = [i for i, m in enumerate(messages) if needle in m]
        assert carrying, f"{host}: no recall for {text!r} in its request"
        # the prompt itself (outside the recall) is in that message or an earlier one
        upto = messages[: carrying[-1] + 1]
        assert any(asked in m.replace(needle, "") for m in upto), f"{host}: recall before prompt"
        if previous is not None:
            assert system == previous[0], (
                f"{host}: the system prompt changed: {_diff(previous[0], system)}"
            )
            changed = [_diff(a, b) for a, b in zip(previous[1], messages, strict=False) if a != b]
            assert not changed, f"{host}: earlier turns changed: {changed[:2]}"
            assert messages[: len(previous[1])] == previous[1], f"{host}: earlier turns lost"
            assert len(messages) > len(previous[1])
        previous = (system, messages)
    for kind, body in sides:  # title generation and other side calls: no memory
        assert RECALL not in json.dumps(body) and START not in json.dumps(body), (host, kind)
