"""The two files settings may come from: ovhooks' ``config.toml`` and OpenViking's
``ovcli.conf``, each read with what makes it ignored turned into a warning.

Imported by ``config.load_settings`` only when one of them exists (or ``OVHOOKS_CONFIG``
names one), so a hook on a machine without them never loads this module or ``tomllib``.
"""

from __future__ import annotations

import json
import os


def config_toml(
    path: str, *, named: bool, known: tuple[str, ...], warnings: list[str]
) -> dict[str, object]:
    """The settings in ovhooks' config file at ``path`` (flat, or under an ``[ovhooks]`` table).

    ``named``: the path came from ``OVHOOKS_CONFIG``. A named file that is missing, a path
    that is not a file, a file that does not parse and a key not in ``known`` each add a
    warning; the values that can be used are still returned.
    """
    if not os.path.isfile(path):
        what = "does not exist" if not os.path.lexists(path) else "is not a file"
        where = "OVHOOKS_CONFIG names " if named else "config file "
        warnings.append(f"{where}{path}, which {what}: ignored")
        return {}
    import tomllib

    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError) as exc:
        warnings.append(f"config file {path} ignored: {exc}")
        return {}
    section = data.get("ovhooks")
    values = dict(section) if isinstance(section, dict) else dict(data)
    for key in values:
        if key not in known:
            warnings.append(f"config file {path}: unknown key {key!r}")
    return values


def ovcli_conf(path: str, *, warnings: list[str]) -> dict[str, object]:
    """The JSON object in OpenViking's ``ovcli.conf``; a file that does not parse is a warning."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        warnings.append(f"ovcli.conf {path} ignored: {exc}")
        return {}
    return data if isinstance(data, dict) else {}
