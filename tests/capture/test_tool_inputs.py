"""Tool inputs of any shape are captured bounded: deep nesting, long lists, objects that are
not JSON, commands given as argument lists, and long paths in the turn's summary line."""

from __future__ import annotations

import json

from ovhooks.capture.tools import (
    LIST_MAX_ITEMS,
    SUMMARY_MAX_CHARS,
    compact_input,
    summary_line,
)
from ovhooks.model import ToolUse


def same(text: str) -> str:
    return text


def test_deep_nesting_is_cut_at_five_levels() -> None:
    deep: object = {"leaf": "bottom"}
    for _ in range(7):
        deep = {"down": deep}
    deep_list: object = ["bottom"]
    for _ in range(7):
        deep_list = [deep_list]
    out = compact_input("custom_tool", {"tree": deep, "rows": deep_list}, same)
    text = json.dumps(out, ensure_ascii=False)
    assert "bottom" not in text
    assert "{…}" in text and "[…]" in text


def test_long_lists_keep_the_first_items_and_say_how_many_more() -> None:
    out = compact_input("custom_tool", {"ids": list(range(LIST_MAX_ITEMS + 7))}, same)
    ids = out["ids"]
    assert isinstance(ids, list) and ids[:LIST_MAX_ITEMS] == list(range(LIST_MAX_ITEMS))
    assert ids[-1] == "… [7 more]"


def test_values_that_are_not_json_become_cleaned_text() -> None:
    out = compact_input("custom_tool", {"when": complex(1, 2), "flag": True, "n": 3}, str.upper)
    assert out == {"when": "(1+2J)", "flag": True, "n": 3}


def test_a_command_given_as_an_argument_list_is_one_cleaned_line() -> None:
    data = {"command": ["git", "push", "--token", "sk-secret"], "workdir": "/repo"}
    out = compact_input("shell", data, lambda t: t.replace("sk-secret", "[REDACTED]"))
    assert out == {"command": "git push --token [REDACTED]", "workdir": "/repo"}


def test_an_input_that_is_not_a_command_is_kept_field_by_field() -> None:
    data = {"command": [1, 2], "query": "q" * 1500, "note": "n" * 1500}
    out = compact_input("shell", data, same)
    assert out["command"] == [1, 2]
    assert out["query"] == "q" * 1500, "a prompt-like field keeps up to 2,000 characters"
    assert isinstance(out["note"], str) and len(out["note"]) < 1500


def test_the_summary_shortens_long_paths_and_caps_itself() -> None:
    deep = "/home/someone/projects/" + "very-long-directory-name/" * 3 + "module_file.py"
    tools = [ToolUse("Read", {"file_path": deep})]
    assert summary_line(tools) == "Tools: Read(…/very-long-directory-name/module_file.py)"
    many = [ToolUse("Read", {"file_path": f"src/pkg{i}/m.py"}) for i in range(5)]
    assert summary_line(many) == "Tools: Read(src/pkg0/m.py, src/pkg1/m.py, src/pkg2/m.py, +2)"
    names = [ToolUse(f"tool_number_{i}", {}) for i in range(60)]
    line = summary_line(names)
    assert len(line) == SUMMARY_MAX_CHARS and line.endswith("…")
