"""The fake OpenViking server's retrieval: ``find`` and ``search`` over the memory files it
holds, scored by shared words (``0.5 + 0.5 * share``, the way the real server's hash stub
scores unrelated text at about 0.5), plus the entries a test configures."""

from __future__ import annotations

import re
from typing import Any

# find's request model forbids extra fields (openviking-api §A.4): "top_k" is a 400
FIND_FIELDS = {
    "query", "target_uri", "context_type", "limit", "node_limit", "score_threshold", "filter",
    "tags", "since", "until", "time_field", "level", "read_content", "include_provenance",
    "image_url", "events_time_decay_protection", "telemetry", "session_id", "search_type",
    "mode", "max_tokens", "purpose", "quotas", "detail", "dedup_turns", "exclude_uris",
    "peer_scope", "rewrite", "query_expansion",
}  # fmt: skip
CONTEXT_ONLY = {"target_uri", "read_content"}
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def category(uri: str) -> str:
    _, found, tail = uri.partition("/memories/")
    return tail.split("/", 1)[0] if found and "/" in tail else ""


class FakeSearch:
    """Search routes, mixed into the fake's API (which owns the data)."""

    files: dict[str, str]
    caller: str
    search_entries: list[dict[str, Any]]

    @staticmethod
    def _ok(result: Any) -> tuple[int, Any]:
        return 200, {"status": "ok", "result": result}

    @staticmethod
    def _err(status: int, code: str, message: str) -> tuple[int, Any]:
        return status, {"status": "error", "error": {"code": code, "message": message}}

    def _search_route(self, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
        extra = sorted(set(body) - FIND_FIELDS)
        if extra:
            return self._err(400, "INVALID_ARGUMENT", f"Extra inputs are not permitted: {extra}")
        query = str(body.get("query") or "")
        if kind == "find":
            hits = self._matching_files(query, body.get("target_uri"))
            memories = [
                {
                    "context_type": "memory",
                    "uri": uri,
                    "level": 2,
                    "score": score,
                    "abstract": self.files[uri][:200],
                    "tags": [f"memory_type={category(uri)}"],
                }
                for uri, score in hits
            ]
            limit = int(body.get("limit") or body.get("node_limit") or 10)
            memories = memories[:limit]
            return self._ok(
                {"memories": memories, "resources": [], "skills": [], "total": len(memories)}
            )
        if kind == "search" and body.get("mode") == "context" and CONTEXT_ONLY & set(body):
            return self._err(400, "INVALID_ARGUMENT", "target_uri is not allowed in context mode")
        entries = self._configured_entries(query) + [
            {
                "uri": uri,
                "category": category(uri),
                "score": score,
                "detail": "abstract",
                "text": self.files[uri][:600],
                "origin": "memory",
            }
            for uri, score in self._matching_files(query, None)
        ]
        rendered = "\n".join(
            f'<memory uri="{e.get("uri", "")}" type="{e.get("category", "")}" '
            f'score="{e.get("score", 0)}" detail="abstract">{e.get("text", "")}</memory>'
            for e in entries
            if "text" in e
        )
        return self._ok({"entries": entries, "rendered": rendered, "stats": {}})

    def _configured_entries(self, query: str) -> list[dict[str, Any]]:
        lowered = query.lower()
        entries = []
        for entry in self.search_entries:
            found = {k: v for k, v in entry.items() if k != "_matches"}
            words = entry.get("_matches")
            if isinstance(words, list) and not any(str(w).lower() in lowered for w in words):
                found["score"] = 0.5
            entries.append(found)
        return entries

    def _matching_files(self, query: str, target: Any) -> list[tuple[str, float]]:
        """Memory files under ``target`` (default: the caller's) sharing words with the query,
        best first."""
        roots = [target] if isinstance(target, str) and target else list(target or [])
        roots = roots or [f"viking://user/{self.caller}/"]
        wanted = _words(query)
        scored = []
        for uri, text in self.files.items():
            if "/memories/" not in uri or not any(uri.startswith(r) for r in roots):
                continue
            shared = wanted & _words(text)
            if wanted and shared:
                scored.append((uri, round(0.5 + 0.5 * len(shared) / len(wanted), 4)))
        return sorted(scored, key=lambda hit: (-hit[1], hit[0]))
