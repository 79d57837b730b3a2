"""Our own credentials never leave in output: ``redact_known_secrets`` at every boundary.

A server, a proxy or a gateway may echo the request in an error body (headers included); an
exception's text may hold a request head. Whatever text reaches the user (a hook's
``systemMessage``, ``status``/``doctor``/``search``/``flush`` output), the log, or a state
file passes through ``redact_known_secrets`` first. It removes:

- every API key value the configuration holds (all sources, valid or not), registered by
  ``config.load_settings`` through ``remember_secret``;
- the value of any ``Authorization``/``Proxy-Authorization``/``X-API-Key``/``X-Auth-Token``
  header and any ``Bearer``/``Basic`` credential, whoever's it is;
- the password of any URL that carries one (``http://user:password@host``: a server URL
  or a proxy set with credentials in it), however short.

Import-light (``re`` only, compiled on first use): it runs on every hook path.
"""

from __future__ import annotations

import re

REDACTED_KEY = "[REDACTED:api_key]"
_known: set[str] = set()
_compiled: list[re.Pattern[str]] = []
_url_compiled: list[re.Pattern[str]] = []
# Large texts already redacted (a queued capture's blob is saved again with every batch's
# progress): str hashes are cached on the object, so a repeat costs a dict look-up instead of
# another pass over megabytes. Cleared whenever a new secret is registered.
_MEMO_MIN_CHARS = 65_536
_memo: dict[str, str] = {}

_HEADER_SRC = (
    r"(?i)(?<![\w-])((?:proxy-)?authorization|x-api-key|x-auth-token|api-key|"
    r"x-openviking-api-key)(\\?[\"']?\s*[:=]\s*\\?[\"']?)"
    r"(?>(?:(bearer|basic|token|digest|apikey)\s+)?)(?!\[REDACTED:|[<$%{*])([^\s\"'\\,;}\]]{4,})"
    r"|(?i:\b(bearer|basic))\s+(?!\[REDACTED:)(?=[A-Za-z0-9._~+/=-]*\d)"
    r"([A-Za-z0-9._~+/=-]{8,})"
)


def remember_secret(value: object) -> None:
    """Register a credential value so that no output shows it (the key, whatever its source)."""
    if isinstance(value, str):
        value = value.strip()
        if len(value) >= 8 and value not in _known:  # shorter ones would blank ordinary words
            _known.add(value)
            _memo.clear()


# Where the key may be set besides a configuration file (config.py's ``api_key`` variables,
# tests/test_redact.py keeps the two lists equal): a long-lived process that answers before it
# loads its settings (``ovhooks mcp``) registers these at start.
KEY_VARIABLES = ("OPENVIKING_API_KEY", "OPENVIKING_BEARER_TOKEN")


def remember_environment(environ: object) -> None:
    """Register the key values the environment holds (before any settings are loaded)."""
    get = getattr(environ, "get", None)
    if get is not None:
        for name in KEY_VARIABLES:
            remember_secret(get(name))


def quoted(value: object, limit: int = 60) -> str:
    """A value from the request as an error text quotes it: enough to recognise, never all
    of it (``'…'`` marks the cut), and without our key."""
    text = value if isinstance(value, str) else repr(value)
    cut = text[:limit] + ("…" if len(text) > limit else "")
    return repr(redact_known_secrets(cut))


def _pattern() -> re.Pattern[str]:
    if not _compiled:
        _compiled.append(re.compile(_HEADER_SRC))
    return _compiled[0]


def _header_repl(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        scheme = f"{m.group(3)} " if m.group(3) else ""
        return f"{m.group(1)}{m.group(2)}{scheme}{REDACTED_KEY}"
    return f"{m.group(5)} {REDACTED_KEY}"


def redact_known_secrets(text: str, settings: object | None = None) -> str:
    """``text`` without our API key (any configured value) and without header credentials."""
    if not text:
        return text
    if settings is not None:
        remember_secret(getattr(settings, "api_key", ""))
    if len(text) < _MEMO_MIN_CHARS:
        return _redact(text)
    done = _memo.get(text)
    if done is None:
        if len(_memo) >= 8:
            _memo.clear()
        done = _memo[text] = _redact(text)
    return done


def _redact(text: str, *, json_escaped: bool = False) -> str:
    """``text`` without our known values (in their JSON-escaped form inside serialized JSON)
    and without header credentials."""
    if json_escaped:
        import json
    for value in sorted(_known, key=len, reverse=True):
        needle = json.dumps(value, ensure_ascii=False)[1:-1] if json_escaped else value
        if needle in text:
            text = text.replace(needle, REDACTED_KEY)
    lowered = text.lower()
    if any(w in lowered for w in ("auth", "api-key", "apikey", "api_key", "bearer", "basic")):
        text = _pattern().sub(_header_repl, text)
    if "://" in text and "@" in text:
        text = _url_password().sub(r"\1[REDACTED:password]@", text)
    return text


def _url_password() -> re.Pattern[str]:
    if not _url_compiled:
        _url_compiled.append(
            re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:\"'<>]*:)[^\s/@\"'<>]+@")
        )
    return _url_compiled[0]


def redact_json_text(text: str) -> str:
    """Serialized JSON without our key or header credentials, in one pass over the text.

    Saving a session document walks no tree: a value is found in its JSON-escaped form, and
    the header pattern cannot cross a string's closing quote (its value excludes ``"`` and
    ``\\``), so the result stays the same valid JSON with the secrets replaced.
    """
    return _redact(text, json_escaped=True)


def redact_doc(doc: object, settings: object | None = None) -> object:
    """A JSON-shaped value with every string passed through ``redact_known_secrets``."""
    if isinstance(doc, str):
        return redact_known_secrets(doc, settings)
    if isinstance(doc, dict):
        return {k: redact_doc(v, settings) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [redact_doc(v, settings) for v in doc]
    return doc


def header_value_problem(value: str) -> str:
    """Why ``value`` cannot be sent as an HTTP header value ("" when it can).

    Says where and what the offending character is, never the value itself.
    """
    for i, ch in enumerate(value):
        code = ord(ch)
        if ch in "\r\n" or (code < 0x20 and ch != "\t") or code == 0x7F:
            return f"it holds a control character (U+{code:04X}) at position {i + 1}"
        if code > 0xFF:
            return (
                f"it holds {ch!r} (U+{code:04X}) at position {i + 1}, which an HTTP header "
                "cannot carry (was it pasted with a typographic character?)"
            )
    return ""


def describe_exception(exc: BaseException) -> str:
    """An exception for the log: its type and message, never its ``repr``.

    A ``UnicodeEncodeError``'s repr carries the whole string it failed on, which for a
    request head includes ``Authorization: Bearer <key>``; only its reason is kept.
    """
    if isinstance(exc, UnicodeError):
        reason = getattr(exc, "reason", "") or "encoding failed"
        start = getattr(exc, "start", None)
        return f"{type(exc).__name__}: {reason}" + (f" at position {start}" if start else "")
    return f"{type(exc).__name__}: {redact_known_secrets(str(exc))[:500]}"
