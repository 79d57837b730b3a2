"""Headless Chromium for the viewer's tests: Debian's /usr/bin/chromium driven by Playwright.

Playwright's own browser download is never used (this machine cannot fetch it): the system
Chromium is launched through ``executable_path`` with the flags that keep it off the network.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.pytest_plugin import real_environ, require

CHROMIUM_FLAGS = (
    "--no-sandbox",  # root in CI
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)


def chromium_path() -> str:
    return real_environ().get("OVHOOKS_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    path = chromium_path()
    require(os.access(path, os.X_OK), f"Chromium not found at {path}", "run scripts/ci-setup.sh")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "Playwright is not installed", "pip install -e '.[test]'")
        raise
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=path, args=list(CHROMIUM_FLAGS))
        try:
            yield browser
        finally:
            browser.close()
