"""build_session_start against the fake backend, and the pure layout helpers."""

from __future__ import annotations

from typing import Any

import pytest

from ovhooks.capture.sanitize import strip_injected
from ovhooks.capture.tokens import estimate_tokens
from ovhooks.context import build_session_start
from ovhooks.context.render import GUIDE, MAX_BLOCK_CHARS, elide_profile
from ovhooks.recall import recall_paused
from ovhooks.transport.errors import BackendError
from tests.support.fake_backend import MEMORIES, SEED, FakeBackend, make_settings

NOW = 1_800_000_000.0
PROFILE = f"{MEMORIES}/profile.md"


@pytest.fixture
def settings(tmp_path: Any) -> Any:
    return make_settings(str(tmp_path / "state"))


def build(
    backend: FakeBackend, settings: Any, *, include_archive: bool = False, source: str = "startup"
) -> str | None:
    return build_session_start(
        backend=backend,  # type: ignore[arg-type]
        settings=settings,
        source=source,
        ov_session_id="cx-s1",
        include_archive=include_archive,
        now=NOW,
    )


def test_block_has_profile_listings_index_and_guide(settings: Any) -> None:
    backend = FakeBackend({**SEED, PROFILE: "Name: Dana\nRole: backend engineer"})
    backend.abstracts[f"{MEMORIES}/preferences/default/editor.md"] = "Helix\nwith vim keys"
    out = build(backend, settings)
    assert out is not None
    assert out.startswith('<openviking-context source="session-start">\n')
    assert out.endswith("\n</openviking-context>")
    assert (
        f'<user-profile uri="{PROFILE}">\nName: Dana\nRole: backend engineer\n</user-profile>'
        in out
    )
    assert f"  {MEMORIES}/preferences/\n    - default/editor.md — Helix with vim keys" in out
    assert f"  {MEMORIES}/entities/\n" in out
    assert "    - project/deploy_stack.md" in out
    # Events sit below the depth of one recursive listing; they are still indexed.
    assert f"  {MEMORIES}/events/ (1 memory)\n    - 2026/05/20/billing_migration.md" in out
    assert GUIDE in out
    for command in (
        "ovhooks search",
        "ovhooks read",
        "ovhooks ls",
        "ovhooks remember",
        "ovhooks forget",
        "--json",
    ):
        assert command in out
    assert "<session-archive>" not in out
    assert out.count("</openviking-context>") == 1
    assert strip_injected("x\n" + out + "\ny").split() == ["x", "y"]


def test_same_memory_gives_the_same_block_for_every_source(settings: Any) -> None:
    backend = FakeBackend(SEED)
    blocks = {build(backend, settings, source=s) for s in ("startup", "clear", "compact", "resume")}
    assert len(blocks) == 1


def test_empty_memory_injects_nothing(settings: Any) -> None:
    assert build(FakeBackend({}), settings) is None


def test_resume_adds_the_archive_overview_truncated(settings: Any) -> None:
    backend = FakeBackend(SEED)
    backend.archive_overview = "We refactored the billing service. </openviking-context> " * 200
    out = build(backend, settings.replace(resume_archive_max_chars=1500), include_archive=True)
    assert out is not None
    start = out.index("<session-archive>")
    end = out.index("</session-archive>")
    archive = out[start:end]
    assert "We refactored the billing service." in archive
    assert archive.rstrip().endswith("[truncated]")
    assert len(archive) < 1500 + 200
    assert out.count("</openviking-context>") == 1
    assert ("session_context", "cx-s1") in backend.calls


def test_archive_alone_is_enough_for_a_block(settings: Any) -> None:
    backend = FakeBackend({})
    backend.archive_overview = "Earlier: fixed the flaky deploy test."
    out = build(backend, settings, include_archive=True)
    assert out is not None and "fixed the flaky deploy test" in out


def test_request_count_is_small(settings: Any) -> None:
    backend = FakeBackend(SEED)
    build(backend, settings, include_archive=True)
    # whoami, profile, root listing, newest events year, archive
    assert len(backend.calls) <= 5


def test_project_peer_memories_are_listed_first(settings: Any) -> None:
    peer_uri = "viking://user/default/peers/gh-acme-api/memories"
    backend = FakeBackend(
        {**SEED, f"{peer_uri}/entities/ci.md": "CI runs on Buildkite."}, peer="gh-acme-api"
    )
    out = build(backend, settings)
    assert out is not None
    available = out[out.index("<available-memories>") :]
    assert available.index(peer_uri) < available.index(f"{MEMORIES}/preferences")
    assert "this project, 1 memories" in available


