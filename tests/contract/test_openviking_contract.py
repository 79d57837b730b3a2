"""Contract test: every OpenViking 0.5.2 request and response shape that ovhooks relies on.

These tests talk to the real server with plain httpx (never through ovhooks), so that a server
change that would break ovhooks fails here first, naming the route and the missing field.
Each test also runs against the fake server (tests/support/fake_openviking.py) that the fast
tests use, so the fake cannot drift from the real one; only the extraction pipeline, which
the fake leaves out on purpose, is pinned against the real server alone.
Facts pinned here come from ``shared/spec/openviking-api.md`` §A; where 0.5.2 differs from the
upstream docs, the test says so.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import httpx
import pytest

from tests.support import ov_server
from tests.support.fake_openviking import FakeOpenViking
from tests.support.fake_openviking_api import VERSION
from tests.support.fake_openviking_auth import AuthFakeOpenViking

# The real server's variants carry the real_server marker (skipped without its cache); the
# fake's run everywhere.
TARGETS = [pytest.param("real", marks=pytest.mark.real_server), "fake"]


@pytest.fixture(scope="module")
def contract_server(ov_venv: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A capture-only real server of this module's own. In whole-suite runs the shared one
    (``ov_server_capture``) answered every embedding here with an error (its model stub's
    answers had no ``data``) while this file alone passed; the cause is still open, so the
    contract is pinned on a server nothing else has used."""
    from tests.support.pytest_plugin import _start, _stop

    server = _start(ov_venv, tmp_path_factory, "capture")
    yield server
    _stop(server, "capture, contract")


@pytest.fixture(params=TARGETS)
def base_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The capture-only real server, or a fresh fake one."""
    if request.param == "real":
        yield request.getfixturevalue("contract_server").url
        return
    fake = FakeOpenViking().start()
    yield fake.url
    fake.stop()


@pytest.fixture
def client(base_url: str, ov_user: str) -> Iterator[httpx.Client]:
    """An httpx client as this test's own user (dev mode honours ``X-OpenViking-User``)."""
    with httpx.Client(
        base_url=base_url, headers={"X-OpenViking-User": ov_user}, timeout=30.0
    ) as http:
        yield http


def auth_server(request: pytest.FixtureRequest, mode: str) -> Iterator[tuple[str, str]]:
    """``(url, root key)`` of a server in ``mode`` (``api_key`` or ``trusted``)."""
    if request.param == "real":
        server = request.getfixturevalue(f"ov_server_{mode}")
        yield server.url, server.root_api_key
        return
    fake = AuthFakeOpenViking(mode, root_key=f"root-{uuid.uuid4().hex}").start()
    yield fake.url, fake.root_key
    fake.stop()


@pytest.fixture(params=TARGETS)
def api_key_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    yield from auth_server(request, "api_key")


@pytest.fixture(params=TARGETS)
def trusted_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    yield from auth_server(request, "trusted")


# ---------------------------------------------------------------------------------------
# Readable shape assertions
# ---------------------------------------------------------------------------------------


def assert_has_keys(actual: Any, required: Iterable[str], where: str) -> None:
    """Fail with the missing keys and the keys that were there, not a 40-line dict diff."""
    assert isinstance(actual, Mapping), f"{where}: expected an object, got {type(actual).__name__}"
    missing = sorted(set(required) - set(actual))
    assert not missing, (
        f"{where}: missing {missing}\n  present: {sorted(actual)}\n  value: {dict(actual)!r:.800}"
    )


def assert_lacks_keys(actual: Mapping[str, Any], forbidden: Iterable[str], where: str) -> None:
    unexpected = sorted(set(forbidden) & set(actual))
    assert not unexpected, f"{where}: unexpected keys {unexpected}; present: {sorted(actual)}"


def ok_result(response: httpx.Response, where: str) -> Any:
    """The ``result`` of a 200 ``{"status":"ok","result":…}`` envelope."""
    assert response.status_code == 200, (
        f"{where}: HTTP {response.status_code}, body {response.text[:800]}"
    )
    document = response.json()
    assert_has_keys(document, {"status", "result"}, f"{where} envelope")
    assert document["status"] == "ok", f"{where}: status {document['status']!r}: {document!r:.800}"
    assert document.get("error") is None, f"{where}: error set on success: {document['error']!r}"
    # 0.5.2 has no "time" field although the upstream docs show one.
    assert_lacks_keys(document, {"time"}, f"{where} envelope")
    return document["result"]


