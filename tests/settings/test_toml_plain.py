"""The plain-TOML reader reads a file exactly as ``tomllib`` does, or declines it.

``settings.toml_plain.parse`` exists only to keep ``tomllib``'s import out of hooks; it
must never read a file differently. Generated documents mix what it reads (keys, one level of
tables, strings, numbers, booleans, lists of strings, comments) with what it must leave to
``tomllib`` (escapes, dotted keys, dates, duplicates, broken lines, stray control characters).
"""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ovhooks.settings.toml_plain import loads, parse

KEYS = st.sampled_from(["url", "api_key", "backend", "recall_max_items", "a-b", "x_1", "7"])
TEXT = st.text(
    alphabet=st.sampled_from([*"ab #=:/'\"\\[],.\t-_", "é", "中", "\x01", "\x7f", "\r"]),
    max_size=12,
)
SCALARS = st.one_of(
    TEXT.map(lambda t: f'"{t}"'),
    TEXT.map(lambda t: f"'{t}'"),
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.sampled_from(["true", "false", "007", "1_000", "1e3", "+0", "-0.0", ".5", "nan", "True"]),
    st.sampled_from(["1979-05-27", "{ a = 1 }", '"""x"""', '"a\\tb"', '"\\u00e9"', ""]),
)
ARRAYS = st.lists(SCALARS, max_size=3).flatmap(
    lambda items: st.sampled_from([",", ", ", " ,"]).map(
        lambda sep: "[" + sep.join(items) + ("," if items and len(items) % 2 else "") + "]"
    )
)
PAIRS = st.tuples(
    KEYS, st.sampled_from(["=", " = ", "\t=\t", " "]), st.one_of(SCALARS, ARRAYS), TEXT
).map(lambda p: f"{p[0]}{p[1]}{p[2]}" + (f" # {p[3]}" if p[3] else ""))
LINES = st.one_of(
    PAIRS,
    KEYS.map(lambda k: f"[{k}]"),
    st.sampled_from(["[ovhooks]", " [ovhooks] # settings", "[a.b]", "[[x]]", "a.b = 1", ""]),
    TEXT.map(lambda t: f"# {t}"),
    TEXT,
)
DOCS = st.tuples(st.lists(LINES, max_size=8), st.sampled_from(["\n", "\r\n"])).map(
    lambda d: d[1].join(d[0])
)


def tomllib_reads(text: str) -> dict[str, object] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


@settings(max_examples=3000, deadline=None)
@given(DOCS)
def test_plain_reads_what_tomllib_reads_or_declines(text: str) -> None:
    ours = parse(text.encode("utf-8"))
    if ours is not None:
        assert ours == tomllib_reads(text)


def test_the_files_users_write_are_read_without_tomllib() -> None:
    config = (
        "# ovhooks\n"
        'backend = "openviking"\n'
        "url = 'http://127.0.0.1:1933'  # the team server\n"
        "recall_max_items = 3\n"
        "semantic_deadline_ms = 25.5\n"
        "session_context = false\n"
        'skip_projects = ["scratch", "tmp-*",]\n'
    )
    assert parse(config.encode()) == tomllib.loads(config)
    project = '[project]\r\nid = "billing-api"\r\n\r\n[peer]\r\nsource = "git"\r\n'
    assert parse(project.encode()) == tomllib.loads(project)


def test_what_it_does_not_read_is_left_to_tomllib() -> None:
    for text in (
        'a = "tab\\there"',  # an escape
        "a.b = 1",  # a dotted key
        "when = 1979-05-27",  # a date
        "a = 1\na = 2",  # a duplicate: tomllib says so
        "[t]\n[t]",
        "a = ",
        '\ufeffa = "x"',
        "a = 1\x0cb = 2",
    ):
        assert parse(text.encode()) is None, text
    assert parse(b"a = '\xff'") is None  # not UTF-8


def test_loads_gives_what_parse_declines_to_tomllib() -> None:
    assert loads(b'a = "tab\\there"') == {"a": "tab\there"}  # an escape: tomllib's reading
    assert loads(b"a = 1") == {"a": 1}
    assert loads(b"a = '\xff'", errors="replace") == {"a": "\ufffd"}


@pytest.mark.parametrize("broken", [b"a = ", b"a = 1\na = 2", b"a = '\xff'"])
def test_loads_raises_a_value_error_for_a_file_that_does_not_parse(broken: bytes) -> None:
    with pytest.raises(ValueError):
        loads(broken)
