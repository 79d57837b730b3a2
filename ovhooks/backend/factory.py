"""Choosing the backend for this process, and the dry-run wrapper around it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON, Backend
    from ovhooks.backend.http import Transport
    from ovhooks.dryrun.plan import Plan
    from ovhooks.settings.config import Settings


def make_backend(
    settings: Settings,
    *,
    peer: str = "",
    deadline: float | None = None,
    transport: Transport | None = None,
    request_timeout_s: float | None = None,
) -> Backend:
    """The store the settings choose. Hooks, the worker and the human commands all come here,
    so ``doctor`` exercises the same transport (``backend/http.py``) the hooks use."""
    if settings.backend == "local":
        from ovhooks.backend.local import LocalBackend

        store = LocalBackend(settings.data_dir, user=settings.user or "default", peer=peer)
        if settings.semantic:
            from ovhooks.backend.local.store import SemanticLink

            store.semantic = SemanticLink(
                settings.state_dir, settings.semantic_deadline_ms / 1000.0, settings.semantic_idle_s
            )
        return store
    from ovhooks.backend.openviking import OpenVikingBackend

    return OpenVikingBackend(
        settings,
        peer,
        deadline=deadline,
        transport=transport,
        request_timeout_s=request_timeout_s,
    )


class DryRunBackend:
    """Reads go to the real store; writes are described in the plan and answered locally."""

    def __init__(self, inner: Backend, plan: Plan) -> None:
        self.inner = inner
        self.plan = plan
        self.name = inner.name

    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> JSON:
        self.plan.write_request(
            "POST", f"/api/v1/sessions/{session_id}/messages/batch", {"messages": list(messages)}
        )
        return {"session_id": session_id, "message_count": len(messages), "pending_tokens": 0}

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> JSON:
        body = {"keep_recent_count": keep_recent_count} if keep_recent_count else {}
        self.plan.write_request("POST", f"/api/v1/sessions/{session_id}/commit", body)
        return {"session_id": session_id, "status": "dry-run"}

    def write(self, uri: str, content: str, *, mode: str = "replace") -> JSON:
        self.plan.write_request("POST", "/api/v1/content/write", {"uri": uri, "mode": mode})
        return {"uri": uri}

    def delete(self, uri: str) -> JSON:
        self.plan.write_request("DELETE", f"/api/v1/fs?uri={uri}", None)
        return {"uri": uri}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
