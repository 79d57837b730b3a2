from __future__ import annotations

from ovhooks.capture.scrub import scrub
from ovhooks.capture.tools import (
    SHELL_MAX_CHARS,
    compact_input,
    patch_files,
    summary_line,
    tool_part,
)
from ovhooks.model import ToolUse


def clean(text: str) -> str:
    return scrub(text)[0]


BODY = "import os\n" + "x = 1\n" * 5000


def test_write_keeps_path_size_and_preview() -> None:
    out = compact_input("Write", {"file_path": "src/app.py", "content": BODY}, clean)
    assert out["file_path"] == "src/app.py"
    assert out["content_chars"] == len(BODY)
    assert out["content_lines"] == 5001
    preview = out["content_preview"]
    assert isinstance(preview, str) and preview.startswith("import os") and len(preview) < 300
    assert "content" not in out


def test_edit_keeps_previews_not_bodies() -> None:
    data = {"file_path": "a.py", "old_string": "a" * 5000, "new_string": "b" * 5000}
    out = compact_input("Edit", data, clean)
    assert out["old_chars"] == 5000 and out["new_chars"] == 5000
    assert len(str(out)) < 800


def test_multiedit_and_notebook() -> None:
    edits = [{"old_string": "x" * 900, "new_string": "y" * 900} for _ in range(6)]
    out = compact_input("MultiEdit", {"file_path": "m.py", "edits": edits}, clean)
    assert out["edits"] == 6 and len(str(out)) < 1000
    nb = compact_input(
        "NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "z" * 9000}, clean
    )
    assert nb["source_chars"] == 9000 and nb["notebook_path"] == "n.ipynb"


PATCH = (
    "*** Begin Patch\n*** Add File: docs/new.md\n" + "+line\n" * 2000
    + "*** Update File: src/a.py\n@@\n-old\n+new\n*** Delete File: old.txt\n*** End Patch"
)  # fmt: skip


def test_codex_apply_patch_in_all_forms() -> None:
    assert patch_files(PATCH) == [
        {"op": "add", "path": "docs/new.md"},
        {"op": "update", "path": "src/a.py"},
        {"op": "delete", "path": "old.txt"},
    ]
    for data in ({"input": PATCH}, {"patch": PATCH}):
        out = compact_input("apply_patch", data, clean)
        assert out["patch_chars"] == len(PATCH) and len(str(out)) < 800
    shell = compact_input("exec_command", {"cmd": "apply_patch <<'EOF'\n" + PATCH + "\nEOF"}, clean)
    assert shell["files"] and len(str(shell)) < 900 and str(shell["cmd"]).startswith("apply_patch")


def test_shell_commands_kept_scrubbed_and_capped() -> None:
    out = compact_input(
        "Bash", {"command": "curl -H 'Authorization: Bearer q7RfX2mK9pLw4ZtB8nVc1' x"}, clean
    )
    assert out["command"] == "curl -H 'Authorization: Bearer [REDACTED:authorization]' x"
    long = compact_input("exec_command", {"cmd": "echo " + "a" * 10000, "workdir": "/w"}, clean)
    assert len(str(long["cmd"])) < 2100 and long["workdir"] == "/w"


def test_generic_input_strings_are_capped() -> None:
    out = compact_input("Grep", {"pattern": "x", "path": "src", "blob": "q" * 9000}, clean)
    assert out["pattern"] == "x" and len(str(out["blob"])) < 1100


def test_tool_part_results_dropped_by_default_and_capped_when_kept() -> None:
    tool = ToolUse("Bash", {"command": "cat big"}, "c1", output="o" * 10000)
    part = tool_part(tool, clean, fallback_id="f")
    assert part["tool_status"] == "completed" and "tool_output" not in part
    kept = tool_part(tool, clean, fallback_id="f", results=True, result_chars=100)
    assert len(str(kept["tool_output"])) < 140
    running = tool_part(ToolUse("Read", {"file_path": "a"}), clean, fallback_id="f")
    assert running["tool_status"] == "running" and running["tool_id"] == "f"
    failed = tool_part(ToolUse("Bash", {"command": "x"}, "c", "boom", True), clean, fallback_id="f")
    assert failed["tool_status"] == "error"


