"""Doctor's identity checks: the server's auth mode against the key and tenant we send, and
who the server says we are."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings
    from ovhooks.transport.errors import BackendError


def _masked_key(settings: Settings) -> str:
    from ovhooks.settings.config import mask_secret

    return mask_secret(settings.api_key) if settings.api_key else "(none)"


def check_auth(settings: Settings, health: Mapping[str, Any]) -> Check:
    """The server's auth mode against what we send (the tenant-header rules)."""
    server_mode = str(health.get("auth_mode") or "")
    ours = settings.effective_auth_mode
    key = _masked_key(settings)
    key_src = settings.sources.get("api_key", "default")
    details = {"server_mode": server_mode or None, "client_mode": ours, "api_key": key}
    if not server_mode:
        return check(
            "auth", "skip", "the server does not report its auth mode; see identity", **details
        )
    if server_mode == "dev":
        note = " (the key is not needed)" if settings.api_key else ""
        return check("auth", "ok", f"server in dev mode: no key needed{note}", **details)
    if not settings.api_key:
        return check(
            "auth",
            "fail",
            f"the server requires an API key ({server_mode} mode) and none is set",
            "set OPENVIKING_API_KEY (or api_key in ~/.openviking/ovcli.conf)",
            **details,
        )
    if server_mode == "trusted" and not (settings.account and settings.user and ours == "trusted"):
        tenant = (("OPENVIKING_ACCOUNT", settings.account), ("OPENVIKING_USER", settings.user))
        missing = [n for n, v in tenant if not v]
        why = f"{', '.join(missing)} not set" if missing else f"auth_mode is {ours}"
        return check(
            "auth",
            "fail",
            f"trusted mode without tenant: the server needs X-OpenViking-Account and "
            f"X-OpenViking-User with the root key ({why})",
            "set OPENVIKING_ACCOUNT and OPENVIKING_USER (and leave OVHOOKS_AUTH_MODE at auto or "
            "trusted)",
            **details,
        )
    if server_mode == "api_key" and ours == "trusted":
        return check(
            "auth",
            "warn",
            "api_key mode: the user key fixes the identity, OPENVIKING_ACCOUNT/USER are ignored",
            "unset OPENVIKING_ACCOUNT/OPENVIKING_USER to avoid confusion",
            **details,
        )
    return check("auth", "ok", f"server in {server_mode} mode; key {key} from {key_src}", **details)


def _whoami_failed(settings: Settings, exc: BackendError) -> Check:
    from ovhooks.commands.errors import backend_failure

    # The command-wide mapping classifies the failure; doctor words it for the identity check.
    slug = backend_failure(exc).slug
    if slug == "unauthenticated":
        source = settings.sources.get("api_key", "default")
        return check(
            "identity",
            "fail",
            f"bad key: the server rejected the API key {_masked_key(settings)} ({source})",
            "set OPENVIKING_API_KEY to a valid key for this server (a user key in api_key "
            "mode, the root key in trusted mode)",
        )
    if slug == "permission_denied":
        return check(
            "identity",
            "fail",
            f"permission denied: {exc.message}",
            "a root key cannot read tenant data in api_key mode: use a user key "
            "(POST /api/v1/admin/accounts creates one)",
        )
    if exc.status == 400 and "trusted" in exc.message.lower():
        return check(
            "identity",
            "fail",
            f"trusted mode without tenant: {exc.message}",
            "set OPENVIKING_ACCOUNT and OPENVIKING_USER",
        )
    return check(
        "identity",
        "fail",
        f"identity check failed: {exc}",
        "run again with a working server; see the server's log",
    )


def check_identity(settings: Settings, backend: Backend) -> tuple[Check, str | None]:
    """The identity check, and the user the server named (None when it failed)."""
    from ovhooks.transport.errors import BackendError

    try:
        user = backend.whoami()
    except BackendError as exc:
        return _whoami_failed(settings, exc), None
    peer = settings.actor_peer or "(derived from the project)"
    return check("identity", "ok", f"user {user}, peer {peer}", user=user), user
