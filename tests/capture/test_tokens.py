from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ovhooks.capture.tokens import count_wide, estimate_tokens
from tests.support.timing import import_ms


def _reference(text: str) -> int:
    wide = sum(1 for ch in text if ord(ch) >= 0x3000)
    return math.ceil(wide * 1.5 + (len(text) - wide) / 4)


def test_ascii_is_a_quarter_token_per_char_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_cjk_counts_one_and_a_half_tokens_per_char() -> None:
    assert estimate_tokens("你好") == 3
    assert estimate_tokens("记住我喜欢用数据库") == math.ceil(9 * 1.5)
    # chars/4 would say 3 tokens for this; the estimate must not undercount CJK
    assert estimate_tokens("我们决定用数据库连接池大小五") > 3 * 4


def test_boundary_is_u3000() -> None:
    assert count_wide("\u2fff") == 0
    assert count_wide("\u3000") == 1
    assert count_wide("é—…") == 0  # two- and three-byte characters below U+3000
    assert count_wide("😀") == 1  # four-byte code points are wide too


def test_lone_surrogate_does_not_raise() -> None:
    assert estimate_tokens("a\ud800b") == _reference("a\ud800b")


@given(st.text())
def test_matches_the_seed_rule(text: str) -> None:
    assert estimate_tokens(text) == _reference(text)


def test_import_is_cheap(tmp_path: Path) -> None:
    best = import_ms("ovhooks.capture.tokens", str(tmp_path / "pycache"))
    print(f"import ovhooks.capture.tokens: {best:.2f} ms (best of 3, bytecode cached)")
    assert best < 10
