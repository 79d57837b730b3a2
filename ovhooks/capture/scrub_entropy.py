"""Whether a free-standing token is random data (``high_entropy``): the last of the
scrubber's token judgements, after prefixes and shapes (``scrub_tokens``). Entropy is one
signal among several: hashes, UUIDs, paths, dotted names, public ids, public keys and
certificates, and encodings of images, text, JSON and config are set aside first.
"""

from __future__ import annotations

import math
import re

from ovhooks.capture.scrub_values import (
    LazyRe,
    entropy,
    is_placeholder,
    public_token,
    randomish,
)

_HEXISH = LazyRe(r"[0-9a-fA-F-]+")
_CREDENTIAL_NEAR = LazyRe(  # a credential named just before (English and a few more languages)
    r"secret|token|pass|pwd|auth|cred|bearer|basic|sess|cookie|private|sig|api.?key|access.?key"
    r"|[_-]key|key\W{0,3}[=:]|key (?:is|was)|密钥|密码|令牌|秘密|パスワード|トークン|キー|비밀|토큰"
    r"|clave|contraseña|mot de passe|schlüssel|senha|chave|пароль|ключ|токен"
)
_WORDS = LazyRe(r"[A-Z]?[a-z]{4,}")
_ID = LazyRe(r"[A-Za-z0-9_-]+")  # one run, as ids are (a glued secret has "." "/" "+")
_ID_BEFORE = LazyRe(r"(?:\b|_)(?:id|ids|uuid|ulid|ksuid|guid|slug|oid)\W{0,4}$")
_BASE64_LINE = LazyRe(r"[A-Za-z0-9+/]+={0,2}")
_PATH_SEGMENT = LazyRe(r"[a-z0-9._-]*")


def _class_of(ch: str) -> int:
    if ch.isdigit():
        return 0
    if ch.isupper():
        return 1
    return 2 if ch.islower() else 3


def _in_public_block(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside a ``-----BEGIN PUBLIC KEY/CERTIFICATE-----`` block."""
    begin = text.rfind("-----BEGIN ", max(0, pos - 8000), pos)
    if begin < 0 or text.find("-----END ", begin, pos) >= 0:
        return False
    header = text[begin : min(begin + 60, pos)]
    return "PRIVATE" not in header and ("PUBLIC" in header or "CERTIFICATE" in header)


def _decodes_to_plain(token: str) -> bool:
    """Base64 of prose or of JSON without a random value in it: an encoding, not a key."""
    import base64
    import binascii

    raw = token.replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
        plain = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    if not plain.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return False
    if plain.startswith("{"):
        values = re.findall(r'"([^"]{16,})"', plain)
        return not any(randomish(v, min_len=16) for v in values)
    # text or config ("log_level: info\nworkers: 4"): words, none of them random
    words = plain.split()
    return len(words) >= 3 and not any(randomish(w, min_len=16) for w in words)


def _wrapped_line(text: str, start: int, n: int) -> bool:
    """A whole line of a base64 block wrapped at a fixed width of 60-80 (MIME, a PEM body):
    the line above is a full line of the block at least as long, or this one is full and the
    line below continues the block. The block's first line is read by the checks for images
    and headers; a private key's body is caught by its block's rule."""
    if n > 80 or (start and text[start - 1] != "\n"):
        return False
    end = start + n
    if end < len(text) and text[end] not in "\r\n":
        return False
    above = text[text.rfind("\n", 0, start - 1) + 1 : start - 1].rstrip("\r") if start else ""
    below_end = text.find("\n", end + 1)
    below = text[end + 1 : below_end if below_end >= 0 else len(text)].rstrip("\r")
    block = _BASE64_LINE.get()
    if 60 <= len(above) <= 80 and n <= len(above) and block.fullmatch(above):
        return True
    return n >= 60 and 20 <= len(below) <= n and block.fullmatch(below) is not None


def high_entropy(token: str, text: str, start: int) -> bool:
    """A free-standing token (no prefix, no key) that has the make-up of random data.

    Entropy is only one signal: hashes, UUIDs and hex ids, paths, dotted names, encoded
    images, text and JSON, identifiers made of words, public ids and public keys are all
    excluded first.
    """
    n = len(token)
    if n > 256 or n < 20 or _HEXISH.get().fullmatch(token) or public_token(token):
        return False
    before = text[max(0, start - 64) : start]
    if "base64," in before or before.endswith(("/", "\\", "~", "@", ":", "#", "=sha")):
        return False  # data: URI, the tail of a path or URL, a host, an anchor
    near = before[-48:].lower()
    named = _CREDENTIAL_NEAR.get().search(near) is not None
    if not named and (
        n < 32 or (n <= 44 and _ID_BEFORE.get().search(near) and _ID.get().fullmatch(token))
    ):
        return False  # short, or named an id, and not a credential: a public id (a nanoid)
    if "public" in near:
        return False  # a public key: "PublicKey = …" (a PEM block is looked for last)
    if any(w in near for w in ("sha256", "sha512", "sha1", "digest", "checksum", "hash")):
        return False  # a digest, named as such just before it
    if "/" in token and "+" not in token and not token.endswith("="):
        segments = [s for s in token.split("/") if s]
        if token.startswith("/") or not segments:
            return False
        wordy = sum(1 for s in segments if _PATH_SEGMENT.get().fullmatch(s))
        if wordy * 2 >= len(segments):
            return False  # a path such as "src/lib/python3/site-packages"
    if "." in token and not token.endswith("="):
        pieces = token.split(".")
        if sum(1 for p in pieces if p.isalpha() or p.isdigit()) * 2 >= len(pieces):
            return False  # a dotted name or version, "com.example.App.v2"
    digits = sum(1 for c in token if c.isdigit())
    uppers = sum(1 for c in token if c.isupper())
    lowers = sum(1 for c in token if c.islower())
    classes = (digits > 0) + (uppers > 0) + (lowers > 0)
    if classes < 3 and not (classes == 2 and digits and n >= 32):
        return False
    classes_seq = [_class_of(c) for c in token]
    switches = sum(1 for i in range(1, n) if classes_seq[i] != classes_seq[i - 1])
    if switches < 0.3 * (n - 1):
        return False  # identifiers switch class rarely and in runs: "parseHttp2Response"
    if sum(len(w) for w in _WORDS.get().findall(token)) > 0.5 * n:
        return False  # mostly words
    if is_placeholder(token) or entropy(token) < min(4.2, math.log2(n) * 0.84):
        return False
    if _wrapped_line(text, start, n):
        return False  # one line of a base64 block wrapped at a fixed width (MIME, a PEM body)
    if _in_public_block(text, start):
        return False  # a PEM public key or certificate (the costliest check, so the last)
    return not _decodes_to_plain(token)
