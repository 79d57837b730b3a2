"""Project identity: which project peer a folder's memories belong to, and why.

In order, the first that gives an id wins:

1. ``actor_peer`` in the settings (``OPENVIKING_ACTOR_PEER_ID``, config file);
2. the local, uncommitted overrides ``.ovhooks.local.toml`` then ``.openviking/config.local.json``;
3. the committed ``.ovhooks.toml`` then ``.openviking/config.json`` (the OpenViking plugins'
   workspace file, read so one repository configures both);
4. the normalized git remote (``origin``; ``github.com/org/repo`` -> ``github-com-org-repo``),
   so every clone of a repository, over ssh or https, on any machine, shares one peer;
5. the project path (``/srv/src/widget`` -> ``-srv-src-widget``), as before.

The files may set ``[project] id``, ``source`` (``git`` or ``path``) and ``remote`` (which remote
names the project; default ``origin``). A committed file is shared with everyone who clones the
repository, so an entry there that looks like a credential or a URL is refused with a warning.

When the identity is not the path, the path-based peer is kept as ``legacy_peer``: memories
captured before the identity moved stay there and recall still reads them (see
:mod:`ovhooks.project.legacy`).
"""

from __future__ import annotations

import os

from ovhooks.ids import project_peer, project_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOCAL_FILES = (".ovhooks.local.toml", ".openviking/config.local.json")
COMMITTED_FILES = (".ovhooks.toml", ".openviking/config.json")
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "credential", "auth", "bearer")
_URL_WORDS = ("url", "endpoint", "server", "host")


class ProjectIdentity:
    __slots__ = ("legacy_peer", "peer", "remote", "root", "source", "warnings")

    def __init__(
        self,
        peer: str,
        source: str,
        root: str,
        *,
        remote: str = "",
        legacy_peer: str = "",
        warnings: tuple[str, ...] = (),
    ) -> None:
        self.peer = peer
        self.source = source  # human words: where the id came from
        self.root = root
        self.remote = remote  # the normalized remote, when the id came from one
        self.legacy_peer = legacy_peer  # the path-based peer, when it differs from ``peer``
        self.warnings = warnings

    def as_dict(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "source": self.source,
            "root": self.root,
            "remote": self.remote,
            "legacy_peer": self.legacy_peer,
            "warnings": list(self.warnings),
        }


def peer_from_remote(normalized: str) -> str:
    return project_peer(normalized)


def strip_credentials(url: str) -> str:
    """A remote URL fit to show: ``https://user:tok@host/x`` -> ``https://host/x``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


def _looks_secret(key: str, value: object) -> str:
    """Why a committed entry is refused, or ``""``."""
    name = key.lower()
    if isinstance(value, str):
        if "://" in value or value.lower().startswith(("git@", "www.")):
            return "a URL"
        if value.startswith("${"):
            return "a variable reference"
    if any(word in name for word in _SECRET_WORDS):
        return "a credential"
    if any(word in name for word in _URL_WORDS):
        return "a URL"
    return ""


def _flatten(data: object, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict):
                out.update(_flatten(value, name))
            else:
                out[name] = value
    return out


def _read_file(path: str) -> dict[str, object] | None:
    """The file's entries flattened (``project.id``), ``None`` when absent; raises ValueError."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(1 << 20)
    except OSError:
        return None
    if path.endswith(".toml"):
        from ovhooks.settings.toml_plain import loads

        try:
            data: object = loads(raw, errors="replace")
        except ValueError as exc:  # tomllib's TOMLDecodeError
            raise ValueError(f"not valid TOML ({exc})") from None
    else:
        import json

        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("not a table of settings")
    flat = _flatten(data)
    # The OpenViking workspace file names the same things ``peer.id`` / ``peer.source``.
    for ours, theirs in (("id", "peer.id"), ("source", "peer.source"), ("remote", "peer.remote")):
        if theirs in flat and f"project.{ours}" not in flat:
            flat[f"project.{ours}"] = flat[theirs]
    return flat


def _layers(root: str, warnings: list[str]) -> list[tuple[str, dict[str, object]]]:
    """``(file, project entries)`` from the override files, strongest first."""
    layers: list[tuple[str, dict[str, object]]] = []
    for name in (*LOCAL_FILES, *COMMITTED_FILES):
        path = os.path.join(root, name)
        try:
            flat = _read_file(path)
        except ValueError as exc:
            warnings.append(f"{name} ignored: {exc}")
            continue
        if flat is None:
            continue
        if name in COMMITTED_FILES:
            for key in sorted(flat):
                why = _looks_secret(key.rpartition(".")[2], flat[key])
                if why:
                    warnings.append(
                        f"{name}: '{key}' refused: a committed file may not carry {why} "
                        f"(put it in {LOCAL_FILES[0]} or the user config)"
                    )
                    del flat[key]
        entries = {k[len("project.") :]: v for k, v in flat.items() if k.startswith("project.")}
        if entries:
            layers.append((name, entries))
    return layers


def resolve(cwd: str, *, actor_peer: str = "") -> ProjectIdentity:
    """The project identity for ``cwd`` (never raises; problems become ``warnings``)."""
    root = project_root(cwd)
    path_peer = project_peer(root) if root else ""
    if actor_peer:
        return ProjectIdentity(actor_peer, "setting actor_peer (OPENVIKING_ACTOR_PEER_ID)", root)
    if not root:
        return ProjectIdentity("", "no project folder", root)
    warnings: list[str] = []
    try:
        layers = _layers(root, warnings)
    except OSError:
        layers = []
    wanted_source, remote_name = "", "origin"
    for name, entries in layers:
        explicit = entries.get("id")
        if isinstance(explicit, str) and project_peer(explicit.strip()).strip("-"):
            peer = project_peer(explicit.strip())
            legacy = path_peer if path_peer != peer else ""
            return ProjectIdentity(
                peer, f"{name} project.id", root, legacy_peer=legacy, warnings=tuple(warnings)
            )
        source = entries.get("source")
        if not wanted_source and isinstance(source, str) and source:
            wanted_source = f"{source.strip().lower()}@{name}"
        remote = entries.get("remote")
        if remote_name == "origin" and isinstance(remote, str) and remote.strip():
            remote_name = remote.strip()
    source, _at, source_file = wanted_source.partition("@")
    if source == "path":
        return ProjectIdentity(
            path_peer, f"project path ({source_file} source=path)", root, warnings=tuple(warnings)
        )
    if source not in ("", "git"):
        warnings.append(f"{source_file}: source '{source}' unknown (use git or path)")
    return _from_git(root, path_peer, remote_name, warnings)


def _from_git(root: str, path_peer: str, remote_name: str, warnings: list[str]) -> ProjectIdentity:
    from ovhooks.project.remote import apply_rewrites, normalize_remote, origin_of, remotes_of

    if remote_name == "origin":
        name, url = origin_of(root)
    else:
        remotes, rewrites = remotes_of(root)
        name, url = remote_name, apply_rewrites(remotes.get(remote_name, ""), rewrites)
        if not url:
            warnings.append(f"remote '{remote_name}' not found in the git config")
    normalized = normalize_remote(url, root) if url else ""
    if normalized.startswith("file"):
        normalized = ""  # a local mirror names no shared repository: keep the path
    if not normalized:
        return ProjectIdentity(path_peer, "project path", root, warnings=tuple(warnings))
    peer = peer_from_remote(normalized)
    return ProjectIdentity(
        peer,
        f"git remote {name} ({strip_credentials(url)})",
        root,
        remote=normalized,
        legacy_peer=path_peer if path_peer != peer else "",
        warnings=tuple(warnings),
    )
