"""The one small HTTP/1.1 client every part shares (hooks, the worker, the commands, the
embedding service's endpoint): connections, proxies, TLS, URLs, and its one error."""
