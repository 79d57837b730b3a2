"""The memory tools' work: arguments checked, the memory verbs run, plain text back.

The verbs are ``commands/memory_ops``'s, the CLI's own, on the backend the hooks use for this
folder (settings, identity, project peer). Every answer, error or not, passes
``redact_known_secrets``; a failure becomes an ``isError`` result that says what to do, and
an unexpected one is logged with its traceback (never shown: a traceback can hold a key).
"""

from __future__ import annotations

import os

from ovhooks.mcp.protocol import text_result
from ovhooks.mcp.tools import check_arguments

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings

READ_MAX_CHARS = 20_000  # a memory is a few sentences; an archive or resource can be long
ABSTRACT_CHARS = 240
ERROR_MAX_CHARS = 1_000  # an error names what was wrong; the request it quotes is cut


def one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def for_a_model(advice: str) -> str:
    """The CLI's advice in the tools' terms (a model calls the tools, not the commands)."""
    for command, tool in (("`ovhooks ls`", "the list tool"), ("`ovhooks search`", "search")):
        advice = advice.replace(command, tool)
    return advice


def query_head(query: str, settings: object | None = None) -> str:
    """The query as an answer names it (``capture.scrub.named_query``), quoted."""
    from ovhooks.capture.scrub import named_query

    return repr(named_query(query, settings))


def render_hits(query: str, hits: list[dict[str, Any]], settings: object | None = None) -> str:
    named = query_head(query, settings)
    if not hits:
        return f"No memory matches {named}."
    lines = [f"{len(hits)} result(s) for {named}, best first:"]
    for n, hit in enumerate(hits, 1):
        score = f"{hit['score']:.2f}" if hit["score"] is not None else "?"
        summary = one_line(hit["abstract"], ABSTRACT_CHARS) or "(no summary; read it)"
        lines.append(f"{n}. [{hit['kind']} {score}] {summary}\n   {hit['uri']}")
    return "\n".join(lines)


def render_entries(target: str, files: list[dict[str, Any]], complete: bool = True) -> str:
    """The memory files under ``target``, the first ``LIST_SHOWN`` named, the true total told
    (``complete`` False: the store's listing reached its cap, so "at least")."""
    from ovhooks.rules.limits import LIST_SHOWN

    if not files:
        return f"{target} holds no memories."
    total = f"{len(files):,}" if complete else f"at least {len(files):,}"
    shown = files[:LIST_SHOWN]
    if len(shown) == len(files):
        lines = [f"{total} memory file(s) under {target}:"]
    else:
        lines = [f"{total} memory files under {target}; showing the first {len(shown)}:"]
    for entry in shown:
        summary = one_line(entry["abstract"], 120)
        lines.append(f"- {entry['uri']}" + (f" — {summary}" if summary else ""))
    if len(shown) < len(files):
        lines.append(f"[showing {len(shown)} of {total}; search, or list a narrower folder]")
    return "\n".join(lines)


def render_content(uri: str, content: str) -> str:
    """The text as stored, without the trailing newline some stores keep and some drop."""
    content = content.rstrip()
    if not content:
        return f"{uri} is empty."
    if len(content) > READ_MAX_CHARS:
        cut = len(content) - READ_MAX_CHARS
        return content[:READ_MAX_CHARS] + f"\n[… {cut} more characters not shown]"
    return content


