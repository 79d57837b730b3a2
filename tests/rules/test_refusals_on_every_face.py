"""The one rule for what may be forgotten or edited, on its three faces: the MCP ``forget``
tool, the viewer's forget and edit routes, the CLI's ``forget`` and ``remember --uri``.

Each face runs for real (an ``ovhooks mcp`` process, an ``ovhooks ui`` process, the CLI
in-process) on the fake OpenViking server, whose ``DELETE /api/v1/fs`` removes whatever URI
it is given: a refusal must come before the store is asked (no write reaches it), and name
why, never "the store failed". A memory of yours is forgotten on each face (the control).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.mcp_client import McpClient
from tests.support.memory_uris import OWN, REFUSED
from tests.support.viewer import Viewer, running_viewer

DECOY = "viking://user/default/memories/preferences/default/keep-me.md"


def _isolated_env(root: Path, url: str) -> dict[str, str]:
    """What the autouse ``isolated_home`` gives a test, for processes that outlive one test."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "CODEX_", "CLAUDE_", "XDG_"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    (root / "home").mkdir(parents=True)
    (root / "config.toml").write_text("")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(root / "home"),
        OVHOOKS_STATE_DIR=str(root / "state"),
        OVHOOKS_DATA_DIR=str(root / "data"),
        OVHOOKS_CONFIG=str(root / "config.toml"),
        OVHOOKS_SEMANTIC="off",
        OPENVIKING_CLI_CONFIG_FILE=str(root / "ovcli.conf"),
        OPENVIKING_URL=url,
        OVHOOKS_BACKEND="openviking",
    )
    return env


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenViking]:
    fake = FakeOpenViking().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def mcp(server: FakeOpenViking, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    root = tmp_path_factory.mktemp("mcp")
    with McpClient(_isolated_env(root, server.url), cwd=str(root)) as client:
        client.initialize()
        yield client


@pytest.fixture(scope="module")
def viewer(server: FakeOpenViking, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    root = tmp_path_factory.mktemp("viewer")
    server.files[DECOY] = "Keep me: the viewer's sign-in page lists me.\n"
    with running_viewer(_isolated_env(root, server.url), str(root)) as running:
        running.sign_in()
        yield running


@pytest.fixture
def store(server: FakeOpenViking) -> FakeOpenViking:
    server.files[DECOY] = "Keep me: nothing refused may touch me.\n"
    return server


def _refused_everywhere(fake: FakeOpenViking, before: int, text: str, words: str) -> None:
    assert words in text, text
    assert "store failed" not in text and "refused:" not in text, text
    assert fake.writes()[before:] == [], "a refused URI reached the store"
    assert DECOY in fake.files


@pytest.mark.parametrize(("uri", "reason", "words"), REFUSED)
def test_the_mcp_forget_tool_refuses(
    mcp: McpClient, store: FakeOpenViking, uri: str, reason: str, words: str
) -> None:
    before = len(store.writes())
    text, is_error = mcp.call("forget", {"uri": uri})
    assert is_error and text.startswith("forget"), text
    _refused_everywhere(store, before, text, words)


@pytest.mark.parametrize(("uri", "reason", "words"), REFUSED)
def test_the_viewer_forget_and_edit_routes_refuse(
    viewer: Viewer, store: FakeOpenViking, uri: str, reason: str, words: str
) -> None:
    before = len(store.writes())
    forget = viewer.post("/api/memory/forget", {"uris": [OWN, uri]})
    assert forget.status == 400, forget.text
    _refused_everywhere(store, before, forget.json()["error"], words)
    edit = viewer.post("/api/memory/edit", {"uri": uri, "content": "rewritten"})
    assert edit.status == 400, edit.text
    _refused_everywhere(store, before, edit.json()["error"], words)


@pytest.mark.parametrize(("uri", "reason", "words"), REFUSED)
def test_the_cli_forget_and_remember_uri_refuse(
    store: FakeOpenViking, uri: str, reason: str, words: str
) -> None:
    overlay = {"OPENVIKING_URL": store.url, "OVHOOKS_BACKEND": "openviking"}
    before = len(store.writes())
    code, doc = run_json("forget", uri, env=overlay)
    assert (code, doc["error"]["code"]) == (2, "usage"), doc
    _refused_everywhere(store, before, doc["error"]["message"], words)
    code, doc = run_json("remember", "rewritten", "--uri", uri, env=overlay)
    assert (code, doc["error"]["code"]) == (2, "usage"), doc
    _refused_everywhere(store, before, doc["error"]["message"], words)


def test_a_memory_of_yours_is_forgotten_on_every_face(
    mcp: McpClient, viewer: Viewer, store: FakeOpenViking
) -> None:
    overlay = {"OPENVIKING_URL": store.url, "OVHOOKS_BACKEND": "openviking"}
    mine = [OWN.replace(".md", f"-{n}.md") for n in range(3)]
    for uri in mine:
        store.files[uri] = "The user prefers tabs over spaces.\n"
    assert mcp.call("forget", {"uri": mine[0]}) == (f"Forgot {mine[0]}.", False)
    answer = viewer.post("/api/memory/forget", {"uris": ["viking://~/" + mine[1][22:]]})
    assert answer.status == 200 and answer.json()["forgotten"] == [mine[1]], answer.text
    code, doc = run_json("forget", mine[2], env=overlay)
    assert code == 0 and doc["deleted"] == [mine[2]]
    assert not any(uri in store.files for uri in mine) and DECOY in store.files


def test_a_folder_named_like_a_file_is_called_a_folder_not_a_store_failure(
    tmp_path: Path,
) -> None:
    """The local store refuses to delete a folder; the verbs say so in the user's words."""
    folder = "viking://user/default/memories/preferences/default/notes.md"
    code, doc = run_json(
        "remember", "A note inside a folder named like a file.", "--uri", folder + "/inner.md"
    )
    assert code == 0, doc
    code, doc = run_json("forget", folder)
    assert code == 2 and "a folder, not a memory file" in doc["error"]["message"], doc
    code, doc = run_json("read", folder + "/inner.md")
    assert code == 0, doc


def test_a_server_that_is_down_does_not_hide_the_refusal(fake_ov: FakeOpenViking) -> None:
    """Who you are is asked of the server only when it decides: a resource is refused first."""
    overlay = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    fake_ov.refuse()
    code, doc = run_json("forget", "viking://resources/x/memories/y.md", env=overlay)
    assert code == 2 and "a resource, not a memory" in doc["error"]["message"], doc
    code, doc = run_json("forget", OWN, env=overlay)
    assert code == 3, doc  # this one needs the server (who you are, then the delete)
