"""The five memory tools as the model sees them, and their arguments checked (pure).

Names and descriptions are written for a model: when to use each tool and what comes back.
Every turn pays for this list, so it stays small (under 2,500 characters as JSON; a test
holds it there). Read-only tools say so (``readOnlyHint``), which is also what lets Codex's
``exec`` run them without an approval setting (spec mcp.md §1.6); ``forget`` says it is
destructive. ``_meta`` ``anthropic/alwaysLoad`` keeps Claude Code 2.1.330's tool search from
hiding them behind a name-only placeholder (spec mcp.md §2.3).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INSTRUCTIONS = (
    "Long-term memory of past sessions with this user and project. Search it before asking "
    "the user something they may have said before, when an unfamiliar name or convention "
    "comes up, or when they refer to earlier work. Remember durable facts, preferences and "
    "decisions when the user states them or asks you to."
)

_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False}
_META = {"anthropic/alwaysLoad": True}
_URI = {"type": "string", "description": "viking:// URI"}


def _tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    hints: dict[str, Any],
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return {
        "name": name,
        "description": description,
        "inputSchema": schema,
        "annotations": hints,
        "_meta": _META,
    }


TOOLS: list[dict[str, Any]] = [
    _tool(
        "search",
        "Search long-term memory: the user's preferences and facts, this project's decisions, "
        "conventions and past work. Use before asking the user, and when a past choice or "
        "unknown name comes up. Returns ranked one-line summaries with viking:// URIs.",
        {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 8},
        },
        ["query"],
        _READ_ONLY,
    ),
    _tool(
        "read",
        "Read one memory in full by its viking:// URI (from search or list).",
        {"uri": _URI},
        ["uri"],
        _READ_ONLY,
    ),
    _tool(
        "list",
        "List stored memories under a viking:// folder (default: all of the user's), "
        "with one-line summaries.",
        {"uri": _URI},
        [],
        _READ_ONLY,
    ),
    _tool(
        "remember",
        "Save a durable fact for later sessions: a preference, convention, decision or "
        "gotcha the user states or asks you to keep. One or a few self-contained sentences; "
        "secrets are redacted. Returns the memory's URI.",
        {
            "text": {"type": "string", "description": "The fact, self-contained"},
            "kind": {
                "type": "string",
                "enum": ["preferences", "events"],
                "description": "preferences: lasting facts (default); events: what happened",
            },
        },
        ["text"],
        {"readOnlyHint": False, "destructiveHint": False},
    ),
    _tool(
        "forget",
        "Delete one memory by its viking:// URI (find it with search first), when the user "
        "asks to forget it or it is wrong. Irreversible.",
        {"uri": _URI},
        ["uri"],
        {"readOnlyHint": False, "destructiveHint": True},
    ),
]
# ``commands.memory_ops.TOOL_NAMES`` names the same verbs for install and doctor, which sit
# below this server; tests/mcp/test_protocol.py holds the two lists equal.
TOOL_NAMES = tuple(str(t["name"]) for t in TOOLS)
_SCHEMAS = {str(t["name"]): t["inputSchema"] for t in TOOLS}


def _type_ok(value: object, kind: str) -> bool:
    """The tools take strings and integers only (an integral float is an integer, as JSON
    has one number type; a bool is not)."""
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    return isinstance(value, str)


def _problem(key: str, value: object, spec: dict[str, Any]) -> str:
    """What is wrong with one argument, or ""."""
    kind = str(spec.get("type", ""))
    if not _type_ok(value, kind):
        return f"'{key}' must be a{'n' if kind[0] in 'aeiou' else ''} {kind}"
    if "enum" in spec and value not in spec["enum"]:
        return f"'{key}' must be one of {', '.join(map(str, spec['enum']))}"
    if kind == "integer":
        number = int(value)  # type: ignore[call-overload]
        low, high = spec.get("minimum"), spec.get("maximum")
        if (low is not None and number < low) or (high is not None and number > high):
            return f"'{key}' must be between {low} and {high}"
    if kind == "string" and not str(value).strip():
        return f"'{key}' must not be empty"
    return ""


def check_arguments(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(the arguments with defaults filled in, what is wrong with them) for ``tool``."""
    schema = _SCHEMAS[tool]
    properties: dict[str, Any] = schema["properties"]
    problems = [
        f"'{key}' is required" for key in schema.get("required", []) if arguments.get(key) is None
    ]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        from ovhooks.redact import quoted

        named = ", ".join(quoted(name) for name in unknown[:5])  # each cut at 60 characters
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        problems.append(f"unknown argument(s) {named}{more}; accepted: {', '.join(properties)}")
    checked: dict[str, Any] = {}
    for key, spec in properties.items():
        if key not in arguments or arguments[key] is None:
            if "default" in spec:
                checked[key] = spec["default"]
            continue
        problem = _problem(key, arguments[key], spec)
        if problem:
            problems.append(problem)
        else:
            value = arguments[key]
            checked[key] = int(value) if spec.get("type") == "integer" else value
    return checked, problems
