"""What a commit keeps from the user's turns, without a language model.

Every *substantive statement* the user made becomes a memory candidate, kept verbatim: a fact,
a person and their role, an environment detail, a gotcha with its fix, a convention, a
decision, a preference, in English or Chinese, with or without a trigger word. What is not a
statement is recognised by its *form*, not by its topic: questions, one-off requests to the
agent ("ok now add a refund endpoint"), slash commands, and acknowledgements. A request
phrased as a rule ("When X fails, rerun it with --from-date", "建表一律用 utf8mb4") is a
convention and is kept. The unit is the user's line, so a statement keeps its fix ("…breaks
behind the VPN; export X first") instead of losing it at a ``;`` or a full stop.

A statement's *lead* (the question or complaint said just before it, not kept) is searchable
with it: a later prompt often asks that same question (``statements_with_lead``).

What is not promoted is not lost: ``history_statements`` gives the rest of what the user said
about the work (not what they asked of the agent), which the store indexes sentence by
sentence under the session's archive (the history layer: working state, durable memory,
history), so recall can still find it there. The form of a sentence is ``forms``'.

Everything here is pure and deterministic: the same turns give the same candidates.
"""

from __future__ import annotations

from ovhooks.backend.local.forms import (
    content_size,
    form_of,
    matches,
    next_task,
    polite,
    report_before_ask,
)
from ovhooks.backend.local.messages import lines, prose, sentences, split_line
from ovhooks.lexical.text import has_cjk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


# --- candidates ---------------------------------------------------------------------------


class Candidate:
    """A statement worth keeping: ``category`` is preferences, entities or events."""

    __slots__ = ("category", "lead", "project", "subject", "text")

    def __init__(self, text: str, category: str, subject: str, project: bool) -> None:
        self.text = text
        # What the user said just before it and did not keep (``statements_with_lead``).
        self.lead = ""
        self.category = category
        # entities: "person" or "project" or "facts"; otherwise "".
        self.subject = subject
        # True: belongs to the project (peer) it was said in; False: about the user anywhere.
        self.project = project

    def __repr__(self) -> str:
        return f"Candidate({self.category}, project={self.project}, {self.text!r})"


_MAX_STATEMENT_CHARS = 500


def _substantive(text: str) -> bool:
    compact = "".join(text.split())
    if len(compact) < (4 if has_cjk(compact) else 10) or len(text) > _MAX_STATEMENT_CHARS:
        return False
    return content_size(text) >= 2


def classify(statement: str) -> Candidate | None:
    """The memory a user's statement states, or None when it is no statement at all."""
    text = statement.strip()
    if not _substantive(text) or form_of(text) != "statement":
        return None
    about_project = matches("project", text)
    personal = matches("personal", text) and not about_project
    if matches("preference", text):
        return Candidate(text, "preferences", "", project=not personal)
    if matches("decision", text):
        return Candidate(text, "events", "", project=True)
    if matches("identity", text):
        return Candidate(text, "entities", "person", project=False)
    if matches("person", text):
        return Candidate(text, "entities", "person", project=True)
    return Candidate(text, "entities", "project" if about_project else "facts", not personal)


# What led to a statement is kept up to this many characters (the part nearest it).
LEAD_CHARS = 240


def statements_with_lead(text: str) -> list[tuple[str, str]]:
    """The statements of one user turn, each line from its first statement sentence on, and
    each with its *lead*.

    Leading questions and requests are not part of a statement ("Can you fix the build? FYI
    CI uses Node 18" keeps the second sentence); after a statement, a bare imperative stays
    with it (it is usually the fix: "pnpm install breaks behind the VPN. Export X first."), a
    question or a polite request ends it.

    The lead is what the user said just before the statement in the same turn and did not
    keep, polite requests and commands aside: the question or complaint the fact answers
    ("the lidar topic shows nothing in rviz?" before "the driver publishes best-effort, so
    subscribers need SensorDataQoS"). A later prompt often asks that same question; the
    store indexes the lead's words with the memory (never shown as its text)."""
    out: list[tuple[str, str]] = []
    lead: list[str] = []
    for line in lines(prose(text)):
        kept: list[str] = []
        for part in split_line(line):
            form = form_of(part)
            if not kept:
                if form == "statement" and _substantive(part):
                    kept.append(part)
                elif form != "command" and not polite(part):
                    # a request to the agent ("please keep X in mind") is no context of the
                    # fact, and its topic words would make every such memory match X
                    lead.append(part)
                continue
            if form in ("question", "command") or next_task(part, form):
                # what ended a statement (a question, a request) leads nowhere: it is
                # mostly the next task, not what the next fact answers
                out.append((" ".join(kept), _tail(lead)))
                kept, lead = [], []
                continue
            kept.append(part)
        if kept:
            out.append((" ".join(kept), _tail(lead)))
            lead = []
    return out


def _tail(parts: list[str]) -> str:
    text = " ".join(parts)
    return text if len(text) <= LEAD_CHARS else text[-LEAD_CHARS:]


def memory_candidates(user_texts: Iterable[str]) -> list[Candidate]:
    """Candidates from the user's turns, in order, without exact repeats."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for text in user_texts:
        for statement, lead in statements_with_lead(text):
            candidate = classify(statement)
            if candidate is None:
                continue
            candidate.lead = lead
            key = " ".join(candidate.text.lower().split())
            if key not in seen:
                seen.add(key)
                out.append(candidate)
    return out


def history_statements(user_texts: Iterable[str], promoted: Iterable[str]) -> list[str]:
    """What else the user said, sentence by sentence, for the archive's history index.

    What the user said about the work (reports, its state, statements not promoted), not
    what they asked of the agent: a past request or question found again is a task done or
    a question answered, noise beside the prompt at best. A report that ends in a request
    ("the booking API returns 500 when …, can you look?") is kept for its report, without
    the ask. Slash
    commands, filler and what was promoted (whole, or as one sentence of a promoted
    statement) are left out too.
    """
    done: set[str] = set()
    for text in promoted:
        done.add(" ".join(text.lower().split()))
        done.update(" ".join(s.lower().split()) for s in split_line(text))
    out: list[str] = []
    seen: set[str] = set()
    kept: set[str] = set()
    for text in user_texts:
        for sentence in sentences(prose(text)):
            key = " ".join(sentence.lower().split())
            if key in seen or key in done:
                continue
            seen.add(key)
            part = history_part(sentence) if _substantive(sentence) else ""
            said = " ".join(part.lower().split())
            if part and said not in done and said not in kept:
                kept.add(said)
                out.append(part)
    return out


def history_part(sentence: str) -> str:
    """What the history layer keeps of a sentence the user said (``history_statements``):
    the sentence when it says something about the work, the report alone when an ask follows
    it ("X returns 500 when Y, can you look?" keeps "X returns 500 when Y", as if a full stop
    stood before the ask), else "" (a request, a question, a command, filler)."""
    form = form_of(sentence)
    if form in ("command", "filler"):
        return ""
    if form in ("request", "question"):
        return report_before_ask(sentence)
    return sentence


def belongs_in_history(sentence: str) -> bool:
    """Whether a row already in the history may stay (``sessions`` prunes old stores): a
    row the layer keeps now, or one written whole, ask included, before the ask was cut
    (``history_part`` finds its report)."""
    return bool(history_part(sentence))
