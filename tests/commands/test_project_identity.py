"""status and doctor show the project identity and where it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_json
from tests.support.repos import make_clone


@pytest.fixture
def in_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clone = make_clone(tmp_path / "w", "https://tok:abc123@github.com/acme/widget.git")
    monkeypatch.chdir(clone)
    return clone


def test_status_json_names_project_and_source(in_clone: Path) -> None:
    _code, doc = run_json("status", env={"OVHOOKS_BACKEND": "local"})
    project = doc["project"]
    assert project["peer"] == "github-com-acme-widget"
    assert project["source"].startswith("git remote origin")
    assert "abc123" not in str(doc)


def test_status_text_and_doctor_show_refused_committed_entries(in_clone: Path) -> None:
    (in_clone / ".ovhooks.toml").write_text('[project]\ntoken = "abc"\n', encoding="utf-8")
    result = run_cli("status", env={"OVHOOKS_BACKEND": "local"})
    assert "github-com-acme-widget" in result.stdout
    assert "project.token" in result.stdout
    _code, doc = run_json("doctor", env={"OVHOOKS_BACKEND": "local"})
    check = next(c for c in doc["checks"] if c["name"] == "project")
    assert check["status"] == "warn"
    assert check["details"]["peer"] == "github-com-acme-widget"
