from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ovhooks.capture.scrub import scrub

CORPUS = Path(__file__).parent / "corpus"
MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def _load(name: str) -> list[dict[str, object]]:
    lines = (CORPUS / name).read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_corpus_recall_and_false_positive_rate() -> None:
    secrets = _load("secrets.jsonl")
    clean = _load("non_secrets.jsonl")
    assert len(secrets) >= 60 and len(clean) >= 60
    missed = []
    for sample in secrets:
        out, counts = scrub(str(sample["text"]))
        values = sample["secret"]
        assert isinstance(values, list)
        if any(str(v) in out for v in values) or not counts:
            missed.append(sample["id"])
    flagged = [s["id"] for s in clean if scrub(str(s["text"]))[0] != s["text"]]
    recall = 1 - len(missed) / len(secrets)
    fp_rate = len(flagged) / len(clean)
    print(
        f"\nscrub corpus: {len(secrets)} secrets, recall {recall:.3f} (missed {missed}); "
        f"{len(clean)} non-secrets, false-positive rate {fp_rate:.3f} (flagged {flagged})"
    )
    assert recall >= 0.95
    assert fp_rate <= 0.02


def test_corpus_kinds_are_reported() -> None:
    for sample in _load("secrets.jsonl"):
        out, counts = scrub(str(sample["text"]))
        assert counts, sample["id"]
        assert all(f"[REDACTED:{kind}]" in out or kind == "private" for kind in counts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgres://admin:S3cr3tP4ss@db:5432/app", "postgres://admin:[REDACTED:url_password]@db:5432/app"),
        ("password = 'hunter22'", "password = '[REDACTED:password]'"),
        ("aws_secret_access_key = " + "qX7f2Lr9Tz0aWm4Kc8Vb1Np5Hs3Jd6Gy0Ue2Oi9Rt",
         "aws_secret_access_key = [REDACTED:credential]"),
        # AWS's own documentation example is a placeholder, not a secret
        ("aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
         "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("card 4111 1111 1111 1111 ok", "card [REDACTED:card_number] ok"),
    ],
)  # fmt: skip
def test_replacements_keep_context(text: str, expected: str) -> None:
    assert scrub(text)[0] == expected


def test_counts_per_kind() -> None:
    text = (
        "a sk-ant-api03-"
        + "Ab1" * 10
        + " b AKIA"
        + "Q7RX2MK9PLW4ZTB8"
        + " c AKIA"
        + "N5VC1JD6GY0UE2OI"
    )
    out, counts = scrub(text)
    assert counts == {"anthropic_key": 1, "aws_access_key": 2}
    assert "AKIAQ7RX" not in out


def test_emails_and_phones_only_when_asked() -> None:
    text = "mail ada@example.com or call +1 (555) 010-9999"
    assert scrub(text)[0] == text
    out, counts = scrub(text, emails=True, phones=True)
    assert "ada@example.com" not in out and "010-9999" not in out
    assert counts == {"email": 1, "phone": 1}


def test_private_spans_are_removed() -> None:
    out, counts = scrub("keep <private>my salary is 10k</private> this")
    assert out == "keep  this" and counts == {"private": 1}


def test_marker_is_inert() -> None:
    for kind in ("openai_key", "password", "high_entropy", "jwt", "url_password"):
        marker = f"[REDACTED:{kind}]"
        for text in (marker, f"password={marker}", f"Bearer {marker}", f"x://u:{marker}@h"):
            assert scrub(text) == (text, {})


SECRETISH = [
    "sk-", "sk-ant-", "ghp_", "AKIA", "password=", "token: ", "Bearer ", "Authorization: ",
    "://u:", "@h", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "eyJ", ".",
    "4111 1111 1111 1111", "[REDACTED:", "]", "<private>", "</private>", " ", "\n", "=", "'",
]  # fmt: skip
RANDOMISH = st.text(alphabet="abcXYZ0189+/_-", min_size=0, max_size=40)
SOUP = st.lists(st.one_of(st.sampled_from(SECRETISH), RANDOMISH), max_size=25).map("".join)


