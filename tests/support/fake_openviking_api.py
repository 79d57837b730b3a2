"""The OpenViking 0.5.2 API of the fake server: sessions, commits and their tasks, content,
listing and a word-overlap search, answered from memory.

The contract tests run against this as well as against the real server
(tests/contract/test_openviking_contract.py), so every shape here is one the real server
gives. What the fake leaves out on purpose: memory extraction (a commit's task completes
with nothing extracted, as the real capture-only profile does) and embeddings (search scores
by shared words, ``0.5 + 0.5 * share``, the way the real server's hash stub scores unrelated
text at about 0.5).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any
from urllib.parse import unquote

from tests.support.fake_openviking_search import FakeSearch

VERSION = "0.5.2"


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


class FakeOpenVikingApi(FakeSearch):
    """Routes and data; the transport (failure modes, TLS) is ``FakeOpenViking``'s."""

    def _init_data(self) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.files: dict[str, str] = {}
        self.tasks: dict[str, dict[str, Any]] = {}
        # Returned by every search; an entry with "_matches" (words) keeps its score only for
        # queries containing one of them and scores 0.5 (unrelated) otherwise, as a real
        # server does for the probe prompts recall calibrates with.
        self.search_entries: list[dict[str, Any]] = []
        self.caller = "default"  # the user of the request being answered (set per request)

    # --- helpers for tests ------------------------------------------------------------------
    def messages(self, session_id: str) -> list[dict[str, Any]]:
        """Every message the session ever received (live and archived), in order."""
        session = self.sessions.get(session_id)
        if not session:
            return []
        archived: list[dict[str, Any]] = [m for archive in session["archives"] for m in archive]
        return archived + list(session["messages"])

    def texts(self, session_id: str) -> list[str]:
        return [_text_of(message) for message in self.messages(session_id)]

    # --- building blocks --------------------------------------------------------------------
    def _session(self, sid: str) -> dict[str, Any]:
        return self.sessions.setdefault(
            sid,
            {
                "messages": [],
                "archives": [],
                "commit_count": 0,
                "overview": "",
                "pending_tokens": 0,
                "archived_count": 0,
                "user": self.caller,
                "last_commit_at": None,
            },
        )

    @staticmethod
    def _tokens(message: Any) -> int:
        return len(json.dumps(message)) // 4

    def _append(self, session: dict[str, Any], messages: list[Any]) -> None:
        """Store live messages and keep the session's pending-token count as a running sum:
        recounting every stored message per request made a long session's capture quadratic
        (one test spent 144 s in this server)."""
        session["messages"].extend(messages)
        session["pending_tokens"] += sum(self._tokens(m) for m in messages)

    def _session_uri(self, sid: str) -> str:
        user = self.sessions[sid]["user"] if sid in self.sessions else self.caller
        return f"viking://user/{user}/sessions/{sid}"

    @staticmethod
    def _shown(message: Any, sid: str, index: int) -> dict[str, Any]:
        """A stored message as the server shows it: ``content`` becomes a text part."""
        doc = message if isinstance(message, dict) else {}
        parts = doc.get("parts")
        if not isinstance(parts, list):
            parts = [{"type": "text", "text": str(doc.get("content", ""))}]
        shown = {
            "id": f"{sid}-msg-{index}",
            "role": doc.get("role", "user"),
            "parts": parts,
            "created_at": doc.get("created_at") or _iso(0),
        }
        # the server keeps these with the message and shows them where they were given
        for field in ("peer_id", "turn_id", "message_kind", "source_message_ids"):
            if doc.get(field) is not None:
                shown[field] = doc[field]
        return shown

    # --- routing ----------------------------------------------------------------------------
    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == "/health":
            return 200, {"status": "ok", "healthy": True, "version": VERSION, "auth_mode": "dev"}
        if path == "/api/v1/system/status":
            return self._ok({"initialized": True, "user": self.caller})
        if path == "/api/v1/system/wait" and method == "POST":
            return self._ok({})  # nothing is ever queued here
        parts = [unquote(p) for p in path.split("/") if p]
        if parts[:3] == ["api", "v1", "sessions"]:
            return self._sessions_route(method, parts[3:], body)
        if parts[:3] == ["api", "v1", "tasks"]:
            return self._tasks_route(parts[3:], query)
        if path.startswith("/api/v1/search/"):
            kind = path.rsplit("/", 1)[1]
            return self._search_route(kind, body if isinstance(body, dict) else {})
        return self._content_route(method, path, query, body)

    def _sessions_route(self, method: str, rest: list[str], body: Any) -> tuple[int, Any]:
        body = body if isinstance(body, (dict, list)) else {}
        if not rest:
            if method == "POST":
                return self._create_session(body)
            return self._ok(
                [
                    {"session_id": sid, "uri": self._session_uri(sid), "is_dir": True}
                    for sid, s in self.sessions.items()
                    if s["user"] == self.caller
                ]
            )
        sid, rest = rest[0], rest[1:]
        if rest == ["messages", "batch"] and method == "POST":
            messages = body.get("messages") or [] if isinstance(body, dict) else []
            if len(messages) > 100:
                return self._err(400, "INVALID_ARGUMENT", "too many messages")
            session = self._session(sid)
            self._append(session, messages)
            return self._ok(
                {
                    "session_id": sid,
                    "message_count": len(session["messages"]),
                    "added": len(messages),
                    "pending_tokens": session["pending_tokens"],
                }
            )
        if rest == ["messages"] and method == "POST":
            session = self._session(sid)
            self._append(session, [body])
            return self._ok(
                {
                    "session_id": sid,
                    "message_count": len(session["messages"]),
                    "pending_tokens": session["pending_tokens"],
                }
            )
        if rest == ["commit"] and method == "POST":
            return self._commit(sid)
        found = self.sessions.get(sid)
        if found is None:
            return self._err(404, "NOT_FOUND", f"Session {sid} not found")
        if rest == ["context"] and method == "GET":
            return self._ok(self._context(sid, found))
        if len(rest) == 2 and rest[0] == "archives" and method == "GET":
            return self._archive(sid, found, rest[1])
        if not rest and method == "GET":
            return self._ok(
                {
                    "session_id": sid,
                    "message_count": len(found["messages"]),
                    "total_message_count": found["archived_count"] + len(found["messages"]),
                    "commit_count": found["commit_count"],
                    "pending_tokens": found["pending_tokens"],
                    "memories_extracted": {},
                    "last_commit_at": found["last_commit_at"],
                    "uri": self._session_uri(sid),
                    "user": {"account_id": "default", "user_id": found["user"]},
                }
            )
        return self._err(404, "NOT_FOUND", f"no route {method} sessions/{sid}/{'/'.join(rest)}")

    def _create_session(self, body: Any) -> tuple[int, Any]:
        sid = str(body.get("session_id") or f"s-{len(self.sessions) + 1}")
        if sid in self.sessions:
            return self._err(409, "ALREADY_EXISTS", f"Session {sid} already exists")
        session = self._session(sid)
        return self._ok(
            {
                "session_id": sid,
                "uri": self._session_uri(sid),
                "user": {"account_id": "default", "user_id": session["user"]},
            }
        )

    def _commit(self, sid: str) -> tuple[int, Any]:
        if sid not in self.sessions:
            return self._err(404, "NOT_FOUND", f"Session {sid} not found")
        session = self.sessions[sid]
        if not session["messages"]:
            return self._ok(
                {
                    "session_id": sid,
                    "status": "skipped",
                    "task_id": None,
                    "archive_uri": None,
                    "archived": False,
                    "reason": "no_messages",
                }
            )
        session["archives"].append(session["messages"])
        session["archived_count"] += len(session["messages"])
        session["messages"] = []
        session["pending_tokens"] = 0
        session["commit_count"] += 1
        session["last_commit_at"] = _iso(time.time())
        n = session["commit_count"]
        session["overview"] = f"Archive {n} of {sid}: {len(session['archives'][-1])} messages."
        task_id = f"task-{sid}-{n}"
        self.tasks[task_id] = {
            "task_id": task_id,
            "task_type": "session_commit",
            "status": "completed",
            "stage": "done",
            "resource_id": sid,
            "result": {"memories_extracted": {}},
            "error": None,
        }
        return self._ok(
            {
                "session_id": sid,
                "status": "accepted",
                "task_id": task_id,
                "archive_uri": f"{self._session_uri(sid)}/history/archive_{n:03d}",
                "archived": True,
            }
        )

    def _context(self, sid: str, session: dict[str, Any]) -> dict[str, Any]:
        archives = len(session["archives"])
        return {
            "latest_archive_overview": session["overview"],
            "pre_archive_abstracts": [],
            "messages": [self._shown(m, sid, i) for i, m in enumerate(session["messages"])],
            "estimatedTokens": session["pending_tokens"],
            "stats": {
                "totalArchives": archives,
                "includedArchives": min(archives, 1),
                "droppedArchives": 0,
                "failedArchives": 0,
                "activeTokens": session["pending_tokens"],
                "archiveTokens": len(session["overview"]) // 4,
            },
        }

    def _archive(self, sid: str, session: dict[str, Any], name: str) -> tuple[int, Any]:
        number = name.removeprefix("archive_")
        if not number.isdigit() or not 0 < int(number) <= len(session["archives"]):
            return self._err(404, "NOT_FOUND", f"Archive {name} of {sid} not found")
        messages = session["archives"][int(number) - 1]
        return self._ok(
            {
                "archive_id": name,
                "abstract": "",
                "overview": f"Archive {int(number)} of {sid}: {len(messages)} messages.",
                "messages": [self._shown(m, sid, i) for i, m in enumerate(messages)],
            }
        )

    def _archived_jsonl(self, uri: str) -> str | None:
        """``viking://~/sessions/<id>/history/archive_NNN/messages.jsonl`` (or under the
        user's root), as the server keeps an archive's messages: one JSON object a line."""
        match = re.fullmatch(
            r"viking://(?:~|user/[^/]+)/sessions/([^/]+)/history/archive_(\d+)/messages\.jsonl",
            uri,
        )
        if not match or match[1] not in self.sessions:
            return None
        archives = self.sessions[match[1]]["archives"]
        number = int(match[2])
        if not 0 < number <= len(archives):
            return None
        return "".join(
            json.dumps(self._shown(m, match[1], i)) + "\n"
            for i, m in enumerate(archives[number - 1])
        )

    def _tasks_route(self, rest: list[str], query: dict[str, str]) -> tuple[int, Any]:
        if not rest:
            return self._ok(
                [
                    task
                    for task in self.tasks.values()
                    if query.get("task_type") in (None, task["task_type"])
                    and query.get("resource_id") in (None, task["resource_id"])
                ]
            )
        task = self.tasks.get(rest[0])
        if task is None:
            return self._err(404, "NOT_FOUND", f"Task {rest[0]} not found")
        return self._ok(task)

    # --- content and filesystem -------------------------------------------------------------
    def _content_route(
        self, method: str, path: str, query: dict[str, str], body: Any
    ) -> tuple[int, Any]:
        if path == "/api/v1/content/read":
            uri = query.get("uri", "")
            archived = self._archived_jsonl(uri)
            if archived is not None:
                return self._ok(archived)
            if uri not in self.files:
                return self._err(404, "NOT_FOUND", f"File not found: {uri}")
            return self._ok(self.files[uri])
        if path in ("/api/v1/content/abstract", "/api/v1/content/overview"):
            return self._ok(self.files.get(query.get("uri", ""), "")[:200])
        if path == "/api/v1/content/write" and isinstance(body, dict):
            uri, content = body["uri"], body["content"]
            updated = self.files.get(uri) != content
            self.files[uri] = content
            head, memories, _ = uri.partition("/memories/")
            return self._ok(
                {
                    "uri": uri,
                    "root_uri": head + "/memories" if memories else uri.rsplit("/", 1)[0],
                    "context_type": "memory" if memories else "resource",
                    "mode": body.get("mode", "replace"),
                    "written_bytes": len(content.encode()),
                    "content_updated": updated,
                    "semantic_status": "done",
                    "vector_status": "done",
                    "queue_status": {},
                }
            )
        if path == "/api/v1/fs/ls":
            base = query.get("uri", "").rstrip("/") + "/"
            items = [
                {"uri": uri, "size": len(t), "isDir": False, "modTime": "", "abstract": t[:80]}
                for uri, t in sorted(self.files.items())
                if uri.startswith(base)
            ]
            return 200, {"status": "ok", "result": items, "has_more": False}
        if path == "/api/v1/fs/stat":
            uri = query.get("uri", "")
            if uri not in self.files:
                return self._err(404, "NOT_FOUND", f"File not found: {uri}")
            name, size = uri.rsplit("/", 1)[-1], len(self.files[uri])
            return self._ok({"name": name, "size": size, "isDir": False, "uri": uri})
        if path == "/api/v1/fs" and method == "DELETE":
            # Like 0.5.2: a path that holds nothing is a success with a count of 0.
            gone = self.files.pop(query.get("uri", ""), None)
            return self._ok(
                {"uri": query.get("uri", ""), "estimated_deleted_count": int(gone is not None)}
            )
        return self._err(404, "NOT_FOUND", f"no route {method} {path}")


def _text_of(message: dict[str, Any]) -> str:
    parts = message.get("parts") or []
    text = " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
    return text or str(message.get("content", ""))