class MemoryTools:
    """The five tools for one server process: settings and backend made on first use."""

    def __init__(self, environ: Mapping[str, str], cwd: str) -> None:
        self.environ = environ
        self.cwd = cwd
        self._settings: Settings | None = None
        self._backend: Backend | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from ovhooks.settings.config import load_settings

            self._settings = load_settings(self.environ)
        return self._settings

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            from ovhooks.commands.memory_ops import memory_backend

            self._backend = memory_backend(self.settings, self.cwd)
        return self._backend

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One ``tools/call``: a ``CallToolResult``, whatever happens."""

        checked, problems = check_arguments(name, arguments)
        if problems:
            text = f"{name}: invalid arguments: " + "; ".join(problems) + "."
            return text_result(self._said(text, error=True), is_error=True)
        try:
            text = getattr(self, f"_{name}")(**checked)
        except Exception as exc:
            return text_result(self._said(self._failure(name, exc), error=True), is_error=True)
        return text_result(self._said(text))

    def _said(self, text: str, *, error: bool = False) -> str:
        """What goes back to the model. Memory text it reads as its own context: no tag of
        its wrapper closed, no control or invisible character (``neutralize_tags``, as
        recall's blocks). An error quotes the request: at most ``ERROR_MAX_CHARS`` of it,
        scrubbed like anything stored (a token as an argument's name came back whole)."""
        from ovhooks.recall.text import neutralize_tags
        from ovhooks.redact import redact_known_secrets

        if error:
            from ovhooks.capture.scrub import clean_outbound

            if len(text) > ERROR_MAX_CHARS:
                text = text[: ERROR_MAX_CHARS - 1] + "…"
            text = clean_outbound(text, self.settings)
        return neutralize_tags(redact_known_secrets(text))

    # --- the tools ----------------------------------------------------------------------
    def _search(self, query: str, limit: int) -> str:
        from ovhooks.commands import memory_ops

        hits = memory_ops.search(self.backend, query, limit=limit, settings=self.settings)
        return render_hits(query, hits, self.settings)

    def _read(self, uri: str) -> str:
        from ovhooks.commands import memory_ops

        return render_content(uri, memory_ops.read(self.backend, uri, "full"))

    def _list(self, uri: str = "") -> str:
        from ovhooks.commands import memory_ops

        target, files, complete = memory_ops.memory_files(self.settings, self.backend, uri)
        return render_entries(target, files, complete)

    def _remember(self, text: str, kind: str = "preferences") -> str:
        from ovhooks.commands import memory_ops

        done = memory_ops.remember(self.settings, self.backend, text, kind=kind)
        note = " Secrets in the text were redacted before storing." if done["scrubbed"] else ""
        return f"Remembered ({kind}): {done['uri']}.{note}"

    def _forget(self, uri: str) -> str:
        from ovhooks.commands import memory_ops

        return f"Forgot {memory_ops.forget_uri(self.settings, self.backend, uri)}."

    # --- failures -----------------------------------------------------------------------
    def _failure(self, name: str, exc: Exception) -> str:
        from ovhooks.commands.errors import LOCAL_STORE_FIX, CommandError, backend_failure
        from ovhooks.transport.errors import BackendError

        if isinstance(exc, BackendError):
            failure = backend_failure(exc, url=self._url())
            if self._url() == "" and failure.slug.startswith("server_"):  # worded for a server
                failure = CommandError(
                    f"the local memory store failed: {exc.message}", fix=LOCAL_STORE_FIX
                )
            exc = failure
        if isinstance(exc, CommandError):
            fix = f" Fix: {for_a_model(exc.fix).rstrip('.')}." if exc.fix else ""
            return f"{name} failed: {exc.message.rstrip('.')}.{fix}"
        return f"{name} failed: unexpected {type(exc).__name__} in ovhooks; {self._logged(name)}"

    def _url(self) -> str:
        """The server's URL, or "" for the local store (which has none to name)."""
        try:
            settings = self.settings
            return str(settings.url or "") if settings.backend == "openviking" else ""
        except Exception:
            return ""

    def _logged(self, name: str) -> str:
        import traceback

        try:
            from ovhooks.log import Log

            log = Log(self.settings.state_dir, "error", component="mcp")
            log.error("mcp_tool_crashed", tool=name, trace=traceback.format_exc(limit=20))
            return f"details are in {log.path}"
        except Exception:
            return "the log is unavailable"


def server_cwd(environ: Mapping[str, str]) -> str:
    """The project folder: Claude Code names it; Codex starts the server in it."""
    return environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
