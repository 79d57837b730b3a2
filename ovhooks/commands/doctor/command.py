"""The ``ovhooks doctor`` command: options in, ``runner``'s document out (JSON, or rendered
for people), exit code 6 when a check fails."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from rich.console import Console

_MARK = {"ok": "[green]✓[/]", "warn": "[yellow]![/]", "fail": "[red]✗[/]", "skip": "[dim]-[/]"}


def render(doc: dict[str, Any]) -> Callable[[Console], None]:
    """People's view of the result: one line per check, its fix under a failure or warning."""

    def show(console: Console) -> None:
        from rich.markup import escape

        for item in doc["checks"]:
            console.print(
                f"{_MARK[item['status']]} [bold]{item['name']}[/]: {escape(item['summary'])}"
            )
            if item["fix"] and item["status"] in ("fail", "warn"):
                console.print(f"    fix: {escape(item['fix'])}")
        counts = doc["counts"]
        verdict = "[green]all good[/]" if doc["ok"] else f"[red]{counts['fail']} failing[/]"
        console.print(
            f"\n{verdict} ({counts['ok']} ok, {counts['warn']} warning(s), "
            f"{counts['skip']} skipped)"
        )

    return show


@boundary("doctor")
def doctor(
    write_test: Annotated[
        bool,
        typer.Option(
            "--write-test", help="Also append one message to a scratch session and read it back."
        ),
    ] = False,
    host: Annotated[
        str | None, typer.Option("--host", help="Check only this host's hooks.")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per server request.")] = 5.0,
    as_json: JsonFlag = False,
) -> int:
    """Check everything ovhooks needs and say how to fix each failure.

    Route to the server (proxy, CAs), server reachable and its version, the same request
    as a hook makes it, auth mode against the key, identity, hooks per host
    (Codex: feature flag and trust), state directory, queued writes, recent errors.
    Exit code 6 when a check fails. JSON: {ok, checks: [{name, status, summary, fix,
    details}], counts}.
    """
    from ovhooks.commands.common import command_backend, current_peer, settings_from
    from ovhooks.commands.doctor.runner import result, run_checks

    settings = settings_from()
    if host is not None and host not in hostconfig.HOSTS:
        raise CommandError(
            f"unknown host {host!r}",
            fix=f"use one of: {', '.join(hostconfig.HOSTS)}",
            code=ExitCode.USAGE,
            slug="usage",
        )
    peer = current_peer(settings)
    checks = run_checks(
        settings,
        os.environ,
        os.getcwd(),
        lambda: command_backend(settings, peer=peer, timeout_s=timeout),
        write_test=write_test,
        hosts=(host,) if host else hostconfig.HOSTS,
    )
    doc = result(settings, checks)
    Output("doctor", as_json=as_json).emit(doc, render(doc))
    return 0 if doc["ok"] else int(ExitCode.CHECKS_FAILED)
