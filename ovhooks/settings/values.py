"""How one setting's raw value (a flag, an environment variable, a config-file value) is read:
each parser returns the value or raises ``ValueError`` with what is wrong, which
``config.load_settings`` turns into a warning (the default then stands)."""

from __future__ import annotations

import math
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _parse_bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def _parse_float(raw: object) -> float:
    if isinstance(raw, bool):
        raise ValueError("boolean given for a number")
    try:
        value = float(str(raw).strip()) if not isinstance(raw, int | float) else float(raw)
    except OverflowError:  # a TOML integer too large for a float (an int of 400 digits)
        raise ValueError(f"not a finite number: {str(raw)[:40]}...") from None
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {raw!r}")
    return value


def _parse_nonneg_float(raw: object) -> float:
    value = _parse_float(raw)
    if value < 0:
        raise ValueError(f"must not be negative: {raw!r}")
    return value


def _parse_probability(raw: object) -> float:
    value = _parse_nonneg_float(raw)
    if value > 1:
        raise ValueError(f"must be between 0 and 1: {raw!r}")
    return value


def _parse_int(raw: object) -> int:
    value = _parse_nonneg_float(raw)
    if value != int(value):
        raise ValueError(f"not a whole number: {raw!r}")
    return int(value)


def _parse_str(raw: object) -> str:
    # Environment values are always strings; a number in config.toml (url = 5) is a mistake
    # to report, not a value to guess at.
    if not isinstance(raw, str):
        raise ValueError(f"not a string: {raw!r} (quote it in config.toml)")
    return raw.strip()


def _parse_header(raw: object) -> str:
    """A value sent in an HTTP header (the API key, the tenant identity).

    A value that cannot be sent (CR/LF, a character outside latin-1) is kept, not dropped:
    the transport then refuses every request naming the header (never its value), so nothing
    goes out without the credential the user configured. ``header_warnings`` reports it.
    """
    return _parse_str(raw)


def _parse_list(raw: object) -> tuple[str, ...]:
    if isinstance(raw, list | tuple):
        return tuple(str(item).strip() for item in raw if str(item).strip())
    text = _parse_str(raw)
    parts = text.replace(os.pathsep, ",").split(",") if text else []
    return tuple(p.strip() for p in parts if p.strip())


def _choice(*allowed: str) -> Callable[[object], str]:
    def parse(raw: object) -> str:
        text = _parse_str(raw).lower()
        if text not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}; got {raw!r}")
        return text

    return parse
