"""Choosing the backend for this process."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings
    from ovhooks.transport.http import Transport


def make_backend(
    settings: Settings,
    *,
    peer: str = "",
    deadline: float | None = None,
    transport: Transport | None = None,
    request_timeout_s: float | None = None,
) -> Backend:
    """The store the settings choose. Hooks, the worker and the human commands all come here,
    so ``doctor`` exercises the same transport (``transport/http.py``) the hooks use."""
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
