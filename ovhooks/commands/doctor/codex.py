"""Doctor's checks of Codex's ``config.toml``: the hooks feature flag and the trust record of
every ovhooks hook (Codex skips untrusted hooks without a word), and Codex's own memories."""

from __future__ import annotations

import os

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.result import check
from ovhooks.fsutil import read_text_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.commands.doctor.result import Check, Registration


def _read(path: str) -> str:
    try:
        return read_text_file(path)
    except (OSError, ValueError):  # a file that is not UTF-8 reads as one we cannot use
        return ""


def _untrusted(found: list[Registration], records: dict[str, str]) -> tuple[list[str], int]:
    """Events of ovhooks' handlers without a trust record, and how many handlers there are."""
    untrusted = []
    total = 0
    for _scope, path, handlers in found:
        variants = {path, os.path.realpath(path)}
        for event, gi, hi, _command in handlers:
            total += 1
            keys = {f"{p}:{hostconfig.event_key(event)}:{gi}:{hi}" for p in variants}
            if not keys & set(records):
                untrusted.append(event)
    return untrusted, total


def check_feature_and_trust(
    environ: Mapping[str, str], found: list[Registration], status: str, fix: str
) -> tuple[str, str, list[str]]:
    """(status, fix, notes) of the Codex hooks check once the feature flag and trust are
    known; ``status`` and ``fix`` come in as the registration check left them."""
    from ovhooks.commands.install.codex_toml import hooks_feature, trust_records

    config = hostconfig.codex_config_toml(environ)
    text = _read(config)
    try:
        feature = hooks_feature(text)
    except ValueError:
        return "fail", f"fix the TOML syntax in {config}", [f"{config} is not valid TOML"]
    if feature in ("off", "alias-off"):
        return (
            "fail",
            "run `codex features enable hooks` (or `ovhooks install codex`)",
            [f"the hooks feature is off in {config}"],
        )
    untrusted, total = _untrusted(found, trust_records(text))
    if untrusted:
        note = (
            f"{len(untrusted)} of {total} hooks not trusted yet ({', '.join(untrusted)});"
            " Codex skips untrusted hooks silently"
        )
        return "fail", "start `codex`, type /hooks and trust the ovhooks hooks", [note]
    return status, fix, [f"all {total} hooks have trust records (hashes are checked by Codex)"]


def _codex_features(environ: Mapping[str, str]) -> dict[str, object] | None:
    import tomllib

    try:
        doc = tomllib.loads(read_text_file(hostconfig.codex_config_toml(environ)))
    except (OSError, ValueError, RecursionError):  # unreadable, not TOML or not UTF-8
        return None
    features = doc.get("features")
    return features if isinstance(features, dict) else {}


def check_codex_native_memories(environ: Mapping[str, str]) -> Check:
    """Codex's own "Memories" (``[features] memories``, off by default in 0.169) beside ovhooks
    put two memory blocks in front of the model, often saying the same things."""
    features = _codex_features(environ)
    if features is None:
        return check("codex-memories", "skip", "no readable Codex config.toml")
    if features.get("memories") is True:
        return check(
            "codex-memories",
            "warn",
            "Codex's native memories are on: they inject memory context beside ovhooks', "
            "overlapping and costing tokens twice",
            "turn one off: `codex features disable memories` (or OVHOOKS_RECALL=0)",
            enabled=True,
        )
    return check("codex-memories", "ok", "Codex's native memories are off", enabled=False)
