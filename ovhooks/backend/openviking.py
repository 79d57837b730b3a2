"""OpenViking 0.5.2 over HTTP: routes, headers, envelope parsing, timeouts.

Identity policy (shared/spec/openviking-api.md §A.1):
- An API key is sent as ``Authorization: Bearer`` and ``X-API-Key`` (both are accepted).
- ``X-OpenViking-Account`` / ``-User`` go out only where the server reads them: trusted mode
  (root key plus tenant headers) and dev mode (no key). A user key fixes the identity on the
  server, so with ``api_key`` mode they are never sent — a spoofed header is at best ignored
  and at worst a confusing mismatch.
- ``X-OpenViking-Actor-Peer`` carries the project peer (git root, else cwd) on every request.

There is no ``/health`` round trip before work: a failed request is the health signal.
"""

from __future__ import annotations

import json
import time

from ovhooks import __version__
from ovhooks.transport.errors import BackendError
from ovhooks.transport.http import Request, json_body, transport_for

# How many archives, newest first, ``newest_mark`` reads when the live messages hold no mark.
# Only commits made while a batch's answer was unknown can stand between it and the live tail.
MARK_ARCHIVES_SCANNED = 16
# OpenViking 0.5.2's recursive fs/ls goes this many levels below the folder it lists.
LS_DEPTH = 3
LS_DESCENTS = 128

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def quote(text: str, safe: str = "") -> str:
    """Percent-encode for a URL path segment or query value (``urllib.parse`` costs ~9 ms)."""
    allowed = _SAFE | frozenset(safe)
    return "".join(
        ch if ch in allowed else "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in text
    )


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON
    from ovhooks.settings.config import Settings
    from ovhooks.transport.http import Transport


def identity_headers(settings: Settings, peer: str) -> dict[str, str]:
    """The headers that say who is calling, by the key-type policy above."""
    headers = {"User-Agent": f"ovhooks/{__version__}"}
    if settings.api_key:
        headers["Authorization"] = f"Bearer {settings.api_key}"
        headers["X-API-Key"] = settings.api_key
    mode = settings.effective_auth_mode
    if mode in ("trusted", "dev"):
        if settings.account:
            headers["X-OpenViking-Account"] = settings.account
        if settings.user:
            headers["X-OpenViking-User"] = settings.user
    if peer:
        headers["X-OpenViking-Actor-Peer"] = peer
    return headers


def parse_envelope(status: int, body: bytes | bytearray, what: str) -> Any:
    """Turn an OpenViking answer into its ``result`` or a ``BackendError``.

    Failure is the HTTP status or a top-level ``status == "error"``; an HTML page or any
    non-JSON body (a proxy's error page, a wrong URL) is ``bad_response``.
    """
    try:
        doc = json.loads(body) if body else None
    except (ValueError, RecursionError):
        snippet = body[:80].decode("utf-8", "replace").strip()
        kind = "http" if status >= 400 else "bad_response"
        raise BackendError(
            kind, f"{what}: server answered non-JSON ({snippet!r}...)", status
        ) from None
    if (isinstance(doc, dict) and doc.get("status") == "error") or status >= 400:
        err = doc.get("error") if isinstance(doc, dict) else None
        code = message = ""
        if isinstance(err, dict):
            code = str(err.get("code") or "")
            message = str(err.get("message") or "")
        elif isinstance(doc, dict) and doc.get("detail"):
            message = str(doc["detail"])
        raise BackendError("http", f"{what}: {message or 'request failed'}", status, code)
    if isinstance(doc, dict) and "result" in doc:
        return doc["result"]
    if doc is None:
        raise BackendError("bad_response", f"{what}: empty answer", status)
    return doc


