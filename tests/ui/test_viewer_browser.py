"""The viewer in a real headless Chromium, on the local store and on the real OpenViking server.

One scripted flow per backend, as a person would use it: open the printed URL; search; open a
memory; edit it and see the edit in ``ovhooks read``; forget it and undo; run a real
UserPromptSubmit hook and watch its entry appear in the recall log without a reload; "why this
memory" agrees with the hook's real output. With ``OVHOOKS_UPDATE_SCREENSHOTS=1`` the run
writes a screenshot of each page to ``docs/ui/`` (the README shows them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.pytest_plugin import real_environ
from tests.support.viewer import Viewer, env_for_viewer, running_viewer

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
FACTS = (
    "In this repo I always indent with tabs, never spaces",
    "The staging database listens on port 6543",
    "Releases are cut on Tuesdays after the standup",
)


def run(args: list[str], env: Mapping[str, str], cwd: Path, stdin: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ovhooks", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        check=True,
        timeout=60,
    )
    return done.stdout


def shoot(page: Any, name: str, tmp_path: Path) -> None:
    """A full-page screenshot: into docs/ui/ when asked to update them, else the test's tmp."""
    update = real_environ().get("OVHOOKS_UPDATE_SCREENSHOTS")  # the isolation strips OVHOOKS_*
    folder = REPO / "docs" / "ui" if update else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5000  # a rendered page, not a blank one


def flow(chromium: Any, env: dict[str, str], project: Path, tmp_path: Path, shots: bool) -> None:
    uris = [json.loads(run(["remember", f, "--json"], env, project))["uri"] for f in FACTS]
    with running_viewer(env, str(project)) as viewer:
        context = chromium.new_context(viewport={"width": 1200, "height": 800})
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(viewer.url)
        assert page.url.endswith("/memories")  # the token left the address bar
        for fact in FACTS:
            page.get_by_text(fact).first.wait_for()
        if shots:
            shoot(page, "memories", tmp_path)

        # search runs the hook's recall
        page.fill("input[name=q]", "which port does the staging database listen on")
        page.click("form.filters button[type=submit]")
        page.locator("#results").get_by_text("port 6543").first.wait_for()

        # open, edit, and see the edit through the CLI
        target = uris[1]
        page.goto(f"{_base(viewer)}/memory?uri={target}")
        page.fill("#content", "The staging database listens on port 6544 since the move")
        page.click("#edit button[type=submit]")
        page.locator("#flash").get_by_text("Saved").wait_for()
        assert "port 6544" in run(["read", target], env, project)
        if shots:
            shoot(page, "memory", tmp_path)

        # forget, then undo from the list page it returns to
        page.click("[data-forget]")
        page.wait_for_url("**/memories")
        page.locator("#undo").wait_for()
        assert page.locator(f'tr[data-uri="{target}"]').count() == 0
        with page.expect_navigation():  # the list reloads with the memory back in it
            page.click("#undo")
        page.locator("#flash").get_by_text("Restored 1 memory").wait_for()
        assert page.locator(f'tr[data-uri="{target}"]').count() == 1
        assert "port 6544" in run(["read", target], env, project)

        # the recall log updates without a reload when a real hook runs
        page.goto(f"{_base(viewer)}/log")
        rows = page.locator("#log tbody tr").count()
        prompt = "how should I indent this new module, tabs or spaces?"
        payload = {"session_id": "browser-1", "cwd": str(project), "prompt": prompt}
        reply = run(["user-prompt-submit", "--host", "codex"], env, project, json.dumps(payload))
        page.locator("#log tbody tr.new").get_by_text(prompt).wait_for(timeout=15000)
        page.locator("#preview[data-done]").wait_for()
        # the memory map names each memory (a server shows the file until it has an abstract)
        assert uris[0].rsplit("/", 1)[-1] in page.locator("#preview").inner_text()
        assert page.locator("#log tbody tr").count() == rows + 1
        if shots:
            shoot(page, "log", tmp_path)

        # a new host session appears on the sessions page without a reload
        page.goto(f"{_base(viewer)}/sessions")
        start = {"session_id": "browser-2", "cwd": str(project), "source": "startup"}
        run(["session-start", "--host", "claude"], env, project, json.dumps(start))
        page.locator("#sessions tbody tr[data-key*='browser-2']").wait_for(timeout=15000)

        # "why this memory" shows what the hook injected, for the same prompt
        page.goto(f"{_base(viewer)}/why")
        page.fill("#prompt", prompt)
        page.click("form button[type=submit]")
        page.locator("h2").first.wait_for()
        hook_context = json.loads(reply).get("hookSpecificOutput", {}).get("additionalContext")
        block = page.locator("#block")
        if hook_context:
            assert block.count() == 1, page.locator("main").inner_text()[:3000]
            assert block.inner_text().strip() == hook_context.strip()
            injected = page.locator("#why tr.injected").count()
            assert injected >= 1
        else:
            assert block.count() == 0
        if shots:
            shoot(page, "why", tmp_path)
            page.goto(f"{_base(viewer)}/sessions")
            shoot(page, "sessions", tmp_path)
            page.goto(f"{_base(viewer)}/health")
            page.locator("#checks").wait_for()
            shoot(page, "health", tmp_path)
        context.close()


def _base(viewer: Viewer) -> str:
    return f"http://127.0.0.1:{viewer.port}"


def test_local_store_flow(chromium: Any, tmp_path: Path) -> None:
    project = tmp_path / "widget"
    project.mkdir()
    flow(chromium, env_for_viewer(), project, tmp_path, shots=True)


@pytest.mark.real_server
def test_openviking_flow(
    chromium: Any, ov_server_capture: Any, ov_user: str, tmp_path: Path
) -> None:
    project = tmp_path / "widget"
    project.mkdir()
    env = env_for_viewer(
        OPENVIKING_URL=ov_server_capture.url,
        OVHOOKS_BACKEND="openviking",
        OPENVIKING_USER=ov_user,
    )
    flow(chromium, env, project, tmp_path, shots=False)
