"""URL pieces the transport needs, without ``urllib.parse`` (about 9 ms to import at hook start)."""

from __future__ import annotations

from ovhooks.transport.errors import BackendError


def split_hostport(hostport: str, default_port: int) -> tuple[str, int]:
    """``h``, ``h:p``, ``[v6]`` or ``[v6]:p`` -> (host without brackets, port); ValueError."""
    if hostport.startswith("["):
        host, close, rest = hostport[1:].partition("]")
        if not close or (rest and not rest.startswith(":")):
            raise ValueError(hostport)
        port_text = rest[1:]
    else:
        host, _, port_text = hostport.partition(":")
        if ":" in port_text:  # an IPv6 literal without brackets is not a URL host
            raise ValueError(hostport)
    port = int(port_text) if port_text else default_port
    if not host or not 0 < port < 65536 or (not port_text.isdigit() and port_text):
        raise ValueError(hostport)
    return host, port


def split_url(url: str) -> tuple[str, str, int, str]:
    """``http://h:p/path?q`` -> (scheme, host, port, path-with-query)."""
    shown = shown_url(url)
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        # sent as it is, a line break would end the request line and start a header of its own
        raise BackendError("config", f"the server URL {shown!r} holds a space or a line break")
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise BackendError("config", f"unsupported server URL {shown!r} (need http:// or https://)")
    hostport, slash, path = rest.partition("/")
    hostport, _, _fragment = hostport.partition("#")
    hostport, question, query = hostport.partition("?")
    path = "/" + path if slash else "/"
    if question:
        path = "/?" + query
    if "@" in hostport:
        raise BackendError("config", "credentials in the server URL are not supported")
    try:
        host, port = split_hostport(hostport, 443 if scheme == "https" else 80)
    except ValueError:
        raise BackendError("config", f"bad host or port in server URL {shown!r}") from None
    return scheme, host.lower(), port, path.partition("#")[0]


def shown_url(url: str) -> str:
    """``url`` as messages and status show it: no user information, query or fragment
    (each may carry a credential)."""
    scheme, sep, rest = url.partition("://")
    hostport, slash, path = rest.partition("/") if sep else (url, "", "")
    hostport = hostport.rsplit("@", 1)[-1]
    for mark in ("?", "#"):
        hostport, path = hostport.split(mark, 1)[0], path.split(mark, 1)[0]
    return f"{scheme}{sep}{hostport}{slash}{path}" if sep else hostport + slash + path


def host_header(scheme: str, host: str, port: int) -> str:
    """The ``Host`` value: IPv6 literals in brackets (RFC 9110 §7.2), default ports left out."""
    shown = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    return shown if port == default else f"{shown}:{port}"


def origin_url(scheme: str, host: str, port: int) -> str:
    return f"{scheme}://{host_header(scheme, host, port)}"


def resolve(base: str, location: str) -> str:
    """``Location`` against the request URL (absolute, ``//host``, ``/path`` or relative)."""
    if "://" in location.split("?", 1)[0]:
        return location
    scheme, host, port, path = split_url(base)
    if location.startswith("//"):
        return f"{scheme}:{location}"
    if location.startswith("/"):
        return origin_url(scheme, host, port) + location
    directory = path.split("?", 1)[0].rsplit("/", 1)[0]
    return f"{origin_url(scheme, host, port)}{directory}/{location}"


def unquote(text: str) -> str:
    """Percent-decoding (for proxy credentials)."""
    if "%" not in text:
        return text
    out = bytearray()
    i = 0
    raw = text.encode()
    while i < len(raw):
        if raw[i] == 0x25 and _is_hex(raw[i + 1 : i + 3]):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def _is_hex(pair: bytes) -> bool:
    return len(pair) == 2 and all(c in b"0123456789abcdefABCDEF" for c in pair)
