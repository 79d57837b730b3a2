"""One search hit of the local store: a memory or a history row, its score and, once the
embedding service took part, its fused evidence (shared by ``search`` and ``semantic_recall``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.semantic.fusion import Evidence


class Hit:
    __slots__ = (
        "abstract",
        "category",
        "evidence",
        "kind",
        "rid",
        "score",
        "shared",
        "tags",
        "text",
        "uri",
    )

    def __init__(
        self,
        kind: str,
        uri: str,
        *,
        category: str,
        text: str,
        abstract: str,
        tags: str,
        score: float,
        rid: int = 0,
        shared: bool = True,
    ) -> None:
        self.kind = kind
        self.rid = rid
        self.evidence: Evidence | None = None
        self.uri = uri
        self.category = category
        self.text = text
        self.abstract = abstract
        self.tags = tags
        self.score = score
        # Whether the text shares any term with the query (lexical evidence above nothing).
        self.shared = shared
