"""The two files settings may come from: ovhooks' ``config.toml`` and OpenViking's
``ovcli.conf``, each read with what makes it ignored turned into a warning.

Imported by ``config.load_settings`` only when one of them is a file or a header value is
set (``header_warnings``), so a hook on a machine without them never loads this module. A
plain config file is read without ``tomllib`` (``toml_plain``: its import costs a hook ~7 ms).
"""

from __future__ import annotations

import json

# A settings file is a few hundred bytes; one far larger is a mistake (a log named as the
# config) and reading it whole cost a hook seconds and gigabytes before its deadline began.
MAX_SETTINGS_FILE_BYTES = 1 << 20


def _read_bounded(path: str) -> bytes:
    """The file's bytes; ``ValueError`` past ``MAX_SETTINGS_FILE_BYTES``."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_SETTINGS_FILE_BYTES + 1)
    if len(data) > MAX_SETTINGS_FILE_BYTES:
        raise ValueError(f"larger than {MAX_SETTINGS_FILE_BYTES >> 20} MiB")
    return data


def config_toml(path: str, *, known: tuple[str, ...], warnings: list[str]) -> dict[str, object]:
    """The settings in ovhooks' config file at ``path`` (flat, or under an ``[ovhooks]``
    table). A file that does not parse, and each key not in ``known``, add a warning; the
    values that can be used are still returned."""
    from ovhooks.settings.toml_plain import loads

    try:
        data = loads(_read_bounded(path))
    except (OSError, ValueError) as exc:
        warnings.append(f"config file {path} ignored: {exc}")
        return {}
    section = data.get("ovhooks")
    values = dict(section) if isinstance(section, dict) else dict(data)
    for key in values:
        if key not in known:
            warnings.append(f"config file {path}: unknown key {key!r}")
    return values


# ovcli.conf keys (JSON) that may supply connection settings, in order of preference.
_OVCLI_KEYS: dict[str, tuple[str, ...]] = {
    "url": ("url",),
    "api_key": ("api_key",),
    "account": ("account", "account_id"),
    "user": ("user", "user_id"),
    "actor_peer": ("actor_peer_id", "peer_id"),
}


def ovcli_conf(path: str, *, warnings: list[str]) -> dict[str, object]:
    """The connection settings OpenViking's ``ovcli.conf`` supplies, by setting name: for
    each, the first of its keys holding a non-empty string. A file that does not parse is a
    warning."""
    try:
        data = json.loads(_read_bounded(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        warnings.append(f"ovcli.conf {path} ignored: {exc}")
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, object] = {}
    for name, keys in _OVCLI_KEYS.items():
        found = [data[k] for k in keys if isinstance(data.get(k), str) and data[k].strip()]
        if found:
            out[name] = found[0]
    return out


def header_warnings(values: dict[str, object], sources: dict[str, str]) -> list[str]:
    """Configuration errors for header values that no request can carry."""
    from ovhooks.redact import header_value_problem

    out = []
    for name in ("api_key", "account", "user", "actor_peer"):
        problem = header_value_problem(str(values.get(name) or ""))
        if problem:
            out.append(
                f"{name} from {sources.get(name, '?')} cannot be sent in an HTTP header: "
                f"{problem}; every request is refused until it is fixed"
            )
    return out
