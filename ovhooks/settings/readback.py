"""A stored value read back for a person to see: a time, a count or a text, or ``None`` when
the stored value cannot be one.

The state files and the local store are written by ovhooks, but a hand edit, another
version or a damaged file can leave any JSON or SQLite value in a field (a string for a
time, ``NaN``, ``Infinity``, ``1e308``, a BLOB for a text). What shows these values (the
viewer, ``status``, ``doctor``) reads each field through one of these once, at the edge, so
one bad record shows as unknown instead of failing the whole page or command. On the hooks'
paths only the local store's search uses one (``text``, an ``isinstance`` test per row): a
BLOB there failed recall for every prompt that matched it.
"""

from __future__ import annotations

import math

# The last second of year 9999 (UTC): ``datetime`` and ``time.localtime`` cover every time
# up to it on every platform ovhooks runs on; past it they raise OverflowError.
LATEST_TIME = 253402300799.0


def moment(value: object) -> float | None:
    """A Unix time that every time function accepts, or ``None``: not a number, not finite,
    not after 1970 (0 is what the stores write for "never") or past year 9999."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if not math.isfinite(number) or not 0.0 < number <= LATEST_TIME:
        return None
    return number


def count(value: object) -> int | None:
    """A whole count, or ``None``: a bool, a string, a fraction, ``NaN`` or an infinity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def number(value: object) -> float | None:
    """A finite number (a score), or ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    as_float = float(value)
    return as_float if math.isfinite(as_float) else None


def text(value: object) -> str:
    """A string as stored; a BLOB decoded (bad bytes replaced); anything else, ``""``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return ""