def error_of(response: httpx.Response, http_status: int, code: str, where: str) -> dict[str, Any]:
    """The ``error`` of a ``{"status":"error","error":{code,message}}`` envelope."""
    assert response.status_code == http_status, (
        f"{where}: expected HTTP {http_status}, got {response.status_code}: {response.text[:800]}"
    )
    document = response.json()
    assert_has_keys(document, {"status", "error"}, f"{where} error envelope")
    assert document["status"] == "error", f"{where}: status {document['status']!r}"
    error = document["error"]
    assert_has_keys(error, {"code", "message"}, f"{where} error")
    assert error["code"] == code, f"{where}: error code {error['code']!r}, wanted {code!r}: {error}"
    assert isinstance(error["message"], str) and error["message"], f"{where}: empty message"
    return dict(error)


def text_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "text": text}]}


def add_batch(client: httpx.Client, session_id: str, messages: list[dict[str, Any]]) -> Any:
    response = client.post(
        f"/api/v1/sessions/{session_id}/messages/batch", json={"messages": messages}
    )
    return ok_result(response, "POST messages/batch")


SESSION_INFO_KEYS = {
    "session_id",
    "message_count",
    "total_message_count",
    "commit_count",
    "pending_tokens",
    "memories_extracted",
    "last_commit_at",
    "uri",
    "user",
}
COMMIT_ACCEPTED_KEYS = {"session_id", "status", "task_id", "archive_uri", "archived"}
TASK_KEYS = {"task_id", "task_type", "status", "stage", "resource_id", "result", "error"}
FIND_HIT_KEYS = {"context_type", "uri", "level", "score", "abstract"}
CONTEXT_ENTRY_KEYS = {"uri", "category", "score", "detail", "text"}
LS_ENTRY_KEYS = {"uri", "isDir", "abstract", "size", "modTime"}


# ---------------------------------------------------------------------------------------
# Health, status, envelopes and errors
# ---------------------------------------------------------------------------------------


def test_health_is_not_enveloped_and_reports_the_pinned_version(base_url: str):
    response = httpx.get(f"{base_url}/health", timeout=5)
    assert response.status_code == 200
    health = response.json()
    assert_has_keys(health, {"status", "healthy", "version", "auth_mode"}, "GET /health")
    assert_lacks_keys(health, {"result"}, "GET /health")
    assert health["healthy"] is True
    assert health["version"] == ov_server.OV_VERSION == VERSION
    assert health["auth_mode"] == "dev"


def test_system_status_names_the_calling_user(client: httpx.Client, ov_user: str):
    status = ok_result(client.get("/api/v1/system/status"), "GET /system/status")
    assert_has_keys(status, {"initialized", "user"}, "system/status result")
    assert status["user"] == ov_user, "dev mode must honour X-OpenViking-User"
    assert status["initialized"] is True


def test_unknown_session_is_a_404_not_found_error(client: httpx.Client):
    error = error_of(client.get("/api/v1/sessions/does-not-exist"), 404, "NOT_FOUND", "GET session")
    assert "does-not-exist" in error["message"]


def test_extra_find_field_top_k_is_a_400_invalid_argument(client: httpx.Client):
    # find's request model forbids extra fields: ovhooks must send "limit", never "top_k".
    response = client.post("/api/v1/search/find", json={"query": "x", "top_k": 3})
    error_of(response, 400, "INVALID_ARGUMENT", "POST find with top_k")


def test_recreating_a_session_id_is_a_409(client: httpx.Client, ov_session_id: str):
    created = ok_result(
        client.post("/api/v1/sessions", json={"session_id": ov_session_id}),
        "POST /sessions",
    )
    assert_has_keys(created, {"session_id", "uri", "user"}, "POST /sessions result")
    assert created["session_id"] == ov_session_id
    again = client.post("/api/v1/sessions", json={"session_id": ov_session_id})
    error_of(again, 409, "ALREADY_EXISTS", "POST /sessions twice")


