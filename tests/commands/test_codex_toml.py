"""Codex ``config.toml``: the hooks feature switched on in every form TOML allows, the user's
comments and layout kept, and a file that cannot be edited refused with a fix (issue 17)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ovhooks.commands.install.codex_toml import enable_hooks_feature, hooks_feature
from tests.support.cli import run_cli, run_json

# Each: a config.toml a user (or `codex features`) may have written, with the hooks feature not
# on. Comments are there to be kept.
FORMS = {
    "inline table": 'model = "x"\nfeatures = { web_search = true } # flags\n',
    "inline table, hooks off": "features = { hooks = false, web_search = true }\n",
    "quoted key": '[features]\n"hooks" = false # off for now\nother = 1\n',
    "literal-quoted key": "[features]\n'hooks' = false\n",
    "quoted table header": '[ "features" ]  # flags\nweb_search = true\n',
    "dotted, quoted": 'model = "x"\nfeatures."hooks" = false # no\n',
    "dotted, spaced": "features . hooks = false\n",
    "sub-table only": "[features.x]\na = 1\n",
    "deprecated alias off": "[features]\ncodex_hooks = false # old name\nz = 1\n",
    "no final newline": 'model = "x"',
    "table after": '# top\n[features]\nother = 1\n\n[profiles.a]\nmodel = "y" # kept\n',
    "array of tables": '[[mcp]]\nname = "a"\n\n[features]\nother = 2\n',
    "table in parts": "[features]\na = 1\n[other]\nb = 2\n[features.x]\nc = 3\n",
    "alias in a table in parts": "[features.x]\nc = 3\n[features]\ncodex_hooks = false # c\n",
    "alias, inline": "features = { codex_hooks = false }\n",
}


def _without_hooks(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without the hooks flag (either name), and without ``features`` left empty."""
    features = {
        k: v for k, v in doc.get("features", {}).items() if k not in ("hooks", "codex_hooks")
    }
    rest = {k: v for k, v in doc.items() if k != "features"}
    return {**rest, "features": features} if features else rest


def _comments(text: str) -> list[str]:
    return re.findall(r"#[^\n]*", text)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_is_switched_on_and_nothing_else_changes(form: str) -> None:
    text = FORMS[form]
    new, change = enable_hooks_feature(text)
    assert change, form
    before, after = tomllib.loads(text), tomllib.loads(new)
    assert after["features"]["hooks"] is True
    assert "codex_hooks" not in after["features"]  # never two names that could disagree
    assert _without_hooks(after) == _without_hooks(before)
    assert _comments(new) == _comments(text)
    assert hooks_feature(new) == "on"
    assert enable_hooks_feature(new) == (new, "")  # once on, left alone


def test_an_inline_table_is_extended_in_place() -> None:
    new, _ = enable_hooks_feature(FORMS["inline table"])
    assert new.count("features") == 1 and "[features]" not in new
    assert new.startswith('model = "x"\nfeatures = {') and new.endswith("} # flags\n")


def test_a_quoted_key_is_switched_where_it_stands() -> None:
    new, _ = enable_hooks_feature(FORMS["quoted key"])
    assert new == '[features]\n"hooks" = true # off for now\nother = 1\n'


def test_a_new_table_is_set_apart_by_a_blank_line() -> None:
    assert enable_hooks_feature('model = "x"')[0] == 'model = "x"\n\n[features]\nhooks = true\n'
    assert enable_hooks_feature("")[0] == "[features]\nhooks = true\n"


def test_windows_line_ends_are_kept() -> None:
    text = 'model = "x"\r\n\r\n[features]\r\nother = 1\r\n'
    new, _ = enable_hooks_feature(text)
    assert "\n" not in new.replace("\r\n", "")
    assert tomllib.loads(new)["features"] == {"other": 1, "hooks": True}


@pytest.mark.parametrize(
    "text",
    ["features = 1\n", 'features = "on"\n', "[[features]]\nhooks = false\n", "model = \n"],
)
def test_a_file_that_cannot_be_edited_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        enable_hooks_feature(text)


@pytest.mark.parametrize("form", ["inline table", "quoted key", "dotted, quoted"])
def test_install_switches_the_hooks_on_and_uninstall_puts_the_bytes_back(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = tmp_path / "codex"
    codex.mkdir()
    config = codex / "config.toml"
    config.write_text(FORMS[form])
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.chdir(tmp_path)
    code, doc = run_json("install", "codex", "--exe", "/opt/ov/bin/ovhooks")
    assert code == 0, doc
    assert doc["config_toml"]["action"] == "updated", json.dumps(doc["config_toml"])
    assert hooks_feature(config.read_text()) == "on"
    assert (codex / "config.toml.ovhooks.bak").stat().st_mode & 0o777 == 0o600
    assert run_cli("uninstall", "codex").exit_code == 0
    assert config.read_text() == FORMS[form]


def test_an_uneditable_file_is_left_alone_with_a_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "config.toml").write_text("features = 1\n")
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.chdir(tmp_path)
    code, doc = run_json("install", "codex", "--exe", "/opt/ov/bin/ovhooks")
    assert code == 0
    assert doc["config_toml"]["action"] == "manual"
    assert "codex features enable hooks" in doc["config_toml"]["fix"]
    assert "features" in doc["config_toml"]["detail"]
    assert (codex / "config.toml").read_text() == "features = 1\n"
