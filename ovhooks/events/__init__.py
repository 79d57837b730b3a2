"""One module per hook event: what it decides and which jobs it hands to the worker."""
