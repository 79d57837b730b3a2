"""A fact stated in any host is recalled in any other: the 8 x 8 matrix on the local store.

One project (a git clone) and one local store for all eight hosts. Each *writer* host replays
a recorded session of its own (its transcript format, its recorded hook payloads, in the
order it fires them; tests/support/matrix_hosts.py) in which the user states a fact of its
own (a service and a queue codename no other host's fact has), and commits it the way that
host does. Then, for every writer x reader pair, a new session of the reader asks about the
writer's fact in other words, twice:

- as installed: what the reader's model is given (the SessionStart block, which lists the
  project's memories, and the recall for the prompt) carries the writer's codename;
- with the SessionStart block off: the recall for the question alone brings the writer's fact
  and none of the seven other, similar facts in the store.

Hooks run as real processes of the installed ``ovhooks`` entry point in the project folder,
as the hosts run them. What differs per host and is exercised here, not assumed: payload
fields (Qwen's ``submitted_prompt``, Copilot's ``initial_prompt``, Pi's ``leaf_id``), the
transcript reader (Codex rollout, Claude JSONL, Gemini's ``$set`` records, Pi's branched
tree, OpenCode's SQLite store, Copilot's events, Qwen's chats, Droid's sessions), the commit
(SessionEnd; Qwen: ``ovhooks commit``, as it fires no SessionEnd in ``-p`` mode), the recall
event (Gemini: BeforeAgent; Droid: SessionStart, as ``droid exec`` fires no
UserPromptSubmit) and the reply shape (Copilot: top-level ``additionalContext``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import NamedTuple

import pytest

from ovhooks.ids import ov_session_id
from tests.support import matrix_hosts, pytest_plugin
from tests.support.matrix_hosts import HOSTS, SPECS, World
from tests.support.repos import make_clone
from tests.support.stores import LocalStore

pytestmark = [pytest.mark.hosts_e2e]


class Fact(NamedTuple):
    statement: str  # what the user says in the writer's session
    question: str  # what a reader asks, in other words
    codename: str  # only this writer's fact has it


SERVICES = {
    "codex": ("billing", "amber-falcon"),
    "claude": ("search", "cobalt-heron"),
    "gemini": ("payments", "crimson-otter"),
    "pi": ("ledger", "dusky-lynx"),
    "opencode": ("gateway", "emerald-wren"),
    "copilot": ("reports", "frosted-ibis"),
    "qwen": ("mailer", "golden-marten"),
    "droid": ("scheduler", "hazel-osprey"),
}


def fact_of(writer: str) -> Fact:
    service, codename = SERVICES[writer]
    return Fact(
        f"Remember: in this repo the {service} service deploys go through the {codename} queue",
        f"What queue do {service} service deploys use?",
        codename,
    )


SESSION_BLOCK_OFF = {"OVHOOKS_SESSION_CONTEXT": "0"}


class Matrix(NamedTuple):
    world: World
    store: LocalStore
    writer_seconds: dict[str, dict[str, float]]
    cell_seconds: dict[str, list[float]]  # the hooks' seconds per cell, by matrix


@pytest.fixture(scope="module")
def matrix(ovhooks_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Matrix]:
    base = tmp_path_factory.mktemp("cross-host-matrix")
    project = make_clone(base / "project", "git@github.com:acme/matrix-widget.git")
    world = World(base, ovhooks_bin, matrix_hosts.local_environment(base), project)
    started = time.monotonic()
    seconds = {host: world.write_session(SPECS[host], fact_of(host).statement) for host in HOSTS}
    pytest_plugin.record_timing("cross-host matrix: 8 writer sessions", time.monotonic() - started)
    cells: dict[str, list[float]] = {"session": [], "recall": []}
    yield Matrix(world, LocalStore(base / "data"), seconds, cells)
    for kind, times in cells.items():
        if times:
            label = f"cross-host matrix, {kind}: {len(times)} cells, slowest {max(times):.2f} s"
            pytest_plugin.record_timing(label, sum(times))


@pytest.mark.parametrize("writer", HOSTS)
def test_each_writer_session_is_captured_from_its_transcript_and_committed(
    matrix: Matrix, writer: str
) -> None:
    key = ov_session_id(writer, SPECS[writer].session_id)
    texts = matrix.store.texts(key)
    assert fact_of(writer).statement in texts, (writer, texts)
    assert matrix.store.commit_count(key) >= 1, (writer, matrix.writer_seconds[writer])


# Droid: ``droid exec`` fires no UserPromptSubmit (tests/fixtures/droid/fired.json), so there is
# no recall for a prompt to test; what Droid gets instead is SessionStart's block (the session
# matrix above, and the Droid story in test_wave4_story.py).
NO_PROMPT_RECALL = {
    "droid": "droid exec fires no UserPromptSubmit: its memory is SessionStart's block"
}
CELLS = [
    pytest.param(
        writer,
        reader,
        marks=[pytest.mark.skip(reason=NO_PROMPT_RECALL[reader])]
        if reader in NO_PROMPT_RECALL
        else [],
    )
    for writer in HOSTS
    for reader in HOSTS
]


def _codenames_in(text: str) -> list[str]:
    return [host for host, (_service, codename) in SERVICES.items() if codename in text]


@pytest.mark.parametrize("reader", HOSTS)
@pytest.mark.parametrize("writer", HOSTS)
def test_a_new_session_in_any_host_is_given_the_fact_stated_in_any_other(
    matrix: Matrix, writer: str, reader: str
) -> None:
    """Default settings: what the reader's model is given in a new session (the SessionStart
    block, which Gemini, Copilot and Qwen hand over with the first prompt, then the recall
    for the prompt) carries the writer's fact."""
    fact = fact_of(writer)
    contexts, seconds = matrix.world.read_session(SPECS[reader], fact.question)
    matrix.cell_seconds["session"].append(seconds)
    given = "\n".join(contexts.values())
    assert fact.codename in given, f"{writer} -> {reader}: {contexts!r}"


@pytest.mark.parametrize(("writer", "reader"), CELLS)
def test_the_recall_for_a_question_in_any_host_finds_the_fact_stated_in_any_other(
    matrix: Matrix, writer: str, reader: str
) -> None:
    """With the SessionStart block off (``OVHOOKS_SESSION_CONTEXT=0``), only the recall for
    the question can carry the fact: it must bring the writer's fact, and none of the seven
    other hosts' facts about other services."""
    fact = fact_of(writer)
    spec = SPECS[reader]
    contexts, seconds = matrix.world.read_session(spec, fact.question, SESSION_BLOCK_OFF)
    matrix.cell_seconds["recall"].append(seconds)
    assert contexts["session-start"] == "", contexts  # the block is off: recall alone
    assert _codenames_in(contexts[spec.recall_hook]) == [writer], (
        f"{writer} -> {reader}: {contexts!r}"
    )
