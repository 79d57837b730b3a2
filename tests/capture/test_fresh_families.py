"""The issue-22 secret families (tests/fixtures/secrets_fresh, made by
scripts/make_fresh_families.py) through the real Stop path of both hosts: session cookies,
framework secret keys, passphrases, npm's legacy tokens, kubeconfig credentials and
punctuation-heavy keys, each with look-alike negatives (preference cookies, key *files*,
request ids, public ids, base64 images and config, package coordinates). Recall >= 0.99 and
false positives <= 0.01 on each split; every family is checked on its own too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovhooks.capture import scrub as scrub_module
from ovhooks.capture.scrub import scrub
from tests.support.secret_corpus import BLIND, FRESH, figures, leaked, load, rates


def test_the_families_are_all_there() -> None:
    secrets = load("secrets.jsonl", FRESH)
    negatives = load("negatives.jsonl", FRESH)
    assert {r["family"] for r in secrets} == {
        "cookie", "framework", "passphrase", "npmrc", "kube", "punct",
    }  # fmt: skip
    assert {r["family"] for r in negatives} >= {"cookie_neg", "public_id", "base64_neg"}
    for rows in (secrets, negatives):  # every family has formats in both splits or is whole
        assert {r["split"] for r in rows} == {"tune", "heldout"}
    assert all(r["secret"] in r["text"] for r in secrets)


@pytest.mark.parametrize("family", ["cookie", "framework", "passphrase", "npmrc", "kube", "punct"])
def test_each_secret_family_is_scrubbed(family: str) -> None:
    rows = [r for r in load("secrets.jsonl", FRESH) if r["family"] == family]
    missed = [r["text"][:80] for r in rows if leaked(r["secret"], scrub(r["text"])[0])]
    assert len(missed) <= len(rows) // 100, missed


def test_each_look_alike_is_left_alone() -> None:
    rows = load("negatives.jsonl", FRESH)
    altered = [r["text"][:80] for r in rows if scrub(r["text"])[0] != r["text"]]
    assert len(altered) <= len(rows) // 100, altered


@pytest.mark.parametrize("corpus", [FRESH, BLIND], ids=["fresh", "blind"])
@pytest.mark.parametrize("host", ["codex", "claude"])
def test_fresh_families_through_stop(host: str, corpus: Path, tmp_path: Path) -> None:
    """The blind set (scripts/fresh_families_blind.py) was written after the fresh set's
    rules and measured once before any fix (docs/PRIVACY.md has that first figure)."""
    table, misses, _seconds, _size = figures(host, tmp_path, corpus)
    secret_families = {r["family"] for r in load("secrets.jsonl", corpus)}
    negative_families = {r["family"] for r in load("negatives.jsonl", corpus)}
    for split in ("tune", "heldout"):
        recall = rates(table, secret_families, split)
        fp = 1 - rates(table, negative_families, split)
        print(f"\n{host} {split}: recall {recall:.3f}, fp {fp:.3f}; misses {misses[:20]}")
        assert recall >= 0.99, misses
        assert fp <= 0.01, misses


@pytest.mark.parametrize("corpus", [FRESH, BLIND], ids=["fresh", "blind"])
def test_later_passes_give_what_a_full_rescan_gives(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later pass re-reads only what is near a marker (``scrub._Pass``); the new rules
    read neighbours (a wrapped base64 line's neighbour lines, the words before a token, a
    setting line's start), so their rows, five to a text and glued end to end, must scrub
    the same when every pass reads the whole text."""
    rows = load("secrets.jsonl", corpus) + load("negatives.jsonl", corpus)
    texts = []
    for i in range(0, len(rows), 5):
        texts.append("\n".join(r["text"] for r in rows[i : i + 5]))
        texts.append("".join(r["text"] for r in rows[i : i + 5]))
    incremental = [scrub(t) for t in texts]
    collect = scrub_module._collect

    def full(text: str, emails: bool, phones: bool, state: object) -> object:
        state.edits = None  # type: ignore[attr-defined]
        return collect(text, emails, phones, state)  # type: ignore[arg-type]

    monkeypatch.setattr(scrub_module, "_collect", full)
    assert [scrub(t) for t in texts] == incremental
    assert sum(bool(counts) for _out, counts in incremental) >= len(texts) // 2
