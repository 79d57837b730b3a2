"""Memory verbs for people and agents: search, read, ls, remember.

Written so a model can drive them through its shell tool: short verbs, help that says what
comes back, ``--json`` documents with stable keys, and exit codes that mean one thing each
(see ``errors.ExitCode``). The one destructive verb, ``forget``, has its own module.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from typing import Annotated

import typer

from ovhooks.commands.common import settings_from
from ovhooks.commands.errors import usage_error
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings

LEVELS = ("abstract", "overview", "full")
KINDS = ("preferences", "events")


def is_skeleton(uri: str) -> bool:
    """Directory summary nodes the server indexes next to real memories."""
    return uri.endswith(("/.abstract.md", "/.overview.md"))


def search_results(found: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten a ``find`` answer into scored hits, best first, without skeleton nodes."""
    hits = []
    for kind, key in (("memory", "memories"), ("resource", "resources"), ("skill", "skills")):
        for item in found.get(key) or []:
            if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                continue
            if is_skeleton(item["uri"]):
                continue
            score = item.get("score")
            hits.append(
                {
                    "uri": item["uri"],
                    "kind": kind,
                    "score": float(score) if isinstance(score, int | float) else None,
                    "abstract": str(item.get("abstract") or ""),
                }
            )
    hits.sort(key=lambda h: -(h["score"] or 0.0))
    return hits


def slug(text: str, words: int = 8) -> str:
    """A short, path-safe name from the first words of ``text``."""
    tokens = re.findall(r"[A-Za-z0-9]+", text.lower())[:words]
    return "-".join(tokens)[:60].strip("-") or "memory"


def memory_uri(user: str, text: str, *, kind: str, name: str | None, now: float) -> str:
    """Where ``remember`` writes (the server's own memory layout, openviking-api §A.8).

    Without ``name`` the file name is the text's first words plus a hash of the whole text,
    so remembering the same thing twice writes the same file instead of a duplicate.
    """
    base = f"viking://user/{user}/memories"
    stem = slug(name) if name else f"{slug(text)}-{hashlib.sha256(text.encode()).hexdigest()[:6]}"
    if kind == "events":
        day = time.strftime("%Y/%m/%d", time.gmtime(now))
        return f"{base}/events/{day}/{stem}.md"
    return f"{base}/preferences/{user}/{stem}.md"


def resolve_user(settings: Settings, backend: Backend) -> str:
    return settings.user or backend.whoami()


def memory_backend(settings: Settings) -> Backend:
    """The backend for memory verbs: the project peer's, as the hooks use it."""
    from ovhooks.commands.common import command_backend, current_peer

    return command_backend(settings, peer=current_peer(settings))


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
    settings = settings_from()
    found = memory_backend(settings).find(
        query, target_uri=uri, limit=limit, score_threshold=min_score
    )
    results = search_results(found)[:limit]
    Output("search", as_json=as_json).emit(
        {"query": query, "results": results}, _render_hits(results)
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
    if level not in LEVELS:
        raise usage_error(f"unknown level {level!r}", "use abstract, overview or full")
    settings = settings_from()
    content = memory_backend(settings).read(uri, level)

    def render(console: Any) -> None:
        console.print(content, markup=False, highlight=False)

    Output("read", as_json=as_json).emit({"uri": uri, "level": level, "content": content}, render)
    return 0


def ls_entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A listing's entries as ``ls`` reports them, without skeleton nodes."""
    return [
        {
            "uri": str(i.get("uri", "")),
            "is_dir": bool(i.get("isDir")),
            "size": i.get("size"),
            "abstract": str(i.get("abstract") or ""),
        }
        for i in items
        if not is_skeleton(str(i.get("uri", "")))
    ]


def _render_entries(target: str, entries: list[dict[str, Any]]) -> Callable[[Any], None]:
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

    return render


@boundary("ls")
def ls(
    uri: Annotated[str, typer.Argument(help="Folder to list (default: your memories).")] = "",
    recursive: Annotated[
        bool, typer.Option("--recursive", "-r", help="List sub-folders too.")
    ] = False,
    as_json: JsonFlag = False,
) -> int:
    """List a memory folder. JSON: {uri, entries: [{uri, is_dir, size, abstract}]}."""
    settings = settings_from()
    backend = memory_backend(settings)
    target = uri or f"viking://user/{resolve_user(settings, backend)}/memories"
    entries = ls_entries(backend.ls(target, recursive=recursive))
    Output("ls", as_json=as_json).emit(
        {"uri": target, "entries": entries}, _render_entries(target, entries)
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
    if kind not in KINDS:
        raise usage_error(f"unknown kind {kind!r}", "use preferences or events")
    from ovhooks.capture.scrub import clean_outbound

    settings = settings_from()
    # What is remembered is stored (and, with a server, sent): the text, the name and the
    # URI slug made from them pass the same scrub as captured turns.
    content = clean_outbound(_read_text_arg(text), settings)
    name = clean_outbound(name, settings) if name else name
    uri = clean_outbound(uri, settings) if uri else uri
    backend = memory_backend(settings)
    target = uri or memory_uri(
        resolve_user(settings, backend), content, kind=kind, name=name, now=time.time()
    )
    backend.write(target, content + "\n", mode="replace")

    def render(console: Any) -> None:
        console.print(f"remembered: {target}", markup=False)

    Output("remember", as_json=as_json).emit(
        {"uri": target, "kind": kind, "bytes": len((content + "\n").encode())}, render
    )
    return 0
