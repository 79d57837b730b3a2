"""Every host ovhooks serves is named where a new user looks (issue 40): ``ovhooks --help``,
``install --help``, ``uninstall --help``, the README's opening paragraph and its first command
block, and the architecture map; the list they are held to is ``hosts.base.HOSTS``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ovhooks.hosts.base import HOSTS
from ovhooks.hosts.registry import labels
from tests.support.cli import run_cli

PRODUCT_NAMES = labels()

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("*", ""))


def _help(*args: str) -> str:
    result = run_cli(*args, "--help", env={"COLUMNS": "200", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    return _flat(result.output)


def test_every_host_has_a_product_name() -> None:
    assert sorted(PRODUCT_NAMES) == sorted(HOSTS)


@pytest.mark.parametrize(
    "command", [(), ("install",), ("uninstall",)], ids=["app", "install", "uninstall"]
)
def test_help_names_every_host(command: tuple[str, ...]) -> None:
    text = _help(*command)
    missing = [PRODUCT_NAMES[h] for h in HOSTS if PRODUCT_NAMES[h] not in text]
    assert missing == [], f"`ovhooks {' '.join(command)} --help` leaves out {missing}"


def test_the_readme_opening_names_every_host() -> None:
    opening = _flat(README.split("\n## ", 1)[0])
    missing = [PRODUCT_NAMES[h] for h in HOSTS if PRODUCT_NAMES[h] not in opening]
    assert missing == []


def test_the_readme_first_command_block_installs_on_every_host() -> None:
    block = README.split("```bash", 1)[1].split("```", 1)[0]
    missing = [h for h in HOSTS if not re.search(rf"\b{h}\b", block)]
    assert missing == []


def test_no_text_speaks_of_two_hosts() -> None:
    texts = {
        "README.md": README,
        "docs/ARCHITECTURE.md": (REPO / "docs" / "ARCHITECTURE.md").read_text(),
    }
    texts.update(
        {str(p.relative_to(REPO)): p.read_text() for p in (REPO / "ovhooks").rglob("*.py")}
    )
    stale = [name for name, text in texts.items() if re.search(r"\b(the two|both) hosts\b", text)]
    assert stale == []
