"""Judgement for the kinds of value a held-out corpus found the scrubber misread (issue 22):
cookies, whose header or ``curl -b`` argument holds secret and public pairs side by side;
values made of random characters *and* punctuation, which read as code or placeholders to
the older tests (``$``, ``(``, ``<``…); passphrases, which are words; and the unquoted values
of env, properties and YAML lines, which run to the end of the line.

Pure functions over short strings, used by ``scrub_context`` (cookies) and ``scrub_assign``.
"""

from __future__ import annotations

from ovhooks.capture.scrub_values import LazyRe, entropy, is_placeholder, randomish

# One cookie pair: ``name=value`` in a header or a curl argument, or ``"name": "value"`` in a
# dict of cookies.
_COOKIE_PAIR = LazyRe(
    r"(?P<n1>[A-Za-z0-9_.$!#%&*+^|~-]+)[ \t]*=[ \t]*(?P<v1>[^;,\s\"'{}]+)"
    r"|[\"'](?P<n2>[^\"'\n]{1,100})[\"'][ \t]*:[ \t]*[\"'](?P<v2>[^\"'\n]{1,2000})[\"']"
)
# fmt: off
_COOKIE_ATTRIBUTES = frozenset({
    "path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority",
    "version", "comment", "partitioned",
})
# Cookie names that carry a session or a credential, whatever their value looks like.
_SESSION_WORDS = (
    "sess", "sid", "auth", "token", "jwt", "remember", "csrf", "xsrf", "login", "secret",
    "key", "identity", "credential", "connect.", "pass", "sso", "saml", "oidc", "refresh",
)
# fmt: on


def cookie_spans(value: str) -> list[tuple[int, int]]:
    """Where in a cookie list (``a=b; c=d``, or ``{"a": "b"}``) the secret values are: every
    value of a session-like cookie, and a long random value of any other; ``theme=dark``,
    ``lang=en-US`` and the attributes of ``Set-Cookie`` stay."""
    found = []
    for m in _COOKIE_PAIR.get().finditer(value):
        group = "v1" if m.group("v1") is not None else "v2"
        name = (m.group("n1") or m.group("n2") or "").lower()
        if _cookie_secret(name, m.group(group)):
            found.append(m.span(group))
    return found


def _cookie_secret(name: str, val: str) -> bool:
    if name in _COOKIE_ATTRIBUTES or val.startswith("[REDACTED:") or is_placeholder(val):
        return False
    if any(word in name for word in _SESSION_WORDS):
        return len(val) >= 8 and (randomish(val, min_len=8) or len(val) >= 16)
    letters = sum(ch.isalpha() for ch in val)
    return len(val) >= 20 and letters >= 8 and randomish(val, min_len=20) and entropy(val) >= 3.8


# punctuation an identifier does not hold ("_", "-" and "." it does: "sk_test_…", "a.b-c")
_SYMBOLS = frozenset("!#$%&*+=?@^~,:;|/\\()[]{}<>")
_DROP_SYMBOLS = str.maketrans("", "", "".join(_SYMBOLS))
_DIGIT = LazyRe("[0-9]")
_CODE_SHAPES = LazyRe(
    r"\$\(.*\)|\$\{.*\}|\{\{.*\}\}|<[^<>]*>|%\(\w+\)s|[\w.]+\(.*\)|\$[A-Za-z_]\w*|`.*`"
    r"|[\w.]+\[.*\]"
)
# a format or an expression's quantifier: "AIza{W:35}", "%(key)s", "{0}", "[a-z]{100,}"
_TEMPLATE = LazyRe(r"\{[A-Za-z_0-9]*(?::[^{}\s]*)?\}|\{\d+,\d*\}|%\(\w+\)[sd]|%[sd](?![A-Za-z0-9])")
_FILLER = LazyRe(r"(?i)example|your|xxxx|changeme|placeholder|dummy|sample|redacted|\.\.\.")


def symbol_secret(value: str) -> bool:
    """A generated value that mixes letters, digits and punctuation (``a8$kQ!z#Lp2@x9&W``):
    a credential even where a leading ``$`` or an inner ``(`` would read as code, unless
    the whole value has the shape of a reference (``${VAR}``, ``$(cmd)``, ``f(x)``)."""
    n = len(value)
    if n < 10 or n > 400 or value.isalnum():
        return False
    symbols = n - len(value.translate(_DROP_SYMBOLS))  # str.translate: one C loop
    if symbols < 2 or len(value.split()) != 1 or _DIGIT.get().search(value) is None:
        return False
    cases = any(ch.isupper() for ch in value) + any(ch.islower() for ch in value)
    if cases == 0 or (cases == 1 and n < 16):
        return False  # one case of letters: long, as Django's generated keys are
    if symbols > n // 2 or _CODE_SHAPES.get().fullmatch(value) or _FILLER.get().search(value):
        return False
    if _TEMPLATE.get().search(value):
        return False  # a template: "AIza{W:35}", "%(key)s", "{0}"
    return entropy(value) >= 3.3


