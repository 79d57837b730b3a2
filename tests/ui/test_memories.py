"""The viewer's listing and provenance on the local store (real SQLite files)."""

from __future__ import annotations

from pathlib import Path

from ovhooks.backend.local import LocalBackend
from ovhooks.ui import memories


def user_message(text: str) -> dict[str, object]:
    return {"role": "user", "parts": [{"type": "text", "text": text}]}


def test_an_extracted_memory_names_its_session_turn_and_commit(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path), peer="widget")
    store.append_messages(
        "s-1",
        [
            user_message("let's look at the build first"),
            user_message("Remember that we always deploy the billing service on Tuesdays."),
        ],
    )
    store.commit("s-1")
    page = memories.list_page(store, "widget", "", "", 1, store.user)
    extracted = [m for m in page.items if "Tuesdays" in m.abstract]
    assert extracted, [m.abstract for m in page.items]
    facts = memories.provenance(store, extracted[0].uri)
    assert facts["session"] == "s-1"
    assert facts["turn"] == "message 2 of the session"
    assert facts["commit"] == store.archive_uri("s-1", 1)


def test_pages_scopes_and_categories(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path), peer="widget")
    for i in range(120):
        store.write(f"viking://user/default/memories/preferences/default/p{i:03d}.md", f"pref {i}")
    for i in range(7):
        root = store.memory_root_for("widget")
        store.write(f"{root}/entities/e{i}.md", f"widget entity {i}")
    store.write(f"{store.memory_root_for('other')}/events/x.md", "elsewhere")
    first = memories.list_page(store, "widget", "", "", 1, store.user)
    assert first.total == 128 and first.pages == 3 and len(first.items) == memories.PAGE_SIZE
    last = memories.list_page(store, "widget", "", "", 99, store.user)  # clamped
    assert last.number == 3 and len(last.items) == 128 - 2 * memories.PAGE_SIZE
    seen = {
        m.uri for n in (1, 2, 3) for m in memories.list_page(store, "widget", "", "", n, "").items
    }
    assert len(seen) == 128  # pages neither overlap nor skip
    project = memories.list_page(store, "widget", "project", "", 1, store.user)
    assert project.total == 7 and project.categories == ["entities"]
    other = memories.list_page(store, "widget", "other", "", 1, store.user)
    assert [m.peer for m in other.items] == ["other"]
    user = memories.list_page(store, "widget", "user", "preferences", 1, store.user)
    assert user.total == 120
    assert memories.scope_of(project.items[0].uri, "widget") == "project"
    assert memories.scope_of(other.items[0].uri, "widget") == "other"
    assert memories.scope_of(user.items[0].uri, "widget") == "user"
