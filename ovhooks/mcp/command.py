"""``ovhooks mcp`` as the Typer app shows it (``--help``); the console script runs the server
without Typer (``__main__.py``), since a host waits for it to answer."""

from __future__ import annotations


def mcp() -> None:
    """Serve memory tools (search, read, list, remember, forget) over MCP on stdio.

    Hosts start this; `ovhooks install HOST` registers it with every host that takes MCP
    servers (user scope), and `ovhooks doctor` checks it answers. Same store, identity and
    project as the hooks.
    """
    import sys

    from ovhooks.mcp.server import main

    sys.exit(main([]))
