"""The sizes ovhooks' memory verbs accept and show, stated once (pure constants).

The CLI, the MCP tools and the viewer read them from here, so a limit cannot differ between
the three faces of the same verb.
"""

from __future__ import annotations

# A memory is a fact in one or a few sentences: the ones extraction keeps are 40-400 bytes,
# and recall injects several of them into a block of a few hundred tokens. 16 KiB (about
# 4,000 tokens) leaves room for a long decision record while refusing what is not a memory:
# a pasted file or log (a 3.9 MB "memory" was stored before this limit, and its viewer page
# was 3.9 MB). A document belongs in the project, or in an OpenViking resource.
MEMORY_MAX_BYTES = 16 * 1024

# The longest URI a memory verb takes; the store's own are under 200 characters.
URI_MAX_CHARS = 2048

# A viewer request body (a JSON object: an edit, a list of URIs to forget). Over it: HTTP 413.
VIEWER_BODY_MAX_BYTES = 1024 * 1024

# Entries asked of a store to count a listing. The local store answers from one query (8,500
# memories list in tens of milliseconds); a server's recursive ``ls`` is capped here, and a
# listing that reaches the cap says "at least".
LISTING_SCAN_MAX = 20_000

# Memory files the MCP ``list`` tool names in one answer (the total is always stated).
LIST_SHOWN = 100

# Characters of a search query an answer repeats (scrubbed): enough to recognise it.
QUERY_HEAD_CHARS = 80

# How much of a search query the CLI and MCP search for: its start, scrubbed. Recall reads a
# prompt's first 2,000 characters; more finds nothing more, and the whole was scrubbed first
# (a 200 KB query held the MCP server for 42 s).
QUERY_MAX_CHARS = 8_000


def memory_size_problem(text: str) -> str:
    """Why ``text`` is too large to be a memory, or "" when it is not."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MEMORY_MAX_BYTES:
        return ""
    return (
        f"the memory is {size:,} bytes; a memory holds at most {MEMORY_MAX_BYTES:,} bytes "
        "(a fact in a few sentences, not a document)"
    )
