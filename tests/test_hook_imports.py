"""Hooks import only what their event needs (docs/ARCHITECTURE.md, "Start-up cost").

Every recorded payload of both hosts (each event, each SessionStart source, each tool) runs
as a real process against a fake server holding memories to inject, detached as users run
it, and reports the modules it loaded beyond what the interpreter had at start. None may be
one of the heavy or human-command-only packages below: each costs a hook 6–55 ms of start-up
(typer, rich, httpx ...), or belongs to another path (sqlite3 is the local store's, ssl is
only for https:// servers, numpy never).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openviking import FakeOpenViking
from tests.support.gemini_replies import recorded_payloads
from tests.support.hooks import HOOKS, calibrate_server, hook_env

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "tests" / "fixtures" / "host-samples"
FORBIDDEN = frozenset(
    {
        "typer",
        "click",
        "rich",
        "httpx",
        "httpcore",
        "filelock",
        "pathlib",
        "dataclasses",
        # not "typing": tomllib imports it when a config.toml exists (8.6 ms measured here)
        "asyncio",
        "sqlite3",
        "ssl",
        "numpy",
        "tomlkit",  # install/uninstall edit Codex's config.toml with it; a hook never does
        "http",  # http.client: the transport speaks HTTP/1.1 itself
        "hashlib",  # loads OpenSSL (~4 ms): the transcript reader's SHA-1 is the builtin one
        "encodings.idna",  # with stringprep, ~2 ms: an ASCII host is resolved as bytes
        "jinja2",  # `ovhooks ui` only
        "markupsafe",
        "ovhooks.ui",  # the viewer: the hook only appends to the recall log it reads
        "mcp",  # the MCP SDK: ovhooks' own server does not use it, and a hook never serves
        "pydantic",
        "ovhooks.mcp",  # `ovhooks mcp`, a separate long-lived command
        "ovhooks.commands",  # human commands (and the memory verbs' core the server uses)
    }
)


def _forbidden(module: str) -> bool:
    """A forbidden package or one of its submodules (``ovhooks.ui`` names a subpackage)."""
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


# Runs a hook's real entry point, then lists the modules it loaded (in the hook process only:
# a detached worker is a fork and writes nothing). The baseline is taken before ovhooks is
# imported, so whatever site or an editable install's finder loaded does not count.
DRIVER = """
import atexit, json, os, sys
baseline = set(sys.modules)
parent = os.getpid()
out = sys.argv[1]
def dump():
    if os.getpid() == parent:
        with open(out, "w") as fh:
            json.dump(sorted(set(sys.modules) - baseline), fh)
atexit.register(dump)
sys.argv = ["ovhooks", *sys.argv[2:]]
from ovhooks.__main__ import main
main()
"""


def _samples() -> list[tuple[str, str, dict[str, Any]]]:
    """Every recorded payload of each host (each SessionStart source, each tool, ...), plus
    the other host's payload for an event a host has no recording of."""
    found: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for host in ("codex", "claude"):
        for path in sorted((SAMPLES / host / "hook-payloads").glob("*.json")):
            payload = json.loads(path.read_text())
            found.setdefault((host, str(payload["hook_event_name"])), []).append(
                (path.stem, payload)
            )
    added = REPO / "tests" / "fixtures" / "claude-2.1.330" / "directory-added.json"
    found.setdefault(
        ("claude", "DirectoryAdded"), [("DirectoryAdded", json.loads(added.read_text()))]
    )
    out: list[tuple[str, str, dict[str, Any]]] = []
    for host in ("codex", "claude"):
        for event in sorted(HOOKS):
            recorded = found.get((host, event)) or next(
                p for (_h, e), p in sorted(found.items()) if e == event
            )
            out.extend((host, name, payload) for name, payload in recorded)
    # Gemini CLI's recorded payloads (tests/fixtures/gemini), under ovhooks' event names.
    for index, (event, payload) in enumerate(recorded_payloads()):
        name = f"{payload['hook_event_name']}-{index}"
        out.append(("gemini", name, {**payload, "hook_event_name": event}))
    return out


SAMPLE_CASES = _samples()
# What the recorded prompt ("hello first turn") is about, so recall has something to inject,
# and a profile and a preference, so SessionStart has context to render: the guard must see
# the injecting paths, not only the quiet ones.
MEMORIES = "viking://user/default/memories"
RECALLED = {
    "uri": f"{MEMORIES}/preferences/default/greeting.md",
    "category": "preferences",
    "score": 0.93,
    "detail": "abstract",
    "text": "On the first turn of a session the user says hello and wants a short greeting.",
    "_matches": ["hello", "first turn"],
}


@pytest.fixture(scope="module")
def server() -> Any:
    fake = FakeOpenViking().start()
    fake.search_entries = [RECALLED]
    fake.files[f"{MEMORIES}/profile.md"] = "The user works on ovhooks, a Python hook runner."
    fake.files[f"{MEMORIES}/preferences/default/tabs.md"] = "Indent with tabs, never spaces."
    yield fake
    fake.stop()


def test_every_hook_a_host_is_configured_to_run_is_guarded() -> None:
    configured = set()
    for name in ("hooks.json", "hooks.claude.json"):
        configured |= set(json.loads((REPO / name).read_text())["hooks"])
    guarded = {str(payload["hook_event_name"]) for _host, _name, payload in SAMPLE_CASES}
    assert configured <= guarded, sorted(configured - guarded)
    assert guarded == set(HOOKS), "every hook command has a case"


