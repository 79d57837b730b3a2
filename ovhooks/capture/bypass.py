"""Bypass patterns: glob patterns on the project directory that turn capture and recall off.

Pattern language (``OVHOOKS_BYPASS``, comma- or path-separator-separated):

- ``*`` matches within one path segment (no ``/``), ``?`` one character of a segment;
- ``**`` matches anything, across segments; ``/**`` at the end also matches the directory
  itself (``/tmp/**`` bypasses ``/tmp`` and everything below it), and ``**/`` matches zero or
  more leading directories (``**/scratch/**`` matches ``/home/me/scratch``);
- a leading ``~`` is the home directory;
- a pattern without wildcards names a directory: it matches that directory and everything
  below it (``/home/me/secret`` bypasses ``/home/me/secret/app`` too);
- everything else is literal (``[``, ``.`` and friends have no special meaning).

Matching is on the normalised absolute path and case-sensitive (case-folded on Windows).
This runs on every hook when patterns are set: it uses only ``re`` (which every hook has
loaded already, for ``redact``) and ``os.path``, and caches each compiled pattern.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_compiled: dict[str, re.Pattern[str] | None] = {}


def _normalise(path: str) -> str:
    path = os.path.expanduser(path.strip())
    path = os.path.normcase(os.path.normpath(path)) if path else ""
    return path.replace("\\", "/")


def _translate(pattern: str) -> re.Pattern[str] | None:
    """The regular expression for one glob pattern; ``None`` for an empty pattern."""
    norm = os.path.expanduser(pattern.strip())
    if not norm:
        return None
    norm = os.path.normcase(norm).replace("\\", "/")
    has_wildcard = "*" in norm or "?" in norm
    if len(norm) > 1:
        norm = norm.rstrip("/")
    out: list[str] = []
    i = 0
    n = len(norm)
    while i < n:
        if norm.startswith("**/", i):
            out.append("(?:.*/)?")  # zero or more whole directories
            i += 3
        elif norm.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")  # the directory itself or anything below it
            i += 3
        elif norm.startswith("**", i):
            out.append(".*")
            i += 2
        elif norm[i] == "*":
            out.append("[^/]*")
            i += 1
        elif norm[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(norm[i]))
            i += 1
    if not has_wildcard:
        out.append("(?:/.*)?")
    return re.compile("".join(out), re.DOTALL)


def matches(project_dir: str, pattern: str) -> bool:
    """Whether one bypass pattern matches ``project_dir``."""
    if pattern not in _compiled:
        _compiled[pattern] = _translate(pattern)
    regex = _compiled[pattern]
    return regex is not None and regex.fullmatch(_normalise(project_dir)) is not None


def is_bypassed(project_dir: str, patterns: Sequence[str]) -> bool:
    """Whether capture and recall are off for ``project_dir`` (any pattern matches)."""
    if not project_dir or not patterns:
        return False
    return any(matches(project_dir, p) for p in patterns)
