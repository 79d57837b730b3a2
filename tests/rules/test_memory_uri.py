"""The one rule for what a memory verb may forget or rewrite (``ovhooks.rules.memory_uri``)."""

from __future__ import annotations

import pytest

from ovhooks.rules.memory_uri import UriError, parse_asking_who, parse_memory_uri
from tests.support.memory_uris import ACCEPTED, REFUSED, USER


@pytest.mark.parametrize(("uri", "reason", "words"), REFUSED)
def test_every_uri_of_the_family_is_refused_with_its_reason(
    uri: str, reason: str, words: str
) -> None:
    with pytest.raises(UriError) as refused:
        parse_memory_uri(uri, USER)
    assert refused.value.reason == reason
    assert words in str(refused.value)
    assert "store failed" not in str(refused.value)


@pytest.mark.parametrize(("given", "canonical", "peer"), ACCEPTED)
def test_a_memory_file_of_yours_is_accepted(given: str, canonical: str, peer: str) -> None:
    found = parse_memory_uri(given, USER)
    assert (found.uri, found.peer, found.user) == (canonical, peer, USER)
    assert found.path[-1].endswith(".md") and found.uri.endswith("/".join(found.path))


def test_a_refusal_names_the_uri_shortened_and_an_empty_one_not_at_all() -> None:
    long_uri = "viking://user/mallory/memories/" + "x" * 300 + ".md"
    with pytest.raises(UriError) as refused:
        parse_memory_uri(long_uri, USER)
    assert str(refused.value).startswith("'viking://user/mallory/") and "…" in str(refused.value)
    assert len(str(refused.value)) < 220
    with pytest.raises(UriError) as empty:
        parse_memory_uri("", USER)
    assert str(empty.value) == "the URI is empty"


def test_the_user_decides_what_is_yours() -> None:
    uri = "viking://user/alice/memories/x.md"
    assert parse_memory_uri(uri, "alice").uri == uri
    with pytest.raises(UriError, match="you are user 'bob'"):
        parse_memory_uri(uri, "bob")
    assert parse_memory_uri("viking://~/memories/x.md", "bob").uri == (
        "viking://user/bob/memories/x.md"
    )
    with pytest.raises(UriError) as root:
        parse_memory_uri("viking://~", "bob")
    assert root.value.reason == "not_a_memory"


def test_the_user_is_asked_only_when_the_answer_decides() -> None:
    asked: list[int] = []

    def whoami() -> str:
        asked.append(1)
        return USER

    for uri, _reason, _words in REFUSED:
        with pytest.raises(UriError):
            parse_asking_who(uri, whoami)
        if not uri.startswith("viking://user/"):  # refused whoever asks: no one is asked
            assert asked == [], uri
        assert len(asked) <= 1, uri
        asked.clear()
    with pytest.raises(UriError, match="not a memory of yours"):
        parse_asking_who("viking://user/mallory/memories/x.md", whoami)
    assert parse_asking_who("viking://~/memories/x.md", whoami).uri == (
        f"viking://user/{USER}/memories/x.md"
    )
    assert len(asked) == 2


@pytest.mark.parametrize(
    ("uri", "start"),
    [
        ("viking://user/u/memories/preferences/u/tabs-never-07ef76.md", 49),
        ("viking://user/u/memories/preferences/u/tabs.md", -1),  # named by hand: no hash
        ("viking://user/u/memories/preferences/u/tabs-never-07EF76.md", -1),  # not remember's
        ("viking://user/u/memories/preferences/u/tabs-never-07ef76", -1),  # not a file name
        ("viking://user/u/memories/x/-07ef76.md", 27),
        ("-07ef76.md", -1),  # nothing before the hash
        ("viking://user/u/memories/a-b/c07ef76.md", -1),
    ],
)
def test_remembers_closing_hash_is_found_where_it_is(uri: str, start: int) -> None:
    from ovhooks.rules.memory_uri import NAME_DIGEST_CHARS, name_digest_start

    assert name_digest_start(uri) == start
    if start >= 0:
        assert uri[start:] == uri[start : start + 1 + NAME_DIGEST_CHARS] + ".md"
