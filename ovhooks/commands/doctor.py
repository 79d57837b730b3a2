"""``ovhooks doctor``: check everything a working install needs; name the fix for each failure.

Checks, in order: configuration warnings, which backend and why, how the hooks reach the
server (direct or which proxy, which CAs for https), server reachable and its version, the
same request made exactly as a fresh hook makes it (its budget, a new connection; a
disagreement with the server check is reported), auth mode against the key and tenant
settings, identity, (``--write-test``) a write and read in a scratch session, hooks per host
(and Codex's feature flag and trust records), the state directory, queued writes and recent
errors.
"""

from __future__ import annotations

import os
import time

from ovhooks.commands import hostconfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    import typer

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings

    Check = dict[str, Any]

STATUSES = ("ok", "warn", "fail", "skip")
RECENT_ERROR_WINDOW_S = 24 * 3600


def check(name: str, status: str, summary: str, fix: str = "", /, **details: object) -> Check:
    return {"name": name, "status": status, "summary": summary, "fix": fix, "details": details}


# --- configuration and server --------------------------------------------------------------------
def check_config(settings: Settings) -> Check:
    if settings.warnings:
        return check(
            "config",
            "warn",
            "; ".join(settings.warnings),
            "correct or remove the values named (`ovhooks status` shows every source)",
        )
    return check("config", "ok", "configuration read without problems")


def check_backend_choice(settings: Settings) -> Check:
    where = (
        f" at {settings.url}" if settings.backend == "openviking" else (f" in {settings.data_dir}")
    )
    return check(
        "backend",
        "ok",
        f"{settings.backend}{where}: {settings.why_backend}",
        backend=settings.backend,
        why=settings.why_backend,
    )


def _url_fix(settings: Settings) -> str:
    return (
        f"set OPENVIKING_URL to the server's root URL, e.g. http://127.0.0.1:1933 (no /api/v1); "
        f"the URL now comes from {settings.sources.get('url', 'default')}"
    )


def _network_fix(exc: Any, settings: Settings) -> str:
    if exc.kind == "tls":
        return (
            "set OVHOOKS_CA_BUNDLE to the PEM file of the CA that signed the server's "
            "certificate (the network check names the CAs in use)"
        )
    if exc.code == "REDIRECT":
        return "set OPENVIKING_URL to the address the server redirects to, if you trust it"
    if exc.kind == "too_large":
        return "the server's answer is unexpectedly large: check OPENVIKING_URL"
    return "correct the setting named above; " + _url_fix(settings)


def check_server(settings: Settings, backend: Backend) -> tuple[Check, dict[str, Any] | None]:
    from ovhooks.backend.errors import BackendError

    try:
        health = backend.health()
    except BackendError as exc:
        if exc.kind == "unreachable":
            return check(
                "server",
                "fail",
                f"server down or wrong URL: {exc.message}",
                "start the OpenViking server (`openviking-server`), or " + _url_fix(settings),
                url=settings.url,
                error=exc.kind,
            ), None
        if exc.kind in ("tls", "config", "too_large") or exc.code == "REDIRECT":
            return check(
                "server",
                "fail",
                f"{settings.url}: {exc.message}",
                _network_fix(exc, settings),
                url=settings.url,
                error=exc.code.lower() if exc.code == "REDIRECT" else exc.kind,
            ), None
        if exc.kind == "timeout":
            return check(
                "server",
                "fail",
                f"no answer from {settings.url} in time: {exc.message}",
                "check that the server is not stuck (restart it), or " + _url_fix(settings),
                url=settings.url,
                error=exc.kind,
            ), None
        if (
            exc.kind == "bad_response"
            or exc.status in (404, 405)
            or (exc.kind == "http" and "non-JSON" in exc.message)
        ):
            return check(
                "server",
                "fail",
                f"wrong URL: {settings.url} answers, but not as an OpenViking server ({exc})",
                _url_fix(settings),
                url=settings.url,
                error="not_openviking",
            ), None
        return check(
            "server",
            "fail",
            f"the server answered with an error: {exc}",
            "look at the server's log; restart it if it keeps failing",
            url=settings.url,
            error=exc.kind,
        ), None
    if health.get("status") == "error" or not ({"healthy", "version"} & set(health)):
        # /health is not enveloped: an error document or a stranger's JSON means the URL
        # points somewhere else (a path prefix, another service).
        return check(
            "server",
            "fail",
            f"wrong URL: {settings.url}/health did not answer as an OpenViking server does",
            _url_fix(settings),
            url=settings.url,
            error="not_openviking",
        ), None
    version = str(health.get("version") or "unknown")
    if settings.backend != "openviking":
        return check(
            "server",
            "ok",
            f"local store in {settings.data_dir}, version {version}",
            url=None,
            version=version,
        ), health
    if health.get("healthy") is False:
        return check(
            "server",
            "warn",
            f"{settings.url} reports itself unhealthy (version {version})",
            "look at the server's log",
            url=settings.url,
            version=version,
        ), health
    return check(
        "server",
        "ok",
        f"{settings.url} is up, version {version}",
        url=settings.url,
        version=version,
    ), health