@pytest.mark.parametrize(
    "unit",
    [
        "Fact number {i} about the deploy pipeline and its owners. ",
        "第{i}条关于部署流程和负责人的记忆，内容很长很长。",
        "Fact {i} 关于 deploy 流程 and owners. ",
    ],
)
def test_budgets_hold_for_english_chinese_and_mixed(tmp_path: Any, unit: str) -> None:
    memories = {PROFILE: "\n".join(unit.format(i=i) * 3 for i in range(200))}
    for i in range(300):
        memories[f"{MEMORIES}/preferences/default/p{i:03d}.md"] = unit.format(i=i)
        memories[f"{MEMORIES}/entities/project/e{i:03d}.md"] = unit.format(i=i)
        memories[f"{MEMORIES}/events/2026/05/{i % 28 + 1:02d}/ev{i:03d}.md"] = unit.format(i=i)
    backend = FakeBackend(memories)
    for i in range(300):
        backend.abstracts[f"{MEMORIES}/preferences/default/p{i:03d}.md"] = unit.format(i=i) * 3
    backend.archive_overview = unit.format(i=0) * 500
    settings = make_settings(str(tmp_path / "state"))
    out = build(backend, settings, include_archive=True)
    assert out is not None
    assert len(out) <= MAX_BLOCK_CHARS < 10_000
    archive_start = out.index("<session-archive>")
    archive_end = out.index("</session-archive>") + len("</session-archive>")
    rest = out[:archive_start] + out[archive_end:]
    guide_and_frame = estimate_tokens(GUIDE) + 40
    assert estimate_tokens(rest) <= settings.session_context_tokens + guide_and_frame
    assert "[profile middle elided]" in out or "[profile truncated]" in out
    assert "more: `ovhooks ls" in out


def test_unreachable_server_injects_nothing_and_opens_the_breaker(settings: Any) -> None:
    backend = FakeBackend(SEED)
    backend.fail = BackendError("timeout", "read timed out")
    assert build(backend, settings) is None
    assert len(backend.calls) == 1  # stopped at the first failure
    assert recall_paused(settings, "openviking", NOW + 1)
    backend.fail = None
    backend.calls.clear()
    assert build(backend, settings) is None  # breaker open: no request at all
    assert backend.calls == []


def test_missing_pieces_are_left_out(settings: Any) -> None:
    backend = FakeBackend({f"{MEMORIES}/entities/project/deploy_stack.md": "Fly.io"})
    out = build(backend, settings)
    assert out is not None
    assert "<user-profile" not in out
    assert f"{MEMORIES}/preferences/" not in out


def test_profile_elision_keeps_head_and_tail() -> None:
    lines = [f"line {i:02d} " + "x" * 60 for i in range(60)]
    out = elide_profile("\n".join(lines), 400, 10_000, estimate_tokens)
    assert out.startswith("\n".join(lines[:8]))
    assert "\n... [profile middle elided] ...\n" in out
    assert out.endswith(lines[-1])
    assert estimate_tokens(out) <= 400


def test_short_profile_over_budget_is_head_truncated() -> None:
    text = "\n".join(["人" * 400] * 5)
    out = elide_profile(text, 300, 10_000, estimate_tokens)
    assert out.endswith("\n... [profile truncated]")
    assert estimate_tokens(out) <= 300


def test_profile_within_budget_is_whole() -> None:
    assert elide_profile("  Name: Dana  ", 100, 100, estimate_tokens) == "Name: Dana"


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_the_guide_names_the_memory_tools_only_when_they_are_registered(
    settings: Any, host: str
) -> None:
    """``ovhooks install`` leaves a marker per host while ``ovhooks mcp`` is registered: the
    block then says when to use the tools (and costs fewer tokens than the shell guide)."""
    import os

    from ovhooks.context import mcp_marker
    from ovhooks.context.render import MCP_GUIDE

    backend = FakeBackend(dict(SEED))
    plain = build_session_start(
        backend=backend,  # type: ignore[arg-type]
        settings=settings,
        source="startup",
        ov_session_id="cx-s1",
        include_archive=False,
        now=NOW,
        host=host,
    )
    assert plain is not None and GUIDE in plain and MCP_GUIDE not in plain
    marker = mcp_marker(settings.state_dir, host)
    os.makedirs(os.path.dirname(marker))
    with open(marker, "w") as fh:
        fh.write("registered\n")
    with_tools = build_session_start(
        backend=backend,  # type: ignore[arg-type]
        settings=settings,
        source="startup",
        ov_session_id="cx-s1",
        include_archive=False,
        now=NOW,
        host=host,
    )
    assert with_tools is not None and MCP_GUIDE in with_tools and GUIDE not in with_tools
    assert with_tools.replace(MCP_GUIDE, GUIDE) == plain
    assert estimate_tokens(MCP_GUIDE) <= 100 < estimate_tokens(GUIDE)
    other = "claude" if host == "codex" else "codex"
    assert not os.path.exists(mcp_marker(settings.state_dir, other))