# Function words that prose and interface text hold and a generated passphrase almost never
# does ("Enter the passphrase for this key", "must be at least 8 characters").
# fmt: off
_PROSE_WORDS = frozenset({
    "the", "a", "an", "your", "you", "must", "enter", "please", "is", "are", "be", "at",
    "least", "of", "to", "for", "this", "that", "with", "not", "invalid", "required",
    "characters", "incorrect", "wrong", "use", "and", "or", "in", "on", "it", "if", "here",
    "can", "will", "should", "new", "old", "confirm", "again", "from", "by", "our", "my",
})
# fmt: on
_PASSPHRASE_KEY_WORDS = ("passphrase", "password", "passwd", "pwd", "pass", "secret")


def passphrase_key(comps: list[str]) -> bool:
    return any(comp.endswith(_PASSPHRASE_KEY_WORDS) for comp in comps)


def passphrase_words(value: str) -> bool:
    """Three or more words with none of prose's function words and no capital at the start:
    ``correct horse battery staple``, not ``Enter the passphrase``."""
    words = value.split()
    if len(words) < 3 or len(value) > 200 or not value[:1].islower():
        return False
    plain = [w.strip("!?.,;:#'\"").lower() for w in words]
    return not any(w in _PROSE_WORDS for w in plain) and sum(w.isalpha() for w in plain) >= 2


def prose_text(value: str) -> bool:
    """Interface text or a sentence (``Must be at least 8 characters.``): three or more
    words, a capital first and one of prose's function words."""
    words = value.split()
    if len(words) < 3 or not value[:1].isupper():
        return False
    return any(w.strip("!?.,;:'\"").lower() in _PROSE_WORDS for w in words)


# ``ssh_passphrase``, ``new_password``: a first word that, with a password's word last, does
# not make the key a name for something else (``ssh_key_file`` and ``cache_key`` stay out).
_QUALIFIERS = frozenset(
    {"ssh", "gpg", "pgp", "new", "old", "confirm", "primary", "cluster", "registry", "s3", "hash"}
)
_SECRET_LAST = frozenset({"password", "passwd", "passphrase", "pwd", "secret", "salt"})


def qualified_secret_key(comps: list[str]) -> bool:
    return len(comps) > 1 and comps[0] in _QUALIFIERS and comps[-1] in _SECRET_LAST


# The unquoted value of a line that is one setting (``.env``, ``.properties``, YAML), after
# the separator: it runs to the end of the line, or to a `` #`` comment.
_LINE_VALUE = LazyRe(r"[^\s\"'`][^\n]*")
_NOT_IN_VALUE = frozenset(";:\"'`<>")
_WORD_TAIL = LazyRe(r"(?:[ \t]+[A-Za-z0-9!?.,'@%^*+~]{1,40}){1,8}")


def line_start(text: str, key_start: int) -> bool:
    """Whether the key starts its line (after indentation, ``export`` or a YAML ``- ``).
    Read backwards over blanks only: looking for the line's start first cost the length of
    the line for every key on it (a megabyte on one line took minutes)."""
    at = _back_over_blanks(text, key_start)
    for word in ("export", "-"):
        if at >= len(word) and text.startswith(word, at - len(word)):
            before = _back_over_blanks(text, at - len(word))
            if before == 0 or text[before - 1] == "\n":
                return True
    return at == 0 or text[at - 1] == "\n"


def _back_over_blanks(text: str, end: int) -> int:
    """Where the run of whitespace other than line breaks that ends at ``end`` starts."""
    while end > 0 and text[end - 1] != "\n" and text[end - 1].isspace():
        end -= 1
    return end


def line_value(
    text: str, value_start: int, words: bool, first_end: int | None = None
) -> tuple[int, int] | None:
    """The span of a line's unquoted value from ``value_start``: to its first whitespace
    (but not over a ``;``, ``:``, ``<``, ``>`` or quote past ``first_end``, where the assignment
    expression stopped), and with ``words`` (a passphrase's key) on over the plain words
    after it, as a ``.env`` file reads ``BACKUP_PASSPHRASE=orbit velvet maple``."""
    m = _LINE_VALUE.get().match(text, value_start)
    if m is None:
        return None
    line = m.group()
    first = len(line.split(None, 1)[0]) if line.strip() else 0
    seen_from = 1 if first_end is None else first_end - value_start
    if any(ch in _NOT_IN_VALUE for ch in line[seen_from:first]) or first > 400:
        first = 0  # another setting glued on ("A=x;B=y"), or a quote: not one value
    elif line[seen_from : seen_from + 1] in ("(", "[", "{"):
        first = 0  # a call or a literal in code: "NAMES = frozenset({"
    end = value_start + first
    if words and first:
        tail = _WORD_TAIL.get().match(text, end)
        rest = text[tail.end() : value_start + len(line)].strip() if tail else ""
        if tail and (not rest or rest.startswith("#")):
            end = tail.end()
    return (value_start, end) if end > value_start else None
