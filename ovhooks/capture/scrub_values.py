"""What a candidate value or key name is: the judgement half of the secret scrubber.

Pure functions over short strings, used by ``scrub``'s detectors to decide whether a match is a
credential. Kept apart from the detectors so the two can be read (and tested) separately:

- ``key_strength``: does a setting/field/flag name name a credential (``DB_PASSWORD``,
  ``"SessionToken"``, ``--api-key``, ``client-key-data``) and how surely;
- ``is_placeholder`` / ``looks_like_code``: documentation values and references that are not
  secrets (``<your-token>``, ``${VAR}``, ``changeme``, ``os.environ[...]``, ``xxxx``, runs of
  one character, ``abcdef…``/``12345…`` sequences, the vendors' published example keys);
- ``public_token``: identifiers that look random but are public (API object ids such as
  ``msg_…``/``toolu_…``/``chatcmpl-…``/Stripe ``pi_…``, publishable and public keys, image
  and hash encodings);
- ``randomish``: whether a string has the make-up of generated data (``scrub_entropy``
  judges a free-standing token).
"""

from __future__ import annotations

import itertools
import math
import re

from ovhooks.ids import SESSION_KEY_PREFIX

# fmt: off
_NOT_SECRET_VALUES = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "empty", "string", "str", "int",
    "bytes", "bool", "secretstr", "optional", "any", "object", "number", "password", "passwd",
    "secret", "token", "required", "redacted", "hidden", "masked", "example", "placeholder",
    "dummy", "sample", "changeit", "changeme", "change_me", "change-me", "todo", "tbd", "env",
    "environ", "getenv", "input", "prompt", "default", "value", "self", "this", "replace_me",
    "replaceme", "notset", "not-set", "unset", "secret123", "password123", "pass123",
    "yourpassword", "mypassword", "s3cr3t", "letmein", "qwerty", "admin", "root", "user",
    "username", "apikey", "api_key", "api-key", "xxx", "stdin", "file", "prompted", "ask",
    "test", "testing", "foo", "bar", "foobar", "baz", "hello", "demo", "keyboard", "abc",
    "abc123", "123456", "12345678", "pass", "pwd", "key", "mykey", "mysecret", "mytoken",
})
# fmt: on

# Values published in vendors' documentation as examples (AWS, Stripe, GitHub, jwt.io, Slack).
_DOC_EXAMPLES = (
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    "pk_test_TYooMQauvdEDq54NiTphI7jx",
    "xoxb-not-a-real-token",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
)

_PLACEHOLDER_PARTS = (
    "example", "placeholder", "xxxx", "your_", "your-", "yourtoken", "yourkey", "yoursecret",
    "_here", "-here", "redacted", "dummy", "changeme", "change_me", "replace", "insert",
    "<", ">", "{{", "${", "...", "…", "****", "sample", "notreal", "not-a-real", "not_a_real",
)  # fmt: skip

