"""A CJK-aware token estimate, used by every budget in ovhooks.

``chars / 4`` undercounts Chinese, Japanese and Korean text four to six times, so a
"1200-token" recall budget would let ~6000 real tokens through for a Chinese user. The rule
(seed 000): a code point at or above U+3000 (CJK, kana, hangul, full-width forms, emoji)
counts 1.5 tokens, anything else a quarter of a token; the total is rounded up. It errs on the
side of overcounting CJK, the safe side for a budget.

This module is on the UserPromptSubmit hot path: it imports nothing, and the count runs in C
(``bytes.translate``) rather than a Python loop over characters.
"""

from __future__ import annotations

# In UTF-8, a code point >= U+3000 starts with a lead byte in 0xE3..0xF4 (U+3000 is E3 80 80;
# four-byte sequences start F0..F4). Continuation bytes are 0x80..0xBF, so counting these
# lead bytes counts exactly the code points >= U+3000.
_WIDE_LEADS = bytes(range(0xE3, 0xF5))


def count_wide(text: str) -> int:
    """How many code points of ``text`` are at or above U+3000."""
    if text.isascii():
        return 0
    # "surrogatepass": a lone surrogate (possible in text decoded from JSON) must not raise.
    # Surrogates (U+D800..U+DFFF) are >= U+3000 and count as wide, like any code point there.
    data = text.encode("utf-8", "surrogatepass")
    return len(data) - len(data.translate(None, _WIDE_LEADS))


def estimate_tokens(text: str) -> int:
    """Estimated model tokens in ``text``: 1.5 per wide (CJK) code point, 0.25 per other."""
    if not text:
        return 0
    wide = count_wide(text)
    other = len(text) - wide
    # ceil(1.5 * wide + other / 4) in integers: (6 * wide + other) / 4 rounded up.
    return (6 * wide + other + 3) // 4
