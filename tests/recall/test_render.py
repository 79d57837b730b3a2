"""recall.render: which lines carry a URI, and the intro that says how to read one."""

from __future__ import annotations

from ovhooks.capture.tokens import estimate_tokens
from ovhooks.recall.rank import Candidate, from_context_entries
from ovhooks.recall.render import INTRO, READ, render

MEMORY = "viking://user/default/memories/preferences/default/in-this-repo-i-always-6f9882.md"
OTHER = MEMORY.replace("6f9882", "bbbbbb")
ARCHIVE = "viking://session/default/sessions/s1/history/archive_001"


def _item(uri: str, text: str, *, whole: bool) -> Candidate:
    item = Candidate(uri, "preferences", 0.7, text)
    item.whole = whole
    return item


def _render(*items: Candidate, item_chars: int = 600, max_tokens: int = 1200) -> str:
    out = render(
        items, max_tokens=max_tokens, max_items=6, item_chars=item_chars, estimate=estimate_tokens
    )
    assert out is not None
    assert out.tokens <= max_tokens
    return out.text


def test_a_memory_shown_whole_goes_without_its_uri_and_the_read_hint() -> None:
    text = _render(_item(MEMORY, "In this repo I always use tabs, never spaces", whole=True))
    assert MEMORY not in text
    assert f"\n{INTRO}\n" in text and READ.strip() not in text
    assert "- [preference 0.70] In this repo I always use tabs, never spaces\n" in text


def test_a_memory_cut_to_fit_keeps_its_uri_so_the_rest_can_be_read() -> None:
    text = _render(_item(MEMORY, "tabs " * 100, whole=True), item_chars=80)
    assert f"({MEMORY})" in text and "…" in text
    assert f"{INTRO}{READ}" in text


def test_an_abstract_keeps_its_uri() -> None:
    text = _render(_item(MEMORY, "Prefers tabs.", whole=False))
    assert f"Prefers tabs. ({MEMORY})" in text and READ in text


def test_one_line_with_a_uri_brings_the_read_hint_for_the_block() -> None:
    whole = _item(MEMORY, "In this repo I always use tabs", whole=True)
    abstract = _item(MEMORY.replace("6f9882", "aaaaaa"), "Deploys go through Argo.", whole=False)
    text = _render(whole, abstract)
    assert READ in text
    assert "use tabs\n" in text and "Argo. (viking://" in text


def test_the_store_says_which_texts_are_whole() -> None:
    entries = [
        {"uri": MEMORY, "category": "preferences", "score": 0.8, "detail": "full", "text": "a"},
        {"uri": OTHER, "category": "preferences", "score": 0.8, "detail": "abstract",
         "text": "b"},
        # one statement of a session's history: the archive around it is more to read
        {"uri": ARCHIVE, "category": "memory", "score": 0.8, "detail": "full", "text": "c"},
    ]  # fmt: skip
    items, _ = from_context_entries(entries, threshold=0.0, resources=False)
    assert {i.uri: i.whole for i in items} == {MEMORY: True, OTHER: False, ARCHIVE: False}
