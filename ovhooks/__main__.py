"""``ovhooks`` / ``python -m ovhooks``.

Hook commands (and ``version``) take a fast path that never imports Typer, Rich or httpx
(together ~150 ms): a hook is a fresh process on the agent's critical path. Everything else
goes to the Typer app.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def _is_hook(argv: list[str]) -> bool:
    from ovhooks.hookrun import HOOK_COMMANDS

    return bool(argv) and argv[0] in HOOK_COMMANDS and "--help" not in argv and "-h" not in argv


def entry() -> None:
    """The ``ovhooks`` console script. After a hook has written its reply, the process leaves
    without the interpreter's teardown (freeing every module and object: about 4 ms of the
    ~50 a hook takes, measured in paired whole-process runs). Exit handlers still run, and
    the hook has closed every file it wrote: log lines and the journal are single ``write``
    calls on raw descriptors, state files are written whole and renamed, SQLite commits
    before returning. ``main`` stays the in-process entry (tests call it)."""
    argv = sys.argv[1:]
    if argv not in (["version"], ["--version"]) and _is_hook(argv):
        from ovhooks.hookrun import main as run_hook_main

        _leave(run_hook_main(argv[0], argv[1:]))
    main()


def _leave(code: int) -> NoReturn:
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["version"], ["--version"]):
        # hosts and scripts ask for it several times a session: no Typer for one line
        from ovhooks import __version__

        sys.stdout.write(__version__ + "\n")
        sys.exit(0)
    if argv:
        if _is_hook(argv):
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
    try:
        from ovhooks.cli import run

        run()
    except KeyboardInterrupt:  # Ctrl-C while the commands load (run() catches it after)
        sys.stderr.write("interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    entry()
