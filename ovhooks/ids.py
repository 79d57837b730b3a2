"""Session ids and project peers (interface §4)."""

from __future__ import annotations

import os

# The shape of every host's session prefix (``HostSpec.session_prefix``: cx-, cc-, gm-, ...;
# ``ov-`` for a host without one): two lowercase letters and a dash. The scrubber (a layer
# below the hosts) reads this shape so no host's session keys are taken for secrets in the
# log; tests/hosts/test_registry.py holds every host's prefix to it.
SESSION_KEY_PREFIX = "[a-z]{2}-"
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_PEER_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def safe_id(text: str) -> str:
    """Replace every character outside ``[A-Za-z0-9._-]`` with ``_`` (the server does not)."""
    return "".join(ch if ch in _SAFE else "_" for ch in text)


# Longest session key kept as the host's id: state files are named after the key (with a
# subagent's ``.sub-<40>`` and a suffix or two), and a file name holds 255 bytes at most.
MAX_KEY_CHARS = 160


def prefixed_session_id(prefix: str, host_session_id: str) -> str:
    """``<host's prefix><host's id>`` (``cx-``, ``cc-``: ``HostSpec.session_prefix``), the same
    ids the JavaScript plugins used; ``ov-`` when the host has none. A longer id keeps its
    first 100 characters and a stable hash of the whole, so no file name outgrows the limit
    and two long ids never share a session."""
    key = (prefix or "ov-") + safe_id(host_session_id)
    if len(key) <= MAX_KEY_CHARS:
        return key
    import hashlib

    digest = hashlib.sha256(host_session_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"{key[:100]}-{digest}"


def subagent_session_id(parent_ov_session_id: str, agent_id: str) -> str:
    """A subagent's own session, derived from the parent session and the agent id.

    Bounded in length: a long parent id plus a long agent id would make an awkward path, so
    the agent part is shortened to a stable hash when needed.
    """
    agent = safe_id(agent_id) or "agent"
    if len(agent) > 40:
        import hashlib

        agent = hashlib.sha256(agent_id.encode("utf-8")).hexdigest()[:16]
    return f"{parent_ov_session_id}.sub-{agent}"


def project_root(cwd: str) -> str:
    """The git root containing ``cwd`` (a ``.git`` dir or file), else ``cwd`` itself."""
    path = os.path.abspath(cwd) if cwd else ""
    if len(path) > 4096:  # longer than PATH_MAX: no such directory, and no walk up it
        return path
    probe = path
    while probe:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return path


def project_peer(project_dir: str) -> str:
    """The workspace peer id: the project path with every non-alphanumeric char as ``-``.

    Same rule as the JavaScript plugins, so memories a user already has stay in their peer.
    """
    return "".join(ch if ch in _PEER_SAFE else "-" for ch in project_dir)
