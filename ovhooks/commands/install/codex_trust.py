"""Recording Codex's trust for ovhooks' own hooks (``ovhooks install codex --trust``).

Codex runs a hook only after the user trusted it, and skips untrusted ones without a word
(hosts-e2e §1.4). The trust record is ``[hooks.state."<key>"] trusted_hash = "<hash>"`` in
``config.toml``; Codex computes the hash itself and reports it, with the key, through its
app server (``hooks/list``). So we ask Codex rather than guess its hashing, and record trust
only for hooks whose command is ovhooks' own — never for the user's other hooks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from typing import Any

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tomlkit import TOMLDocument

_HOOK_COMMANDS = frozenset(
    command for _event, command, *_rest in hostconfig.HOOK_TABLE.get("codex", ())
)


def find_codex(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The ``codex`` executable on PATH (as the user would start it), or None."""
    return shutil.which("codex", path=environ.get("PATH"))


def list_hooks(codex: str, cwd: str, environ: Any, timeout_s: float = 30.0) -> list[dict[str, Any]]:
    """Every hook Codex sees for ``cwd``: ``key``, ``command``, ``currentHash``, ``trustStatus``."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "ovhooks", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}},
    ]
    proc = subprocess.Popen(
        [codex, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(environ),
        cwd=cwd,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            try:
                doc = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(doc, dict) and doc.get("id") == 2:
                if "error" in doc:
                    raise CommandError(
                        f"codex app-server refused hooks/list: {doc['error']}",
                        fix="update Codex (0.169 or newer), or trust the hooks in Codex's /hooks",
                        code=ExitCode.ERROR,
                        slug="codex_trust",
                    )
                hooks: list[dict[str, Any]] = []
                for entry in (doc.get("result") or {}).get("data") or []:
                    hooks.extend(h for h in entry.get("hooks") or [] if isinstance(h, dict))
                return hooks
    finally:
        proc.kill()
        proc.wait(5)
    raise CommandError(
        "codex app-server did not list its hooks",
        fix="trust the ovhooks hooks in Codex's /hooks instead",
        code=ExitCode.ERROR,
        slug="codex_trust",
    )


def is_ours(hook: dict[str, Any]) -> bool:
    """An ovhooks hook command: ``<...>/ovhooks <hook> ...`` or ``python -m ovhooks <hook> ...``."""
    parts = str(hook.get("command") or "").split()
    return any(
        os.path.basename(word) == "ovhooks" and parts[i + 1] in _HOOK_COMMANDS
        for i, word in enumerate(parts[:-1])
    )


def _document(text: str) -> TOMLDocument:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if text and not text.endswith("\n"):
        text += "\n"  # a table added at the end starts on a line of its own
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ValueError(f"config.toml is not valid TOML: {exc}") from None


def _trust_table(doc: TOMLDocument, *, create: bool) -> dict[str, Any] | None:
    """``hooks.state`` of ``doc``, where the trust records live (created when asked)."""
    import tomlkit
    from tomlkit.items import InlineTable

    hooks = doc.get("hooks")
    if hooks is None and create:
        hooks = tomlkit.table(is_super_table=True)
        doc.add("hooks", hooks)
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise ValueError("`hooks` in config.toml is not a table")
    state = hooks.get("state")
    if state is None and create:
        inline = isinstance(hooks, InlineTable)
        state = tomlkit.inline_table() if inline else tomlkit.table(is_super_table=True)
        hooks["state"] = state
    if state is not None and not isinstance(state, dict):
        raise ValueError("`hooks.state` in config.toml is not a table")
    return state


def with_trust(text: str, records: dict[str, str]) -> str:
    """``config.toml`` text with a trust record per key: an existing record gets the new hash
    where it stands, a new one goes after the others; the rest of the file is kept as it is."""
    import tomlkit
    from tomlkit.items import InlineTable

    doc = _document(text)
    state = _trust_table(doc, create=True)
    assert state is not None
    for key, digest in sorted(records.items()):
        record = state.get(key)
        if isinstance(record, dict):
            record["trusted_hash"] = digest
            continue
        new = tomlkit.inline_table() if isinstance(state, InlineTable) else tomlkit.table()
        new.add("trusted_hash", digest)
        if record is not None:
            del state[key]
        state[key] = new
    return tomlkit.dumps(doc)


def without_trust(text: str, keys: set[str]) -> str:
    """``config.toml`` text without the trust records of ``keys`` (what ``with_trust`` added),
    and without the ``hooks``/``hooks.state`` headers left empty that nobody wrote."""
    import tomlkit
    from tomlkit.items import Table

    doc = _document(text)
    state = _trust_table(doc, create=False)
    for key in keys & set(state or {}):
        assert state is not None
        del state[key]
    hooks = doc.get("hooks")
    empty = isinstance(state, Table) and not state and state.is_super_table()
    if isinstance(hooks, Table) and empty:
        del hooks["state"]
    if isinstance(hooks, Table) and not hooks and hooks.is_super_table():
        del doc["hooks"]
    out = tomlkit.dumps(doc)
    return out.rstrip("\n") + "\n" if out.strip() else ""


def trust_key(hooks_path: str, event: str, group: int, handler: int) -> str:
    """Codex's key for one hook handler: ``<hooks.json>:<snake_event>:<group>:<handler>``."""
    import re

    return f"{hooks_path}:{re.sub(r'(?<!^)(?=[A-Z])', '_', event).lower()}:{group}:{handler}"


def trust_ovhooks(
    config_path: str, hooks: list[dict[str, Any]], *, dry_run: bool = False
) -> dict[str, Any]:
    """Record trust for ovhooks' hooks that Codex reports as not (or no longer) trusted."""
    import tomllib

    from ovhooks.commands.install.files import read_text, write_target
    from ovhooks.fsutil import write_atomic

    wanted = {
        str(h["key"]): str(h["currentHash"])
        for h in hooks
        if is_ours(h)
        and h.get("key")
        and h.get("currentHash")
        and h.get("trustStatus") != "trusted"
    }
    ours = sum(1 for h in hooks if is_ours(h))
    result: dict[str, Any] = {"path": config_path, "hooks": ours, "trusted": sorted(wanted)}
    if not ours:
        result["action"] = "no ovhooks hooks seen by Codex"
        return result
    if not wanted:
        result["action"] = "unchanged (already trusted)"
        return result
    # Bounded and regular files only (a FIFO would hang here); through a dotfiles link the
    # records land in the file it points to.
    text = read_text(config_path) or ""
    try:
        new = with_trust(text, wanted)
        tomllib.loads(new)  # never write a file Codex could not read
    except ValueError as exc:
        raise CommandError(
            f"cannot record trust in {config_path}: {exc}",
            fix="trust the ovhooks hooks in Codex's /hooks instead",
            code=ExitCode.ERROR,
            slug="codex_trust",
        ) from None
    result["action"] = f"trust recorded for {len(wanted)} hook(s)"
    if not dry_run:
        write_atomic(write_target(config_path), new.encode("utf-8"), durable=True, private=False)
    return result
