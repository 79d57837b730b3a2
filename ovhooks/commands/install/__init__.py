"""``ovhooks install`` / ``uninstall``: merge ovhooks' hooks into a host's config and back out.

Rules: other hooks are never touched; ovhooks' groups are appended after the user's (Codex
trust records are keyed by position, so inserting first would un-trust the user's hooks);
writes are atomic with a ``<file>.ovhooks.bak`` of what was there; installing twice changes
nothing; and uninstalling right after installing restores the original bytes exactly.

``command`` holds the two commands; ``codex`` and ``claude`` what each host needs;
``files`` and ``hooks_json`` what both share; ``codex_toml`` and ``codex_trust`` Codex's
``config.toml``.
"""