# fmt: off
_EXCLUDED_LAST = frozenset({
    "type", "types", "name", "names", "field", "fields", "path", "paths", "file", "files",
    "filename", "env", "var", "vars", "len", "length", "count", "counts", "url", "uri", "urls",
    "endpoint", "id", "ids", "prefix", "suffix", "kind", "mode", "label", "policy", "expiry",
    "expires", "expiration", "ttl", "hint", "format", "limit", "limits", "size", "max", "min",
    "timeout", "enabled", "required", "dir", "header", "param", "params", "class", "cls",
    "regex", "pattern", "store", "manager", "provider", "service", "validator", "strength",
    "reset", "hash", "hashed", "hasher", "input", "prompt", "placeholder", "text", "msg",
    "message", "error", "errors", "form", "widget", "schema", "model", "column", "attr",
    "index", "idx", "usage", "budget", "tokens", "counter", "estimator", "estimate",
    "location", "source", "handler", "callback", "fn", "func", "rotation", "version",
    "method", "scheme", "scope", "scopes", "changed", "set", "exists", "present", "valid",
    "ref", "arn", "help", "description", "desc", "doc", "docs", "dialog", "button", "keys",
    "stdin", "cmd", "command", "script", "helper", "getter", "setter", "lookup", "rules",
    "rule", "env_var", "envvar", "flag", "option", "opts",
    "mask", "masked", "redacted", "bits", "algorithm", "alg", "algo", "cipher", "host",
    "hostname", "port", "user", "username", "login", "email", "region", "bucket", "at",
    "created", "updated", "date", "time", "expired", "used", "age", "cookie_name",
})
_EXCLUDED_FIRST = frozenset({
    "max", "min", "num", "n", "total", "is", "has", "use", "no", "show", "hide", "toggle",
    "validate", "check", "verify", "get", "fetch", "load", "read", "parse", "forgot", "reset",
    "new", "confirm", "old", "primary", "sort", "partition", "cache", "foreign", "routing",
    "hot", "shortcut", "lookup", "dict", "map", "unique", "composite", "object", "row",
    "record", "column", "group", "i18n", "translation", "react", "idempotency", "page",
    "next", "prev", "continuation", "cursor", "sync", "public", "publishable", "pub", "kid",
    "dedup", "dedupe", "hash", "cluster", "shard", "s3", "storage_key", "ssh", "gpg", "pgp",
    "key_file", "registry", "enable", "disable", "require", "requires", "allow", "count",
    "input", "output", "cached", "cache_creation", "completion", "prompt", "reasoning",
})
# fmt: on

_STRONG_SUFFIXES = (
    "password", "passwd", "passphrase", "secret", "token", "apikey", "pwd", "credential",
    "credentials", "passwords", "secrets", "authorization",
)  # fmt: skip
_PAIR_SECOND = frozenset({"key", "token", "secret", "pass", "password"})
_PAIR_FIRST = frozenset(
    {
        "api", "access", "secret", "private", "auth", "signing", "master", "encryption",
        "session", "admin", "account", "shared", "client", "app", "consumer", "webhook",
        "bearer", "refresh", "id", "sas", "license", "service", "root", "bot", "deploy",
        "personal", "oauth", "integration", "write", "read", "management", "storage",
        "subscription", "sendgrid", "master_key", "hmac", "jwt", "cookie", "csrf", "xsrf",
        "db", "database", "mysql", "postgres", "pg", "redis", "smtp", "mail", "ftp", "ldap",
    }
)  # fmt: skip
_WEAK_WORDS = frozenset(
    {"key", "pat", "auth", "pass", "pw", "sig", "signature", "cookie", "sid", "hmac", "otp",
     "dsn", "salt", "pin", "license", "licence", "authkey", "privkey", "seed", "mnemonic"}
)  # fmt: skip


# With a provider's name in the key, these words make ``<provider>_client_id = …`` a credential.
class LazyRe:
    """An expression compiled on first use: hooks import this module, most never scrub."""

    __slots__ = ("_args", "_pattern")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._args = (source, flags)
        self._pattern: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(*self._args)
        return self._pattern

    @property
    def source(self) -> str:
        return self._args[0]


# one search for "holds any of these" (a C loop, not a Python one per part)
_PLACEHOLDER_RE = LazyRe("|".join(re.escape(p) for p in _PLACEHOLDER_PARTS))
_DOC_EXAMPLE_RE = LazyRe("|".join(re.escape(e) for e in _DOC_EXAMPLES))

PROVIDER_ID_WORDS = frozenset({"id", "key", "secret", "token", "sid", "pat", "code", "auth"})

