"""Where the scrubber looks (see ``scrub`` for the whole picture): the literal and
expression anchors of the context rules and the windows scanned around them, and the
keywords and expression of the assignments.

These sit below the detectors (``scrub_context``, ``scrub_assign``) and the compiled set
(``scrub_compiled``) that all of them share, so none of them imports another back.
"""

from __future__ import annotations

from ovhooks.capture.scrub_values import LazyRe


class RegexAnchor:
    """An anchor found with an expression ("re:" hints), compiled and run only in a text that
    holds one of its ``gates`` (``ANCHOR_GATES``), and tried only where one of its ``starts``
    is when it has them (``ANCHOR_STARTS``, needles)."""

    __slots__ = ("gates", "lazy", "starts")

    def __init__(self, source: str, gates: tuple[str, ...], starts: tuple[str, ...]) -> None:
        self.lazy = LazyRe(source)
        self.gates = gates
        self.starts = starts


# Literals one of which every match of a "re:" anchor holds (lower-cased): a text with none
# of them neither compiles nor runs the expression, so a short prompt pays for no anchor it
# cannot hold (a test checks every "re:" anchor has its literals).
ANCHOR_GATES = {
    "re:/\\d{10}": ("/",),
    "re::(?:\\d{1,5}|\\*):": (":",),
    "re:(?:password|passwd|passphrase|pwd|pw)\\s+(?:is|was|=|:|of)\\s": ("pw", "pass"),
}
# Literals one of which every match of a "re:" anchor starts with: they are searched for with
# the other needles, and the expression is tried only where they are (a test checks it).
ANCHOR_STARTS = {
    "re:(?:password|passwd|passphrase|pwd|pw)\\s+(?:is|was|=|:|of)\\s": ("pass", "pw"),
}


def anchor(hints: str) -> RegexAnchor | tuple[str, ...]:
    """Literal anchors are found with ``str.find`` (far faster than an alternation)."""
    if hints.startswith("re:"):
        return RegexAnchor(hints[3:], ANCHOR_GATES[hints], ANCHOR_STARTS.get(hints, ()))
    return tuple(hints.split("|"))


def window(kind: str, hints: str) -> tuple[int, int, tuple[str, ...], tuple[str, ...]]:
    """How far before and after an anchor a match may reach; characters one of which it needs
    within 300 characters after the anchor (a password in a URL needs its "@"); literals one
    of which every match holds (lower-cased), so a window without any is not scanned."""
    if kind == "private_key":
        return 60, 41_000, (), ()
    if kind == "url_password":
        return 40, 400, ("@",), ()
    if hints.startswith("-u|"):
        return 40, 300, (":", "%"), ()
    if kind == "cookie":
        return 40, 2_100, (), ()
    if kind == "bootstrap_token":
        return 0, 40, (), ()  # right after its flag or key
    if kind == "kubeconfig":
        return 40, 16_000, (), ()  # the base64 of a PEM block, a few thousand characters
    return 240, 420, (), _REQUIRES.get(hints, ())


# Literals a rule's every match holds, for the rules whose anchors are common words ("default",
# "zip" in "unzip" and "rar" in "library", "-cli"): "machine x password y" needs "passw", the
# archivers' and database clients' password flags need "-p", redis-cli's "-a", ldap's "-w".
_REQUIRES = {
    "machine|default": ("passw",),
    "zip|7z|rar": ("-p",),
    "mysql|mariadb": ("-p",),
    "-cli": ("-a",),
    "ldap": ("-w",),
    "sshpass": ("-p",),
    "echo ": (">",),
}

# Words that announce an assignment's key (found in the lower-cased text); "_pat" only at the
# end of a word.
KEYWORDS = (
    "pass", "pwd", "secret", "token", "key", "auth", "cred", "_pat", "salt", "dsn", "mnemonic",
    "seed",
)  # fmt: skip
ASSIGN_SRC = (
    r"(?P<kq>[\"'`]?)(?P<key>[@$]?[A-Za-z0-9_.-]{1,100})(?P=kq)"
    r"(?P<sep>[ \t]*\]?[ \t]*(?::=|=>|\?=|=|:|,)[ \t]*|[ \t]+)"
    r"(?:(?P<q>[\"'`])(?P<value>(?:[^\"'`\\\n]|\\.){1,400}?)(?P=q)"
    r"|(?P<value2>[^\s\"'`,;&<>(){}\[\]]{1,400}))"
)
