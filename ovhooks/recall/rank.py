"""From raw search hits to a short, ranked, de-duplicated list of memories (pure functions).

Input shapes (OpenViking 0.5.2, shared/spec/openviking-api.md §A.4):

- context search: ``{entries: [{uri, category, score, detail, text, origin}]}``. Directory
  scaffolding comes back as entries too: a directory URI with ``detail: "overview"`` and a text
  like ``# Preferences Overview`` followed by links.
- plain find: ``{memories|skills|resources: [{uri, level, score, abstract, tags}]}``, where the
  scaffolding is ``…/.abstract.md`` (level 0) and ``…/.overview.md`` (level 1).

Rules, in order: drop what is out of scope (resources unless asked for, other projects'
memories), drop scaffolding, drop what scores under the threshold (the server's own score:
the boost never lifts an item over it), drop what this session has already seen, de-duplicate,
then rerank by score plus a boost for shared words. Ties break on the URI so the order is stable.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from ovhooks.recall.query import QueryProfile

LEAF_SUFFIXES = (".md", ".txt", ".json", ".yaml", ".yml")
SCAFFOLD_MARKERS = ("[directory abstract is not ready]", "[directory overview is not ready]")
EVENT_LIKE = frozenset(("events", "cases"))

OVERLAP_BOOST = 0.20
# Items ranked this far below the best one are dropped: with embeddings whose unrelated
# baseline sits near 0.5-0.6, an absolute threshold alone lets filler through (OpenViking
# #1106, #4985), while a true second topic in the prompt ranks within this margin.
RELATIVE_MARGIN = 0.25
# How much of a candidate's text is weighed and shown (the line shows at most 600).
MAX_TEXT_CHARS = 4000

# category (as the server names it or as the URI path shows it) -> label shown to the model
_LABELS = {
    "preferences": "preference",
    "entities": "entity",
    "events": "event",
    "cases": "case",
    "skills": "skill",
    "resources": "resource",
    "profile": "profile",
    "experiences": "experience",
    "tools": "tool",
    "trajectories": "trajectory",
    "identity": "identity",
    "soul": "identity",
}


class Candidate:
    """One recallable memory."""

    __slots__ = (
        "bridged",
        "category",
        "confidence",
        "evidence",
        "label",
        "rank",
        "score",
        "text",
        "uri",
        "whole",
    )

    def __init__(self, uri: str, category: str, score: float, text: str) -> None:
        self.uri = uri
        # The fusion's evidence for this candidate (``semantic.fusion.Evidence.as_dict``),
        # from the local store or ``recall.rating``.
        self.evidence: dict[str, object] | None = None
        # P(a right memory), set when it is about to be shown (``recall.confidence``)
        self.confidence: float | None = None
        self.category = category
        self.label = _LABELS.get(category, "memory")
        self.score = score
        self.text = text
        self.rank = score
        # Found only by the bridged search (``recall.retrieve.gather``): its score answers
        # the bridged query, not the prompt, so its server strength is not read.
        self.bridged = False
        # The text is the memory's whole content (the store said ``detail: "full"``), not an
        # abstract or one statement of a session's history: shown uncut, the block needs no
        # URI to read more (``recall.render``).
        self.whole = False

    def __repr__(self) -> str:
        return f"Candidate({self.uri!r}, {self.category!r}, {self.score:.3f}, rank={self.rank:.3f})"


def _score(raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        try:
            raw = float(str(raw))
        except ValueError:
            return 0.0
    value = float(raw)
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


def category_of(uri: str, declared: str = "") -> str:
    """The memory category: the server's word for it, else the URI path's.

    The singletons (``profile.md``…) are recognised by name whatever the server calls them.
    """
    segments = uri.split("/")
    last = segments[-1] if segments else ""
    if last in ("profile.md", "identity.md", "soul.md") and "memories" in segments:
        return last[:-3]
    if declared:
        return declared.strip().lower()
    if uri.startswith("viking://resources"):
        return "resources"
    for name in ("preferences", "entities", "events", "cases", "skills", "tools", "experiences"):
        if name in segments:
            return name
    return "memory"


def is_archive(uri: str) -> bool:
    """A session's history: ``…/sessions/<id>/history/archive_NNN`` (or a file inside it).

    An archive is a node without an extension, yet it is content, not scaffolding: it holds
    what was said in a session, the history layer recall falls back on for anything that was
    never promoted to a memory.
    """
    head, sep, rest = uri.partition("/history/archive_")
    if not sep or "/sessions/" not in head:
        return False
    number, _, leaf = rest.partition("/")
    return number.isdigit() and leaf in ("", ".overview.md", ".abstract.md")


def is_scaffold(uri: str, text: str, *, level: object = None, is_dir: object = None) -> bool:
    """Directory stubs and generated summaries: never worth injecting (OpenViking #5206)."""
    if is_archive(uri):
        head = text.lstrip()[:200].lower()
        return not text.strip() or any(marker in head for marker in SCAFFOLD_MARKERS)
    base = uri.rstrip("/").rsplit("/", 1)[-1]
    if not base or base.startswith("."):
        return True  # .abstract.md, .overview.md, .meta.json, …
    if is_dir is True or uri.endswith("/"):
        return True
    head = text.lstrip()[:200].lower()
    if any(marker in head for marker in SCAFFOLD_MARKERS):
        return True
    if head.startswith("# ") and head.split("\n", 1)[0].endswith(" overview"):
        # "# Preferences Overview\n- [editor.md](./editor.md)": a generated directory index.
        return True
    is_skill = "/skills/" in uri or uri.endswith("/skills")
    if isinstance(level, int) and not isinstance(level, bool) and level != 2 and not is_skill:
        return True
    # A memory is a file; a directory URI (no extension on the last segment) is scaffolding.
    # Skills are directories by design, so they are judged by their text alone.
    return not is_skill and not base.lower().endswith(LEAF_SUFFIXES)


def in_scope(uri: str, category: str, origin: str, *, resources: bool) -> bool:
    """User memories, this project's peer memories and skills; resources only on request."""
    if origin == "other_peer":
        return False  # another project's memories (OpenViking #4205: cross-workspace noise)
    if not uri.startswith("viking://") or "\\" in uri:
        return False
    if any(part in (".", "..") for part in uri[9:].split("/")):
        return False  # a server's URI that climbs out of its folder is nobody's memory
    if category == "resources" or uri.startswith("viking://resources"):
        return resources
    return True


def from_context_entries(
    entries: Iterable[object], *, threshold: float, resources: bool
) -> tuple[list[Candidate], int]:
    """Candidates from a context search; also the number of scaffold entries dropped."""
    out: list[Candidate] = []
    scaffolds = 0
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        uri = entry.get("uri")
        text = entry.get("text") or entry.get("content") or entry.get("abstract") or ""
        if not isinstance(uri, str) or not uri or not isinstance(text, str):
            continue
        declared = entry.get("category") or entry.get("type") or ""
        category = category_of(uri, declared if isinstance(declared, str) else "")
        origin = entry.get("origin")
        origin = origin if isinstance(origin, str) else ""
        if not in_scope(uri, category, origin, resources=resources):
            continue
        if is_scaffold(uri, text, level=entry.get("level"), is_dir=entry.get("isDir")):
            scaffolds += 1
            continue
        score = _score(entry.get("score"))
        if score < threshold or not text.strip():
            continue
        # Rated and shown from its head only: a memory of megabytes cost seconds to weigh,
        # past the hook's deadline, and the line shows a few hundred characters anyway.
        whole = entry.get("detail") == "full" and len(text) <= MAX_TEXT_CHARS
        item = Candidate(uri, category, score, text[:MAX_TEXT_CHARS])
        item.whole = whole and not is_archive(uri)
        evidence = entry.get("evidence")
        item.evidence = evidence if isinstance(evidence, dict) else None
        out.append(item)
    return out, scaffolds


def from_find_result(
    result: Mapping[str, object], *, threshold: float, resources: bool
) -> tuple[list[Candidate], int]:
    """Candidates from a plain find (the fallback for servers without context search)."""
    entries: list[object] = []
    buckets = ["memories", "skills"] + (["resources"] if resources else [])
    for bucket in buckets:
        hits = result.get(bucket)
        if not isinstance(hits, list):
            continue
        for hit in hits:
            if not isinstance(hit, dict):
                continue
            entry = dict(hit)
            entry["text"] = hit.get("abstract") or hit.get("overview") or ""
            entry.setdefault("category", _bucket_category(bucket, hit))
            entries.append(entry)
    return from_context_entries(entries, threshold=threshold, resources=resources)


def _bucket_category(bucket: str, hit: Mapping[str, object]) -> str:
    uri = hit.get("uri")
    if bucket == "memories":
        tags = hit.get("tags")
        if isinstance(tags, list):
            for tag in tags:
                if isinstance(tag, str) and tag.startswith("memory_type="):
                    return tag.split("=", 1)[1]
        return category_of(uri) if isinstance(uri, str) else "memory"
    return bucket


def dedupe_key(item: Candidate) -> str:
    if item.category in EVENT_LIKE or "/events/" in item.uri or "/cases/" in item.uri:
        return "uri:" + item.uri
    text = " ".join(item.text.lower().split())
    return "text:" + text if text else "uri:" + item.uri


def rank(
    items: list[Candidate],
    profile: QueryProfile,
    *,
    exclude: Collection[str] = (),
) -> list[Candidate]:
    """Drop already-injected URIs and duplicates; order by score plus a boost for shared
    words; drop items far below the best (``RELATIVE_MARGIN``)."""
    from ovhooks.recall.query import content_tokens

    wanted = profile.tokens[:12]
    for item in items:
        # No nudge for what the prompt asks (time, likes): in a replay of the decision on
        # five labelled sets it changed nothing (docs/SEMANTIC.md 2.5). The boost for shared
        # words did: with it the margin below keeps the runners-up out (precision).
        boost = 0.0
        matched = 0
        if wanted:
            # The text only: a URI's slug repeats the text's first words (local store) or
            # is a server's guess at a title, and its words are no evidence of their own.
            have = set(content_tokens(item.text))
            matched = sum(1 for token in wanted if token in have)
            boost += OVERLAP_BOOST * min(1.0, matched / min(len(wanted), 4))
        item.rank = item.score + boost
    # Best first; equal ranks (memories admitted by meaning all sort at the bar) go by the
    # strength the fusion weighed, then by URI, so identical inputs give identical output.
    ordered = sorted(items, key=lambda c: (-round(c.rank, 6), -_weighed(c), c.uri))
    if ordered:
        # The margin is measured from the best match even when the session has already seen
        # it: a prompt about something shown earlier must not surface the runners-up instead.
        floor = ordered[0].rank - RELATIVE_MARGIN
        ordered = [c for c in ordered if c.rank >= floor and c.uri not in exclude]
    seen_keys: set[str] = set()
    seen_uris: set[str] = set(exclude)
    out: list[Candidate] = []
    for item in ordered:
        key = dedupe_key(item)
        if item.uri in seen_uris or key in seen_keys:
            continue
        seen_uris.add(item.uri)
        seen_keys.add(key)
        out.append(item)
    return out


def _weighed(item: Candidate) -> float:
    """The strength the fusion weighed for ``item`` (0 without one)."""
    value = (item.evidence or {}).get("weighed")
    return float(value) if isinstance(value, int | float) else 0.0
