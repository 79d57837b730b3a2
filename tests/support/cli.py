"""Helpers for tests that run ovhooks' human commands: the CLI in-process, an auth-aware fake
server, and a small JSON schema check."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from typer.testing import CliRunner

from tests.support.fake_openviking import FakeOpenViking


def run_cli(
    *args: str, env: Mapping[str, str | None] | None = None, input: str | None = None
) -> Any:
    """Run ``ovhooks <args>`` in this process.

    ``env`` overlays the test's environment for the call only (a ``None`` value removes that
    variable): Click's runner applies and undoes it, so this helper never writes
    ``os.environ`` itself.
    """
    from ovhooks.cli import app

    return CliRunner().invoke(app, list(args), input=input, env=env, catch_exceptions=False)


def run_json(*args: str, env: Mapping[str, str | None] | None = None) -> tuple[int, dict[str, Any]]:
    result = run_cli(*args, "--json", env=env)
    try:
        doc = json.loads(result.stdout)
    except ValueError as exc:
        raise AssertionError(
            f"not one JSON document: {result.stdout!r} / {result.stderr!r}"
        ) from exc
    return result.exit_code, doc


class AuthFakeOpenViking(FakeOpenViking):
    """The fake server with OpenViking's auth rules (openviking-api §A.1).

    ``auth_mode``: ``dev`` (no key), ``api_key`` (user keys in ``user_keys`` map key -> user;
    the root key gets 403 on data APIs), ``trusted`` (root key plus both tenant headers).
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
        self.user_keys = user_keys or {}

    def _deny(self, handler: Any, status: int, code: str, message: str) -> None:
        error = {"code": code, "message": message}
        self._send(handler, status, {"status": "error", "error": error})

    def _dispatch(self, handler: Any, raw: bytes) -> None:
        path = handler.path.split("?", 1)[0]
        if path != "/health" and self.auth_mode != "dev":
            headers = handler.headers
            key = headers.get("X-API-Key") or (headers.get("Authorization") or "").removeprefix(
                "Bearer "
            )
            if not key:
                return self._deny(handler, 401, "UNAUTHENTICATED", "Missing API Key")
            if self.auth_mode == "api_key":
                if key == self.root_key:
                    return self._deny(
                        handler,
                        403,
                        "PERMISSION_DENIED",
                        "ROOT API keys cannot access tenant-scoped data APIs",
                    )
                if key not in self.user_keys:
                    return self._deny(handler, 401, "UNAUTHENTICATED", "Invalid API key")
            if self.auth_mode == "trusted":
                if key != self.root_key:
                    return self._deny(handler, 401, "UNAUTHENTICATED", "Invalid API key")
                if not (headers.get("X-OpenViking-Account") and headers.get("X-OpenViking-User")):
                    return self._deny(
                        handler,
                        400,
                        "INVALID_ARGUMENT",
                        "Trusted mode requests must include X-OpenViking-Account "
                        "and X-OpenViking-User",
                    )
        return super()._dispatch(handler, raw)

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path == "/health":
            return 200, {
                "status": "ok",
                "healthy": True,
                "version": "fake-0.5.2",
                "auth_mode": self.auth_mode,
            }
        return super()._route(method, path, query, body)


# --- a small schema check -------------------------------------------------------------------
# A schema is a type, a tuple of types, a dict {key: schema} (keys required, extra allowed),
# or a one-element list [schema] for "a list of these".
def check_schema(value: Any, schema: Any, where: str = "$") -> None:
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
        for key, sub in schema.items():
            assert key in value, f"{where}: missing key {key!r} in {sorted(value)}"
            check_schema(value[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), f"{where}: expected a list, got {value!r}"
        for i, item in enumerate(value):
            check_schema(item, schema[0], f"{where}[{i}]")
    else:
        assert isinstance(value, schema), f"{where}: expected {schema}, got {value!r}"


OPT_STR = (str, type(None))
NUM = (int, float)
ENVELOPE = {"ok": bool, "command": str}
ERROR_ENVELOPE = {
    "ok": bool,
    "command": str,
    "exit_code": int,
    "error": {"code": str, "message": str, "fix": str},
}
