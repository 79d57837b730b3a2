"""Where the project identity comes from: settings, local and committed files, git, path."""

from __future__ import annotations

import json
from pathlib import Path

from ovhooks.ids import project_peer
from ovhooks.project import resolve, strip_credentials
from tests.support.repos import make_clone

SSH = "git@github.com:acme/widget.git"


def test_remote_identity_names_its_source_without_credentials(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", "https://bob:s3cr3t@github.com/acme/widget.git")
    identity = resolve(str(clone))
    assert identity.peer == "github-com-acme-widget"
    assert "origin" in identity.source and "s3cr3t" not in identity.source
    assert identity.legacy_peer == project_peer(str(clone))
    assert strip_credentials("ssh://git:pw@h:22/x") == "ssh://h:22/x"


def test_committed_id_wins_over_git_and_local_override_wins_over_committed(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".ovhooks.toml").write_text('[project]\nid = "widget-team"\n', encoding="utf-8")
    assert resolve(str(clone)).peer == "widget-team"
    assert ".ovhooks.toml" in resolve(str(clone)).source
    (clone / ".ovhooks.local.toml").write_text('[project]\nid = "my widget"\n', encoding="utf-8")
    identity = resolve(str(clone))
    assert identity.peer == "my-widget" and ".ovhooks.local.toml" in identity.source


def test_openviking_workspace_file_is_read(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".openviking").mkdir()
    (clone / ".openviking" / "config.json").write_text(
        json.dumps({"peer": {"id": "ov-widget"}}), encoding="utf-8"
    )
    assert resolve(str(clone)).peer == "ov-widget"
    (clone / ".openviking" / "config.local.json").write_text(
        json.dumps({"peer": {"source": "path"}}), encoding="utf-8"
    )
    # an id anywhere outranks a source: the committed id still names the project
    assert resolve(str(clone)).peer == "ov-widget"


def test_source_path_keeps_the_path_peer(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".ovhooks.toml").write_text('[project]\nsource = "path"\n', encoding="utf-8")
    assert resolve(str(clone)).peer == project_peer(str(clone))


def test_a_chosen_remote_names_the_project(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "fork", "git@github.com:me/widget.git")
    with open(clone / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write('[remote "upstream"]\n\turl = https://github.com/acme/widget\n')
    (clone / ".ovhooks.toml").write_text('[project]\nremote = "upstream"\n', encoding="utf-8")
    assert resolve(str(clone)).peer == "github-com-acme-widget"


def test_committed_keys_and_urls_are_refused_with_a_warning(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".ovhooks.toml").write_text(
        '[project]\nid = "https://github.com/acme/widget"\napi_key = "sk-live-123"\n'
        'url = "http://10.0.0.5:1933"\n',
        encoding="utf-8",
    )
    identity = resolve(str(clone))
    assert identity.peer == "github-com-acme-widget"  # the refused id fell back to git
    joined = " ".join(identity.warnings)
    assert "project.id" in joined and "project.api_key" in joined and "project.url" in joined
    assert "sk-live-123" not in joined
    (clone / ".ovhooks.local.toml").write_text('[project]\nid = "mine"\n', encoding="utf-8")
    assert resolve(str(clone)).peer == "mine"


def test_broken_files_warn_and_fall_through(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".ovhooks.toml").write_text("[project\nid=", encoding="utf-8")
    (clone / ".openviking").mkdir()
    (clone / ".openviking" / "config.json").write_text("[1, 2]", encoding="utf-8")
    identity = resolve(str(clone))
    assert identity.peer == "github-com-acme-widget"
    assert len(identity.warnings) == 2


def test_the_actor_peer_setting_wins_over_everything(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "w", SSH)
    (clone / ".ovhooks.local.toml").write_text('[project]\nid = "x"\n', encoding="utf-8")
    identity = resolve(str(clone), actor_peer="pinned")
    assert identity.peer == "pinned" and "actor_peer" in identity.source