def check_auth(settings: Settings, health: Mapping[str, Any]) -> Check:
    """The server's auth mode against what we send (the tenant-header rules)."""
    from ovhooks.config import mask_secret

    server_mode = str(health.get("auth_mode") or "")
    ours = settings.effective_auth_mode
    key = mask_secret(settings.api_key) if settings.api_key else "(none)"
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


def check_identity(settings: Settings, backend: Backend) -> tuple[Check, str | None]:
    from ovhooks.backend.errors import BackendError
    from ovhooks.config import mask_secret

    try:
        user = backend.whoami()
    except BackendError as exc:
        key = mask_secret(settings.api_key) if settings.api_key else "(none)"
        source = settings.sources.get("api_key", "default")
        if exc.status == 401:
            return check(
                "identity",
                "fail",
                f"bad key: the server rejected the API key {key} ({source})",
                "set OPENVIKING_API_KEY to a valid key for this server (a user key in api_key "
                "mode, the root key in trusted mode)",
            ), None
        if exc.status == 403:
            return check(
                "identity",
                "fail",
                f"permission denied: {exc.message}",
                "a root key cannot read tenant data in api_key mode: use a user key "
                "(POST /api/v1/admin/accounts creates one)",
            ), None
        if exc.status == 400 and "trusted" in exc.message.lower():
            return check(
                "identity",
                "fail",
                f"trusted mode without tenant: {exc.message}",
                "set OPENVIKING_ACCOUNT and OPENVIKING_USER",
            ), None
        return check(
            "identity",
            "fail",
            f"identity check failed: {exc}",
            "run again with a working server; see the server's log",
        ), None
    peer = settings.actor_peer or "(derived from the project)"
    return check("identity", "ok", f"user {user}, peer {peer}", user=user), user


def check_write(backend: Backend, now: float) -> Check:
    """Append one message to a scratch session and read it back."""
    import secrets

    from ovhooks.backend.errors import BackendError

    session = f"ovhooks-doctor-{int(now)}-{secrets.token_hex(3)}"
    text = f"ovhooks doctor write test {session}"
    try:
        backend.append_messages(
            session, [{"role": "user", "parts": [{"type": "text", "text": text}]}]
        )
        info = backend.session_info(session)
    except BackendError as exc:
        return check(
            "write",
            "fail",
            f"write-and-read round trip failed: {exc}",
            "fix the failures above first; then see the server's log",
            session=session,
        )
    count = info.get("message_count", info.get("total_message_count"))
    if not isinstance(count, int) or count < 1:
        return check(
            "write",
            "fail",
            f"wrote to {session} but read back {count!r} messages",
            "see the server's log",
            session=session,
        )
    return check(
        "write",
        "ok",
        f"wrote and read back a message in scratch session {session} (never committed)",
        session=session,
    )


# --- hooks ---------------------------------------------------------------------------------------
def _first_token(command: str) -> str:
    import shlex

    try:
        return shlex.split(command)[0]
    except (ValueError, IndexError):
        parts = command.split(maxsplit=1)
        return parts[0] if parts else ""