# ---------------------------------------------------------------------------------------
# Capture: messages
# ---------------------------------------------------------------------------------------


def test_batch_add_auto_creates_the_session_and_counts(
    client: httpx.Client, ov_session_id: str, ov_user: str
):
    result = add_batch(
        client,
        ov_session_id,
        [text_message("user", "first question"), text_message("assistant", "first answer")],
    )
    assert_has_keys(
        result, {"session_id", "message_count", "added", "pending_tokens"}, "batch result"
    )
    assert result["session_id"] == ov_session_id
    assert result["added"] == 2
    assert result["message_count"] == 2
    assert isinstance(result["pending_tokens"], int) and result["pending_tokens"] > 0

    info = ok_result(client.get(f"/api/v1/sessions/{ov_session_id}"), "GET session")
    assert_has_keys(info, SESSION_INFO_KEYS, "session info")
    assert info["message_count"] == 2
    assert info["total_message_count"] == 2
    assert info["commit_count"] == 0
    assert info["pending_tokens"] == result["pending_tokens"]
    assert info["uri"] == f"viking://user/{ov_user}/sessions/{ov_session_id}"


def test_batch_of_100_is_accepted_and_101_is_a_400(client: httpx.Client, ov_session_id: str):
    hundred = [text_message("user", f"message {i}") for i in range(100)]
    assert add_batch(client, ov_session_id, hundred)["added"] == 100
    response = client.post(
        f"/api/v1/sessions/{ov_session_id}/messages/batch",
        json={"messages": [*hundred, text_message("user", "one too many")]},
    )
    error_of(response, 400, "INVALID_ARGUMENT", "batch of 101")


def test_single_message_add_accepts_content_and_parts(client: httpx.Client, ov_session_id: str):
    path = f"/api/v1/sessions/{ov_session_id}/messages"
    first = ok_result(
        client.post(path, json={"role": "user", "content": "plain content"}),
        "POST messages (content)",
    )
    assert_has_keys(first, {"session_id", "message_count", "pending_tokens"}, "message result")
    assert first["message_count"] == 1
    second = ok_result(
        client.post(path, json=text_message("assistant", "parts content")),
        "POST messages (parts)",
    )
    assert second["message_count"] == 2


def test_session_context_returns_live_messages_with_parts(client: httpx.Client, ov_session_id: str):
    add_batch(
        client,
        ov_session_id,
        [text_message("user", "context question"), text_message("assistant", "context answer")],
    )
    context = ok_result(
        client.get(f"/api/v1/sessions/{ov_session_id}/context", params={"token_budget": 4000}),
        "GET session context",
    )
    assert_has_keys(
        context,
        {
            "latest_archive_overview",
            "pre_archive_abstracts",
            "messages",
            "estimatedTokens",
            "stats",
        },
        "session context",
    )
    assert_has_keys(
        context["stats"],
        {"totalArchives", "includedArchives", "droppedArchives", "activeTokens", "archiveTokens"},
        "session context stats",
    )
    messages = context["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    for message in messages:
        assert_has_keys(message, {"id", "role", "parts", "created_at"}, "context message")
    assert messages[0]["parts"][0]["type"] == "text"
    assert messages[0]["parts"][0]["text"] == "context question"


# ---------------------------------------------------------------------------------------
# Commit and tasks
# ---------------------------------------------------------------------------------------


def test_commit_is_accepted_archives_and_its_task_completes(
    client: httpx.Client, ov_session_id: str, ov_user: str
):
    add_batch(
        client,
        ov_session_id,
        [text_message("user", "commit me"), text_message("assistant", "committed")],
    )
    commit = ok_result(
        client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}), "POST commit"
    )
    assert_has_keys(commit, COMMIT_ACCEPTED_KEYS, "commit result")
    assert commit["status"] == "accepted"
    assert commit["archived"] is True
    assert isinstance(commit["task_id"], str) and commit["task_id"]
    assert commit["archive_uri"] == (
        f"viking://user/{ov_user}/sessions/{ov_session_id}/history/archive_001"
    )

    task_response = client.get(f"/api/v1/tasks/{commit['task_id']}")
    assert_has_keys(ok_result(task_response, "GET task"), TASK_KEYS, "task")
    task = ov_server.wait_for_task(client, commit["task_id"])
    assert task["status"] == "completed", task
    assert task["task_type"] == "session_commit"
    assert task["resource_id"] == ov_session_id
    # Capture-only profile: extraction is off, so nothing is extracted.
    assert task["result"]["memories_extracted"] in ({}, None) or not any(
        task["result"]["memories_extracted"].values()
    )

    info = ok_result(client.get(f"/api/v1/sessions/{ov_session_id}"), "GET session")
    assert info["commit_count"] == 1
    assert info["message_count"] == 0, "live messages move into the archive on commit"
    assert info["total_message_count"] == 2
    assert info["pending_tokens"] == 0

    listed = ok_result(
        client.get(
            "/api/v1/tasks",
            params={"task_type": "session_commit", "resource_id": ov_session_id},
        ),
        "GET tasks",
    )
    assert [t["task_id"] for t in listed] == [commit["task_id"]]


