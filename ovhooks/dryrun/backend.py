"""The dry run's backend: reads go to the real store, writes are said in the plan."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON, Backend
    from ovhooks.dryrun.plan import Plan


class DryRunBackend:
    """Reads go to the real store; writes are described in the plan and answered locally."""

    def __init__(self, inner: Backend, plan: Plan) -> None:
        self.inner = inner
        self.plan = plan
        self.name = inner.name
        self.rates_candidates = inner.rates_candidates

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