def check_host(host: str, environ: Mapping[str, str], cwd: str) -> Check:
    from ovhooks.commands.errors import CommandError
    from ovhooks.commands.install import our_handlers, read_json_doc

    host_dir = hostconfig.codex_home(environ) if host == "codex" else hostconfig.claude_dir(environ)
    label = "Codex" if host == "codex" else "Claude Code"
    found: list[tuple[str, str, list[tuple[str, int, int, str]]]] = []
    problems: list[str] = []
    for scope in hostconfig.SCOPES:
        path = hostconfig.hooks_file(host, scope, environ, cwd)
        if scope == "project" and path == hostconfig.hooks_file(host, "user", environ, cwd):
            continue
        try:
            doc, _text = read_json_doc(path)
        except CommandError as exc:
            problems.append(exc.message)
            continue
        handlers = our_handlers(doc)
        if handlers:
            found.append((scope, path, handlers))
    name = f"hooks:{host}"
    if problems and not found:
        return check(
            name, "fail", "; ".join(problems), f"fix the file, then run `ovhooks install {host}`"
        )
    if not found:
        if not os.path.isdir(host_dir):
            return check(
                name, "skip", f"{label} not found ({host_dir} does not exist)", installed=False
            )
        return check(
            name,
            "fail",
            f"hooks missing: ovhooks is not registered with {label}",
            f"run `ovhooks install {host}`",
            installed=False,
        )
    wanted = {event for event, *_ in hostconfig.HOOK_TABLE[host]}
    notes: list[str] = []
    status = "ok"
    fix = ""
    scopes: list[dict[str, Any]] = []
    for scope, path, handlers in found:
        scopes.append({"scope": scope, "path": path, "events": sorted({h[0] for h in handlers})})
        missing = sorted(wanted - {h[0] for h in handlers})
        if missing:
            status, fix = "warn", f"run `ovhooks install {host} --scope {scope}` again"
            notes.append(f"{scope}: missing {', '.join(missing)}")
        for _event, _gi, _hi, command in handlers:
            exe = _first_token(command)
            if os.path.isabs(exe) and not os.path.exists(exe):
                status, fix = "fail", f"run `ovhooks install {host} --scope {scope}` again"
                notes.append(f"{scope}: the hooks run {exe}, which no longer exists")
                break
    summary = f"registered ({', '.join(str(s['scope']) for s in scopes)} scope)"
    if host == "codex":
        status, fix, extra = _codex_checks(environ, found, status, fix)
        notes.extend(extra)
    if notes:
        summary += "; " + "; ".join(notes)
    return check(name, status, summary, fix, installed=True, scopes=scopes)


