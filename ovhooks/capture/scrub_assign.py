"""The scrubber's assignments (see ``scrub`` for the whole picture): ``key <sep> value``
where the key names a credential (``DB_PASSWORD=…``, ``"SessionToken": "…"``,
``client-key-data: …``, ``--api-key x``, ``Password=…;``).

They are found from a keyword in the lower-cased text (``pass``, ``token``, ``key``…) back to
its key, so the text is not scanned per identifier; ``scrub_values.key_strength`` says how
surely the key names a credential, and the value must look like one.
"""

from __future__ import annotations

import re

from ovhooks.capture.scrub_anchors import KEYWORDS
from ovhooks.capture.scrub_families import (
    line_start,
    line_value,
    passphrase_key,
    passphrase_words,
    prose_text,
    qualified_secret_key,
    symbol_secret,
)
from ovhooks.capture.scrub_values import (
    PROVIDER_ID_WORDS,
    LazyRe,
    is_placeholder,
    key_components,
    key_strength,
    looks_like_code,
    public_key_name,
    public_token,
    randomish,
    variable_like,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.capture.scrub_compiled import Compiled, Span

_MARKER = "[REDACTED:"

# Provider names from the public rule sets whose keyed values (``<provider>_… = value``) are
# credentials even when the key's last word is not one (``asana_client_id``).
# fmt: off
PROVIDERS = frozenset({
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "jira",
    "confluence", "bitbucket", "bittrex", "meraki", "cloudflare", "codecov", "cohere",
    "coinbase", "confluent", "contentful", "datadog", "discord", "droneci", "dropbox", "etsy",
    "facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter",
    "gocardless", "heroku", "hubspot", "intercom", "jfrog", "artifactory", "kraken",
    "kucoin", "launchdarkly", "linkedin", "lob", "looker", "mailchimp", "mailgun", "mapbox",
    "mattermost", "messagebird", "netlify", "newrelic", "nytimes", "okta", "plaid",
    "rapidapi", "sendbird", "sentry", "snyk", "sonar", "squarespace", "sumo", "sumologic",
    "travis", "twitch", "twitter", "typeform", "yandex", "zendesk", "twilio", "pusher",
    "segment", "mixpanel", "amplitude", "auth0", "stripe", "paypal", "braintree", "shopify",
    "trello", "zoom", "vonage", "nexmo", "postmark", "mandrill", "sendinblue", "pagerduty",
    "opsgenie", "honeycomb", "rollbar", "bugsnag", "circleci", "buildkite", "vercel",
    "linode", "vultr", "hetzner", "scaleway", "backblaze", "wasabi", "pinecone", "weaviate",
    "qdrant", "openai", "anthropic", "mistral", "groq", "replicate", "huggingface",
    "deepseek", "gemini", "azure", "aws", "gcp", "firebase", "supabase", "clerk", "elastic",
    "mongodb", "atlas", "snowflake", "databricks", "dockerhub", "ngrok",
    "tailscale", "gitlab", "github", "slack", "telegram", "notion", "figma", "linear",
    "airbrake", "beamer", "duffel", "dynatrace", "easypost", "frameio", "infracost",
    "prefect", "pulumi", "readme", "scalingo", "shippo", "sourcegraph", "doppler",
})
# fmt: on

# npm's own keys after a registry's "//host/path/:" (".npmrc")
_NPMRC_KEYS = ("_auth", "_password")
_KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_ENV_NAME = LazyRe(r"[A-Z][A-Z0-9_]+")
_BARE_WORD = LazyRe(r"[A-Za-z_]+")
_SENTENCE = LazyRe(r"[A-Za-z ,.'!?:-]+")
_BASE64ISH = LazyRe(r"[A-Za-z0-9+/]{8,}={0,2}")


def _keyword_hits(lowered: str, c: Compiled, hits: dict[str, list[int]]) -> list[tuple[int, int]]:
    """The matches of the alternation ``pass|pwd|…|_pat\\b|…``, from every occurrence of each
    word (``str.find`` loops, a third of the alternation's cost on 64 kB). No two words can
    start at the same place, so the leftmost, non-overlapping choice among all occurrences is
    the expression's."""
    found = sorted((at, at + len(word)) for word in KEYWORDS for at in hits[word])
    chosen: list[tuple[int, int]] = []
    taken = 0
    for start, end in found:
        if start < taken:
            continue
        if lowered[start] == "_" and c.word_char.match(lowered, end):
            continue  # "_pat" must end a word ("_pat\b")
        chosen.append((start, end))
        taken = end
    return chosen


def scan_assignments(
    text: str,
    lowered: str,
    c: Compiled,
    spans: list[Span],
    hits: dict[str, list[int]],
    verdicts: dict[str, str],
) -> None:
    """Spans for the assignments of a credential. ``verdicts`` keeps each matched text's
    verdict, which depends on that text alone, for the scrub of one text: code and logs
    repeat their assignments, and a later pass meets them again."""
    last_key_end = -1
    for pos, hit_end in _keyword_hits(lowered, c, hits):
        if pos < last_key_end:
            continue
        # back over the key's characters, at most 100 (one C call, not a loop per character)
        before = text[max(0, pos - 100) : pos]
        start = pos - len(before) + len(before.rstrip(_KEY_CHARS))
        if start > 0 and text[start - 1] in "@$":
            start -= 1
        if start > 0 and text[start - 1] in "\"'`":
            start -= 1
        if start > 0 and text[start - 1] in ":/" and not text.startswith(_NPMRC_KEYS, start):
            continue  # inside a URL, an ARN or a path: "arn:aws:secretsmanager:…"
        m = c.assign.get().match(text, start)
        if m is None or m.end("key") < hit_end:
            found = _line_setting(text, start, hit_end, verdicts)
            if found is not None:
                spans.append(found)
                last_key_end = found[1]
            continue
        last_key_end = m.end("key")
        quoted = m.group("value") is not None
        group = "value" if quoted else "value2"
        kind = verdicts.get(m.group())
        if kind is None:
            kind = verdicts[m.group()] = _assignment_kind(m, quoted, c)
        if kind:
            s, e = m.span(group)
            if not quoted and line_start(text, start):
                words = passphrase_key(key_components(m.group("key")))
                whole = line_value(text, s, words, e)
                e = max(e, whole[1]) if whole else e
            spans.append((s, e, kind))
            last_key_end = e


def _assignment_kind(m: re.Match[str], quoted: bool, c: Compiled) -> str:
    """The kind to report when ``key <sep> value`` assigns a credential, else ``""``."""
    key = m.group("key").lstrip("-@$")
    sep = m.group("sep")
    value = m.group("value") if quoted else m.group("value2")
    is_flag = m.group("key").startswith("-")
    if not sep.strip() and not is_flag:
        return ""
    if "," in sep and not (m.group("kq") and quoted):
        return ""
    if len(value) < 3 or value.startswith(_MARKER):
        return ""
    comps = key_components(key)
    strength = key_strength(key, comps)
    if strength == 0 and any(p in PROVIDERS for p in comps) and not public_key_name(comps):
        strength = 1 if any(w in PROVIDER_ID_WORDS for w in comps) else 0
    if strength == 0 and qualified_secret_key(comps):
        strength = 2  # "ssh_passphrase", "new_password"
    if strength == 0:
        return ""
    if "," in sep and not is_flag and not (symbol_secret(value) or randomish(value, min_len=16)):
        return ""  # two strings side by side in a list: a pair only when the second is random
    if strength == 2 and symbol_secret(value) and not public_token(value):
        return "password" if any(w in key.lower() for w in ("pass", "pwd")) else "credential"
    if is_placeholder(value) or looks_like_code(value):
        return ""
    if "://" in value or public_token(value):
        return ""  # an endpoint or a public key (passwords in URLs have their own rule)
    kind = "password" if any(w in key.lower() for w in ("pass", "pwd")) else "credential"
    if kind == "credential" and len(value) < 8 and not randomish(value, min_len=6):
        return ""  # "token: abc": keys and tokens are long; short passwords are not rare
    if strength == 1:
        ok = randomish(value, min_len=8) or bool(
            _BASE64ISH.get().fullmatch(value) and len(value) >= 12
        )
        return kind if ok else ""
    if quoted:
        sentence = value.count(" ") >= 2 and (_SENTENCE.get().fullmatch(value) or prose_text(value))
        if sentence and passphrase_key(comps) and passphrase_words(value):
            return kind  # "correct horse battery staple"
        return "" if sentence else kind
    if _ENV_NAME.get().fullmatch(value) and "_" in value:
        return ""  # the *name* of an environment variable
    if _BARE_WORD.get().fullmatch(value) and variable_like(value):
        # A bare word: a variable in code (``password=password``, ``token: str``), unless
        # the line is a ``.env``/YAML-style setting (``DB_PASSWORD=swordfish``, ``pass: x``).
        env_style = key.isupper() or ":" in sep or is_flag
        camel_type = value[:1].isupper() and ":" in sep and not key.isupper()
        return kind if env_style and not camel_type else ""
    return kind


_FIRST_WORD = LazyRe(r"[^\s\"'`=]{10,400}(?=\s|$)")
_SETTING = LazyRe(r"(?P<key>[A-Za-z0-9_.-]{1,100})[ \t]*(?P<sep>=|:)[ \t]*")


def _line_setting(text: str, start: int, hit_end: int, verdicts: dict[str, str]) -> Span | None:
    """A line that is one setting whose unquoted value the assignment expression cannot
    read (``spring.datasource.password=,SXEp…``, ``DB_PASSWORD=#q(…``): the value is the
    rest of the line's first word, a credential when it is a generated one."""
    if not line_start(text, start):
        return None
    m = _SETTING.get().match(text, start)
    if m is None or m.end("key") < hit_end:
        return None
    word = _FIRST_WORD.get().match(text, m.end())
    if word is None:
        return None
    found, value = word.span(), word.group()
    verdict = verdicts.get(m.group() + value)
    if verdict is None:
        comps = key_components(m.group("key"))
        strong = key_strength(m.group("key"), comps) == 2 or qualified_secret_key(comps)
        verdict = ""
        if strong and symbol_secret(value):
            verdict = "password" if passphrase_key(comps) else "credential"
        verdicts[m.group() + value] = verdict
    return (found[0], found[1], verdict) if verdict else None