def test_summary_line() -> None:
    tools = [
        ToolUse("Bash", {"command": "ls"}),
        ToolUse("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
        ToolUse("Bash", {"command": "pytest"}),
        ToolUse("apply_patch", {"input": PATCH}),
    ]
    assert summary_line(tools) == (
        "Tools: Bash×2, Edit(src/app.py), apply_patch(docs/new.md, src/a.py, old.txt)"
    )


def test_cut_inputs_stay_within_their_caps() -> None:
    """Tool inputs are cut by capture's one truncator, which never exceeds its cap."""
    first_line = "apply_patch " + "--flag " * 500
    shell = compact_input("exec_command", {"cmd": first_line + "\n" + PATCH}, clean)
    assert len(str(shell["cmd"])) <= 200 and str(shell["cmd"]).startswith("apply_patch --flag")
    long_cmd = compact_input("Bash", {"command": "echo start; " + "x" * 9000 + "; echo end"}, clean)
    command = str(long_cmd["command"])
    assert len(command) <= SHELL_MAX_CHARS and command.endswith("; echo end")


def test_apply_patch_without_any_patch_text_reports_an_empty_patch() -> None:
    """A patch tool whose input has no string body (here a list) is kept as an empty patch."""
    out = compact_input("apply_patch", {"input": ["not", "text"], "note": "x"}, clean)
    assert out == {"files": [], "patch_chars": 0, "patch_lines": 0, "preview": ""}


def test_text_editor_create_keeps_its_command_and_previews_the_body() -> None:
    """The text-editor tool's ``create`` names its sub-command next to the body's metadata."""
    data = {"command": "create", "path": "src/new.py", "file_text": "print(1)\n" * 400}
    out = compact_input("str_replace_based_edit_tool", data, clean)
    assert out["command"] == "create" and out["file_path"] == "src/new.py"
    assert out["content_chars"] == 3600 and out["content_lines"] == 400
    assert "file_text" not in out
    no_command = compact_input("Write", {"file_path": "a.txt", "content": "hi"}, clean)
    assert "command" not in no_command


def test_text_editor_str_replace_and_replace_all_edits() -> None:
    """``str_replace`` carries old/new strings like Edit; ``replace_all`` is kept only when set."""
    data = {"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}
    out = compact_input("str_replace_based_edit_tool", data, clean)
    assert out == {
        "file_path": "a.py",
        "old_chars": 5,
        "new_chars": 5,
        "old_preview": "x = 1",
        "new_preview": "x = 2",
    }
    every = {"file_path": "b.py", "old_string": "a", "new_string": "b", "replace_all": True}
    assert compact_input("Edit", every, clean)["replace_all"] is True
    once = {"file_path": "b.py", "old_string": "a", "new_string": "b", "replace_all": False}
    assert "replace_all" not in compact_input("Edit", once, clean)


def test_a_command_key_that_holds_no_command_is_kept_field_by_field() -> None:
    """A ``command`` that is neither a string nor a list of strings is no shell command."""
    out = compact_input("Bash", {"command": ["ls", 3], "timeout": 5}, clean)
    assert out == {"command": ["ls", 3], "timeout": 5}
    empty = compact_input("custom", {"cmd": "", "flag": None}, clean)
    assert empty == {"cmd": "", "flag": None}


def test_a_kept_result_under_the_cap_is_whole_and_cleaned_by_clean_output() -> None:
    tool = ToolUse("Bash", {"command": "cat notes"}, "c1", output="short result")
    kept = tool_part(tool, clean, fallback_id="f", results=True, clean_output=lambda t: t.upper())
    assert kept["tool_output"] == "SHORT RESULT"
    long = ToolUse("Bash", {"command": "cat big"}, "c2", output="o" * 150)
    cut = tool_part(long, clean, fallback_id="f", results=True, result_chars=100)
    assert cut["tool_output"] == "o" * 100 + "\n… [truncated 50 chars]"
    off = tool_part(long, clean, fallback_id="f", results=True, result_chars=0)
    assert "tool_output" not in off


def test_summary_names_each_path_once_and_counts_the_rest() -> None:
    tools = [
        ToolUse("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
        ToolUse("Edit", {"file_path": "src/app.py", "old_string": "b", "new_string": "c"}),
        ToolUse("Read", {"file_path": "a.md"}),
        ToolUse("Read", {"file_path": "b.md"}),
        ToolUse("Read", {"file_path": "c.md"}),
        ToolUse("Read", {"file_path": "d.md"}),
        ToolUse("Read", {"file_path": "a.md"}),
        ToolUse("Write", {"content": "no path given"}),
    ]
    assert summary_line(tools) == "Tools: Edit(src/app.py), Read(a.md, b.md, c.md, +1), Write"