def test_commit_of_an_empty_session_is_skipped(client: httpx.Client, ov_session_id: str):
    ok_result(
        client.post("/api/v1/sessions", json={"session_id": ov_session_id}),
        "POST /sessions",
    )
    commit = ok_result(
        client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}),
        "POST commit (empty)",
    )
    assert commit["status"] == "skipped"
    assert commit["task_id"] is None
    assert commit["archive_uri"] is None
    assert commit.get("reason") == "no_messages"


def test_commit_of_an_unknown_session_is_a_404(client: httpx.Client, ov_session_id: str):
    # Unlike /messages, commit does not auto-create the session.
    response = client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={})
    error_of(response, 404, "NOT_FOUND", "POST commit (unknown)")


def test_a_second_commit_archives_only_new_messages(client: httpx.Client, ov_session_id: str):
    add_batch(client, ov_session_id, [text_message("user", "round one")])
    first = ok_result(client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}), "commit 1")
    add_batch(client, ov_session_id, [text_message("user", "round two")])
    second = ok_result(client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}), "commit 2")
    assert second["archive_uri"].endswith("/history/archive_002")
    for commit in (first, second):
        assert ov_server.wait_for_task(client, commit["task_id"])["status"] == "completed"
    info = ok_result(client.get(f"/api/v1/sessions/{ov_session_id}"), "GET session")
    assert (info["commit_count"], info["total_message_count"]) == (2, 2)

    for number, text in ((1, "round one"), (2, "round two")):
        archive = ok_result(
            client.get(f"/api/v1/sessions/{ov_session_id}/archives/archive_00{number}"),
            "GET archive",
        )
        assert_has_keys(archive, {"archive_id", "abstract", "overview", "messages"}, "archive")
        assert [m["parts"][0]["text"] for m in archive["messages"]] == [text]

    sessions = ok_result(client.get("/api/v1/sessions"), "GET /sessions")
    for entry in sessions:
        assert_has_keys(entry, {"session_id", "uri", "is_dir"}, "session list entry")
    assert ov_session_id in {s["session_id"] for s in sessions}


# ---------------------------------------------------------------------------------------
# Content, filesystem and retrieval (memories seeded with content/write: no LLM needed)
# ---------------------------------------------------------------------------------------


def write_memory(client: httpx.Client, uri: str, content: str) -> Any:
    response = client.post(
        "/api/v1/content/write",
        json={"uri": uri, "content": content, "mode": "create", "wait": True},
    )
    return ok_result(response, "POST content/write")


@pytest.fixture
def seeded_memory(client: httpx.Client, ov_user: str) -> str:
    uri = f"viking://user/{ov_user}/memories/preferences/{ov_user}/indentation.md"
    result = write_memory(
        client, uri, "- In this repo the user always indents with tabs, never spaces."
    )
    assert_has_keys(
        result,
        {"uri", "root_uri", "context_type", "mode", "written_bytes", "content_updated"},
        "content/write result",
    )
    assert result["uri"] == uri
    assert result["context_type"] == "memory"
    ov_server.drain_queues(client)
    return uri


