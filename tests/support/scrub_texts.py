"""Deterministic turns for the scrubber's speed and equivalence checks.

``turn(kind, size, seed)`` builds a text of ``size`` characters that reads like what a coding
agent's turn holds: ``prose`` (an explanation in Markdown), ``code`` (Python and TypeScript
with settings and literals), ``logs`` (service logs with ids, hashes and stack traces),
``json`` (a tool's JSON output with object ids, timestamps and small encodings) and ``mixed``
(all of these, fenced, as an assistant turn). Rows of the secrets corpus (secrets and hard
negatives) are spliced in at a realistic rate, so the detectors do real work, not just the
scan. Only ``random.Random(seed)`` and the corpus fixture feed it: the same arguments give the
same text on every machine.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

from tests.support.secret_corpus import load

KINDS = ("prose", "code", "logs", "json", "mixed")


def _words(text: str) -> list[str]:
    return text.split()


_WORDS = _words(
    "the a an and or but if then when while because so that this it we you they is are was "
    "be been has have had do does did not no yes can could should would will may might must "
    "file files function module class method test tests config setting settings value values "
    "server client request response error errors warning log logs output input path paths "
    "session user users cache memory store query "
    "index search result results time timeout retry retries hook hooks worker queue outbox "
    "build install package version release branch commit merge change changes fix bug issue "
    "run runs running step steps check checks data field fields table row rows column name "
    "names type types list dict string number line lines text turn turns message messages "
    "read write open close send receive parse format report figure measure cost fast slow "
    "first last next before after again only also just still now here there every each some "
    "all most more less small large long short new old same other own local remote default"
)
_IDENT = _words(
    "config settings client server request response result value items payload handler "
    "session store index cache logger parser builder options params headers status count "
    "total offset limit timeout retries path name uri data body text turns messages queue"
)
_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")


# Words that wake the credential rules, at the rate a conversation about a service's set-up has
# them (about one word in 150), not that of the base vocabulary.
_CREDENTIAL_WORDS = ("token", "key", "keys", "password", "secret", "auth", "credentials")


def _word(rng: random.Random) -> str:
    return rng.choice(_CREDENTIAL_WORDS) if rng.random() < 0.007 else rng.choice(_WORDS)


def _sentence(rng: random.Random) -> str:
    words = [_word(rng) for _ in range(rng.randint(6, 22))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(_IDENT)}.{rng.choice(_IDENT)}()`")
    if rng.random() < 0.1:
        words.append(f"(see https://example.com/docs/{rng.choice(_IDENT)}#{rng.choice(_WORDS)})")
    if rng.random() < 0.15:
        words.insert(rng.randrange(len(words)), f"{rng.randint(2, 9999)} ms")
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice(".....?!:")


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _alnum(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def _prose_block(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        return "## " + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 6))).title()
    if roll < 0.35:
        return "\n".join("- " + _sentence(rng) for _ in range(rng.randint(2, 6)))
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 7)))


def _code_block(rng: random.Random) -> str:
    a, b, c = rng.choice(_IDENT), rng.choice(_IDENT), rng.choice(_IDENT)
    lines = [
        f"def {a}_{b}({c}: str, *, {b}: int = {rng.randint(0, 500)}) -> dict[str, object]:",
        f'    """{_sentence(rng)}"""',
        f"    {a} = {c}.get({b!r}, {rng.choice(('None', '[]', '0', '{}'))})",
        f"    if not {a} or len({a}) > {rng.randint(8, 4096)}:",
        f'        raise ValueError(f"bad {b}: {{{a}!r}}")',
        f'    {b}_key = os.environ.get("{b.upper()}_KEY", "")'
        if rng.random() < 0.25
        else f"    {b}_{c} = {a}.{b}({c}, strict=True)",
        f'    headers = {{"Content-Type": "application/json", "X-Request-Id": "{_uuid(rng)}"}}',
        f"    for i, item in enumerate({c}.{a}):",
        f"        total += item.{b} * {rng.random():.3f}  # {_sentence(rng)}",
        f'    return {{"{a}": {a}, "{b}": {b}, "count": len({c})}}',
        "",
        f"export async function {a}{b.title()}({c}: {b.title()}Options): Promise<void> {{",
        f"  const {{ {a}, {b} }} = await fetch(`${{baseUrl}}/api/v1/{a}/${{id}}`);",
        f"  const token = process.env.{a.upper()}_TOKEN ?? '';"
        if rng.random() < 0.25
        else f"  const {c} = new Map<string, number>();",
        f"  if ({a}.length === 0) throw new Error('{_sentence(rng)[:40]}');",
        "}",
        f"{a.upper()}_{b.upper()} = {rng.randint(1, 99999)}",
        f'SETTINGS = {{"{a}": {rng.random() < 0.5}, "{b}_timeout": {rng.randint(1, 60)}}}',
    ]
    start = rng.randrange(len(lines))
    return "\n".join(lines[start:] + lines[: rng.randint(0, start)])


def _log_line(rng: random.Random) -> str:
    ts = (
        f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
        f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"
    )
    level = rng.choice(_LEVELS)
    roll = rng.random()
    if roll < 0.5:
        return (
            f"{ts} {level} [{rng.choice(_IDENT)}-{rng.randint(1, 8)}] request_id={_uuid(rng)} "
            f"{rng.choice(('GET', 'POST', 'PUT'))} /api/v1/{rng.choice(_IDENT)}/{_hex(rng, 12)} "
            f"{rng.choice((200, 200, 201, 404, 500))} {rng.randint(1, 900)}ms "
            f"ip=10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        )
    if roll < 0.7:
        return f"{ts} {level} {_sentence(rng)} commit={_hex(rng, 40)} sha256={_hex(rng, 64)}"
    if roll < 0.85:
        mod = rng.choice(_IDENT)
        return (
            f'  File "/home/dev/project/src/{mod}/{rng.choice(_IDENT)}.py", line '
            f"{rng.randint(1, 900)}, in {rng.choice(_IDENT)}_{rng.choice(_IDENT)}"
        )
    return f"{ts} {level} {rng.choice(_IDENT)}: {_sentence(rng)} (attempt {rng.randint(1, 5)})"


def _json_block(rng: random.Random) -> str:
    items = []
    for _ in range(rng.randint(1, 4)):
        items.append(
            "    {\n"
            f'      "id": "{rng.choice(("msg_", "toolu_", "req_", "evt_"))}{_alnum(rng, 24)}",\n'
            f'      "uuid": "{_uuid(rng)}",\n'
            f'      "created_at": "2026-11-{rng.randint(1, 28):02d}T10:{rng.randint(0, 59):02d}'
            f':00Z",\n'
            f'      "name": "{rng.choice(_IDENT)}-{rng.choice(_IDENT)}",\n'
            f'      "description": "{_sentence(rng)}",\n'
            f'      "size": {rng.randint(0, 10**7)},\n'
            f'      "sha": "{_hex(rng, 40)}",\n'
            f'      "url": "https://api.example.com/v2/{rng.choice(_IDENT)}/{_hex(rng, 16)}",\n'
            f'      "tags": ["{rng.choice(_WORDS)}", "{rng.choice(_WORDS)}"],\n'
            f'      "enabled": {str(rng.random() < 0.5).lower()}\n'
            "    }"
        )
    return '{\n  "data": [\n' + ",\n".join(items) + f'\n  ],\n  "total": {rng.randint(0, 999)}\n}}'


def _mixed_block(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return _prose_block(rng)
    if roll < 0.65:
        return "```python\n" + _code_block(rng) + "\n```"
    if roll < 0.85:
        return "```\n" + "\n".join(_log_line(rng) for _ in range(rng.randint(3, 12))) + "\n```"
    return "```json\n" + _json_block(rng) + "\n```"


_BLOCKS: dict[str, Callable[[random.Random], str]] = {
    "prose": _prose_block,
    "code": _code_block,
    "logs": lambda rng: "\n".join(_log_line(rng) for _ in range(rng.randint(4, 20))),
    "json": _json_block,
    "mixed": _mixed_block,
}


def corpus_rows() -> list[str]:
    """The corpus texts (secrets and hard negatives), in file order."""
    return [r["text"] for r in load("secrets.jsonl") + load("negatives.jsonl")]


def turn(kind: str, size: int = 65_536, seed: int = 0, secret_every: int = 8192) -> str:
    """A ``kind`` turn of exactly ``size`` characters with a corpus row every ~``secret_every``."""
    rng = random.Random(f"{kind}:{seed}")
    rows = corpus_rows()
    block = _BLOCKS[kind]
    parts: list[str] = []
    total = 0
    since_row = 0
    while total < size:
        piece = block(rng)
        if secret_every and since_row >= secret_every:
            piece = rng.choice(rows) + "\n" + piece
            since_row = 0
        parts.append(piece)
        total += len(piece) + 1
        since_row += len(piece) + 1
    return "\n".join(parts)[:size]


# ------------------------------------------------------------------ equivalence cases

EQUIVALENCE_FIXTURE = "scrub/equivalence.json"


def _splices(rng: random.Random, rows: list[str], n: int) -> list[str]:
    """Corpus rows glued to each other and cut into generated text at random points: the
    boundaries where a rule reads its neighbours (a token glued to a marker, a key whose
    value is cut, two credentials on one line)."""
    out = []
    for _ in range(n):
        base = turn(rng.choice(KINDS), rng.randint(200, 3000), rng.randrange(10**6), 0)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(base) + 1)
            glue = rng.choice(("", " ", "\n", "=", ":", "/", '"', "-", "'"))
            base = base[:at] + glue + rng.choice(rows) + glue + base[at:]
        out.append(base)
    return out


def equivalence_cases() -> list[tuple[str, str, bool, bool]]:
    """``(name, text, emails, phones)``: a broad, deterministic input set whose scrubbed output
    is pinned byte for byte (``tests/fixtures/scrub/equivalence.json``)."""
    rows = corpus_rows()
    rng = random.Random("equivalence")
    cases: list[tuple[str, str, bool, bool]] = []
    for kind in KINDS:
        for seed in range(3):
            cases.append((f"{kind}-64k-{seed}", turn(kind, 65_536, seed), False, False))
        for seed in range(40):
            size = rng.randint(300, 8000)
            every = rng.choice((0, 300, 700, 2000))
            cases.append((f"{kind}-{seed}", turn(kind, size, 100 + seed, every), False, False))
    for i, row in enumerate(rows):
        cases.append((f"row-{i}", row, False, False))
        nxt = rows[(i + 1) % len(rows)]
        cases.append((f"pair-{i}", row + rng.choice(("", " ", "\n", ";")) + nxt, False, False))
    for i, text in enumerate(_splices(rng, rows, 300)):
        cases.append((f"splice-{i}", text, i % 3 == 0, i % 5 == 0))
    for i, text in enumerate(_glued(random.Random("glued"), 1500)):
        cases.append((f"glued-{i}", text, False, False))
    return cases


def _glued(rng: random.Random, n: int) -> list[str]:
    """Secrets and corpus rows glued end to end, some inside generated text: where replacing
    one secret changes how the next one reads, so the scrubber's later passes find more
    (about one case in forty)."""
    secrets = load("secrets.jsonl")
    pieces = [r["secret"] for r in secrets] + corpus_rows()
    out = []
    for _ in range(n):
        parts = [rng.choice(pieces) for _ in range(rng.randint(2, 5))]
        glue = [
            rng.choice(("", "", "", " ", "=", ":", "/", "_", "-", ".", "\n", "@")) for _ in parts
        ]
        text = "".join(g + p for g, p in zip(glue, parts, strict=True))
        if rng.random() < 0.5:
            base = turn(rng.choice(KINDS), rng.randint(100, 2000), rng.randrange(10**6), 0)
            at = rng.randrange(len(base) + 1)
            text = base[:at] + text + base[at:]
        out.append(text)
    return out


def outcome_digest(out: str, counts: dict[str, int]) -> str:
    """One hash of a scrub's text and counts (the fixture keeps hashes, not 3 MB of text)."""
    import hashlib
    import json

    blob = out + "\x00" + json.dumps(sorted(counts.items()))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def input_digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
