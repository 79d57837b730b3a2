"""Plain TOML read without ``tomllib``: the flat ``key = value`` files settings come from.

Importing ``tomllib`` costs a hook about 7 ms (it pulls in ``typing``, ``datetime`` and
``string``; 12 ms measured on whole processes with a four-line config file), and every hook
of a user with a ``config.toml`` or a project file would pay it. What those files hold is a
few keys, optionally under one table, with strings, numbers, booleans and lists of strings.
``parse`` reads exactly that and answers None for anything else (escapes, dotted keys,
inline tables, dates, multi-line values, a duplicate, a malformed line); ``loads`` then uses
``tomllib``, which also gives the error message. So a file reads the same either way: the
property test holds ``parse`` to ``tomllib.loads`` on generated documents.
"""

from __future__ import annotations

import re

_KEY = r"[A-Za-z0-9_-]+"
# TOML forbids control characters in strings, except tab; a backslash starts an escape,
# which is left to tomllib.
_BASIC = r'"[^"\\\x00-\x08\x0a-\x1f\x7f]*"'
_LITERAL = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"
_STRING = rf"(?:{_BASIC}|{_LITERAL})"
_INTEGER = r"[+-]?(?:0|[1-9][0-9]*)"
_FLOAT = rf"{_INTEGER}\.[0-9]+"
_SCALAR = rf"{_STRING}|{_FLOAT}|{_INTEGER}|true|false"
_ARRAY = rf"\[[ \t]*(?:{_STRING}[ \t]*(?:,[ \t]*{_STRING}[ \t]*)*,?[ \t]*)?\]"
_COMMENT = r"(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    if not _compiled:
        _compiled["table"] = re.compile(rf"\[[ \t]*({_KEY})[ \t]*\][ \t]*{_COMMENT}")
        _compiled["pair"] = re.compile(
            rf"({_KEY})[ \t]*=[ \t]*({_SCALAR}|{_ARRAY})[ \t]*{_COMMENT}"
        )
        _compiled["item"] = re.compile(_STRING)
        _compiled["comment"] = re.compile(_COMMENT)
    return _compiled[name]


def parse(raw: bytes) -> dict[str, object] | None:
    """The document, or None when it is not plain enough to read here."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.count("\r") != text.count("\r\n"):  # a carriage return ends a line only before \n
        return None
    doc: dict[str, object] = {}
    table = doc
    for raw_line in text.replace("\r\n", "\n").split("\n"):
        line = raw_line.strip(" \t")
        if not line or (line[0] == "#" and _pattern("comment").fullmatch(line)):
            continue
        if line.startswith("["):
            head = _pattern("table").fullmatch(line)
            if head is None or head.group(1) in doc:
                return None
            table = {}
            doc[head.group(1)] = table
            continue
        pair = _pattern("pair").fullmatch(line)
        if pair is None or pair.group(1) in table:
            return None
        table[pair.group(1)] = _value(pair.group(2))
    return doc


def _value(text: str) -> object:
    if text[0] in "\"'":
        return text[1:-1]
    if text[0] == "[":
        return [item[1:-1] for item in _pattern("item").findall(text)]
    if text in ("true", "false"):
        return text == "true"
    return float(text) if "." in text else int(text)


def loads(raw: bytes, *, errors: str = "strict") -> dict[str, object]:
    """The TOML document in ``raw``: read here when plain, else by ``tomllib`` (imported
    only then), which raises its ValueError for a file that does not parse. ``errors``: how
    ``tomllib``'s path decodes bytes that are not UTF-8."""
    data = parse(raw)
    if data is not None:
        return data
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8", errors))
    except RecursionError:  # arrays nested thousands deep: as unreadable as a syntax error
        raise ValueError("nested too deeply to read") from None
