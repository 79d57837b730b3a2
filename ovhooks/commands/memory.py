"""Memory verbs for people and agents: search, read, ls, remember.

Written so a model can drive them through its shell tool: short verbs, help that says what
comes back, ``--json`` documents with stable keys, and exit codes that mean one thing each
(see ``errors.ExitCode``). The one destructive verb, ``forget``, has its own module.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ovhooks.commands import memory_ops
from ovhooks.commands.common import settings_from
from ovhooks.commands.errors import usage_error
from ovhooks.commands.memory_ops import (
    LEVELS,
    ls_entries,
    memory_backend,
    memory_uri,
    resolve_user,
    search_results,
    slug,
)
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The pure helpers live in ``memory_ops`` (shared with the MCP server); these names stay
# importable from here for the commands and tests that used them.
__all__ = ["LEVELS", "ls_entries", "memory_uri", "resolve_user", "search_results", "slug"]


def _read_text_arg(text: str) -> str:
    if text == "-":
        text = sys.stdin.read()
    text = text.strip()
    if not text:
        raise usage_error(
            "nothing to remember: the text is empty",
            "pass the text as an argument, or `-` to read it from stdin",
        )
    return text


# --- search ----------------------------------------------------------------------------------


def _render_hits(results: list[dict[str, Any]]) -> Callable[[Any], None]:
    def render(console: Any) -> None:
        from rich.markup import escape

        if not results:
            console.print("no matches")
        for hit in results:
            score = f"{hit['score']:.2f}" if hit["score"] is not None else "  ? "
            console.print(f"[bold]{score}[/] {escape(hit['uri'])}")
            if hit["abstract"]:
                console.print(f"     {escape(hit['abstract'][:200])}")

    return render


@boundary("search")
def search(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    limit: Annotated[int, typer.Option("--limit", "-n", help="At most N results.")] = 10,
    uri: Annotated[
        str,
        typer.Option("--uri", help="Search only under this URI (e.g. viking://user/me/memories)."),
    ] = "",
    min_score: Annotated[
        float | None, typer.Option("--min-score", help="Drop results scoring below this (0-1).")
    ] = None,
    as_json: JsonFlag = False,
) -> int:
    """Search long-term memory (memories, resources, skills) by meaning.

    Prints the best matches with score, URI and a one-line abstract; read one with
    `ovhooks read URI`. JSON: {query, results: [{uri, kind, score, abstract}]}.
    """
    if min_score is not None and not 0.0 <= min_score <= 1.0:  # nan fails both
        raise usage_error(f"--min-score {min_score} is not a score", "scores run from 0 to 1")
    settings = settings_from()
    results = memory_ops.search(
        memory_backend(settings),
        query,
        limit=limit,
        uri=uri,
        min_score=min_score,
        settings=settings,
    )
    from ovhooks.capture.scrub import named_query

    Output("search", as_json=as_json).emit(
        {"query": named_query(query, settings), "results": results}, _render_hits(results)
    )
    return 0


# --- read, ls --------------------------------------------------------------------------------


@boundary("read")
def read(
    uri: Annotated[str, typer.Argument(help="A viking:// URI from search or ls.")],
    level: Annotated[
        str,
        typer.Option("--level", help="abstract (one line), overview (a summary) or full."),
    ] = "full",
    as_json: JsonFlag = False,
) -> int:
    """Print what a memory or resource says. JSON: {uri, level, content}."""
    settings = settings_from()
    content = memory_ops.read(memory_backend(settings), uri, level)

    def render(console: Any) -> None:
        console.print(content, markup=False, highlight=False)

    Output("read", as_json=as_json).emit({"uri": uri, "level": level, "content": content}, render)
    return 0


def _render_entries(
    target: str, entries: list[dict[str, Any]], cut_at: int = 0
) -> Callable[[Any], None]:
    """The listing; ``cut_at``: the limit it was cut at (0: it is the whole folder)."""

    def render(console: Any) -> None:
        from rich.markup import escape

        if not entries:
            console.print(f"{escape(target)} is empty")
        for entry in entries:
            mark = "/" if entry["is_dir"] and not entry["uri"].endswith("/") else ""
            line = escape(entry["uri"] + mark)
            if entry["abstract"]:
                line += f"  [dim]{escape(entry['abstract'][:80])}[/]"
            console.print(line)
        if cut_at:
            console.print(
                f"[dim]… the first {cut_at:,} entries; the folder holds more "
                f"(--limit N shows more).[/]"
            )

    return render


@boundary("ls")
def ls(
    uri: Annotated[str, typer.Argument(help="Folder to list (default: your memories).")] = "",
    recursive: Annotated[
        bool, typer.Option("--recursive", "-r", help="List sub-folders too.")
    ] = False,
    limit: Annotated[
        int,
        typer.Option("--limit", "-n", help="Show at most N entries (and say when there are more)."),
    ] = memory_ops.LS_DEFAULT_LIMIT,
    as_json: JsonFlag = False,
) -> int:
    """List a memory folder. JSON: {uri, entries: [{uri, is_dir, size, abstract}], more}
    (more: the folder holds entries past --limit)."""
    settings = settings_from()
    target, entries, more = memory_ops.ls(
        settings, memory_backend(settings), uri, recursive=recursive, limit=limit
    )
    Output("ls", as_json=as_json).emit(
        {"uri": target, "entries": entries, "more": more},
        _render_entries(target, entries, limit if more else 0),
    )
    return 0


# --- remember --------------------------------------------------------------------------------


@boundary("remember")
def remember(
    text: Annotated[
        str,
        typer.Argument(help="The fact to keep, in one or a few sentences (`-` reads stdin)."),
    ],
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="preferences (lasting facts, habits, choices) or events "
            "(something that happened, filed by date).",
        ),
    ] = "preferences",
    name: Annotated[
        str | None,
        typer.Option("--name", help="Topic name for the file; the same name replaces it."),
    ] = None,
    uri: Annotated[str | None, typer.Option("--uri", help="Write exactly here instead.")] = None,
    as_json: JsonFlag = False,
) -> int:
    """Store a memory now, without waiting for a session commit.

    Example: ovhooks remember "The user prefers pnpm over npm in this repo."
    Remembering the same text twice writes the same file. JSON: {uri, kind, bytes}.
    """
    settings = settings_from()
    done = memory_ops.remember(
        settings, memory_backend(settings), _read_text_arg(text), kind=kind, name=name, uri=uri
    )
    target = done["uri"]
    from ovhooks.semantic.client import nudge_store

    nudge_store(settings)

    def render(console: Any) -> None:
        console.print(f"remembered: {target}", markup=False)

    Output("remember", as_json=as_json).emit(
        {"uri": target, "kind": kind, "bytes": done["bytes"]}, render
    )
    return 0
