"""``ovhooks ui``: start the viewer on loopback and open it in the browser."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from ovhooks.commands.output import JsonFlag, boundary

if TYPE_CHECKING:
    import ipaddress

DEFAULT_PORT = 37373


@boundary("ui")
def ui(
    port: Annotated[
        int,
        typer.Option(help=f"Port to serve on (default {DEFAULT_PORT}, or a free one if taken)."),
    ] = DEFAULT_PORT,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Print the URL; do not open a browser.")
    ] = False,
    bind: Annotated[
        str,
        typer.Option(
            help="Address to listen on. Default 127.0.0.1 (and ::1): only this machine. "
            "Another address of this machine exposes your memory to that network (the token "
            "still guards it); never every interface (0.0.0.0)."
        ),
    ] = "127.0.0.1",
    as_json: JsonFlag = False,
) -> int:
    """See and fix what the agents remember, and why: a local web viewer.

    Prints a URL with a one-time token (the only way in), serves until Ctrl-C.
    """
    from ovhooks.commands.common import settings_from
    from ovhooks.commands.errors import usage_error
    from ovhooks.ui import guard, server
    from ovhooks.ui.routes import Viewer

    if not 0 <= port <= 65535:
        raise usage_error(f"--port {port} is not a port", "give 1-65535, or 0 for any free one")
    if _every_interface(bind):
        # The Host check answers only to the address bound (a rebinding guard), and a browser
        # names the machine's own address, never 0.0.0.0: every request would be refused.
        raise usage_error(
            f"--bind {bind} would listen on every interface",
            "give the one address to serve on (this machine's address on the network, or "
            "127.0.0.1, the default: only this machine)",
        )
    if not _an_address(bind):
        raise usage_error(
            f"--bind {bind!r} is not an address to listen on",
            "give an IP address (127.0.0.1 is the default: only this machine)",
        )
    settings = settings_from()
    secrets = guard.Secrets.fresh()
    viewer = Viewer(settings, os.getcwd(), secrets, frozenset())
    try:
        servers = server.bind(viewer, bind, port)
    except OSError as exc:
        if port != DEFAULT_PORT:
            raise usage_error(
                f"cannot listen on {bind}:{port}: {exc.strerror}", "try --port 0"
            ) from None
        servers = server.bind(viewer, bind, 0)
    bound = servers[0].server_address[1]
    viewer.hosts = guard.allowed_hosts(bind, bound)
    shown = f"[{bind}]" if ":" in bind else bind
    url = f"http://{shown}:{bound}/?token={secrets.token}"
    import sys

    if as_json:
        import json

        sys.stdout.write(json.dumps({"ok": True, "command": "ui", "url": url}) + "\n")
    else:
        sys.stdout.write(f"ovhooks ui: {url}\n(Ctrl-C to stop)\n")
    if not _loopback(bind):  # on stderr, so --json's one line stays whole
        sys.stderr.write(f"warning: listening on {bind}: reachable from the network\n")
    sys.stdout.flush()
    if not no_open:
        import webbrowser

        webbrowser.open(url)
    server.serve(servers)
    return 0


def _every_interface(bind: str) -> bool:
    """0.0.0.0, ::, and the IPv4-mapped spelling of any address (::ffff:0.0.0.0)."""
    address = _ip(bind)
    return address is not None and _unmapped(address).is_unspecified


def _loopback(bind: str) -> bool:
    address = _ip(bind)
    return bind == "localhost" or (address is not None and _unmapped(address).is_loopback)


def _ip(bind: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    import ipaddress

    try:
        return ipaddress.ip_address(bind)
    except ValueError:
        return None


def _unmapped(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def _an_address(bind: str) -> bool:
    """An IP address or ``localhost``: no name lookup, and never "" (every interface)."""
    return bind == "localhost" or _ip(bind) is not None
