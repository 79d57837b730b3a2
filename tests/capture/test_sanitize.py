from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ovhooks.capture.sanitize import strip_injected

RECALL = (
    '<openviking-context source="auto-recall" format="digest">\n'
    "OpenViking memory digest:\n- user prefers sqlite\n"
    "More detail: use the OpenViking MCP tools\n</openviking-context>"
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (RECALL + "\nfix the parser please", "fix the parser please"),
        (
            '<openviking-context source="session-start">profile</openviking-context>hi there',
            "hi there",
        ),
        (
            '<OPENVIKING-CONTEXT source="skill-experience" x="1">a\nb</openviking-context>'
            "\nkeep me",
            "keep me",
        ),
        ("<relevant-memories>\n- a\n</relevant-memories>\nkeep", "keep"),
        ("<relevant-memory id=3>a</relevant-memory> keep", "keep"),
        ("<system-reminder>\nwhatever\n</system-reminder>\nreal text", "real text"),
        ("before\n[Subagent Context] parent said x\nstill context\n\nafter", "before\n\nafter"),
        ("a\x00b\x00c", "abc"),
        ("UserPromptSubmit hook additional context: OVH-MARKER\nreal question", "real question"),
        # Codex boilerplate
        (
            "<environment_context>\n  <cwd>/tmp/x</cwd>\n  <shell>bash</shell>\n"
            "</environment_context>",
            "",
        ),
        (
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse tabs.\n</INSTRUCTIONS>",
            "",
        ),
        ("<user_instructions>be nice</user_instructions>do the thing", "do the thing"),
        ("<skills_instructions>\n## Skills\n</skills_instructions>", ""),
        ("<permissions instructions>\nsandbox\n</permissions instructions>", ""),
        ("<turn_aborted>\nThe user interrupted\n</turn_aborted>", ""),
        # Claude Code boilerplate
        (
            "<command-name>/compact</command-name>\n            <command-message>compact"
            "</command-message>\n            <command-args></command-args>",
            "",
        ),
        ("<local-command-stdout>Compacted (ctrl+o)</local-command-stdout>", ""),
        ("<local-command-caveat>Caveat: The messages below…</local-command-caveat>", ""),
        ("[Request interrupted by user for tool use]", ""),
        # privacy
        ("keep <private>my address</private> this", "keep  this"),
        ("a <private>rest is private\n\nand this too", "a"),
    ],
)
def test_strips(raw: str, expected: str) -> None:
    assert strip_injected(raw) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-10 meeting notes: we decided to use Postgres for the event store",
        "[2026-11-22T06:08:10Z] deploy failed with exit 137",
        "1795327691178 is the epoch we saw",
        "use <div> and </div> around the <system> element",
        "the tag is called <openviking-contextual> in our fork",
        '```json\n{"session_id": 1, "cwd": "/x", "model": "m"}\n```',
        "- a bullet\n* another\n  indented line\nviking://user/memories is a URI",
        "中文内容：我们决定使用 PostgreSQL。",
    ],
)
def test_real_content_survives_intact(text: str) -> None:
    assert strip_injected(text) == text


def test_unterminated_block_stops_at_blank_line() -> None:
    truncated = '<openviking-context source="auto-recall">\nmemory 1\nmemory 2\n\nMy real question'
    assert strip_injected(truncated) == "My real question"


def test_unterminated_block_without_blank_line_runs_to_end() -> None:
    assert strip_injected("question first\n<system-reminder>\ntruncated reminder") == (
        "question first"
    )


def test_stray_closing_tag_is_removed_alone() -> None:
    assert strip_injected("tail of a block</openviking-context>\nreal") == "tail of a block\nreal"


def test_nested_blocks() -> None:
    text = (
        "<openviking-context>\n<relevant-memories>x</relevant-memories>\ny\n"
        "</openviking-context>\nkeep"
    )
    assert strip_injected(text) == "keep"


def test_removal_never_forges_a_new_tag() -> None:
    # the cut leaves a space, so "<system-" + "reminder>" cannot join into a live tag
    text = "<system-<private>x</private>reminder>shown</system-reminder>"
    once = strip_injected(text)
    assert "<system-reminder>" not in once
    assert "</system-reminder>" not in once
    assert strip_injected(once) == once


def test_many_unterminated_openers_are_linear_enough() -> None:
    text = "<system-reminder>x " * 20000
    assert strip_injected(text) == ""


TAGS = [
    "<openviking-context>", "</openviking-context>", '<openviking-context source="a">',
    "<system-reminder>", "</system-reminder>", "<private>", "</private>", "<INSTRUCTIONS>",
    "</INSTRUCTIONS>", "<command-name>", "</command-name>", "[Subagent Context]",
    "# AGENTS.md instructions for /x", "UserPromptSubmit hook additional context: m",
    "\n", "\n\n", " ", "\x00", "<", ">", "/", "-", "a", "b", "中",
]  # fmt: skip
FRAGMENTS = st.lists(st.one_of(st.sampled_from(TAGS), st.text(max_size=8)), max_size=30).map(
    "".join
)


@settings(max_examples=400, deadline=None)
@given(FRAGMENTS)
def test_properties_on_tag_soup(text: str) -> None:
    once = strip_injected(text)
    assert strip_injected(once) == once  # idempotent
    assert len(once) <= len(text)  # never lengthens
    assert "\x00" not in once
    lowered = once.lower()
    assert "<openviking-context" not in lowered
    assert "<system-reminder" not in lowered
    assert "<private" not in lowered


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_properties_on_any_text(text: str) -> None:
    once = strip_injected(text)
    assert strip_injected(once) == once
    assert len(once) <= len(text)
