"""Helpers for tests that run ovhooks' human commands: the CLI in-process and a small JSON
schema check."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from typer.testing import CliRunner


def run_cli(
    *args: str, env: Mapping[str, str | None] | None = None, input: str | None = None
) -> Any:
    """Run ``ovhooks <args>`` in this process.

    ``env`` overlays the test's environment for the call only (a ``None`` value removes that
    variable): Click's runner applies and undoes it, so this helper never writes
    ``os.environ`` itself.
    """
    from ovhooks.cli import app

    return CliRunner().invoke(app, list(args), input=input, env=env, catch_exceptions=False)


def run_json(*args: str, env: Mapping[str, str | None] | None = None) -> tuple[int, dict[str, Any]]:
    result = run_cli(*args, "--json", env=env)
    try:
        doc = json.loads(result.stdout)
    except ValueError as exc:
        raise AssertionError(
            f"not one JSON document: {result.stdout!r} / {result.stderr!r}"
        ) from exc
    return result.exit_code, doc


# --- a small schema check -------------------------------------------------------------------
# A schema is a type, a tuple of types, a dict {key: schema} (keys required, extra allowed),
# or a one-element list [schema] for "a list of these".
def check_schema(value: Any, schema: Any, where: str = "$") -> None:
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
        for key, sub in schema.items():
            assert key in value, f"{where}: missing key {key!r} in {sorted(value)}"
            check_schema(value[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), f"{where}: expected a list, got {value!r}"
        for i, item in enumerate(value):
            check_schema(item, schema[0], f"{where}[{i}]")
    else:
        assert isinstance(value, schema), f"{where}: expected {schema}, got {value!r}"


OPT_STR = (str, type(None))
NUM = (int, float)
ENVELOPE = {"ok": bool, "command": str}
ERROR_ENVELOPE = {
    "ok": bool,
    "command": str,
    "exit_code": int,
    "error": {"code": str, "message": str, "fix": str},
}
