"""``ovhooks mcp``: the stdio transport. One JSON-RPC message per line in, one per line out.

Start-up is what the hosts wait for (Codex gives a stdio server about 1 s before the first
turn leaves without its tools, spec mcp.md §1.5), so this process imports only ``json``, the
protocol and the tool table before it answers ``initialize`` and ``tools/list``; settings,
the backend and the scrubber load on the first ``tools/call``. No Typer, Rich or MCP SDK
(the SDK's import alone took 1.5-2.0 s on this machine under load).

stdout carries protocol messages only: ``sys.stdout`` is pointed at stderr while the server
runs, so a stray ``print`` anywhere cannot corrupt the stream. A line longer than
``MAX_LINE`` bytes is answered with an error and skipped, never held whole in memory.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from ovhooks.mcp.protocol import Dispatcher

MAX_LINE = 4 * 1024 * 1024


def make_dispatcher(environ: dict[str, str], cwd: str) -> Dispatcher:
    from ovhooks import __version__
    from ovhooks.mcp.handlers import MemoryTools
    from ovhooks.mcp.protocol import Dispatcher
    from ovhooks.mcp.tools import INSTRUCTIONS, TOOLS

    tools = MemoryTools(environ, cwd)
    return Dispatcher(
        name="ovhooks",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=TOOLS,
        call=tools.call,
    )


def handle_line(dispatcher: Dispatcher, line: bytes) -> Any:
    """The reply to one line (None when nothing is to be written)."""
    from ovhooks.mcp.protocol import INTERNAL_ERROR, PARSE_ERROR, error

    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is one too
        return error(None, PARSE_ERROR, "not valid JSON")
    try:
        return dispatcher.dispatch(message)
    except Exception as exc:  # a bug here must cost one request, never the server
        msg_id = message.get("id") if isinstance(message, dict) else None
        valid = isinstance(msg_id, str | int) and not isinstance(msg_id, bool)
        reason = f"internal error: {type(exc).__name__}"
        return error(msg_id if valid else None, INTERNAL_ERROR, reason)


def _lines(stream: IO[bytes]) -> Any:
    """Lines of ``stream``; an over-long line is yielded as ``None`` once, the rest dropped."""
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        if len(line) >= MAX_LINE and not line.endswith(b"\n"):
            while True:  # drop the rest of it, a bounded chunk at a time
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def serve(stdin: IO[bytes], stdout: IO[bytes], dispatcher: Dispatcher) -> None:
    from ovhooks.mcp.protocol import INVALID_REQUEST, error
    from ovhooks.redact import redact_json_text

    for line in _lines(stdin):
        reply = (
            error(None, INVALID_REQUEST, f"message over {MAX_LINE} bytes")
            if line is None
            else handle_line(dispatcher, line)
        )
        if reply is None:
            continue
        # the one way out: no answer or error, whatever it quotes, carries our key
        data = redact_json_text(
            json.dumps(reply, ensure_ascii=False, separators=(",", ":"), default=str)
        )
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a request id "\ud800"): escaped, so
            # the client gets back the id it sent, not "?"
            raw = redact_json_text(
                json.dumps(reply, ensure_ascii=True, separators=(",", ":"), default=str)
            ).encode("ascii")
        stdout.write(raw + b"\n")
        stdout.flush()


def main(argv: list[str]) -> int:
    """Serve until stdin closes; exit 0 (the host ending the session is the normal end)."""
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(
            "usage: ovhooks mcp\n\nServe ovhooks' memory tools (search, read, list, remember, "
            "forget) over MCP on stdin/stdout. Hosts start it; `ovhooks install` registers it.\n"
        )
        return 0
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by mistake goes to stderr, not the protocol
    from ovhooks.mcp.handlers import server_cwd

    environ = dict(os.environ)
    from ovhooks.redact import remember_environment

    remember_environment(environ)  # settings load on the first tools/call; errors come sooner
    dispatcher = make_dispatcher(environ, server_cwd(environ))
    from ovhooks.hosts.launch import mark_ready

    mark_ready(environ)
    try:
        serve(sys.stdin.buffer, out, dispatcher)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0
