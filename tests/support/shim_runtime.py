"""Run one ovhooks shim handler in its host's real runtime (tests/support/js/shim_driver.mjs).

Pi's extension runs on Node through the jiti of the Pi install (as Pi loads extensions);
OpenCode's plugin runs on the Bun inside the ``opencode`` binary (``BUN_BE_BUN=1``). The shim
is rendered exactly as ``ovhooks install`` writes it, with ``command`` as what it starts.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from ovhooks.commands.install.shim_file import render, template

DRIVER = Path(__file__).parent / "js" / "shim_driver.mjs"


def bun_of(opencode_bin: str) -> str:
    """The native ``opencode`` binary (the npm ``bin`` entry is a Node launcher)."""
    prefix = Path(opencode_bin).resolve().parents[2]  # node_modules/opencode-ai/bin/opencode
    return str(prefix / "opencode-linux-x64" / "bin" / "opencode")


def jiti_of(pi_bin: str) -> str:
    node_modules = Path(pi_bin).parent.parent  # node_modules/.bin/pi
    return str(node_modules / "jiti" / "lib" / "jiti.mjs")


def call_shim(
    host: str,
    host_bin: str,
    command: str,
    event: str,
    payload: dict[str, Any],
    tmp: Path,
    env: dict[str, str],
    timeout_s: float = 60.0,
) -> dict[str, Any]:
    """What the handler for ``event`` returned (Pi) and added to the conversation (``added``),
    and how long it took (``ms``)."""
    shim = tmp / ("ovhooks.ts" if host == "pi" else "ovhooks.mjs")
    name = "pi_extension.ts" if host == "pi" else "opencode_plugin.js"
    shim.write_text(render(template(name), command), encoding="utf-8")
    if host == "pi":
        runtime = ["node", str(DRIVER)]
        run_env = {**env, "JITI_MODULE": jiti_of(host_bin)}
    else:
        runtime = [bun_of(host_bin), str(DRIVER)]
        run_env = {**env, "BUN_BE_BUN": "1"}
    proc = subprocess.run(
        [*runtime, str(shim), host, event, json.dumps(payload)],
        capture_output=True,
        text=True,
        # the test's own runtime folder (conftest's isolated_home) for the shim's hang marker,
        # which would go to /tmp in an environment without one
        env={
            "PATH": os.environ.get("PATH", ""),
            "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", str(tmp)),
            **run_env,
        },
        timeout=timeout_s,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"driver failed ({proc.returncode}): {proc.stderr[-1500:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result
