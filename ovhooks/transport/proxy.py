"""Which proxy a request goes through, read from the environment as curl and httpx read it.

- ``https_proxy``/``HTTPS_PROXY`` for https URLs, ``http_proxy``/``HTTP_PROXY`` for http
  URLs, ``all_proxy``/``ALL_PROXY`` for either; the lower-case name wins. Like urllib (and so
  httpx), ``HTTP_PROXY`` is ignored when ``REQUEST_METHOD`` is set: in a CGI process it can come
  from a client's ``Proxy:`` header ("httpoxy").
- ``no_proxy``/``NO_PROXY`` is a comma (or space) separated list: ``*`` turns proxies off; a
  name matches itself and every subdomain (``example.com`` and ``.example.com`` both match
  ``example.com`` and ``a.example.com``, as in curl); ``name:port`` matches that port only; an
  IP address matches itself (IPv6 with or without brackets); ``10.0.0.0/8`` or ``fd00::/8``
  (CIDR) matches IP literals in that network; ``scheme://name`` matches that scheme only.
- Loopback is not special: like curl and httpx, a request to ``127.0.0.1`` goes through the
  proxy unless ``NO_PROXY`` names it (``doctor`` warns about that combination).

Only ``http://`` proxies are supported (CONNECT for https targets, absolute-form requests for
http targets); any other scheme is a clear ``config`` error, never a silent direct connection.
"""

from __future__ import annotations

from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class Proxy:
    """An HTTP proxy: where to connect, the auth header to send, and where it came from."""

    __slots__ = ("auth", "host", "port", "source")

    def __init__(self, host: str, port: int, auth: str, source: str) -> None:
        self.host = host
        self.port = port
        self.auth = auth  # the Proxy-Authorization value, "" for none
        self.source = source  # the variable it came from, e.g. "HTTPS_PROXY"

    def display(self) -> str:
        """``http://host:port`` without credentials (safe to print)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def _env(environ: Mapping[str, str], name: str) -> tuple[str, str]:
    for variable in (name.lower(), name.upper()):
        value = environ.get(variable, "").strip()
        if value:
            if variable == "HTTP_PROXY" and environ.get("REQUEST_METHOD"):
                continue
            return value, variable
    return "", ""


def proxy_for(scheme: str, host: str, port: int, environ: Mapping[str, str]) -> Proxy | None:
    """The proxy for ``scheme://host:port`` under ``environ``, or ``None`` to connect directly."""
    value, source = _env(environ, f"{scheme}_proxy")
    if not value:
        value, source = _env(environ, "all_proxy")
    if not value:
        return None
    no_proxy, _ = _env(environ, "no_proxy")
    if no_proxy and bypasses(no_proxy, scheme, host, port):
        return None
    return parse_proxy(value, source)


def parse_proxy(value: str, source: str) -> Proxy:
    proxy_scheme, sep, rest = value.partition("://")
    if not sep:
        proxy_scheme, rest = "http", value
    if proxy_scheme.lower() != "http":
        raise BackendError(
            "config",
            f"{source} uses a {proxy_scheme}:// proxy; ovhooks supports http:// proxies only "
            f"(unset {source}, or add the server to NO_PROXY)",
        )
    hostport = rest.split("/", 1)[0]
    userinfo, at, hostport = hostport.rpartition("@")
    auth = ""
    if at:
        import binascii

        from ovhooks.transport.url import unquote

        user, _, password = userinfo.partition(":")
        token = f"{unquote(user)}:{unquote(password)}".encode()
        auth = "Basic " + binascii.b2a_base64(token, newline=False).decode("ascii")
    from ovhooks.transport.url import split_hostport

    try:
        host, port = split_hostport(hostport, 80)
    except ValueError:
        raise BackendError("config", f"{source} is not a proxy address (host:port)") from None
    return Proxy(host, port, auth, source)


def bypasses(no_proxy: str, scheme: str, host: str, port: int) -> bool:
    """Whether the ``NO_PROXY`` list sends ``scheme://host:port`` direct."""
    name = host.lower().rstrip(".")
    for raw in no_proxy.replace(" ", ",").split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        entry_scheme, sep, rest = entry.partition("://")
        if sep:
            if entry_scheme != scheme:
                continue
            entry = rest
        entry = entry.rstrip("/")
        if "/" in entry and _in_network(name, entry):
            return True
        entry_host, entry_port = _entry_hostport(entry)
        if entry_port is not None and entry_port != port:
            continue
        entry_host = entry_host.removeprefix("*").lstrip(".").rstrip(".")
        if entry_host and (name == entry_host or name.endswith("." + entry_host)):
            return True
    return False


def _entry_hostport(entry: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address."""
    if entry.startswith("["):
        inside, _, after = entry[1:].partition("]")
        port_text = after.removeprefix(":")
        return inside, int(port_text) if port_text.isdigit() else None
    if entry.count(":") == 1:
        host, _, port_text = entry.partition(":")
        return host, int(port_text) if port_text.isdigit() else None
    return entry, None  # a name, or a bare IPv6 address (several colons)


def _in_network(host: str, cidr: str) -> bool:
    # ipaddress costs a few ms to import: only reached for a CIDR entry with a proxy in play.
    import ipaddress

    try:
        network = ipaddress.ip_network(cidr.replace("[", "").replace("]", ""), strict=False)
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.version == network.version and address in network
