"""The local store's whole-record read and restore (what an undo of a forget uses)."""

from __future__ import annotations

from pathlib import Path

from ovhooks.backend.local import LocalBackend

ROOT = "viking://user/default/memories/entities/db"


def test_a_record_comes_back_whole_with_its_id(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path))
    store.write(f"{ROOT}/a.md", "Alpha runs on port 1.")
    store.write(f"{ROOT}/b.md", "Beta runs on port 2.")
    saved = store.memory_record(f"{ROOT}/a.md")
    assert saved is not None and saved["id"] == 1
    store.delete(f"{ROOT}/a.md")
    assert store.restore_memories([saved]) == [f"{ROOT}/a.md"]
    assert store.memory_record(f"{ROOT}/a.md") == saved
    found = store.find("Alpha", target_uri="viking://user/default/memories")
    assert [m["uri"] for m in found["memories"]] == [f"{ROOT}/a.md"]  # searchable again


def test_a_taken_id_gives_a_new_one_and_drops_the_vector_left_there(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path))
    store.write(f"{ROOT}/a.md", "Alpha runs on port 1.")
    saved = store.memory_record(f"{ROOT}/a.md")
    assert saved is not None
    store.delete(f"{ROOT}/a.md")
    store.write(f"{ROOT}/c.md", "Gamma took the id.")  # SQLite reuses the highest free id
    assert store.memory_record(f"{ROOT}/c.md")["id"] == saved["id"]  # type: ignore[index]
    con = store.db()
    con.execute(
        "CREATE TABLE semantic_vectors (model TEXT, kind TEXT, row_id INTEGER, owner TEXT,"
        " peer TEXT, stamp REAL, vec BLOB, PRIMARY KEY (model, kind, row_id))"
    )
    con.execute("INSERT INTO semantic_vectors VALUES ('m1', 'm', 2, 'default', '', 9e9, x'00')")
    store.restore_memories([saved])
    back = store.memory_record(f"{ROOT}/a.md")
    assert back is not None and back["id"] == 2
    assert {k: v for k, v in back.items() if k != "id"} == {
        k: v for k, v in saved.items() if k != "id"
    }
    assert con.execute("SELECT count(*) FROM semantic_vectors").fetchone() == (0,)
    assert store.read(f"{ROOT}/c.md") == "Gamma took the id."


def test_a_memory_written_again_since_gives_way_to_the_one_restored(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path))
    store.write(f"{ROOT}/a.md", "Alpha runs on port 1.")
    saved = store.memory_record(f"{ROOT}/a.md")
    assert saved is not None
    store.delete(f"{ROOT}/a.md")
    store.write(f"{ROOT}/a.md", "Alpha was written again.")
    store.restore_memories([saved])
    assert store.memory_record(f"{ROOT}/a.md") == saved
    assert store.memory_record(f"{ROOT}/none.md") is None
