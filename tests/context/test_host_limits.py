"""The session-start block fits each host's limit whatever the profile and memory size."""

from __future__ import annotations

import pytest

from ovhooks.capture.tokens import estimate_tokens
from ovhooks.context.render import (
    GUIDE,
    LIMITS,
    MCP_GUIDE,
    Entry,
    Sources,
    block_size,
    compose_for_host,
)
from ovhooks.hosts.registry import spec as host_spec

UNITS = {
    "en": "The user prefers tabs for indentation and always writes the tests first.",
    "zh": "用户喜欢在这个项目里使用制表符缩进，并且总是先写测试再写实现。",
    "mixed": "Deploy 流程: run `make release` 然后检查 Buildkite 上的 pipeline 状态。",
}
BASE = "viking://user/u/memories"
PEER = "viking://user/u/peers/github-com-acme-widget/memories"


def _entries(folder: str, count: int, unit: str) -> list[Entry]:
    return [
        Entry(f"{folder}/m{i}.md", f"m{i}.md", (unit * 4)[:200], f"2026-11-{i % 28 + 1:02d}")
        for i in range(count)
    ]


def _sources(unit: str, memories: int, profile_lines: int, archive: bool) -> Sources:
    sources = Sources()
    lines = [f"HEAD-{i} {unit}" for i in range(3)]
    lines += [f"{unit} ({i})" for i in range(profile_lines)] + ["TAIL-LAST " + unit]
    sources.profile = "\n".join(lines)
    sources.profile_uri = f"{BASE}/profile.md"
    sources.listings = [
        (f"{BASE}/preferences", _entries(f"{BASE}/preferences", memories, unit)),
        (f"{BASE}/entities", _entries(f"{BASE}/entities", memories, unit)),
    ]
    sources.project = (PEER, _entries(PEER, memories, unit), f"this project, {memories} memories")
    sources.index = [(f"{BASE}/events", _entries(f"{BASE}/events", memories, unit), "events")]
    sources.archive = unit * 300 if archive else ""
    return sources


@pytest.mark.parametrize("host", ["codex", "claude"])
@pytest.mark.parametrize("lang", sorted(UNITS))
@pytest.mark.parametrize(("memories", "profile_lines"), [(3, 2), (200, 800), (2000, 8000)])
@pytest.mark.parametrize("tokens", [2500, 40000])
@pytest.mark.parametrize("archive", [False, True])
@pytest.mark.parametrize("guide", [GUIDE, MCP_GUIDE], ids=["shell-guide", "tools-guide"])
def test_block_fits_and_keeps_the_useful_parts(
    host: str,
    lang: str,
    memories: int,
    profile_lines: int,
    tokens: int,
    archive: bool,
    guide: str,
) -> None:
    text = compose_for_host(
        _sources(UNITS[lang], memories, profile_lines, archive),
        host_spec(host).context_unit,
        max_tokens=tokens,
        archive_max_chars=4000,
        estimate=estimate_tokens,
        guide=guide,
    )
    assert text is not None
    assert text.endswith(guide + "\n</openviking-context>")  # the guide is never cut
    unit = host_spec(host).context_unit
    assert block_size(text, unit) <= LIMITS[unit]
    assert PEER in text  # this project's memories are kept
    assert "HEAD-0" in text  # the profile's head
    if profile_lines > 10:
        assert "TAIL-LAST" in text  # and its tail, the middle elided


def test_codex_limit_is_in_bytes_claude_in_characters() -> None:
    sources = _sources(UNITS["zh"], 200, 800, False)
    codex, claude = (
        compose_for_host(
            sources,
            host_spec(host).context_unit,
            max_tokens=40000,
            archive_max_chars=4000,
            estimate=estimate_tokens,
        )
        for host in ("codex", "claude")
    )
    assert codex is not None and claude is not None
    assert len(codex.encode("utf-8")) <= 9500
    assert len(claude) <= 9500 < len(claude.encode("utf-8"))
