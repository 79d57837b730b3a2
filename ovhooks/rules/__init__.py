"""What the memory verbs accept, stated once for the CLI, the MCP tools and the viewer:
sizes (``limits``) and which URIs may be forgotten or rewritten (``memory_uri``). Pure."""
