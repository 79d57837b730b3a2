"""A throwaway certificate authority (trustme) and server contexts it signs, for TLS tests."""

from __future__ import annotations

import ssl
from pathlib import Path

import trustme


class TestCA:
    """A CA whose PEM lives in ``folder``; its server certificate names the loopback hosts."""

    __test__ = False  # not a test class, whatever its name says

    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.pem = folder / "test-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.pem))
        self._cert = self.ca.issue_cert("localhost", "127.0.0.1", "::1")

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._cert.configure_cert(ctx)
        return ctx