@pytest.mark.parametrize(
    ("host", "name", "payload"), SAMPLE_CASES, ids=[f"{h}-{n}" for h, n, _p in SAMPLE_CASES]
)
def test_hook_loads_no_heavy_module(
    host: str, name: str, payload: dict[str, Any], server: FakeOpenViking, tmp_path: Path
) -> None:
    event = str(payload["hook_event_name"])
    listing = tmp_path / "modules.json"
    payload = {**payload, "cwd": str(tmp_path), "transcript_path": str(tmp_path / "t.jsonl")}
    calibrate_server(server.url)  # a user's steady state: recall reads the server's scores
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), HOOKS[event], "--host", host],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(server.url, OVHOOKS_DETACH="1"),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    loaded = json.loads(listing.read_text())
    heavy = sorted(m for m in loaded if _forbidden(m))
    assert heavy == [], f"{host} {event} loaded {heavy}"
    assert any(m.startswith("ovhooks.") for m in loaded)  # the listing saw the hook's imports
    # (Gemini's SessionStart renders the block too, and holds it for the first BeforeAgent)
    if event in ("SessionStart", "UserPromptSubmit") and (host, event) != (
        "gemini",
        "SessionStart",
    ):
        # the seeded memories were rendered: the guard saw the injecting path, not a quiet one
        reply = json.loads(proc.stdout)
        assert reply["hookSpecificOutput"]["additionalContext"], f"{host} {name}: {reply}"


def test_the_guard_sees_a_heavy_import(tmp_path: Path) -> None:
    """The driver reports what a hook imports: a module that pulls in dataclasses is caught."""
    listing = tmp_path / "modules.json"
    script = DRIVER.replace("from ovhooks.__main__ import main\nmain()", "import dataclasses")
    subprocess.run([sys.executable, "-c", script, str(listing)], check=True, timeout=30)
    assert "dataclasses" in json.loads(listing.read_text())


def _forbidden_is_ours(module: str) -> bool:
    return module == "ovhooks.mcp" or module.startswith("ovhooks.mcp.")


def test_the_mcp_server_answers_its_handshake_without_heavy_modules(tmp_path: Path) -> None:
    """``ovhooks mcp`` answers ``initialize`` and ``tools/list`` before a host's first turn:
    no Typer, Rich, SDK, HTTP client or store is loaded for that (the store loads on the
    first tool call)."""
    listing = tmp_path / "modules.json"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), "mcp"],
        input="".join(json.dumps(m) + "\n" for m in messages).encode(),
        capture_output=True,
        env=hook_env("http://127.0.0.1:9"),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    loaded = json.loads(listing.read_text())
    heavy = sorted(m for m in loaded if _forbidden(m) and not _forbidden_is_ours(m))
    assert heavy == [], f"ovhooks mcp loaded {heavy} before its first tool call"
    assert "ovhooks.mcp.server" in loaded


# What recall on the local store leaves out (docs/ARCHITECTURE.md, "Start-up cost"): the store
# opens through ``_sqlite3`` (the ``sqlite3`` package pulls in ``datetime`` for adapters the
# store never uses), the deadline arms through ``_signal``, the scope token's CRC is computed
# without ``zlib``, and ``fcntl`` (locks) and ``bisect`` (the scrubber's anchored rules) wait
# for the paths that use them. About 3 ms of every local recall together.
LOCAL_RECALL_SKIPS = frozenset({"sqlite3", "datetime", "signal", "zlib", "fcntl", "bisect"})


@pytest.mark.parametrize("config", ["none", "plain"])
def test_local_recall_loads_only_what_it_uses(tmp_path: Path, config: str) -> None:
    """With no config file (as the benchmark runs), and with a plain one (as users write it:
    ``settings.toml_plain`` reads it without tomllib, which imports datetime and typing)."""
    from ovhooks.backend.local import LocalBackend

    config_path = tmp_path / "config.toml"
    if config == "plain":
        config_path.write_text('# mine\nrecall_max_items = 3\nbackend = "local"\n')

    store = LocalBackend(str(tmp_path / "data"))
    store.write(
        "viking://user/default/memories/preferences/deploy.md",
        "Before deploying the storefront, run make check and the integration suite.\n",
    )
    store.close()
    listing = tmp_path / "modules.json"
    payload = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "prompt": "what do I run before deploying the storefront?",
    }
    env = hook_env(
        None,
        OVHOOKS_BACKEND="local",
        OVHOOKS_DATA_DIR=str(tmp_path / "data"),
        OVHOOKS_SEMANTIC="off",
        OVHOOKS_DETACH="1",
        OVHOOKS_CONFIG=str(config_path),
    )
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), "user-prompt-submit", "--host", "codex"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    reply = json.loads(proc.stdout)
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert "run make check and the integration suite" in context  # the recall path
    loaded = set(json.loads(listing.read_text()))
    assert "ovhooks.backend.local.search" in loaded
    assert sorted(loaded & LOCAL_RECALL_SKIPS) == []
    assert "tomllib" not in loaded
    assert ("ovhooks.settings.toml_plain" in loaded) == (config == "plain")
