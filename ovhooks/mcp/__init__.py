"""``ovhooks mcp``: memory tools for the agent over MCP (stdio), on the CLI verbs' own code.

``protocol`` answers JSON-RPC messages, ``tools`` is the tool list the model sees,
``handlers`` runs a tool on ``commands/memory_ops``, ``server`` is the stdio transport.
Never imported by a hook (tests/test_hook_imports.py).
"""
