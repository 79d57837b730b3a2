"""ovhooks: long-term memory hooks for Codex CLI and Claude Code, backed by OpenViking."""

__version__ = "0.1.0"