def _check(text: str) -> None:
    out, _counts = scrub(text, emails=True, phones=True)
    again, counts_again = scrub(out, emails=True, phones=True)
    assert again == out and counts_again == {}  # idempotent, and markers never match
    # never longer, except for the markers themselves
    assert len(MARKER_RE.sub("", out)) <= len(text)


@settings(max_examples=400, deadline=None)
@given(SOUP)
def test_properties_on_secret_soup(text: str) -> None:
    _check(text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_properties_on_any_text(text: str) -> None:
    _check(text)


def test_every_shape_needs_at_least_the_length_short_tokens_skip() -> None:
    # scrub_tokens skips the shape expressions on tokens under SHAPED_MIN_LEN; a shape that
    # could match fewer characters would be missed on short tokens
    from re import _parser  # type: ignore[attr-defined]

    from ovhooks.capture.scrub_rules import SHAPED, SHAPED_MIN_LEN

    shortest = min(_parser.parse(src).getwidth()[0] for _kind, _needle, src in SHAPED)
    assert shortest >= SHAPED_MIN_LEN
    # and the bound is tight enough to matter: the shortest shape is exactly this long
    assert shortest == SHAPED_MIN_LEN
    # a shape with a lead character is tried only on tokens that start with one
    from ovhooks.capture.scrub_rules import SHAPED_LEADS

    sources = {kind: src for kind, _needle, src in SHAPED}
    for kind, lead in SHAPED_LEADS.items():
        first = sources[kind].split("]")[0] + "]" if sources[kind].startswith("[") else ""
        assert first == f"[{lead}]" or sources[kind].startswith(lead)
    # scrub_tokens also skips hexadecimal tokens: every shape holds a character outside hex
    hex_chars = set("0123456789abcdefABCDEF-")
    assert all(set(needle) - hex_chars for _kind, needle, _src in SHAPED)


def test_head_scrub_reads_a_bounded_start_and_secrets_across_the_cut_whole() -> None:
    from ovhooks.capture.scrub import HEAD_MARGIN, clean_outbound, clean_outbound_head

    token = "ghp_" + "R7xK2mQ9pL4wZ8vT1nB6cY3hD5jF0gS2aE4u"
    short = f"see {token} here"
    assert clean_outbound_head(short, 2000) == clean_outbound(short)
    filler = "word " * 20_000  # 100 kB
    for at in (1990, 2000 + HEAD_MARGIN - 5, 2000 + HEAD_MARGIN + 3):
        text = filler[: at - 1] + " " + token + " " + filler
        head = clean_outbound_head(text, 2000)
        assert token[:8] not in head, at
        assert len(head) <= 2000 + 2 * HEAD_MARGIN
        assert text.startswith(head[:at])  # the start is kept as it was
    # a start with no space or line end after the cut is cut at twice the margin
    blob = "a" * 50_000
    assert len(clean_outbound_head(blob, 2000)) == 2000 + 2 * HEAD_MARGIN


def test_a_pgpass_line_among_long_log_lines_is_always_found() -> None:
    # The .pgpass rule used to scan windows around its anchors (":5432:"), and a window cut
    # short by the previous line's window missed the line 23 times in these 200 logs.
    import random

    rng = random.Random(3)
    for _ in range(200):
        lines = [
            f"2026-12-16T06:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z INFO worker "
            f"{'x' * rng.randint(0, 400)} done"
            for _ in range(rng.randint(1, 8))
        ]
        lines.insert(rng.randint(0, len(lines)), "db.internal:5432:app:appuser:DKTXlZQGUmtuLLwV")
        out, counts = scrub("\n".join(lines))
        assert "DKTXlZQGUmtuLLwV" not in out and counts == {"password": 1}


def test_no_vendor_format_fits_in_a_run_shorter_than_the_candidates() -> None:
    # scrub_tokens takes runs of PREFIXED_MIN_LEN or more token characters: every format is
    # at least that long, and one that could reach it only with the up to three "=" a
    # candidate adds after its run must not take "=" in its body
    from re import _parser  # type: ignore[attr-defined]

    from ovhooks.capture.scrub_rules import PREFIXED, PREFIXED_MIN_LEN

    widths = {(p, body): len(p) + _parser.parse(body).getwidth()[0] for p, _k, body in PREFIXED}
    assert min(widths.values()) == PREFIXED_MIN_LEN
    assert all("=" not in body for (p, body), w in widths.items() if w < PREFIXED_MIN_LEN + 3)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="pwasd:/0123456789 \t=isofx*", max_size=80))
