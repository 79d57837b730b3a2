"""Memory stores behind one protocol: OpenViking over HTTP, or the embedded local store."""
