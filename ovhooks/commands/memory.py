"""Memory verbs for people and agents: search, read, ls, remember, forget.

Written so a model can drive them through its shell tool: short verbs, help that says what
comes back, ``--json`` documents with stable keys, and exit codes that mean one thing each
(see ``errors.ExitCode``). Destructive verbs need a URI, or a confident match plus ``--yes``.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time

from ovhooks.commands.errors import CommandError, ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import typer

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings

LEVELS = ("abstract", "overview", "full")
KINDS = ("preferences", "events")
FORGET_MIN_SCORE = 0.8  # default confidence bar for ``forget --query``
FORGET_FLOOR = 0.6  # below this, similarity scores match skeleton nodes and noise


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


def _backend(settings: Settings) -> Backend:
    from ovhooks.commands.common import command_backend, current_peer

    return command_backend(settings, peer=current_peer(settings))


def _read_text_arg(text: str) -> str:
    if text == "-":
        text = sys.stdin.read()
    text = text.strip()
    if not text:
        raise CommandError(
            "nothing to remember: the text is empty",
            fix="pass the text as an argument, or `-` to read it from stdin",
            code=ExitCode.USAGE,
            slug="usage",
        )
    return text


def register(app: typer.Typer) -> None:
    import typer

    from ovhooks.commands.common import settings_from
    from ovhooks.commands.output import JsonOption, Output, boundary

    panel = "Memory (for people and agents)"

    @app.command("search", rich_help_panel=panel)
    @boundary("search")
    def search(
        query: str = typer.Argument(..., help="What to look for, in plain words."),
        limit: int = typer.Option(10, "--limit", "-n", help="At most N results."),
        uri: str = typer.Option(
            "", "--uri", help="Search only under this URI (e.g. viking://user/me/memories)."
        ),
        min_score: float = typer.Option(
            None, "--min-score", help="Drop results scoring below this (0-1)."
        ),
        as_json: bool = JsonOption,
    ) -> int:
        """Search long-term memory (memories, resources, skills) by meaning.

        Prints the best matches with score, URI and a one-line abstract; read one with
        `ovhooks read URI`. JSON: {query, results: [{uri, kind, score, abstract}]}.
        """
        settings = settings_from()
        found = _backend(settings).find(
            query, target_uri=uri, limit=limit, score_threshold=min_score
        )
        results = search_results(found)[:limit]

        def render(console: Any) -> None:
            from rich.markup import escape

            if not results:
                console.print("no matches")
            for hit in results:
                score = f"{hit['score']:.2f}" if hit["score"] is not None else "  ? "
                console.print(f"[bold]{score}[/] {escape(hit['uri'])}")
                if hit["abstract"]:
                    console.print(f"     {escape(hit['abstract'][:200])}")

        Output("search", as_json=as_json).emit({"query": query, "results": results}, render)
        return 0

    @app.command("read", rich_help_panel=panel)
    @boundary("read")
    def read(
        uri: str = typer.Argument(..., help="A viking:// URI from search or ls."),
        level: str = typer.Option(
            "full", "--level", help="abstract (one line), overview (a summary) or full."
        ),
        as_json: bool = JsonOption,
    ) -> int:
        """Print what a memory or resource says. JSON: {uri, level, content}."""
        if level not in LEVELS:
            raise CommandError(
                f"unknown level {level!r}",
                fix="use abstract, overview or full",
                code=ExitCode.USAGE,
                slug="usage",
            )
        settings = settings_from()
        content = _backend(settings).read(uri, level)
        out = Output("read", as_json=as_json)

        def render(console: Any) -> None:
            console.print(content, markup=False, highlight=False)

        out.emit({"uri": uri, "level": level, "content": content}, render)
        return 0

    @app.command("ls", rich_help_panel=panel)
    @boundary("ls")
    def ls(
        uri: str = typer.Argument("", help="Folder to list (default: your memories)."),
        recursive: bool = typer.Option(False, "--recursive", "-r", help="List sub-folders too."),
        as_json: bool = JsonOption,
    ) -> int:
        """List a memory folder. JSON: {uri, entries: [{uri, is_dir, size, abstract}]}."""
        settings = settings_from()
        backend = _backend(settings)
        target = uri or f"viking://user/{resolve_user(settings, backend)}/memories"
        items = backend.ls(target, recursive=recursive)
        entries: list[dict[str, Any]] = [
            {
                "uri": str(i.get("uri", "")),
                "is_dir": bool(i.get("isDir")),
                "size": i.get("size"),
                "abstract": str(i.get("abstract") or ""),
            }
            for i in items
            if not is_skeleton(str(i.get("uri", "")))
        ]

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

        Output("ls", as_json=as_json).emit({"uri": target, "entries": entries}, render)
        return 0

    @app.command("remember", rich_help_panel=panel)
    @boundary("remember")
    def remember(
        text: str = typer.Argument(
            ..., help="The fact to keep, in one or a few sentences (`-` reads stdin)."
        ),
        kind: str = typer.Option(
            "preferences",
            "--kind",
            help="preferences (lasting facts, habits, choices) or events "
            "(something that happened, filed by date).",
        ),
        name: str = typer.Option(
            None, "--name", help="Topic name for the file; the same name replaces it."
        ),
        uri: str = typer.Option(None, "--uri", help="Write exactly here instead."),
        as_json: bool = JsonOption,
    ) -> int:
        """Store a memory now, without waiting for a session commit.

        Example: ovhooks remember "The user prefers pnpm over npm in this repo."
        Remembering the same text twice writes the same file. JSON: {uri, kind, bytes}.
        """
        if kind not in KINDS:
            raise CommandError(
                f"unknown kind {kind!r}",
                fix="use preferences or events",
                code=ExitCode.USAGE,
                slug="usage",
            )
        from ovhooks.capture.scrub import clean_outbound

        settings = settings_from()
        # What is remembered is stored (and, with a server, sent): the text, the name and the
        # URI slug made from them pass the same scrub as captured turns.
        content = clean_outbound(_read_text_arg(text), settings)
        name = clean_outbound(name, settings) if name else name
        uri = clean_outbound(uri, settings) if uri else uri
        backend = _backend(settings)
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

    @app.command("forget", rich_help_panel=panel)
    @boundary("forget")
    def forget(
        uri: str = typer.Argument(None, help="The memory's viking:// URI (from search or ls)."),
        query: str = typer.Option(
            None, "--query", help="Forget the memories matching this, if confident."
        ),
        min_score: float = typer.Option(
            FORGET_MIN_SCORE,
            "--min-score",
            help=f"Confidence bar for --query (at least {FORGET_FLOOR}).",
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
        as_json: bool = JsonOption,
    ) -> int:
        """Delete a memory by URI, or (with --query) the memories that match confidently.

        --query lists the matches scoring at least --min-score and deletes them only after
        confirmation; without a terminal or with --json, pass --yes (exit code 5 otherwise,
        with the candidates listed). JSON: {deleted: [uri], candidates: [...], confirmed}.
        """
        out = Output("forget", as_json=as_json)
        if bool(uri) == bool(query):
            raise CommandError(
                "give either a URI or --query",
                fix="e.g. `ovhooks forget viking://user/me/memories/preferences/me/x.md`",
                code=ExitCode.USAGE,
                slug="usage",
            )
        settings = settings_from()
        backend = _backend(settings)
        if uri:
            if "/memories/" not in uri or uri.endswith("/"):
                raise CommandError(
                    f"{uri} is not a memory file",
                    fix="forget deletes single memory files (viking://user/<you>/memories/...)",
                    code=ExitCode.USAGE,
                    slug="usage",
                )
            backend.delete(uri)
            out.emit(
                {"deleted": [uri], "candidates": [], "confirmed": True},
                lambda c: c.print(f"forgot {uri}", markup=False),
            )
            return 0
        if min_score < FORGET_FLOOR:
            raise CommandError(
                f"--min-score {min_score} is too low to delete by",
                fix=f"use at least {FORGET_FLOOR}",
                code=ExitCode.USAGE,
                slug="usage",
            )
        user = resolve_user(settings, backend)
        found = backend.find(
            query, target_uri=f"viking://user/{user}/memories", limit=10, score_threshold=min_score
        )
        candidates = [
            h
            for h in search_results(found)
            if h["kind"] == "memory" and (h["score"] or 0.0) >= min_score
        ]
        if not candidates:
            raise CommandError(
                f"no memory matches {query!r} with a score of {min_score} or more",
                fix="search first (`ovhooks search`), then forget by URI",
                code=ExitCode.NOT_FOUND,
                slug="not_found",
            )
        if not yes:
            if as_json or not sys.stdin.isatty():
                from ovhooks.commands.output import print_json

                if as_json:
                    print_json(
                        {
                            "ok": False,
                            "command": "forget",
                            "deleted": [],
                            "candidates": candidates,
                            "confirmed": False,
                            "error": {
                                "code": "needs_confirmation",
                                "message": f"{len(candidates)} memory(ies) match",
                                "fix": "run again with --yes to delete them",
                            },
                            "exit_code": int(ExitCode.NEEDS_CONFIRMATION),
                        }
                    )
                else:
                    for hit in candidates:
                        out.err.print(f"{hit['score']:.2f} {hit['uri']}", markup=False)
                    out.err.print("not deleted: run again with --yes to confirm", markup=False)
                return int(ExitCode.NEEDS_CONFIRMATION)
            for hit in candidates:
                out.console.print(
                    f"{hit['score']:.2f} {hit['uri']}  {hit['abstract'][:80]}", markup=False
                )
            if not typer.confirm(f"Forget these {len(candidates)} memory(ies)?"):
                out.note("nothing deleted")
                return int(ExitCode.NEEDS_CONFIRMATION)
        deleted = []
        for hit in candidates:
            backend.delete(hit["uri"])
            deleted.append(hit["uri"])
        out.emit(
            {"deleted": deleted, "candidates": candidates, "confirmed": True},
            lambda c: c.print("forgot:\n" + "\n".join(deleted), markup=False),
        )
        return 0