def test_every_regex_anchor_match_holds_one_of_its_gates(noise: str) -> None:
    # a text with none of an anchor's gate literals skips the anchor's expression
    # (scrub_anchors.ANCHOR_GATES): so every match must hold one
    from ovhooks.capture.scrub_anchors import ANCHOR_GATES
    from ovhooks.capture.scrub_rules import CONTEXT

    hints = {h for _k, _src, h in CONTEXT if h.startswith("re:")}
    assert hints == set(ANCHOR_GATES)
    samples = [noise, "db:5432:app:user:pw", "password is x", "pwd = y", "1/1234567890/2"]
    for hint, gates in ANCHOR_GATES.items():
        for text in samples:
            for m in re.finditer(hint[3:], text.lower()):
                assert any(g in m.group() for g in gates), (hint, m.group())
    # and an anchor tried only where its start literals are starts with one
    from ovhooks.capture.scrub_anchors import ANCHOR_STARTS

    assert set(ANCHOR_STARTS) <= hints
    for hint, starts in ANCHOR_STARTS.items():
        for text in samples:
            for m in re.finditer(hint[3:], text.lower()):
                assert m.group().startswith(starts), (hint, m.group())


def test_a_short_prompt_compiles_only_what_it_needs() -> None:
    # a fresh process scrubbing an ordinary prompt (the UserPromptSubmit hook) compiles the
    # candidate expression and little else: no assignment, card, e-mail, phone, private or
    # anchor expression it has no use for
    import ast
    import subprocess
    import sys

    code = (
        "import re, sys; from ovhooks.capture import scrub as s;"
        "calls = [];"
        "real = re.compile;"
        "re.compile = lambda p, f=0: (calls.append(p), real(p, f))[1];"
        "s.scrub('why does the parser test fail when the cache is rebuilt after a reload');"
        "print(repr(calls))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    compiled = ast.literal_eval(out)  # the pattern strings, printed by repr
    assert len(compiled) <= 4, compiled  # the candidates, the card stretches, \w and [0-9]
    assert not any("private" in p or "@" in p or "key" in p or "\\d{10}" in p for p in compiled)


def test_a_key_typed_in_full_width_forms_is_still_a_key() -> None:
    # A campaign: a full-width "sk-proj-..." (NFKC folds it to the ASCII key) was stored and
    # shown as is; the same key in ASCII was redacted.
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4"
    wide = "".join(chr(ord(ch) + 0xFEE0) for ch in key)
    assert scrub(f"my key is {wide} ok") == (
        "my key is [REDACTED:openai_key] ok",
        {"openai_key": 1},
    )
    half = key[:10] + wide[10:]  # half typed each way
    assert scrub(half)[1] == {"openai_key": 1}
    # Chinese punctuation and full-width words are the same block: left as they are
    for text in (
        "我们用，：（中文标点）ＡＢＣ１２３ 没问题",
        "ｈｅｌｌｏ ｗｏｒｌｄ ｔｈｉｓ ｉｓ ｆｉｎｅ",
    ):
        assert scrub(text) == (text, {})