_CAMEL = LazyRe(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_SPLIT = LazyRe(r"[^A-Za-z0-9]+")


def key_components(key: str) -> list[str]:
    """``dbPassword`` -> ``["db", "password"]``; ``AWS_KEY`` -> ``["aws", "key"]``."""
    parts: list[str] = []
    for chunk in _SPLIT.get().split(key):
        if chunk:
            parts.extend(p.lower() for p in _CAMEL.get().findall(chunk))
    return parts


def key_strength(key: str, comps: list[str] | None = None) -> int:
    """2 when ``key`` surely names a credential, 1 when it may (``*_KEY``), else 0
    (``comps``: its ``key_components``, when the caller has them)."""
    if comps is None:
        comps = key_components(key)
    if not comps or comps[-1] in _EXCLUDED_LAST or comps[0] in _EXCLUDED_FIRST:
        return 0
    if public_key_name(comps):
        return 0
    weak = False
    for i, comp in enumerate(comps):
        if comp.endswith(_STRONG_SUFFIXES) or comp.startswith("passw"):
            return 2
        if comp.startswith("secret") and comp.endswith(("key", "token")):
            return 2
        if i + 1 < len(comps) and comps[i + 1] in _PAIR_SECOND and comp in _PAIR_FIRST:
            return 2
        if comp in _WEAK_WORDS or comp.endswith(("key", "pass")):
            weak = True
    if comps[-1] == "pat" and len(comps) > 1:
        return 2
    return 1 if weak else 0


def public_key_name(comps: list[str]) -> bool:
    """``PublicKey``, ``STRIPE_PUBLISHABLE_KEY``, ``tokenizer``: named as not secret."""
    return any(c in ("public", "publishable", "pub", "tokenizer", "tokenize") for c in comps)


def variable_like(value: str) -> bool:
    """A bare word that reads as a name in code (``password``, ``apiKey``, ``db_pass``)."""
    if value.islower() or value.isupper() or "_" in value:
        return True
    return sum(len(w) for w in _WORDS.get().findall(value)) >= 0.6 * len(value)


def _sequential(value: str) -> bool:
    """``abcdef…``, ``123456…``, ``0123456789abcdef``: a typed run, not generated data
    (80 % of its neighbours one code apart). Stops at the first non-step too many: random
    data settles in a few characters."""
    allowed = (len(value) - 1) * 0.2  # steps >= 0.8 * pairs <=> non-steps <= 0.2 * pairs
    misses = 0
    for a, b in itertools.pairwise(value):
        if ord(b) - ord(a) not in (1, -1):
            misses += 1
            if misses > allowed:
                return False
    return True


def is_placeholder(value: str) -> bool:
    """A documentation value, a reference or an example: never a live credential."""
    stripped = value.strip("\"'`")
    lowered = stripped.lower()
    if not lowered or lowered in _NOT_SECRET_VALUES or lowered.startswith("[redacted:"):
        return True
    if "[redacted:" in lowered:
        return True
    if _DOC_EXAMPLE_RE.get().search(stripped):
        return True
    distinct = set(lowered)
    if len(distinct) <= 2 or (len(lowered) >= 12 and len(distinct) <= 3):
        return True  # "****", "xxxx", "aaaa1111"
    if len(lowered) >= 8 and _sequential(lowered):
        return True
    if lowered.startswith(("your", "my-", "my_", "<", "$", "%", "{", "env:", "vault:", "op://")):
        return True
    return _PLACEHOLDER_RE.get().search(lowered) is not None


def body_is_placeholder(body: str) -> bool:
    """The variable part of a prefixed token (``ghp_xxxx…``, ``sk-...``) is filler."""
    if len(body) < 4:
        return True
    lowered = body.lower()
    if len(set(lowered)) <= 3 or _sequential(lowered):
        return True
    return bool(_PLACEHOLDER_RE.get().search(lowered) or _DOC_EXAMPLE_RE.get().search(body))


_CODE_PREFIXES = (
    "os.", "process.", "self.", "this.", "config.", "settings.", "env.", "import.", "request.",
    "req.", "args.", "opts.", "options.", "ctx.", "secrets.", "vars.", "params.", "props.",
)  # fmt: skip
_DOTTED = LazyRe(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PATHISH = LazyRe(
    r"(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]*)*"
    r"|[\w.-]+\.(?:pem|key|json|txt|env|yaml|yml|toml|cfg|conf|ini|crt|p12|pfx|jks|der|asc|gpg|pub)"
)


def looks_like_code(value: str) -> bool:
    """A reference in code (``os.environ[...]``, ``getPassword()``, ``${VAR}``) or a path."""
    if value[:1] in "$%<{([@&*!#" or value[-1:] in "(),[]{}":
        return True
    if "(" in value or ")" in value or "${" in value or "{{" in value:
        return True
    if value.lower().startswith(_CODE_PREFIXES):
        return True
    return bool(_DOTTED.get().fullmatch(value) or _PATHISH.get().fullmatch(value))


# Public identifiers that look random: API object ids (Anthropic, OpenAI, Stripe, GitHub
# GraphQL), publishable/public keys, image and hash encodings.
PUBLIC_PREFIXES = (
    "msg_", "msg-", "toolu_", "srvtoolu_", "req_", "chatcmpl-", "cmpl-", "resp_", "run_",
    "asst_", "thread_", "file-", "file_", "batch_", "call_", "step_", "vs_", "ftjob-",
    "ft:", "org-", "proj_", "compl_", "evt_", "pi_", "ch_", "cus_", "sub_", "in_", "ii_",
    "prod_", "price_", "acct_", "txn_", "py_", "po_", "tr_", "re_", "seti_", "pm_", "src_",
    "card_", "cs_test_", "cs_live_", "plink_", "si_", "il_", "inv_", "cn_", "dp_", "du_",
    "pk_live_", "pk_test_", "pk.", "age1", "npub1", "PR_kw", "I_kw", "MDQ6", "MDEw", "MDU6",
    "R_kg", "U_kg", "O_kg", "iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "Qk0",
    "AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh", "sha1-", "sha256-", "sha384-", "sha512-",
    "h1:", "sha256:", "sha512:", "md5-", "blake2b-", "xpub", "tpub", "ipfs", "bafy",
    "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-", "sk-ssh-", "AAAAB3", "ghcr.io", "data:",
    "msgbatch_", "fc_", "rs_", "user-", "user_", "sess_", "dpl_", "prj_", "team_", "ba_",
)  # fmt: skip
# and IPFS's v0 content ids ("Qm" and 44 base58 characters; a base64 key may start "Qm")
_PUBLIC_BECH32 = LazyRe(
    r"age1[02-9ac-hj-np-z]{58}|npub1[02-9ac-hj-np-z]{58}|Qm[1-9A-HJ-NP-Za-km-z]{44}"
)


# Session ids are not secrets: the log, status and the recall journal name sessions by them.
# OpenCode's ids (sessions "ses_", messages, parts, ...) are the prefix, 12 lowercase hex
# digits of time and 14 random base62 characters (a random 26-character secret takes that
# shape about once in 10^7). The other hosts use UUIDs. Our own session keys put the host's
# prefix before either (``ids.SESSION_KEY_PREFIX``: two letters and a dash) and
# a subagent's ``.sub-<agent>`` after. A bare UUID is not let through here: some services
# issue UUID-shaped API keys, so ``api_key=<uuid>`` stays a credential.
_OPENCODE_ID = r"(?:ses|msg|prt|per|que|usr|pty|tool|wrk)_[0-9a-f]{12}[0-9A-Za-z]{14}"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_SESSION_ID = LazyRe(
    rf"{_OPENCODE_ID}"
    rf"|{SESSION_KEY_PREFIX}(?:{_UUID}|{_OPENCODE_ID})"
    r"(?:\.sub-[A-Za-z0-9_-]{1,40})?"
)


def public_token(token: str) -> bool:
    """A public identifier, public key or encoded image/hash, not a credential."""
    if token.startswith(PUBLIC_PREFIXES):
        return True
    return bool(_PUBLIC_BECH32.get().fullmatch(token) or _SESSION_ID.get().fullmatch(token))


def randomish(value: str, *, min_len: int = 10) -> bool:
    """Mixed character classes or high entropy, as generated credentials have."""
    if len(value) < min_len or is_placeholder(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    if has_digit and (has_upper or has_lower):
        return True
    if has_upper and has_lower and len(value) >= 16:
        return entropy(value) >= 3.5
    return len(value) >= 20 and entropy(value) >= 3.8


def password_like(value: str) -> bool:
    """A value after "password is": has the make-up of a password, not a word of prose."""
    if len(value) < 6 or is_placeholder(value) or looks_like_code(value):
        return False
    if value.isalpha() and value.islower():
        return False
    return not (value.isalpha() and value[:1].isupper() and value[1:].islower())


def entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for ch in token:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_WORDS = LazyRe(r"[A-Z]?[a-z]{4,}")