def _codex_checks(
    environ: Mapping[str, str],
    found: list[tuple[str, str, list[tuple[str, int, int, str]]]],
    status: str,
    fix: str,
) -> tuple[str, str, list[str]]:
    from ovhooks.commands.codex_toml import hooks_feature, trust_records

    notes: list[str] = []
    config = hostconfig.codex_config_toml(environ)
    try:
        with open(config, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        text = ""
    try:
        feature = hooks_feature(text)
    except ValueError:
        return "fail", f"fix the TOML syntax in {config}", [f"{config} is not valid TOML"]
    if feature in ("off", "alias-off"):
        return (
            "fail",
            "run `codex features enable hooks` (or `ovhooks install codex`)",
            [f"the hooks feature is off in {config}"],
        )
    records = trust_records(text)
    untrusted = []
    total = 0
    for _scope, path, handlers in found:
        variants = {path, os.path.realpath(path)}
        for event, gi, hi, _command in handlers:
            total += 1
            keys = {f"{p}:{hostconfig.event_key(event)}:{gi}:{hi}" for p in variants}
            if not keys & set(records):
                untrusted.append(event)
    if untrusted:
        notes.append(
            f"{len(untrusted)} of {total} hooks not trusted yet ({', '.join(untrusted)});"
            " Codex skips untrusted hooks silently"
        )
        return "fail", "start `codex`, type /hooks and trust the ovhooks hooks", notes
    notes.append(f"all {total} hooks have trust records (hashes are checked by Codex)")
    return status, fix, notes


# --- local files ---------------------------------------------------------------------------------
def state_dir_fix(state_dir: str) -> str:
    """What to do about a state directory that cannot be used (doctor and every command)."""
    return f"make {state_dir} a folder you can write (chmod u+rwx), or set OVHOOKS_STATE_DIR to one"


def check_state_dir(state_dir: str) -> Check:
    import tempfile

    fix = state_dir_fix(state_dir)
    if not os.path.isdir(state_dir):
        probe = state_dir
        while probe and not os.path.exists(probe):
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
        if os.path.isdir(probe) and os.access(probe, os.W_OK):
            return check(
                "state_dir", "ok", f"{state_dir} will be created on first use", path=state_dir
            )
        return check(
            "state_dir",
            "fail",
            f"state directory unwritable: {state_dir} cannot be "
            f"created ({probe} is not a writable folder)",
            fix,
            path=state_dir,
        )
    try:
        fd, probe_path = tempfile.mkstemp(prefix=".doctor-", dir=state_dir)
        os.close(fd)
        os.unlink(probe_path)
    except OSError as exc:
        return check(
            "state_dir",
            "fail",
            f"state directory unwritable: {state_dir} ({exc})",
            fix,
            path=state_dir,
        )
    mode = os.stat(state_dir).st_mode & 0o777
    if mode & 0o077:
        return check(
            "state_dir",
            "warn",
            f"{state_dir} is readable by others (mode {mode:o}); it holds queued conversation text",
            f"chmod 700 {state_dir}",
            path=state_dir,
            mode=f"{mode:o}",
        )
    return check(
        "state_dir", "ok", f"{state_dir} writable, mode {mode:o}", path=state_dir, mode=f"{mode:o}"
    )


def check_queue(state_dir: str) -> Check:
    from ovhooks.commands.common import dead_letters, outbox_backlog
    from ovhooks.layout import dead_root

    try:
        backlog = outbox_backlog(state_dir)
    except OSError:  # an unusable state directory: the state_dir check says how to fix it
        return check("queue", "skip", "skipped: the state directory is unusable")
    dead = dead_letters(state_dir)
    queued = sum(backlog.values())
    details = {"queued": queued, "sessions": len(backlog), "dead": dead}
    if queued:
        return check(
            "queue",
            "warn",
            f"{queued} queued write(s) in {len(backlog)} session(s)",
            "once the server works, `ovhooks flush` sends them now (hooks also retry)",
            **details,
        )
    if dead:
        return check(
            "queue",
            "warn",
            f"{dead} write(s) the server refused are kept in {dead_root(state_dir)}",
            "inspect them; delete the folder when done",
            **details,
        )
    return check("queue", "ok", "no queued writes", **details)


def check_recent_errors(state_dir: str, now: float) -> Check:
    from ovhooks.log import read_recent

    records = []
    for record in read_recent(state_dir, level="error", limit=200):
        ts = record.get("ts")
        if isinstance(ts, int | float) and now - ts <= RECENT_ERROR_WINDOW_S:
            records.append(record)
    if not records:
        return check("errors", "ok", "no errors logged in the last 24 h", count=0)
    events: dict[str, int] = {}
    for record in records:
        events[str(record.get("event"))] = events.get(str(record.get("event")), 0) + 1
    last = records[-1]
    summary = (
        f"{len(records)} error(s) in the last 24 h ("
        + ", ".join(f"{k} ×{v}" for k, v in sorted(events.items()))
        + ")"
    )
    from ovhooks.layout import log_path as layout_log_path

    log_path = layout_log_path(state_dir)
    return check(
        "errors",
        "warn",
        summary,
        f"details in {log_path}",
        count=len(records),
        events=events,
        last={
            "event": last.get("event"),
            "ts": last.get("ts"),
            "error": str(last.get("error", ""))[:200],
        },
    )


# --- the whole run -------------------------------------------------------------------------------
def run_checks(
    settings: Settings,
    environ: Mapping[str, str],
    cwd: str,
    backend_factory: Callable[[], Backend],
    *,
    write_test: bool = False,
    hosts: tuple[str, ...] = hostconfig.HOSTS,
    now: float | None = None,
) -> list[Check]:
    now = time.time() if now is None else now
    from ovhooks.commands import doctor_checks as more

    checks = [check_config(settings), check_backend_choice(settings)]
    checks.append(more.check_project(settings, cwd))
    backend = backend_factory()
    if settings.backend == "openviking":
        from ovhooks.commands.doctor_net import check_network

        checks.append(check_network(settings, environ))
    server, health = check_server(settings, backend)
    checks.append(server)
    if settings.backend == "openviking":
        from ovhooks.commands.doctor_net import check_hook_path

        outcome = "ok" if health is not None else str(server["details"].get("error"))
        timeout = float(getattr(backend, "_timeout", settings.request_timeout_s))
        checks.append(
            check_hook_path(settings, str(getattr(backend, "peer", "")), outcome, timeout)
        )
    if health is None:
        for name in ("auth", "identity", *(("write",) if write_test else ())):
            checks.append(check(name, "skip", "skipped: the server check failed"))
    else:
        if settings.backend == "openviking":
            checks.append(check_auth(settings, health))
        identity, _user = check_identity(settings, backend)
        checks.append(identity)
        if write_test:
            if identity["status"] == "fail":
                checks.append(check("write", "skip", "skipped: the identity check failed"))
            else:
                checks.append(check_write(backend, now))
    host_checks = [check_host(host, environ, cwd) for host in hosts]
    if host_checks and all(c["status"] == "skip" for c in host_checks):
        host_checks.append(
            check(
                "hooks",
                "fail",
                "hooks missing: neither Codex nor Claude Code has ovhooks' hooks",
                "run `ovhooks install codex` or `ovhooks install claude`",
            )
        )
    checks.extend(host_checks)
    if "codex" in hosts:
        checks.append(more.check_codex_native_memories(environ))
    if health is not None:
        checks.append(more.check_ready(settings, backend))
    checks.extend(more.check_capture_activity(h, settings.state_dir, environ, now) for h in hosts)
    checks.append(more.check_double_ingestion(environ, backend if health is not None else None))
    checks.append(check_state_dir(settings.state_dir))
    checks.append(check_queue(settings.state_dir))
    checks.append(check_recent_errors(settings.state_dir, now))
    return checks


_MARK = {"ok": "[green]✓[/]", "warn": "[yellow]![/]", "fail": "[red]✗[/]", "skip": "[dim]-[/]"}


def register(app: typer.Typer) -> None:
    import typer

    from ovhooks.commands.common import command_backend, current_peer, settings_from
    from ovhooks.commands.errors import ExitCode
    from ovhooks.commands.output import JsonOption, Output, boundary

    @app.command("doctor", rich_help_panel="Set-up")
    @boundary("doctor")
    def doctor(
        write_test: bool = typer.Option(
            False,
            "--write-test",
            help="Also append one message to a scratch session and read it back.",
        ),
        host: str = typer.Option(None, "--host", help="Check only this host's hooks."),
        timeout: float = typer.Option(5.0, "--timeout", help="Seconds per server request."),
        as_json: bool = JsonOption,
    ) -> int:
        """Check everything ovhooks needs and say how to fix each failure.

        Route to the server (proxy, CAs), server reachable and its version, the same request
        as a hook makes it, auth mode against the key, identity, hooks per host
        (Codex: feature flag and trust), state directory, queued writes, recent errors.
        Exit code 6 when a check fails. JSON: {ok, checks: [{name, status, summary, fix,
        details}], counts}.
        """
        settings = settings_from()
        if host is not None and host not in hostconfig.HOSTS:
            from ovhooks.commands.errors import CommandError

            raise CommandError(
                f"unknown host {host!r}",
                fix="use codex or claude",
                code=ExitCode.USAGE,
                slug="usage",
            )
        hosts = (host,) if host else hostconfig.HOSTS
        peer = current_peer(settings)
        checks = run_checks(
            settings,
            os.environ,
            os.getcwd(),
            lambda: command_backend(settings, peer=peer, timeout_s=timeout),
            write_test=write_test,
            hosts=hosts,
        )
        counts = {s: sum(1 for c in checks if c["status"] == s) for s in STATUSES}
        ok = counts["fail"] == 0

        def render(console: Any) -> None:
            from rich.markup import escape

            for item in checks:
                console.print(
                    f"{_MARK[item['status']]} [bold]{item['name']}[/]: {escape(item['summary'])}"
                )
                if item["fix"] and item["status"] in ("fail", "warn"):
                    console.print(f"    fix: {escape(item['fix'])}")
            verdict = "[green]all good[/]" if ok else f"[red]{counts['fail']} failing[/]"
            console.print(
                f"\n{verdict} ({counts['ok']} ok, {counts['warn']} warning(s), "
                f"{counts['skip']} skipped)"
            )

        Output("doctor", as_json=as_json).emit(
            {
                "ok": ok,
                "backend": settings.backend,
                "why_backend": settings.why_backend,
                "checks": checks,
                "counts": counts,
            },
            render,
        )
        return 0 if ok else int(ExitCode.CHECKS_FAILED)
