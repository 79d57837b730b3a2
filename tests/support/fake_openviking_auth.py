"""The fake OpenViking server with the real server's auth modes (openviking-api §A.1)."""

from __future__ import annotations

import secrets
from typing import Any

from tests.support.fake_openviking import FakeOpenViking


class AuthFakeOpenViking(FakeOpenViking):
    """``auth_mode``: ``dev`` (no key), ``api_key`` (user keys in ``user_keys`` map key ->
    user, and ``POST /api/v1/admin/accounts`` with the root key makes more; the root key gets
    403 on data APIs), ``trusted`` (the root key plus both tenant headers).
    """

    def __init__(
        self,
        auth_mode: str,
        *,
        root_key: str = "root-key-123456",
        user_keys: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.auth_mode = auth_mode
        self.root_key = root_key
        self.user_keys = dict(user_keys or {})

    @staticmethod
    def _key(handler: Any) -> str:
        headers = handler.headers
        return str(
            headers.get("X-API-Key") or (headers.get("Authorization") or "").removeprefix("Bearer ")
        )

    def _identity(self, handler: Any) -> str:
        if self.auth_mode == "api_key":
            return self.user_keys.get(self._key(handler), "default")
        return super()._identity(handler)

    def _deny(self, handler: Any, status: int, code: str, message: str) -> None:
        error = {"code": code, "message": message}
        self._send(handler, status, {"status": "error", "error": error})

    def _dispatch(self, handler: Any, raw: bytes) -> None:
        path = handler.path.split("?", 1)[0]
        if path == "/health" or self.auth_mode == "dev":
            return super()._dispatch(handler, raw)
        key = self._key(handler)
        admin = path.startswith("/api/v1/admin/")
        if not key:
            return self._deny(handler, 401, "UNAUTHENTICATED", "Missing API Key")
        if key != self.root_key and (self.auth_mode == "trusted" or key not in self.user_keys):
            return self._deny(handler, 401, "UNAUTHENTICATED", "Invalid API key")
        if self.auth_mode == "api_key" and key == self.root_key and not admin:
            return self._deny(
                handler,
                403,
                "PERMISSION_DENIED",
                "ROOT API keys cannot access tenant-scoped data APIs",
            )
        if admin and key != self.root_key:
            return self._deny(handler, 403, "PERMISSION_DENIED", "admin routes need the root key")
        headers = handler.headers
        tenant = headers.get("X-OpenViking-Account") and headers.get("X-OpenViking-User")
        if self.auth_mode == "trusted" and not admin and not tenant:
            return self._deny(
                handler,
                400,
                "INVALID_ARGUMENT",
                "Trusted mode requests must include X-OpenViking-Account and X-OpenViking-User",
            )
        return super()._dispatch(handler, raw)

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == "/health":
            status, doc = super()._route(method, path, query, body)
            return status, {**doc, "auth_mode": self.auth_mode}
        if path == "/api/v1/admin/accounts" and method == "POST" and isinstance(body, dict):
            user = str(body.get("admin_user_id") or "admin")
            user_key = secrets.token_hex(16)
            self.user_keys[user_key] = user
            return self._ok(
                {"account_id": body.get("account_id"), "admin_user_id": user, "user_key": user_key}
            )
        return super()._route(method, path, query, body)