class OpenVikingBackend:
    """The Backend protocol on an OpenViking server.

    ``deadline`` (a ``time.monotonic()`` value) caps every request's timeout, so a hook with
    a hard time budget never waits past it whatever the per-request settings say.
    """

    name = "openviking"
    rates_candidates = False

    def __init__(
        self,
        settings: Settings,
        peer: str = "",
        *,
        transport: Transport | None = None,
        deadline: float | None = None,
        request_timeout_s: float | None = None,
    ) -> None:
        self.base_url = settings.url.rstrip("/")
        self._headers = identity_headers(settings, peer)
        self._transport: Transport = transport or transport_for(settings)
        self._timeout = (
            request_timeout_s if request_timeout_s is not None else settings.request_timeout_s
        )
        self.deadline = deadline
        self.peer = peer
        self.requests_made = 0

    def twin(self) -> OpenVikingBackend:
        """The same server, identity and deadline on a connection of its own, for a request
        sent alongside this backend's (the HTTP client keeps one connection, not a pool). A
        transport given from outside is shared: it is a test's or a caller's to make safe."""
        from ovhooks.transport.http import HttpClient

        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)  # a shallow copy without ``copy`` (~1 ms)
        if isinstance(self._transport, HttpClient):
            other._transport = self._transport.fresh()
        other.requests_made = 0
        return other

    # --- plumbing ---------------------------------------------------------------------------
    def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, object] | None = None,
        body: object = None,
        what: str = "",
        enveloped: bool = True,
    ) -> Any:
        timeout = self._timeout
        if self.deadline is not None:
            timeout = min(timeout, self.deadline - time.monotonic())
            if timeout <= 0.005:
                raise BackendError("timeout", f"{what or path}: no time left before the deadline")
        url = self.base_url + path
        if query:
            url += "?" + "&".join(
                f"{k}={quote(str(v).lower() if isinstance(v, bool) else str(v), safe='')}"
                for k, v in query.items()
            )
        headers = dict(self._headers)
        data = None
        if body is not None:
            data = json_body(body, headers)
            headers["Content-Type"] = "application/json"
        headers["Accept"] = "application/json"
        self.requests_made += 1
        resp = self._transport(Request(method, url, headers, data, timeout))
        if not enveloped:
            try:
                doc = json.loads(resp.body)
            except (ValueError, RecursionError):
                kind = "http" if resp.status >= 400 else "bad_response"
                raise BackendError(kind, f"{what}: server answered non-JSON", resp.status) from None
            if resp.status >= 400:
                raise BackendError("http", f"{what}: HTTP {resp.status}", resp.status)
            return doc
        return parse_envelope(resp.status, resp.body, what or f"{method} {path}")

    @staticmethod
    def _sid(session_id: str) -> str:
        return quote(session_id, safe="")

    # --- sessions ---------------------------------------------------------------------------
    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> JSON:
        path = f"/api/v1/sessions/{self._sid(session_id)}/messages"
        try:
            result = self._call(
                "POST", path + "/batch", body={"messages": list(messages)}, what="append"
            )
        except BackendError as exc:
            # Servers before batch support answer 404/405 for the route itself; a 404 for the
            # session cannot happen here because appends create sessions.
            if exc.status not in (404, 405):
                raise
            result = {}
            for message in messages:
                result = self._call("POST", path, body=dict(message), what="append")
        return _as_dict(result, "append")

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> JSON:
        body: dict[str, object] = {}
        if keep_recent_count:
            body["keep_recent_count"] = keep_recent_count
        path = f"/api/v1/sessions/{self._sid(session_id)}/commit"
        return _as_dict(self._call("POST", path, body=body, what="commit"), "commit")

    def session_info(self, session_id: str) -> JSON:
        path = f"/api/v1/sessions/{self._sid(session_id)}"
        return _as_dict(self._call("GET", path, what="session info"), "session info")

    def session_context(self, session_id: str, token_budget: int) -> JSON:
        path = f"/api/v1/sessions/{self._sid(session_id)}/context"
        result = self._call("GET", path, query={"token_budget": token_budget}, what="context")
        return _as_dict(result, "session context")

    def newest_mark(self, session_id: str, prefix: str) -> str | None:
        """Search the live messages (with those of archives still being processed, which the
        context includes), then the archives newest first: a commit moves messages into
        ``history/archive_NNN/messages.jsonl`` with their ``turn_id``."""
        context = self.session_context(session_id, 1_000_000)
        found = _newest_marked(context.get("messages"), prefix)
        stats = context.get("stats")
        total = stats.get("totalArchives") if isinstance(stats, dict) else 0
        archives = number = total if isinstance(total, int) else 0
        # the caller's own root (``~``): the canonical form of a session URI in 0.5.2
        history = f"viking://~/sessions/{session_id}/history"
        while found is None and number > 0 and archives - number < MARK_ARCHIVES_SCANNED:
            try:
                text = self.read(f"{history}/archive_{number:03d}/messages.jsonl")
            except BackendError as exc:
                if not exc.not_found:
                    raise
                text = ""  # an archive whose first phase failed holds no messages
            found = _newest_marked(_jsonl(text), prefix)
            number -= 1
        return found

    # --- retrieval --------------------------------------------------------------------------
    def search_context(
        self,
        query: str,
        *,
        session_id: str | None = None,
        score_threshold: float = 0.0,
        max_tokens: int | None = None,
        exclude_uris: Sequence[str] = (),
        prompt: str | None = None,
        quotas: Mapping[str, int] | None = None,
    ) -> JSON:
        """``quotas``: per-category candidate counts instead of the coding preset's ten
        (the server then gives the spare slots of an empty category to the others).
        ``prompt`` is not sent: the server embeds ``query``."""
        del prompt
        body: dict[str, object] = {
            "query": query,
            "mode": "context",
            "purpose": "coding",
            "score_threshold": score_threshold,
        }
        if quotas:
            body["quotas"] = dict(quotas)
        if session_id:
            body["session_id"] = session_id
        if max_tokens:
            body["max_tokens"] = max(64, min(32000, max_tokens))
        if exclude_uris:
            body["exclude_uris"] = list(exclude_uris)
        return _as_dict(
            self._call("POST", "/api/v1/search/search", body=body, what="search"), "search"
        )

    def find(
        self,
        query: str,
        *,
        target_uri: str = "",
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> JSON:
        body: dict[str, object] = {"query": query, "limit": max(1, limit)}
        if target_uri:
            body["target_uri"] = target_uri
        if score_threshold is not None:
            body["score_threshold"] = score_threshold
        return _as_dict(self._call("POST", "/api/v1/search/find", body=body, what="find"), "find")

    # --- content ----------------------------------------------------------------------------
    def read(self, uri: str, level: str = "full") -> str:
        route = {"full": "read", "abstract": "abstract", "overview": "overview"}.get(level)
        if route is None:
            raise BackendError("http", f"unknown read level {level!r}", 400, "INVALID_ARGUMENT")
        result = self._call("GET", f"/api/v1/content/{route}", query={"uri": uri}, what="read")
        if not isinstance(result, str):
            raise BackendError("bad_response", "read: expected text")
        return result

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 512) -> list[JSON]:
        entries = self._ls(uri, recursive, limit)
        if not recursive:
            return entries
        # The server's recursive listing stops LS_DEPTH levels below the folder asked for,
        # and events live four down (events/YYYY/MM/DD/x.md): list each folder at that depth
        # again, within the limit and a bounded number of requests.
        out = list(entries)
        frontier = [e for e in entries if _at_depth_limit(e)]
        for _ in range(LS_DESCENTS):
            if not frontier or len(out) >= limit:
                break
            deeper = self._ls(str(frontier.pop(0)["uri"]), True, limit - len(out))
            out.extend(deeper)
            frontier.extend(e for e in deeper if _at_depth_limit(e))
        return out[:limit]

    def _ls(self, uri: str, recursive: bool, limit: int) -> list[JSON]:
        # output=agent with abs_limit makes the server include each file's abstract
        query: dict[str, object] = {"uri": uri, "node_limit": limit, "output": "agent"}
        query["abs_limit"] = 512
        if recursive:
            query["recursive"] = True
        result = self._call("GET", "/api/v1/fs/ls", query=query, what="ls")
        if not isinstance(result, list):
            raise BackendError("bad_response", "ls: expected a list")
        return [
            item for item in result if isinstance(item, dict) and isinstance(item.get("uri"), str)
        ]

    def write(self, uri: str, content: str, *, mode: str = "replace") -> JSON:
        body = {"uri": uri, "content": content, "mode": mode, "wait": True}
        return _as_dict(
            self._call("POST", "/api/v1/content/write", body=body, what="write"), "write"
        )

    def delete(self, uri: str) -> JSON:
        result = _as_dict(
            self._call("DELETE", "/api/v1/fs", query={"uri": uri}, what="delete"), "delete"
        )
        # The server answers a path that holds nothing with success and a count of 0; say
        # "not found" as the local store does, once a stat agrees, so a mistyped URI is not
        # reported as forgotten.
        if result.get("estimated_deleted_count") == 0:
            try:
                self._call("GET", "/api/v1/fs/stat", query={"uri": uri}, what="stat")
            except BackendError as exc:
                if exc.not_found:
                    raise BackendError("http", f"File not found: {uri}", 404, "NOT_FOUND") from None
        return result

    def whoami(self) -> str:
        result = _as_dict(self._call("GET", "/api/v1/system/status", what="status"), "status")
        user = result.get("user")
        return user if isinstance(user, str) and user else "default"

    def health(self) -> JSON:
        return _as_dict(self._call("GET", "/health", what="health", enveloped=False), "health")

    def task(self, task_id: str) -> JSON:
        """``GET /api/v1/tasks/{id}``: a commit's extraction (status, result, error)."""
        path = f"/api/v1/tasks/{quote(task_id, safe='')}"
        return _as_dict(self._call("GET", path, what="task"), "task")

    def ready(self) -> JSON:
        """``GET /ready``: per-subsystem readiness (``{status, checks: {name: state}}``)."""
        return _as_dict(self._call("GET", "/ready", what="ready", enveloped=False), "ready")


def _newest_marked(messages: object, prefix: str) -> str | None:
    for message in reversed(messages if isinstance(messages, list) else []):
        mark = message.get("turn_id") if isinstance(message, dict) else None
        if isinstance(mark, str) and mark.startswith(prefix):
            return mark
    return None


def _jsonl(text: str) -> list[Any]:
    out: list[Any] = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except (ValueError, RecursionError):
            continue
    return out


def _as_dict(result: object, what: str) -> JSON:
    if not isinstance(result, dict):
        raise BackendError(
            "bad_response", f"{what}: expected an object, got {type(result).__name__}"
        )
    return result


def _at_depth_limit(entry: JSON) -> bool:
    """A folder the server listed at the last level a recursive listing reaches."""
    rel = entry.get("rel_path")
    return entry.get("isDir") is True and isinstance(rel, str) and rel.count("/") + 1 >= LS_DEPTH