def test_content_read_returns_the_text(client: httpx.Client, seeded_memory: str):
    text = ok_result(
        client.get("/api/v1/content/read", params={"uri": seeded_memory}),
        "GET content/read",
    )
    assert text == "- In this repo the user always indents with tabs, never spaces."
    missing = client.get(
        "/api/v1/content/read", params={"uri": seeded_memory.replace("indentation", "nope")}
    )
    error_of(missing, 404, "NOT_FOUND", "content/read of a missing file")


def test_deleting_a_missing_file_succeeds_with_a_count_of_0(
    client: httpx.Client, seeded_memory: str
):
    """0.5.2 answers a DELETE of a path that holds nothing with success; only its count
    and a stat tell (``OpenVikingBackend.delete`` reads both)."""
    missing = seeded_memory.replace("indentation", "never-written")
    gone = ok_result(client.delete("/api/v1/fs", params={"uri": missing}), "DELETE fs (missing)")
    assert gone["estimated_deleted_count"] == 0
    error_of(client.get("/api/v1/fs/stat", params={"uri": missing}), 404, "NOT_FOUND", "stat")
    stat = ok_result(client.get("/api/v1/fs/stat", params={"uri": seeded_memory}), "fs/stat")
    assert stat["isDir"] is False and stat["uri"] == seeded_memory
    done = ok_result(client.delete("/api/v1/fs", params={"uri": seeded_memory}), "DELETE fs")
    assert done["estimated_deleted_count"] == 1


@pytest.mark.real_server
def test_a_recursive_listing_stops_three_levels_down(contract_server: Any, ov_user: str) -> None:
    """Events are filed four levels below their folder (events/YYYY/MM/DD/x.md), and the
    server's recursive fs/ls reaches three: the file is not in the listing of ``events``,
    only its day folder (``OpenVikingBackend.ls`` lists such folders again). The fake lists
    files only, flat, and does not model this."""
    root = f"viking://user/{ov_user}/memories/events"
    uri = f"{root}/2026/11/30/standup-moved.md"
    with httpx.Client(
        base_url=contract_server.url, headers={"X-OpenViking-User": ov_user}, timeout=30.0
    ) as http:
        write_memory(http, uri, "- the standup moved to 10:00")
        listed = ok_result(
            http.get("/api/v1/fs/ls", params={"uri": root, "recursive": True, "output": "agent"}),
            "GET fs/ls recursive",
        )
    rel = {e["rel_path"]: e["isDir"] for e in listed}
    assert rel == {"2026": True, "2026/11": True, "2026/11/30": True}, rel


def test_fs_ls_lists_entries_with_abstracts(client: httpx.Client, seeded_memory: str, ov_user: str):
    response = client.get(
        "/api/v1/fs/ls", params={"uri": f"viking://user/{ov_user}/memories/preferences/{ov_user}"}
    )
    entries = ok_result(response, "GET fs/ls")
    assert "has_more" in response.json(), "listing routes add has_more to the envelope"
    assert isinstance(entries, list) and entries
    for entry in entries:
        assert_has_keys(entry, LS_ENTRY_KEYS, "fs/ls entry")
    by_uri = {e["uri"]: e for e in entries}
    assert seeded_memory in by_uri, sorted(by_uri)
    assert by_uri[seeded_memory]["isDir"] is False


def test_find_returns_memory_hits_ranked_by_overlap(
    client: httpx.Client, seeded_memory: str, ov_user: str
):
    result = ok_result(
        client.post(
            "/api/v1/search/find",
            json={
                "query": "does the user indent with tabs or spaces",
                "target_uri": f"viking://user/{ov_user}/memories",
                "limit": 10,
            },
        ),
        "POST find",
    )
    assert_has_keys(result, {"memories", "resources", "skills", "total"}, "find result")
    hits = result["memories"]
    assert hits, f"no memory hits: {result}"
    for hit in hits:
        assert_has_keys(hit, FIND_HIT_KEYS, "find hit")
    # 0.5.2 drops overview/category/match_reason from hits (the docs list them).
    assert_lacks_keys(hits[0], {"category", "match_reason"}, "find hit")
    leaves = [h for h in hits if h["level"] == 2]
    assert leaves[0]["uri"] == seeded_memory
    assert "tabs" in leaves[0]["abstract"]
    assert 0.5 < leaves[0]["score"] <= 1.0


