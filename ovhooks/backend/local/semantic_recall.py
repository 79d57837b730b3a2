"""The local store's recall with the embedding service's answer fused in.

The hook sends the prompt to the service *before* its lexical search (``ask``), so the
service embeds and searches while FTS5 runs; the answer is read afterwards within what is
left of ``semantic_deadline_ms``. Rows the service found that FTS5 did not are rated
lexically too (a cross-lingual memory may still share a name); every candidate goes back
with its evidence, and recall decides (``recall.decision``). Without an answer (no service,
loading, broken, slow) the lexical hits stand as they are: recall never waits for a model.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.local.hits import Hit

    # ``search.search``, passed in: this module sits under ``search``, which calls it
    Search = Callable[..., list[Hit]]
    from ovhooks.backend.local.store import LocalStore, SemanticLink
    from ovhooks.semantic.client import Pending

_KINDS = {"m": "memory", "h": "archive"}
SEARCH_K = 16


class Asked:
    __slots__ = ("pending", "sent_at")

    def __init__(self, pending: Pending, sent_at: float) -> None:
        self.pending = pending
        self.sent_at = sent_at


def ask(store: LocalStore, link: SemanticLink, prompt: str) -> Asked:
    """Send the prompt to the service (and start it if none answers)."""
    from ovhooks.semantic import client

    sent_at = time.monotonic()
    pending = client.send(
        link.state_dir,
        {
            "op": "search",
            "db": store.db_path,
            "owner": store.user,
            "peers": ["", store.peer] if store.peer else [""],
            "text": prompt[:2000],
            "k": SEARCH_K,
        },
        link.deadline_s,
    )
    if pending.reason == "absent":
        client.start(link.state_dir, idle_s=link.idle_s, db=store.db_path)
    return Asked(pending, sent_at)


def answer(asked: Asked, link: SemanticLink) -> dict[str, Any] | None:
    left = link.deadline_s - (time.monotonic() - asked.sent_at)
    return asked.pending.answer(left)


def rate(
    store: LocalStore,
    query: str,
    hits: list[Hit],
    found: dict[str, Any],
    search: Search,
    prompt: str = "",
) -> list[Hit]:
    """Every candidate with its ``evidence`` (its lexical score and the service's strength),
    undecided: recall's decision (``recall.decision``) judges them. FTS5's hits come first,
    then the rows only the service found; a hit written in another script than ``prompt`` is
    marked so, to be weighed as cross-lingual."""
    from ovhooks.semantic import fusion
    from ovhooks.semantic.answer_type import asks_who

    strengths: dict[tuple[str, int], dict[str, Any]] = {}
    for item in found.get("hits") or []:
        kind = _KINDS.get(str(item.get("kind")))
        if kind:
            strengths[(kind, int(item.get("id") or 0))] = item
    have = {(h.kind, h.rid) for h in hits}
    # Rows FTS5 did not find are rated lexically only when their strength could pass one of
    # the decision's bars (semantic alone or agreement, in another script too): rating costs
    # the hook a query and the evidence scoring, and a weaker row could never be shown.
    floor = min(fusion.DISTINCT, fusion.AGREE) / max(1.0, fusion.CROSS_SCRIPT_SCALE)
    rater = _Rater(store, query, strengths, have, search)
    everything = [*hits, *rater.rows(floor, float("inf"), ("memory", "archive"))]
    # A who-question's answer (``fusion.answer_who``) must lead every other person memory:
    # rivals are rated down to where one could still come within ``WHO_GAP`` of an answer.
    weaker: list[Hit] = []
    who = bool(prompt) and asks_who(prompt)
    if who:
        low = (fusion.AGREE - fusion.WHO_GAP) / max(1.0, fusion.CROSS_SCRIPT_SCALE)
        weaker = rater.rows(low, floor, ("memory",))
    _weigh(everything, strengths, prompt, who, rival_only=False)
    _weigh(weaker, strengths, prompt, who, rival_only=True)
    # only a person memory is asked for below the floor
    return everything + [h for h in weaker if h.evidence is not None and h.evidence.person]


class _Rater:
    """Rows the service found and FTS5 did not, rated lexically by ``search``."""

    def __init__(
        self,
        store: LocalStore,
        query: str,
        strengths: dict[tuple[str, int], dict[str, Any]],
        have: set[tuple[str, int]],
        search: Search,
    ) -> None:
        self.store, self.query, self.search = store, query, search
        self.strengths, self.have = strengths, have

    def rows(self, low: float, high: float, kinds: tuple[str, ...]) -> list[Hit]:
        """The rows of ``kinds`` whose strength is in ``[low, high)``, as hits."""
        wanted = [
            key
            for key, item in self.strengths.items()
            if key not in self.have
            and key[0] in kinds
            and low <= float(item.get("strength") or 0.0) < high
        ]
        store, query, peer = self.store, self.query, self.store.peer
        memories = [rid for kind, rid in wanted if kind == "memory"]
        out: list[Hit] = []
        if memories:
            out += self.search(store, query, peer, archives=False, only={"memory": memories})
        for rid in (rid for kind, rid in wanted if kind == "archive"):
            out += self.search(store, query, peer, archives=True, only={"history": [rid]})
        return out


def _weigh(
    hits: list[Hit],
    strengths: dict[tuple[str, int], dict[str, Any]],
    prompt: str,
    who: bool,
    *,
    rival_only: bool,
) -> None:
    """Give every hit its ``evidence``: its lexical score, and the service's strength."""
    from ovhooks.lexical.text import script_of
    from ovhooks.semantic.answer_type import names_person
    from ovhooks.semantic.fusion import Evidence

    script = script_of(prompt) if prompt else ""
    for hit in hits:
        sem = strengths.get((hit.kind, hit.rid))
        hit.evidence = Evidence(
            hit.uri,
            hit.score,
            float(sem["strength"]) if sem else None,
            str(sem.get("via") or "") if sem else "",
            cross_script=bool(script) and script_of(hit.text) != script,
            shared=hit.shared,
            archive=hit.kind == "archive",
            person=who and hit.kind == "memory" and names_person(hit.text),
            rival_only=rival_only,
        )


def fused_search(
    store: LocalStore, query: str, prompt: str, search: Search
) -> tuple[list[Hit], str]:
    """``(hits, how semantics took part)``: the prompt goes to the service first, FTS5 runs
    meanwhile, then every candidate is rated with the answer, if one came in time."""
    link = store.semantic
    assert link is not None
    asked = ask(store, link, prompt)
    hits = search(store, query, store.peer, archives=True)
    found = answer(asked, link)
    if found is None:
        return hits, asked.pending.reason or "lexical"
    return rate(store, query, hits, found, search, prompt), "fused"
