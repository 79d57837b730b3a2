"""The MCP tools within the limits stated once (``ovhooks.rules.limits``), on a real
``ovhooks mcp`` process and local store: ``list`` tells the true total, ``remember`` refuses
what is not a memory, ``search`` names its query by a short scrubbed head."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ovhooks.rules.limits import LIST_SHOWN, MEMORY_MAX_BYTES, QUERY_HEAD_CHARS
from tests.support.local_memories import extract, fill, records
from tests.support.mcp_client import McpClient

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def data_dir() -> str:
    return os.environ["OVHOOKS_DATA_DIR"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[McpClient]:
    with McpClient(dict(os.environ), cwd=str(tmp_path), timeout_s=60.0) as c:
        c.initialize()
        yield c


def test_list_tells_the_true_total_past_the_stores_default_listing(
    data_dir: str, client: McpClient
) -> None:
    fill(data_dir, 8512)
    text, is_error = client.call("list", {})
    assert not is_error, text
    head = text.splitlines()[0]
    assert head.startswith("8,512 memory files under viking://user/default/memories;"), head
    assert f"showing the first {LIST_SHOWN}" in head
    assert len(re.findall(r"^- viking://", text, re.M)) == LIST_SHOWN
    assert text.splitlines()[-1].startswith(f"[showing {LIST_SHOWN} of 8,512;")


def test_a_short_list_is_named_whole(data_dir: str, client: McpClient) -> None:
    fill(data_dir, 3)
    text, _ = client.call("list", {})
    assert text.splitlines()[0] == "3 memory file(s) under viking://user/default/memories:"
    assert len(text.splitlines()) == 4


def test_remember_refuses_what_is_not_a_memory_and_stores_nothing(
    data_dir: str, client: McpClient
) -> None:
    text, is_error = client.call("remember", {"text": "z" * (MEMORY_MAX_BYTES + 1)})
    assert is_error, text[:300]
    assert f"{MEMORY_MAX_BYTES + 1:,} bytes" in text and f"{MEMORY_MAX_BYTES:,}" in text
    assert len(text) < 600 and records(data_dir) == {}
    text, is_error = client.call("remember", {"text": "z" * MEMORY_MAX_BYTES})
    assert not is_error, text[:300]
    assert [r["content"] for r in records(data_dir).values()] == ["z" * MEMORY_MAX_BYTES + "\n"]


def test_search_names_a_huge_query_by_its_short_scrubbed_head(
    data_dir: str, client: McpClient
) -> None:
    extract(data_dir, "sess-search")
    query = f"staging database port {TOKEN} " + "lorem ipsum dolor sit amet " * 40_000
    assert len(query) > 1_000_000
    text, is_error = client.call("search", {"query": query})
    assert not is_error, text[:300]
    assert "6543" in text, text  # the search itself ran on the query
    assert TOKEN not in text and "[REDACTED:" in text
    assert len(text) < 1000, len(text)
    named = re.search(r"for '(.*?)', best first", text)
    assert named and len(named.group(1)) <= QUERY_HEAD_CHARS, text
    text, is_error = client.call("search", {"query": f"{TOKEN} " + "zzz " * 300_000})
    assert not is_error and text.startswith("No memory matches '[REDACTED:"), text[:200]
    assert TOKEN not in text and len(text) < 200


def test_a_long_query_of_key_names_is_answered_in_seconds(client: McpClient) -> None:
    # A campaign's query of "x-api-key: " repeated: the scrub's cost grew with its square
    # (200 KB held the server for 42 s, and every call behind it waited).
    import time

    started = time.monotonic()
    text, is_error = client.call("search", {"query": "x-api-key: " * 20_000})
    assert not is_error, text[:300]
    assert time.monotonic() - started < 10.0