def _context_search(client: httpx.Client, **extra: Any) -> Any:
    body = {"query": "indent with tabs or spaces", "mode": "context", "purpose": "coding"}
    return ok_result(
        client.post("/api/v1/search/search", json={**body, **extra}), "POST search mode=context"
    )


def test_search_context_mode_returns_rendered_entries(client: httpx.Client, seeded_memory: str):
    result = _context_search(client, max_tokens=800)
    assert_has_keys(result, {"entries", "rendered", "stats"}, "search context result")
    entries = result["entries"]
    for entry in entries:
        assert_has_keys(entry, CONTEXT_ENTRY_KEYS, "context entry")
    memory_entries = [e for e in entries if e["uri"] == seeded_memory]
    assert memory_entries, [e["uri"] for e in entries]
    assert memory_entries[0]["category"] == "preferences"
    assert "tabs" in memory_entries[0]["text"]
    assert f'uri="{seeded_memory}"' in result["rendered"]
    assert result["rendered"].lstrip().startswith("<memory ")


def test_search_context_mode_takes_quotas_beside_the_purpose(
    client: httpx.Client, seeded_memory: str
):
    """Recall with semantics on asks for a wider pool this way (``recall.retrieve``)."""
    from ovhooks.recall.retrieve import WIDE_MAX_TOKENS, wide_quotas

    result = _context_search(client, quotas=wide_quotas(False), max_tokens=WIDE_MAX_TOKENS)
    assert [e for e in result["entries"] if e["uri"] == seeded_memory], result["entries"]


def test_search_context_mode_rejects_target_uri(client: httpx.Client, ov_user: str):
    response = client.post(
        "/api/v1/search/search",
        json={"query": "x", "mode": "context", "target_uri": f"viking://user/{ov_user}"},
    )
    error_of(response, 400, "INVALID_ARGUMENT", "search context with target_uri")


# ---------------------------------------------------------------------------------------
# Full pipeline: commit -> stub extraction -> memory files -> find
# ---------------------------------------------------------------------------------------


def test_commit_extracts_a_preference_memory_that_find_returns(
    full_client: httpx.Client, ov_session_id: str, ov_user: str
):
    add_batch(
        full_client,
        ov_session_id,
        [
            text_message("user", "Remember: in this repo I always use tabs, never spaces"),
            text_message("assistant", "Noted: tabs, not spaces."),
        ],
    )
    commit = ok_result(
        full_client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}), "POST commit"
    )
    task = ov_server.wait_for_task(full_client, commit["task_id"])
    assert task["status"] == "completed", task
    assert_has_keys(task["result"], {"memories_extracted", "memory_diff_uri"}, "task result")
    assert task["result"]["memories_extracted"].get("memory_write", 0) >= 1, task["result"]

    info = ok_result(full_client.get(f"/api/v1/sessions/{ov_session_id}"), "GET session")
    assert info["memories_extracted"].get("memory_write", 0) >= 1, info["memories_extracted"]

    ov_server.drain_queues(full_client)
    memories_root = f"viking://user/{ov_user}/memories"
    files = ok_result(
        full_client.get(
            "/api/v1/fs/ls", params={"uri": f"{memories_root}/preferences", "recursive": "true"}
        ),
        "GET fs/ls recursive",
    )
    preference_files = [e["uri"] for e in files if not e["isDir"] and e["uri"].endswith(".md")]
    assert preference_files, files
    texts = [
        ok_result(full_client.get("/api/v1/content/read", params={"uri": u}), "read")
        for u in preference_files
    ]
    assert any("always use tabs, never spaces" in t for t in texts), texts

    hits = ok_result(
        full_client.post(
            "/api/v1/search/find",
            json={"query": "tabs or spaces for indentation", "target_uri": memories_root},
        ),
        "POST find",
    )["memories"]
    leaves = [h for h in hits if h["level"] == 2]
    assert leaves and leaves[0]["uri"] in preference_files, hits
    assert "memory_type=preferences" in leaves[0].get("tags", [])


# ---------------------------------------------------------------------------------------
# Auth: api_key mode (what ovhooks sees with a user key)
# ---------------------------------------------------------------------------------------


