"""``ovhooks ui`` as a real process on the local store: security, pages, edit, forget, undo."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.hooks import hook_env
from tests.support.viewer import Viewer, env_for_viewer, running_viewer

FACTS = (
    "In this repo I always use tabs, never spaces",
    "Our staging database listens on port 6543",
    "Deploys happen on Tuesdays after the standup",
)


def remember(text: str, cwd: Path) -> str:
    return str(json.loads(ovhooks("remember", text, "--json", cwd=cwd))["uri"])


def ovhooks(*argv: str, cwd: Path, payload: dict[str, str] | None = None) -> str:
    """``ovhooks ARGV`` in a process of its own (a hook gets ``payload`` on stdin); stdout."""
    return subprocess.run(
        [sys.executable, "-m", "ovhooks", *argv],
        input=json.dumps(payload) if payload is not None else None,
        capture_output=True,
        text=True,
        env=hook_env(),
        cwd=cwd,
        check=True,
    ).stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.fixture
def viewer(project: Path) -> Iterator[Viewer]:
    for fact in FACTS:
        remember(fact, project)
    with running_viewer(env_for_viewer(), str(project)) as running:
        yield running


def test_nothing_without_the_token(viewer: Viewer) -> None:
    for path in ("/", "/memories", "/api/memories", "/static/app.js", "/why?prompt=x"):
        answer = viewer.get(path)
        assert answer.status == 403, path
        assert "tabs" not in answer.text


def test_the_printed_url_signs_in_and_sets_a_strict_cookie(viewer: Viewer) -> None:
    answer = viewer.get(f"/memories?token={viewer.token}&scope=user")
    assert answer.status == 303
    assert answer.headers["location"] == "/memories?scope=user"  # the token leaves the URL
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    viewer.cookie = cookie.split(";", 1)[0]
    page = viewer.get("/memories")
    assert page.status == 200 and all(fact in page.text for fact in FACTS)
    assert "default-src 'none'" in page.headers["content-security-policy"]


def test_the_printed_url_works_once(viewer: Viewer) -> None:
    """`ui --help` says one-time: a second browser (or anyone who read the URL in a shell
    history or a screenshot) gets nothing, while the signed-in browser carries on."""
    viewer.sign_in()
    signed_in = viewer.cookie
    viewer.cookie = ""
    again = viewer.get(f"/memories?token={viewer.token}")
    assert again.status == 403 and "set-cookie" not in again.headers
    assert "already used" in again.text and "tabs" not in again.text
    viewer.cookie = signed_in
    assert viewer.get("/memories").status == 200


def test_a_rebinding_host_or_foreign_origin_is_refused(viewer: Viewer) -> None:
    viewer.sign_in()
    assert viewer.request("GET", "/memories", headers={"Host": "evil.example"}).status == 421
    foreign = {"Origin": "http://evil.example"}
    assert viewer.request("GET", "/api/memories", headers=foreign).status == 403
    headers = {"X-CSRF-Token": viewer.csrf, "Origin": "http://evil.example"}
    uri = viewer.get("/api/memories").json()["items"][0]["uri"]
    refused = viewer.request("POST", "/api/memory/forget", {"uris": [uri]}, headers)
    assert refused.status == 403
    assert viewer.get("/api/memories").json()["total"] == len(FACTS)


def test_a_post_without_csrf_token_changes_nothing(viewer: Viewer) -> None:
    viewer.sign_in()
    uri = viewer.get("/api/memories").json()["items"][0]["uri"]
    answer = viewer.request("POST", "/api/memory/forget", {"uris": [uri]})
    assert answer.status == 403
    assert viewer.get("/api/memories").json()["total"] == len(FACTS)
    for method in ("PUT", "DELETE", "PATCH"):
        assert viewer.request(method, "/api/memory/forget").status in (403, 405)


def test_it_listens_on_loopback_only(viewer: Viewer) -> None:
    addresses = set()
    for info in socket.getaddrinfo(socket.gethostname(), None):
        address = str(info[4][0])
        if not address.startswith(("127.", "::1")) and "%" not in address:
            addresses.add(address)
    for address in addresses:
        with pytest.raises(OSError):
            socket.create_connection((address, viewer.port), timeout=2).close()
    socket.create_connection(("127.0.0.1", viewer.port), timeout=2).close()


def test_edit_is_read_back_and_scrubbed(viewer: Viewer, project: Path) -> None:
    viewer.sign_in()
    items = viewer.get("/api/memories").json()["items"]
    uri = next(i["uri"] for i in items if "6543" in i["abstract"])
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    new = f"Staging database moved to port 6544; token {secret}"
    answer = viewer.post("/api/memory/edit", {"uri": uri, "content": new})
    assert answer.status == 200 and answer.json()["scrubbed"] is True
    read = ovhooks("read", uri, cwd=project)
    assert "port 6544" in read and secret not in read
    assert secret not in viewer.get(f"/memory?uri={uri}").text


def test_forget_then_undo_restores_the_memory(viewer: Viewer) -> None:
    viewer.sign_in()
    uri = viewer.get("/api/memories").json()["items"][0]["uri"]
    before = viewer.get(f"/api/memory?uri={uri}").json()["content"]
    done = viewer.post("/api/memory/forget", {"uris": [uri]}).json()
    assert done["forgotten"] == [uri]
    assert viewer.get(f"/api/memory?uri={uri}").status == 404
    assert viewer.get("/api/memories").json()["total"] == len(FACTS) - 1
    restored = viewer.post("/api/memory/undo", {"undo": done["undo"]}).json()
    assert restored["restored"] == [uri]
    assert viewer.get(f"/api/memory?uri={uri}").json()["content"] == before
    again = viewer.post("/api/memory/undo", {"undo": done["undo"]})
    assert again.status == 410  # an undo is used once


def test_bulk_forget_by_filter_needs_the_confirmed_count(viewer: Viewer) -> None:
    viewer.sign_in()
    total = viewer.get("/api/memories?scope=user").json()["total"]
    stale = viewer.post("/api/memories/forget", {"scope": "user", "expect": total + 1})
    assert stale.status == 409
    assert viewer.post("/api/memories/forget", {"expect": total}).status == 400  # no filter
    done = viewer.post("/api/memories/forget", {"scope": "user", "expect": total}).json()
    assert len(done["forgotten"]) == total
    assert viewer.get("/api/memories").json()["total"] == 0
    viewer.post("/api/memory/undo", {"undo": done["undo"]})
    assert viewer.get("/api/memories").json()["total"] == total


def test_why_agrees_with_the_hook(viewer: Viewer, project: Path) -> None:
    viewer.sign_in()
    prompt = "tabs or spaces for this new file?"
    payload = {"session_id": "why-1", "cwd": str(project), "prompt": prompt}
    reply = ovhooks("user-prompt-submit", "--host", "codex", payload=payload, cwd=project)
    context = json.loads(reply)["hookSpecificOutput"]["additionalContext"]
    why = viewer.get(f"/api/why?prompt={prompt.replace(' ', '+').replace('?', '%3F')}").json()
    assert why["block"] == context
    injected = [r for r in why["rows"] if r["decision"] == "injected"]
    # a memory shown whole goes without its URI (recall.render): its text is the line
    lines = [f"] {r['text'].strip()}\n" for r in injected]
    assert injected and all(line in context for line in lines), (injected, context)


def test_the_hook_logs_its_decision_and_the_log_page_shows_it(
    viewer: Viewer, project: Path
) -> None:
    viewer.sign_in()
    for n, prompt in enumerate(
        ("which port does the staging database listen on?", "write a haiku about autumn")
    ):
        payload = {"session_id": f"log-{n}", "cwd": str(project), "prompt": prompt}
        ovhooks("user-prompt-submit", "--host", "claude", payload=payload, cwd=project)
    entries = viewer.get("/api/log?since=0").json()["entries"]
    assert [e["prompt"] for e in entries] == [
        "which port does the staging database listen on?",
        "write a haiku about autumn",
    ]
    assert entries[0]["items"] and "6543" not in json.dumps(entries[1]["items"])
    assert entries[1]["reason"] != "ok" and entries[1]["items"] == []
    page = viewer.get("/log").text
    assert (
        "which port does the staging database listen on?" in page
        and "write a haiku about autumn" in page
    )
    path = Path(os.environ["OVHOOKS_STATE_DIR"]) / "recall" / "journal.jsonl"
    assert path.stat().st_mode & 0o777 == 0o600


def test_no_secret_from_a_captured_turn_reaches_a_page(viewer: Viewer, project: Path) -> None:
    viewer.sign_in()
    secret = "sk-proj-" + "T3BlbkFJq8Vw2RkLm9XcYz4Hn7Gd1Sa5Pe6Qf0Ub3Ti8Mo2Lr"
    payload = {
        "session_id": "leak-1",
        "cwd": str(project),
        "prompt": f"use key {secret} for staging",
    }
    ovhooks("user-prompt-submit", "--host", "codex", payload=payload, cwd=project)
    for path in ("/log", "/api/log?since=0", "/sessions"):
        page = viewer.get(path)
        assert page.status == 200, (path, page.text[-300:])
        assert secret not in page.text, path


def test_a_running_session_without_a_commit_is_listed(viewer: Viewer, project: Path) -> None:
    """A session that has not committed yet (the usual case while it runs) has no extraction
    outcome: the sessions page and its own page still render, and name it."""
    payload = {"session_id": "running-1", "cwd": str(project), "source": "startup"}
    ovhooks("session-start", "--host", "codex", payload=payload, cwd=project)
    viewer.sign_in()
    listing = viewer.get("/sessions")
    assert listing.status == 200, listing.text[-500:]
    assert "running-1" in listing.text
    key = next(part.split('"')[0] for part in listing.text.split("/session?key=")[1:])
    page = viewer.get(f"/session?key={key}")
    assert page.status == 200, page.text[-500:]
    assert "running-1" in page.text


def test_every_page_renders(viewer: Viewer) -> None:
    viewer.sign_in()
    for path in (
        "/memories",
        "/memories?scope=user",
        "/memories?q=staging+port",
        "/why",
        "/why?prompt=staging+port",
        "/log",
        "/sessions",
        "/health",
    ):
        answer = viewer.get(path)
        assert answer.status == 200, (path, answer.text[-500:])
        assert '<script src="/static/app.js"' in answer.text
    assert viewer.get("/memory?uri=viking://user/default/memories/none.md").status == 404
    assert viewer.get("/memory?uri=not-a-uri").status == 400
    assert viewer.get("/session?key=../etc").status == 404
    assert viewer.get("/static/../pyproject.toml").status == 404


def test_the_next_session_start_preview_is_the_hooks_own_block(
    viewer: Viewer, project: Path
) -> None:
    viewer.sign_in()
    preview = viewer.get("/api/preview").json()["context"]
    payload = {"session_id": "start-1", "cwd": str(project), "source": "startup"}
    reply = ovhooks("session-start", "--host", "codex", "--dry-run", payload=payload, cwd=project)
    assert preview == json.loads(reply)["hookSpecificOutput"]["additionalContext"]
    assert all(fact in preview for fact in FACTS)


def _exchange(viewer: Viewer, raw: bytes) -> bytes:
    """``raw`` (one or more requests) on one connection, and all the server answers on it
    until it closes the connection or goes quiet."""
    with socket.create_connection(("127.0.0.1", viewer.port), timeout=5) as sock:
        sock.sendall(raw)
        got = b""
        sock.settimeout(1.5)
        try:
            while chunk := sock.recv(65536):
                got += chunk
        except TimeoutError:
            pass
    return got


def test_a_refused_body_is_never_read_as_the_next_request(viewer: Viewer) -> None:
    """A POST refused before its body is read (no CSRF token) and a PUT: the connection
    closes, so bytes of that body are never answered as a request of their own."""
    viewer.sign_in()
    head = f"Host: 127.0.0.1:{viewer.port}\r\nCookie: {viewer.cookie}\r\n"
    smuggled = f"GET /static/app.css HTTP/1.1\r\n{head}\r\n".encode()
    follow = f"GET /static/app.js HTTP/1.1\r\n{head}\r\n".encode()
    for method, path in (("POST", "/api/memory/forget"), ("PUT", "/api/memory/forget")):
        first = (
            f"{method} {path} HTTP/1.1\r\n{head}Content-Type: application/json\r\n"
            f"Content-Length: {len(smuggled)}\r\n\r\n"
        ).encode()
        got = _exchange(viewer, first + smuggled + follow)
        assert got.count(b"HTTP/1.1 ") == 1, got[:400]
        assert b"Connection: close" in got and b"text/css" not in got
    assert viewer.get("/static/app.js").status == 200  # and the server serves on


def test_a_nul_in_a_static_path_is_not_found(viewer: Viewer) -> None:
    viewer.sign_in()
    head = f"Host: 127.0.0.1:{viewer.port}\r\nCookie: {viewer.cookie}\r\n"
    got = _exchange(viewer, f"GET /static/app%00.js HTTP/1.1\r\n{head}\r\n".encode())
    got += _exchange(viewer, f"GET /static/app\x00.js HTTP/1.1\r\n{head}\r\n".encode())
    assert got.count(b"HTTP/1.1 404") == 2, got[:400]
    assert viewer.get("/static/app.js").status == 200


def test_a_uri_that_hides_what_it_names_is_shown_with_its_code_points(project: Path) -> None:
    """``remember`` refuses such a URI (rules.memory_uri), but one may reach the store
    another way (a server's extraction, an import): the viewer must not draw
    ``…/\\u202egnp.md`` as ``…/dm.png``, nor hide a zero-width joiner."""
    from ovhooks.backend.local import LocalBackend
    from ovhooks.ui.pages import visible

    base = "viking://user/default/memories/preferences/default"
    bidi, hidden = f"{base}/\u202egnp.md", f"{base}/zw\u200b\u200dname.md"
    store = LocalBackend(os.environ["OVHOOKS_DATA_DIR"])
    for uri in (bidi, hidden):
        store.write(uri, "A memory that arrived another way.\n")
    store.close()
    assert visible(bidi) == f"{base}/<U+202E>gnp.md" and visible(base) == base
    with running_viewer(env_for_viewer(), str(project)) as viewer:
        viewer.sign_in()
        pages = [viewer.get("/memories").text]
        pages += [viewer.get(f"/memory?uri={quote(uri)}").text for uri in (bidi, hidden)]
    shown = f'id="uri">{base}/&lt;U+202E&gt;gnp.md</p>'
    assert shown in pages[1], pages[1][:2000]
    assert f'id="uri">{base}/zw&lt;U+200B&gt;&lt;U+200D&gt;name.md</p>' in pages[2]
    assert f'<div class="uri">{base}/&lt;U+202E&gt;gnp.md</div>' in pages[0]


def test_a_second_host_header_is_refused_whichever_comes_last(viewer: Viewer) -> None:
    # A campaign: "Host: evil.example" then the bound Host was answered 200 (the checks read
    # the last); the spec refuses a request with two Host headers.
    viewer.sign_in()
    ours = f"Host: 127.0.0.1:{viewer.port}\r\n"
    for hosts in (f"Host: evil.example\r\n{ours}", f"{ours}Host: evil.example\r\n", ours * 2):
        raw = f"GET /static/app.css HTTP/1.1\r\n{hosts}Cookie: {viewer.cookie}\r\n\r\n"
        got = _exchange(viewer, raw.encode())
        assert got.startswith(b"HTTP/1.1 400 "), got[:200]
    assert viewer.get("/static/app.css").status == 200


def test_an_idle_connection_is_closed(viewer: Viewer) -> None:
    # Each idle connection held a thread for as long as its client liked (2,000 held 51 MB).
    from ovhooks.ui.server import Handler

    assert 0 < Handler.timeout <= 60
    with socket.create_connection(("127.0.0.1", viewer.port), timeout=Handler.timeout + 10) as s:
        s.sendall(b"GET / HTTP/1.1\r\n")  # half a request, then nothing
        started = time.monotonic()
        assert s.recv(1024) == b""  # closed by the server, without an answer
        assert time.monotonic() - started < Handler.timeout + 5
