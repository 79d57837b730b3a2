"""An in-process Backend for recall and session-start tests, with OpenViking 0.5.2 shapes.

Scores imitate the real server with hash (bag-of-words) embeddings, which is what the
real-server rig runs: ``(1 + cos) / 2`` over word counts, so an unrelated memory sits at
~0.5 and a memory sharing most of the query's words at 0.7-0.85. Like the real server, the
context search also returns directory "overview" scaffolding next to the memory files, and
``find`` returns ``.abstract.md`` / ``.overview.md`` nodes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from ovhooks.transport.errors import BackendError

USER = "default"
MEMORIES = f"viking://user/{USER}/memories"

_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]")


def _vector(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def similarity(query: str, text: str) -> float:
    a, b = _vector(query), _vector(text)
    dot = sum(a[k] * b[k] for k in a)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    cos = dot / norm if norm else 0.0
    return (1 + cos) / 2


def category_of(uri: str) -> str:
    for name in ("preferences", "entities", "events", "skills", "resources"):
        if f"/{name}/" in uri or uri.startswith(f"viking://{name}"):
            return name
    return "memories"


class FakeBackend:
    """Memories in a dict; every call recorded in ``calls``; ``fail`` makes calls raise."""

    name = "openviking"
    rates_candidates = False

    def __init__(self, memories: dict[str, str] | None = None, *, peer: str = "") -> None:
        self.memories: dict[str, str] = dict(memories or {})
        self.abstracts: dict[str, str] = {}
        self.origins: dict[str, str] = {}
        self.calls: list[tuple[str, Any]] = []
        self.fail: BackendError | None = None
        self.fail_search: BackendError | None = None
        self.archive_overview = ""
        self.scaffold = True
        self.peer = peer
        self.max_depth = 3  # like the real server's recursive ls

    def _call(self, name: str, arg: Any) -> None:
        self.calls.append((name, arg))
        if self.fail is not None:
            raise self.fail

    def requests(self, name: str | None = None) -> list[tuple[str, Any]]:
        return [c for c in self.calls if name is None or c[0] == name]

    # --- retrieval ---------------------------------------------------------------------
    def _scored(self, query: str) -> list[tuple[float, str]]:
        scored = [(similarity(query, text), uri) for uri, text in self.memories.items()]
        return sorted(scored, key=lambda p: (-p[0], p[1]))

    def search_context(
        self,
        query: str,
        *,
        session_id: str | None = None,
        score_threshold: float = 0.0,
        max_tokens: int | None = None,
        exclude_uris: Any = (),
        prompt: str | None = None,
    ) -> dict[str, Any]:
        del prompt  # a server embeds the query
        self._call("search_context", {"query": query, "exclude_uris": list(exclude_uris)})
        if self.fail_search is not None:
            raise self.fail_search
        entries: list[dict[str, Any]] = []
        dirs: dict[str, float] = {}
        for score, uri in self._scored(query):
            if uri in exclude_uris or score < score_threshold:
                continue
            entries.append(
                {
                    "uri": uri,
                    "category": category_of(uri),
                    "score": score,
                    "detail": "abstract",
                    "text": self.abstracts.get(uri, self.memories[uri]),
                    "origin": self.origins.get(uri, "self"),
                }
            )
            parent = uri.rsplit("/", 1)[0]
            dirs[parent] = max(dirs.get(parent, 0.0), score - 0.05)
        if self.scaffold:
            for parent, score in sorted(dirs.items()):
                if score >= score_threshold:
                    name = category_of(parent + "/").capitalize()
                    entries.append(
                        {
                            "uri": parent,
                            "category": category_of(parent + "/"),
                            "score": score,
                            "detail": "overview",
                            "text": f"# {name} Overview\n\n- [x.md](./x.md)",
                            "origin": "self",
                        }
                    )
        entries.sort(key=lambda e: -e["score"])
        return {"entries": entries[:12], "rendered": "", "digest": "", "stats": {}}

    def find(
        self,
        query: str,
        *,
        target_uri: str = "",
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> dict[str, Any]:
        self._call("find", {"query": query, "limit": limit})
        out: dict[str, list[dict[str, Any]]] = {"memories": [], "resources": [], "skills": []}
        for score, uri in self._scored(query):
            if score_threshold is not None and score < score_threshold:
                continue
            bucket = {"skills": "skills", "resources": "resources"}.get(
                category_of(uri), "memories"
            )
            out[bucket].append(
                {
                    "context_type": bucket.rstrip("s") if bucket != "memories" else "memory",
                    "uri": uri,
                    "level": 2,
                    "score": score,
                    "abstract": self.abstracts.get(uri, self.memories[uri]),
                    "tags": [f"memory_type={category_of(uri)}"],
                }
            )
        if self.scaffold:
            out["memories"].append(
                {
                    "context_type": "memory",
                    "uri": f"{MEMORIES}/preferences/.overview.md",
                    "level": 1,
                    "score": 0.99,
                    "abstract": "# Preferences Overview",
                    "tags": [],
                }
            )
        for hits in out.values():
            del hits[limit:]
        return {**out, "total": sum(len(v) for v in out.values())}

    # --- content -----------------------------------------------------------------------
    def read(self, uri: str, level: str = "full") -> str:
        self._call("read", uri)
        if uri not in self.memories:
            raise BackendError("http", f"File not found: {uri}", 404, "NOT_FOUND")
        return self.memories[uri]

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 512) -> list[dict[str, Any]]:
        self._call("ls", uri)
        base = uri.rstrip("/") + "/"
        if not any(u.startswith(base) for u in self.memories):
            raise BackendError("http", f"File not found: {uri}", 404, "NOT_FOUND")
        depth = self.max_depth if recursive else 1
        out: dict[str, dict[str, Any]] = {}
        for file_uri in sorted(self.memories):
            if not file_uri.startswith(base):
                continue
            parts = file_uri[len(base) :].split("/")
            for i in range(1, min(len(parts), depth) + 1):
                node = base + "/".join(parts[:i])
                is_dir = i < len(parts)
                out.setdefault(
                    node,
                    {
                        "uri": node,
                        "size": 0 if is_dir else len(self.memories[file_uri]),
                        "isDir": is_dir,
                        "modTime": "2026-05-20T10:00:00.000Z",
                        "rel_path": "/".join(parts[:i]),
                        "abstract": (
                            f"# {node} [Directory abstract is not ready]"
                            if is_dir
                            else self.abstracts.get(file_uri, "")
                        ),
                    },
                )
        return list(out.values())[:limit]

    def session_context(self, session_id: str, token_budget: int) -> dict[str, Any]:
        self._call("session_context", session_id)
        return {
            "latest_archive_overview": self.archive_overview,
            "pre_archive_abstracts": [],
            "messages": [],
            "estimatedTokens": 0,
            "stats": {},
        }

    def whoami(self) -> str:
        self._call("whoami", None)
        return USER


def make_settings(state_dir: str, **changes: Any) -> Any:
    """Settings with defaults, state under ``state_dir``, and ``changes`` applied."""
    from ovhooks.settings.config import load_settings

    settings = load_settings(
        {
            "HOME": state_dir,
            "OVHOOKS_STATE_DIR": state_dir,
            "OVHOOKS_CONFIG": "/nonexistent/ovhooks.toml",
            "OPENVIKING_CLI_CONFIG_FILE": "/nonexistent/ovcli.conf",
            "OPENVIKING_URL": "http://127.0.0.1:9",
            # In-process tests: the calibration probes run inline, never in a forked child.
            "OVHOOKS_DETACH": "0",
            # No embedding service unless a test asks for one (replace(semantic=True)).
            "OVHOOKS_SEMANTIC": "off",
        }
    )
    return settings.replace(**changes) if changes else settings


SEED = {
    f"{MEMORIES}/preferences/default/editor.md": (
        "The user's favourite code editor is Helix with vim keybindings."
    ),
    f"{MEMORIES}/preferences/default/python_tooling.md": (
        "For Python projects the user uses uv as the package manager and ruff for linting."
    ),
    f"{MEMORIES}/entities/project/deploy_stack.md": (
        "# Deploy stack\nThe project deploys to Fly.io and uses Postgres 16 as database."
    ),
    f"{MEMORIES}/events/2026/05/20/billing_migration.md": (
        "On 2026-05-20 we migrated the billing service database from MySQL to Postgres."
    ),
    f"{MEMORIES}/entities/people/alice.md": "Alice is the tech lead who reviews database changes.",
    f"{MEMORIES}/preferences/default/中文.md": "用户喜欢用中文写提交信息，代码注释用英文。",
}
