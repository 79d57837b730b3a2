"""Which certificates an ``https://`` server must chain to, and the TLS context built from them.

Order (the first that is set wins, and ``doctor`` names it):
1. ``OVHOOKS_CA_BUNDLE`` (or ``ca_bundle`` in the config file): a PEM file or a hashed
   directory. It replaces the default store, as ``curl --cacert`` and ``REQUESTS_CA_BUNDLE`` do;
   to trust both, point it at a file holding both.
2. ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``: OpenSSL's own variables, honoured by the default store.
3. The operating system's store, as the Python ``ssl`` module finds it.

``ssl`` is imported only here, and this module only for ``https://`` URLs: a hook talking to a
plain ``http://`` loopback server never pays for it.
"""

from __future__ import annotations

import os

from ovhooks.fsutil import open_regular
from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from ssl import SSLContext

_contexts: dict[str, SSLContext] = {}


def ca_source(ca_bundle: str, environ: Mapping[str, str]) -> tuple[str, str]:
    """(where the trusted CAs come from, the path) for messages and ``doctor``."""
    if ca_bundle:
        return "OVHOOKS_CA_BUNDLE", ca_bundle
    cert_file = environ.get("SSL_CERT_FILE", "")
    cert_dir = environ.get("SSL_CERT_DIR", "")
    if cert_file and cert_dir:
        return "SSL_CERT_FILE and SSL_CERT_DIR", f"{cert_file} and {cert_dir}"
    if cert_file:
        return "SSL_CERT_FILE", cert_file
    if cert_dir:
        return "SSL_CERT_DIR", cert_dir
    import ssl

    paths = ssl.get_default_verify_paths()
    found = [p for p in (paths.openssl_cafile, paths.openssl_capath) if p and os.path.exists(p)]
    return "the system store", " and ".join(found) or "(no default CA file found)"


def context(ca_bundle: str) -> SSLContext:
    """A verifying client context (cached per bundle for the life of the process)."""
    cached = _contexts.get(ca_bundle)
    if cached is not None:
        return cached
    import ssl

    try:
        if not ca_bundle:
            ctx = ssl.create_default_context()
        elif os.path.isdir(ca_bundle):
            ctx = ssl.create_default_context(capath=ca_bundle)
        else:
            # OpenSSL reads a FIFO until a writer closes it (every command naming the bundle
            # blocked forever): only a regular file is handed to it
            os.close(open_regular(ca_bundle))
            ctx = ssl.create_default_context(cafile=ca_bundle)
    except (OSError, ssl.SSLError) as exc:
        raise BackendError(
            "config",
            f"OVHOOKS_CA_BUNDLE={ca_bundle} cannot be used as a CA bundle "
            f"({getattr(exc, 'strerror', None) or exc}); point it at a PEM file",
        ) from None
    _contexts[ca_bundle] = ctx
    return ctx


def tls_error(
    exc: Exception, host: str, ca_bundle: str, environ: Mapping[str, str]
) -> BackendError:
    """A TLS failure as a ``tls`` error that says which CAs were tried."""
    import ssl

    source, path = ca_source(ca_bundle, environ)
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or str(exc)
        return BackendError(
            "tls",
            f"the certificate of {host} is not trusted ({why}); CAs from {source} ({path}); "
            "set OVHOOKS_CA_BUNDLE to your CA's PEM file",
        )
    return BackendError("tls", f"TLS handshake with {host} failed: {exc}")
