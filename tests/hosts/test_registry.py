"""Every registered host, through the same checks: its spec is complete, its recorded payloads
get one valid reply each, and install, doctor and uninstall work on it from the spec alone
(files back byte for byte, the memory tools registered and answering where it takes them).

A host added to ``hosts/registry.py`` without its package, transcript reader or fixtures fails
here by name.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.mcp import check_mcp, registered_argv
from ovhooks.commands.install.command import do_install, do_uninstall
from ovhooks.commands.install.hooks_json import our_handlers, wrapped
from ovhooks.commands.install.shim_file import MARKER
from ovhooks.hookrun import run_hook
from ovhooks.hosts import registry
from ovhooks.hosts.base import EVENT_NAMES, detect_host
from ovhooks.hosts.spec import INSTALL_KINDS, MCP_KINDS
from ovhooks.ids import SESSION_KEY_PREFIX
from ovhooks.transcripts import transcript_reader
from tests.support.host_fixtures import recorded_payloads

HOSTS = list(registry.HOSTS)
EXE = f"{shlex.quote(sys.executable)} -m ovhooks"


@pytest.mark.parametrize("host", HOSTS)
def test_the_spec_is_complete_and_consistent(host: str) -> None:
    spec = registry.spec(host)
    assert spec.name == host and spec.label
    assert re.fullmatch(SESSION_KEY_PREFIX, spec.session_prefix), "the scrubber's shape (ids.py)"
    assert spec.install in INSTALL_KINDS and (spec.mcp is None or spec.mcp in MCP_KINDS)
    assert spec.events, "a host registers at least one hook"
    assert {command for _e, command, *_ in spec.events} <= set(EVENT_NAMES)
    assert all(timeout > 0 for *_rest, timeout in hostconfig.HOOK_TABLE[host])
    if spec.install == "shim":
        assert spec.shim is not None
        shim = Path(hostconfig.__file__).parents[1] / "hosts" / "shims" / spec.shim
        assert MARKER in shim.read_text(encoding="utf-8")
    if spec.mcp in ("mcp_servers", "opencode_mcp", "codex_toml"):
        assert spec.mcp_file, "this registration needs the host's config file"
    assert spec.activity is not None or spec.last_used is not None


def test_hosts_are_told_apart() -> None:
    specs = registry.specs()
    prefixes = [spec.session_prefix for spec in specs]
    assert len(set(prefixes)) == len(prefixes)
    owned = [event for spec in specs for event in spec.detect_events]
    assert len(set(owned)) == len(owned), "an event name recognises one host only"
    with pytest.raises(KeyError):
        registry.spec("not-a-host")


@pytest.mark.parametrize("host", HOSTS)
def test_the_transcript_reader_is_found_by_name(host: str) -> None:
    reader = transcript_reader(host)
    assert reader is not None, f"ovhooks/transcripts/{host}.py is missing"
    assert callable(reader.records_to_turns)
    assert callable(getattr(reader, "recent_user_texts", None)) or callable(
        getattr(reader, "read_new", None)
    )


# Hooks a host does not fire where its payloads were recorded (README says so): `droid exec`
# fires no UserPromptSubmit.
NOT_RECORDED = {"droid": {"user-prompt-submit"}}


@pytest.mark.parametrize("host", HOSTS)
def test_every_recorded_payload_gets_one_valid_reply(host: str) -> None:
    recorded = recorded_payloads(host)
    assert recorded, f"no recorded payloads for {host} (tests/fixtures/{host}/hook-payloads)"
    commands = {command for command, _name, _raw in recorded}
    assert {"session-start", "user-prompt-submit"} - NOT_RECORDED.get(host, set()) <= commands
    env = {**os.environ, "OVHOOKS_DETACH": "0", "OPENVIKING_URL": "http://127.0.0.1:9"}
    for command, name, raw in recorded:
        started = time.monotonic()
        out, _err = run_hook(command, ["--host", host], raw, env, now=time.time(), started=started)
        reply = json.loads(out)
        assert isinstance(reply, dict), name
        specific = reply.get("hookSpecificOutput")
        assert specific is None or isinstance(specific.get("hookEventName"), str), name
        assert time.monotonic() - started < 10, name


@pytest.mark.parametrize("host", [h for h in HOSTS if registry.spec(h).detect_events])
def test_a_shim_host_is_recognised_without_its_flag(host: str) -> None:
    for command, name, raw in recorded_payloads(host):
        payload = json.loads(raw)
        if payload.get("hook_event_name") in registry.spec(host).detect_events:
            assert detect_host(payload, {}) == host, (command, name)


USER_GROUP = '"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]'


def _seed(host: str, home: Path) -> None:
    """User files as a user would have them before ovhooks: each must come back as it was."""
    spec = registry.spec(host)
    env = dict(os.environ)
    hooks = Path(hostconfig.hooks_file(host, "user", env, str(home)))
    if spec.install != "shim":
        hooks.parent.mkdir(parents=True, exist_ok=True)
        # a file keyed by event at its top (Droid) holds the user's own hook group
        own = USER_GROUP if spec.hooks_at_top else '"theme": "dark"'
        hooks.write_text("{\n  " + own + "\n}\n", encoding="utf-8")
    else:
        hooks.parent.mkdir(parents=True, exist_ok=True)  # the host is installed
    mcp = hostconfig.mcp_file(host, env)
    if mcp and not Path(mcp).exists():
        Path(mcp).write_text(
            'model = "o3"\n' if mcp.endswith(".toml") else '{"$schema": "x", "theme": "dark"}\n',
            encoding="utf-8",
        )
    if spec.mcp == "claude_json":
        (home / ".claude.json").write_text('{"numStartups": 3}\n', encoding="utf-8")


def _files(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for spec in registry.specs():  # every host's config under the test's HOME
        monkeypatch.delenv(spec.config_dir[0], raising=False)
    monkeypatch.chdir(isolated_home)
    return isolated_home


@pytest.mark.parametrize("host", HOSTS)
def test_install_registers_everything_and_uninstall_gives_the_files_back(
    host: str, home: Path
) -> None:
    spec = registry.spec(host)
    _seed(host, home)
    before = _files(home)
    env = dict(os.environ)
    done = do_install(host, "user", env, str(home), executable=EXE)
    hooks = hostconfig.hooks_file(host, "user", env, str(home))
    text = Path(hooks).read_text(encoding="utf-8")
    if spec.install == "shim":
        assert MARKER in text
    else:
        doc = wrapped(json.loads(text), spec.hooks_at_top)
        registered = {event for event, *_ in our_handlers(doc)}
        assert registered == {event for event, *_ in spec.events}
    argv, _where = registered_argv(host, env)
    if spec.mcp is None:
        assert not done.get("mcp")
    else:
        assert argv is not None and argv[-1] == "mcp", done.get("mcp")
        assert check_mcp(host, env)["status"] == "ok"  # the server answers as the host runs it
    assert do_install(host, "user", env, str(home), executable=EXE)["hooks_file"]["action"] == (
        "unchanged"
    )
    do_uninstall(host, "user", env, str(home))
    assert _files(home) == before
    assert registered_argv(host, env)[0] is None


def test_a_hooks_file_keyed_by_event_at_its_top_is_edited_there(tmp_path: Path) -> None:
    """``HostSpec.hooks_at_top`` (Factory Droid's hooks.json): no ``hooks`` object is added,
    the user's own group stays, and uninstall gives the bytes back."""
    from ovhooks.commands.install.files import install_hooks_file, uninstall_hooks_file

    path = tmp_path / "hooks.json"
    mine = {"matcher": "*", "hooks": [{"type": "command", "command": "my-script", "timeout": 3}]}
    original = json.dumps({"SessionStart": [mine]}, indent=2) + "\n"
    path.write_text(original, encoding="utf-8")
    install_hooks_file(str(path), "claude", EXE, top_level=True)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert "hooks" not in doc and mine in doc["SessionStart"]
    assert {event for event, *_ in our_handlers({"hooks": doc})} == {
        event for event, *_ in registry.spec("claude").events
    }
    uninstall_hooks_file(str(path), top_level=True)
    assert path.read_text(encoding="utf-8") == original


def test_ids_and_paths_too_long_or_holding_a_nul_read_as_absent() -> None:
    from ovhooks.hosts.base import MAX_ID_CHARS, MAX_PATH_CHARS, Event

    event = Event(
        "codex",
        "stop",
        {
            "session_id": "s" * (MAX_ID_CHARS + 1),
            "cwd": "/tmp/a\x00b",
            "transcript_path": "/" + "t" * MAX_PATH_CHARS,
            "agent_id": "fine",
            "prompt": "a prompt may hold \x00 and stay",
        },
    )
    assert (event.session_id, event.cwd, event.transcript_path) == ("", "", "")
    assert event.agent_id == "fine" and "\x00" in event.prompt
