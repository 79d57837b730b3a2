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