def test_api_key_mode_user_keys_fix_identity(api_key_server: tuple[str, str]):
    url, root_key = api_key_server
    assert root_key
    account = f"acct-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=url, timeout=30.0) as anonymous:
        error_of(anonymous.get("/api/v1/system/status"), 401, "UNAUTHENTICATED", "no key")
        error_of(
            anonymous.get("/api/v1/system/status", headers={"X-API-Key": "wrong"}),
            401,
            "UNAUTHENTICATED",
            "bad key",
        )
        # The root key is for admin routes only: data routes refuse it.
        error_of(
            anonymous.get("/api/v1/sessions", headers={"Authorization": f"Bearer {root_key}"}),
            403,
            "PERMISSION_DENIED",
            "root key on a data route",
        )
        created = ok_result(
            anonymous.post(
                "/api/v1/admin/accounts",
                json={"account_id": account, "admin_user_id": "alice"},
                headers={"X-API-Key": root_key},
            ),
            "POST admin/accounts",
        )
        assert_has_keys(created, {"user_key"}, "admin/accounts result")
        user_key = created["user_key"]
        for headers in ({"Authorization": f"Bearer {user_key}"}, {"X-API-Key": user_key}):
            status = ok_result(
                anonymous.get(
                    "/api/v1/system/status", headers={**headers, "X-OpenViking-User": "mallory"}
                ),
                f"system/status with {sorted(headers)[0]}",
            )
            assert status["user"] == "alice", "a user key fixes the identity; headers are ignored"


def test_trusted_mode_needs_the_root_key_and_both_tenant_headers(
    trusted_server: tuple[str, str],
):
    url, root_key = trusted_server
    assert root_key
    user = f"user-{uuid.uuid4().hex[:8]}"
    tenant = {"X-OpenViking-Account": "default", "X-OpenViking-User": user}
    with httpx.Client(base_url=url, timeout=30.0) as client:
        error_of(
            client.get("/api/v1/system/status", headers=tenant), 401, "UNAUTHENTICATED", "no key"
        )
        error_of(
            client.get("/api/v1/system/status", headers={"X-API-Key": root_key}),
            400,
            "INVALID_ARGUMENT",
            "trusted mode without tenant headers",
        )
        for key_header in ({"Authorization": f"Bearer {root_key}"}, {"X-API-Key": root_key}):
            status = ok_result(
                client.get("/api/v1/system/status", headers={**key_header, **tenant}),
                f"system/status with {sorted(key_header)[0]}",
            )
            assert status["user"] == user, "trusted mode takes the identity from the headers"


def test_turn_id_is_kept_with_each_message_live_and_archived(
    client: httpx.Client, ov_session_id: str
):
    """ovhooks marks every message it sends in ``turn_id`` and, after a crash mid-send, reads
    the marks back to decide whether the batch landed: in the live context (which also holds
    archives still being processed) and, once a commit archived them, in the archive's
    ``messages.jsonl`` under the caller's own root (``viking://session/...`` is refused)."""
    marked = [dict(text_message("user", f"marked {i}"), turn_id=f"ovh1:b:{i}") for i in range(2)]
    add_batch(client, ov_session_id, marked)
    context = ok_result(
        client.get(f"/api/v1/sessions/{ov_session_id}/context", params={"token_budget": 10**6}),
        "GET context",
    )
    assert [m.get("turn_id") for m in context["messages"]] == ["ovh1:b:0", "ovh1:b:1"]
    commit = ok_result(client.post(f"/api/v1/sessions/{ov_session_id}/commit", json={}), "commit")
    assert ov_server.wait_for_task(client, commit["task_id"])["status"] == "completed"
    context = ok_result(
        client.get(f"/api/v1/sessions/{ov_session_id}/context", params={"token_budget": 10**6}),
        "GET context after the commit",
    )
    assert context["messages"] == [] and context["stats"]["totalArchives"] == 1
    history = f"viking://~/sessions/{ov_session_id}/history"
    text = ok_result(
        client.get("/api/v1/content/read", params={"uri": f"{history}/archive_001/messages.jsonl"}),
        "read archive messages",
    )
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert [m.get("turn_id") for m in lines] == ["ovh1:b:0", "ovh1:b:1"]
    missing = client.get(
        "/api/v1/content/read", params={"uri": f"{history}/archive_002/messages.jsonl"}
    )
    assert missing.status_code == 404
