"""One family of URIs no memory verb may forget or rewrite, shared by the rule's unit tests and
the tests of its three faces (the MCP tool, the viewer's routes, the CLI command).

Every case is ``(uri, reason, words)``: the reason slug ``parse_memory_uri`` gives, and words
every face's refusal must show. The user is ``default`` (the tests' identity) and the
project peer anything: ``OWN`` is a memory of that user's that the rule accepts.
"""

from __future__ import annotations

USER = "default"
OWN = f"viking://user/{USER}/memories/preferences/{USER}/tabs-over-spaces.md"

REFUSED: list[tuple[str, str, str]] = [
    # other scopes
    ("viking://user/mallory/memories/preferences/x.md", "not_yours", "not a memory of yours"),
    ("viking://user/defaultx/memories/x.md", "not_yours", "not a memory of yours"),
    ("viking://agent/abc123/memories/cases/x.md", "agent_space", "not a memory of yours"),
    ("viking://resources/x/memories/y.md", "resource", "a resource, not a memory"),
    ("viking://resources/manual.md", "resource", "a resource, not a memory"),
    (f"viking://user/{USER}/sessions/s1/history/archive_001", "session", "a session"),
    ("viking://session/s1/messages.jsonl", "session", "a session"),
    (f"viking://user/{USER}/skills/x.md", "not_a_memory", "not under a memory folder"),
    (f"viking://user/{USER}/peers/p1/notes/x.md", "not_a_memory", "not under a memory folder"),
    # traversal, in every encoding
    (f"viking://user/{USER}/memories/../../../etc/passwd", "traversal", "'..'"),
    (f"viking://user/{USER}/memories/a/../b.md", "traversal", "'..'"),
    (f"viking://user/{USER}/memories/./b.md", "traversal", "'.'"),
    (f"viking://user/{USER}/memories/x..md", "traversal", "'..'"),
    (f"viking://user/{USER}/memories/%2e%2e/%2e%2e/x.md", "encoded", "percent-encoding"),
    (f"viking://user/{USER}/memories/..%2F..%2Fx.md", "encoded", "percent-encoding"),
    (f"viking://user/{USER}/memories/%252e%252e/x.md", "encoded", "percent-encoding"),
    (f"viking://user/{USER}/memories/%2E%2E%5Cx.md", "encoded", "percent-encoding"),
    (f"viking://user/{USER}/memories/..\\..\\x.md", "backslash", "backslash"),
    (f"viking://user/{USER}/memories/a\\b.md", "backslash", "backslash"),
    (f"viking://user/{USER}/memories/\uff0e\uff0e/x.md", "lookalike", "stands for '.' or '/'"),
    (f"viking://user/{USER}/memories/\u2025/x.md", "lookalike", "stands for '.' or '/'"),
    (f"viking://user/{USER}/memories/a\uff0fb.md", "lookalike", "stands for '.' or '/'"),
    (f"viking://user/{USER}/memories/a\u2215b.md", "backslash", "slash"),
    (f"viking://user/{USER}/memories/x\u202e.md", "bad_character", "invisible"),
    # a lone surrogate: "not valid Unicode" (the rule), "not valid UTF-8 text" (CLI and MCP,
    # which refuse it before the rule sees it)
    (f"viking://user/{USER}/memories/x\ud800.md", "bad_character", "not valid U"),
    # folders
    (f"viking://user/{USER}/memories/", "folder", "folder"),
    (f"viking://user/{USER}/memories", "folder", "folder"),
    (f"viking://user/{USER}/memories/preferences", "folder", "folder"),
    (f"viking://user/{USER}/memories/preferences/", "folder", "folder"),
    (f"viking://user/{USER}/peers/p1/memories", "folder", "folder"),
    (f"viking://user/{USER}/memories//x.md", "empty_segment", "'//'"),
    (f"viking://user/{USER}/memories/.abstract.md", "summary", "summary"),
    (f"viking://user/{USER}/memories/events/.overview.md", "summary", "summary"),
    # wildcards
    (f"viking://user/{USER}/memories/*", "wildcard", "a pattern"),
    (f"viking://user/{USER}/memories/preferences/*.md", "wildcard", "a pattern"),
    (f"viking://user/{USER}/memories/x?.md", "wildcard", "a pattern"),
    (f"viking://user/{USER}/memories/[ab].md", "wildcard", "a pattern"),
    # empty, too long, other schemes
    ("", "empty", "empty"),
    ("   ", "empty", "empty"),
    ("viking://user/" + USER + "/memories/" + "a" * 2100 + ".md", "too_long", "characters"),
    ("file:///etc/passwd", "not_viking", "not a viking:// URI"),
    ("/etc/passwd", "not_viking", "not a viking:// URI"),
    ("https://example.com/memories/x.md", "not_viking", "not a viking:// URI"),
    ("VIKING://user/default/memories/x.md", "not_viking", "not a viking:// URI"),
    ("viking://", "folder", "folder"),
]

MINE = f"viking://user/{USER}/memories"
PROJECT = f"viking://user/{USER}/peers/proj-1a2b/memories/entities/db/x.md"
ACCEPTED: list[tuple[str, str, str]] = [
    # (uri as given, canonical uri, peer)
    (OWN, OWN, ""),
    (f"  {OWN}\n", OWN, ""),
    ("viking://~/memories/events/2026/03/04/x.md", f"{MINE}/events/2026/03/04/x.md", ""),
    (f"{MINE}/profile.md", f"{MINE}/profile.md", ""),
    (PROJECT, PROJECT, "proj-1a2b"),
    (f"{MINE}/préférences/café.md", f"{MINE}/préférences/café.md", ""),
    (f"{MINE}/events/v1.2-release.md", f"{MINE}/events/v1.2-release.md", ""),
]
