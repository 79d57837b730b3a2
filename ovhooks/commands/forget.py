"""``ovhooks forget``: delete a memory by URI, or the memories a query matches confidently.

Destructive, so a query deletes only hits scoring at least ``--min-score`` (never below
``FORGET_FLOOR``), and only after confirmation: a prompt on a terminal, ``--yes`` otherwise.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ovhooks.commands.common import settings_from
from ovhooks.commands.errors import CommandError, ExitCode, usage_error
from ovhooks.commands.memory_ops import (
    forget_uri,
    memory_backend,
    resolve_user,
    search_results,
)
from ovhooks.commands.output import JsonFlag, Output, boundary, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings

FORGET_MIN_SCORE = 0.8  # default confidence bar for ``forget --query``
FORGET_FLOOR = 0.6  # below this, similarity scores match skeleton nodes and noise


def _forget_uri(settings: Settings, backend: Backend, uri: str, out: Output) -> int:
    uri = forget_uri(settings, backend, uri)
    out.emit(
        {"deleted": [uri], "candidates": [], "confirmed": True},
        lambda c: c.print(f"forgot {uri}", markup=False),
    )
    return 0


def forget_candidates(
    found: dict[str, Any], query: str, min_score: float, user: str
) -> list[dict[str, Any]]:
    """The memories a ``forget --query`` would delete: memory hits at or over the bar that
    the one rule (``ovhooks.rules.memory_uri``) calls memory files of ``user``'s."""
    from ovhooks.rules.memory_uri import UriError, parse_memory_uri

    candidates = []
    for hit in search_results(found):
        if hit["kind"] != "memory" or (hit["score"] or 0.0) < min_score:
            continue
        try:
            hit["uri"] = parse_memory_uri(hit["uri"], user).uri
        except UriError:
            continue
        candidates.append(hit)
    if not candidates:
        raise CommandError(
            f"no memory matches {query!r} with a score of {min_score} or more",
            fix="search first (`ovhooks search`), then forget by URI",
            code=ExitCode.NOT_FOUND,
            slug="not_found",
        )
    return candidates


def _refuse_unconfirmed(candidates: list[dict[str, Any]], out: Output) -> int:
    """No one to ask (``--json`` or no terminal) and no ``--yes``: list, delete nothing."""
    if out.as_json:
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


def _confirmed(candidates: list[dict[str, Any]], out: Output) -> bool:
    for hit in candidates:
        out.console.print(f"{hit['score']:.2f} {hit['uri']}  {hit['abstract'][:80]}", markup=False)
    if typer.confirm(f"Forget these {len(candidates)} memory(ies)?"):
        return True
    out.note("nothing deleted")
    return False


def _forget_query(
    backend: Backend, settings: Settings, query: str, min_score: float, *, yes: bool, out: Output
) -> int:
    if not min_score >= FORGET_FLOOR:  # written so that nan is refused too
        raise usage_error(
            f"--min-score {min_score} is too low to delete by", f"use at least {FORGET_FLOOR}"
        )
    if not min_score <= 1.0:
        raise usage_error(f"--min-score {min_score} is over 1", "scores run from 0 to 1")
    user = resolve_user(settings, backend)
    found = backend.find(
        query, target_uri=f"viking://user/{user}/memories", limit=10, score_threshold=min_score
    )
    candidates = forget_candidates(found, query, min_score, user)
    if not yes:
        if out.as_json or not sys.stdin.isatty():
            return _refuse_unconfirmed(candidates, out)
        if not _confirmed(candidates, out):
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


@boundary("forget")
def forget(
    uri: Annotated[
        str | None, typer.Argument(help="The memory's viking:// URI (from search or ls).")
    ] = None,
    query: Annotated[
        str | None,
        typer.Option("--query", help="Forget the memories matching this, if confident."),
    ] = None,
    min_score: Annotated[
        float,
        typer.Option("--min-score", help=f"Confidence bar for --query (at least {FORGET_FLOOR})."),
    ] = FORGET_MIN_SCORE,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonFlag = False,
) -> int:
    """Delete a memory by URI, or (with --query) the memories that match confidently.

    --query lists the matches scoring at least --min-score and deletes them only after
    confirmation; without a terminal or with --json, pass --yes (exit code 5 otherwise,
    with the candidates listed). JSON: {deleted: [uri], candidates: [...], confirmed}.
    """
    out = Output("forget", as_json=as_json)
    if (uri is None) == (query is None):
        raise usage_error(
            "give either a URI or --query",
            "e.g. `ovhooks forget viking://user/me/memories/preferences/me/x.md`",
        )
    settings = settings_from()
    backend = memory_backend(settings)
    if uri is not None:  # an empty one too: the rule names what is wrong with it
        return _forget_uri(settings, backend, uri, out)
    return _forget_query(backend, settings, str(query), min_score, yes=yes, out=out)
