"""``ovhooks`` / ``python -m ovhooks``.

Hook commands (and ``version``) take a fast path that never imports Typer, Rich or httpx
(together ~150 ms): a hook is a fresh process on the agent's critical path. Everything else
goes to the Typer app.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["version"]:
        # hosts and scripts ask for it several times a session: no Typer for one line
        from ovhooks import __version__

        sys.stdout.write(__version__ + "\n")
        sys.exit(0)
    if argv:
        from ovhooks.hookrun import HOOK_COMMANDS

        if argv[0] in HOOK_COMMANDS and "--help" not in argv and "-h" not in argv:
            from ovhooks.hookrun import main as run_hook_main

            sys.exit(run_hook_main(argv[0], argv[1:]))
        if argv[0] == "mcp" and "--help" not in argv and "-h" not in argv:
            # a host waits for this server to answer before its first turn: no Typer
            from ovhooks.mcp.server import main as mcp_main

            sys.exit(mcp_main(argv[1:]))
        if argv[0] == "_worker":
            from ovhooks.worker.entry import main as worker_main

            sys.exit(worker_main(argv[1:]))
        if argv[0] == "_embedd":
            from ovhooks.semantic.service import main as embedd_main

            sys.exit(embedd_main(argv[1:]))
    from ovhooks.cli import run

    run()


if __name__ == "__main__":
    main()
