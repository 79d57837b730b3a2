"""An in-memory OpenViking look-alike on a real loopback socket, for fast core tests.

It speaks the 0.5.2 shapes ovhooks relies on (the contract test pins them against the real
server) and records every request, so tests can assert on what was sent. ``mode`` switches
failure behaviour at run time: ``ok``, ``error500``, ``html``, ``hang``, ``slow`` (each request
sleeps ``delay_s`` first), ``refuse`` (stop listening).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


class FakeOpenViking:
    def __init__(self) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.files: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        self.mode = "ok"
        self.delay_s = 0.0
        # Returned by every search; an entry with "_matches" (words) keeps its score only for
        # queries containing one of them and scores 0.5 (unrelated) otherwise, as a real
        # server does for the probe prompts recall calibrates with.
        self.search_entries: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeOpenViking:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake._dispatch(self, raw)

            do_GET = do_POST = do_DELETE = _handle  # noqa: N815

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def refuse(self) -> None:
        """Stop listening (connection refused) but keep the data, like a server that died."""
        self.stop()

    def restart(self) -> None:
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- helpers for tests ------------------------------------------------------------------
    def writes(self) -> list[dict[str, Any]]:
        return [
            r for r in self.requests if r["method"] != "GET" and "/search/" not in str(r["path"])
        ]

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        """Every message the session ever received (live and archived), in order."""
        session = self.sessions.get(session_id)
        if not session:
            return []
        archived: list[dict[str, Any]] = [m for archive in session["archives"] for m in archive]
        return archived + list(session["messages"])

    def texts(self, session_id: str) -> list[str]:
        out = []
        for message in self.messages(session_id):
            parts = message.get("parts") or []
            text = " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
            out.append(text or str(message.get("content", "")))
        return out

    # --- the API ----------------------------------------------------------------------------
    def _dispatch(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        split = urlsplit(handler.path)
        path = split.path
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        with self.lock:
            self.requests.append(
                {
                    "method": handler.command,
                    "path": path,
                    "query": query,
                    "body": body,
                    "headers": dict(handler.headers.items()),
                    "at": time.time(),
                }
            )
            mode, delay = self.mode, self.delay_s
        if mode == "hang":
            time.sleep(30)
            return
        if delay:
            time.sleep(delay)
        if mode == "error500":
            self._send(
                handler, 500, {"status": "error", "error": {"code": "INTERNAL", "message": "boom"}}
            )
            return
        if mode == "html":
            payload = b"<html><body>502 Bad Gateway</body></html>"
            handler.send_response(502)
            handler.send_header("Content-Type", "text/html")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        with self.lock:
            status, doc = self._route(handler.command, path, query, body)
        self._send(handler, status, doc)

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, doc: Any) -> None:
        payload = json.dumps(doc).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    @staticmethod
    def _ok(result: Any) -> tuple[int, Any]:
        return 200, {"status": "ok", "result": result}

    def _search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        query = str(body.get("query") or "").lower()
        entries = []
        for entry in self.search_entries:
            found = {k: v for k, v in entry.items() if k != "_matches"}
            words = entry.get("_matches")
            if isinstance(words, list) and not any(str(w).lower() in query for w in words):
                found["score"] = 0.5
            entries.append(found)
        return entries

    @staticmethod
    def _err(status: int, code: str, message: str) -> tuple[int, Any]:
        return status, {"status": "error", "error": {"code": code, "message": message}}

    def _session(self, sid: str) -> dict[str, Any]:
        return self.sessions.setdefault(
            sid, {"messages": [], "archives": [], "commit_count": 0, "overview": ""}
        )

    @staticmethod
    def _tokens(messages: list[dict[str, Any]]) -> int:
        return sum(len(json.dumps(m)) // 4 for m in messages)

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == "/health":
            return 200, {
                "status": "ok",
                "healthy": True,
                "version": "fake-0.5.2",
                "auth_mode": "dev",
            }
        if path == "/api/v1/system/status":
            return self._ok({"initialized": True, "user": "default"})
        parts = [unquote(p) for p in path.split("/") if p]
        if parts[:3] == ["api", "v1", "sessions"] and len(parts) >= 4:
            sid = parts[3]
            rest = parts[4:]
            if rest == ["messages", "batch"] and method == "POST":
                messages = (body or {}).get("messages") or []
                if len(messages) > 100:
                    return self._err(400, "INVALID_ARGUMENT", "too many messages")
                session = self._session(sid)
                session["messages"].extend(messages)
                return self._ok(
                    {
                        "session_id": sid,
                        "message_count": len(session["messages"]),
                        "added": len(messages),
                        "pending_tokens": self._tokens(session["messages"]),
                    }
                )
            if rest == ["messages"] and method == "POST":
                session = self._session(sid)
                session["messages"].append(body)
                return self._ok(
                    {
                        "session_id": sid,
                        "message_count": len(session["messages"]),
                        "pending_tokens": self._tokens(session["messages"]),
                    }
                )
            if rest == ["commit"] and method == "POST":
                if sid not in self.sessions:
                    return self._err(404, "NOT_FOUND", f"Session {sid} not found")
                session = self.sessions[sid]
                if not session["messages"]:
                    return self._ok(
                        {"session_id": sid, "status": "skipped", "task_id": None, "archived": False}
                    )
                session["archives"].append(session["messages"])
                session["messages"] = []
                session["commit_count"] += 1
                n = session["commit_count"]
                session["overview"] = (
                    f"Archive {n} of {sid}: {len(session['archives'][-1])} messages."
                )
                return self._ok(
                    {
                        "session_id": sid,
                        "status": "accepted",
                        "task_id": f"task-{sid}-{n}",
                        "archive_uri": f"viking://user/default/sessions/{sid}/history/archive_{n:03d}",
                        "archived": True,
                    }
                )
            if rest == ["context"] and method == "GET":
                found = self.sessions.get(sid)
                if found is None:
                    return self._err(404, "NOT_FOUND", f"Session {sid} not found")
                session = found
                return self._ok(
                    {
                        "latest_archive_overview": session["overview"],
                        "pre_archive_abstracts": [],
                        "messages": session["messages"],
                        "estimatedTokens": self._tokens(session["messages"]),
                        "stats": {"totalArchives": len(session["archives"])},
                    }
                )
            if not rest and method == "GET":
                found = self.sessions.get(sid)
                if found is None:
                    return self._err(404, "NOT_FOUND", f"Session {sid} not found")
                session = found
                return self._ok(
                    {
                        "session_id": sid,
                        "message_count": len(session["messages"]),
                        "total_message_count": len(self.messages(sid)),
                        "commit_count": session["commit_count"],
                        "pending_tokens": self._tokens(session["messages"]),
                    }
                )
        if path == "/api/v1/search/search":
            return self._ok({"entries": self._search(body), "rendered": "", "stats": {}})
        if path == "/api/v1/search/find":
            return self._ok({"memories": [], "resources": [], "skills": [], "total": 0})
        if path == "/api/v1/content/read":
            uri = query.get("uri", "")
            if uri not in self.files:
                return self._err(404, "NOT_FOUND", f"File not found: {uri}")
            return self._ok(self.files[uri])
        if path in ("/api/v1/content/abstract", "/api/v1/content/overview"):
            return self._ok(self.files.get(query.get("uri", ""), "")[:200])
        if path == "/api/v1/content/write":
            self.files[body["uri"]] = body["content"]
            return self._ok({"uri": body["uri"], "written_bytes": len(body["content"])})
        if path == "/api/v1/fs/ls":
            base = query.get("uri", "").rstrip("/") + "/"
            items = [
                {
                    "uri": uri,
                    "size": len(text),
                    "isDir": False,
                    "modTime": "",
                    "abstract": text[:80],
                }
                for uri, text in sorted(self.files.items())
                if uri.startswith(base)
            ]
            return self._ok(items)
        if path == "/api/v1/fs" and method == "DELETE":
            self.files.pop(query.get("uri", ""), None)
            return self._ok({"uri": query.get("uri", "")})
        return self._err(404, "NOT_FOUND", f"no route {method} {path}")
