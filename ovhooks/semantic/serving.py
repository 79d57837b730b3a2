"""Which model the embedding service answers with: the bundled one, or the user's own behind
an endpoint (``remote``) once it answers and has embedded the store.

The bundled model is always loaded and its vectors kept current: it serves while the user's
model embeds a store in the background (resumably: its vectors are kept per model), and at
once when the endpoint stops answering. That failure is logged once (until the endpoint
answers again), is retried every ``RETRY_S`` in a thread, and never fails a request: the
request is answered by the bundled model.

On first use the user's model is calibrated against the probes (``model.PROBES``): their
vectors are what "unrelated" looks like for it, read per store exactly as for the bundled
model. A summary of them (dimensions, the probes' mean and spread of cosine among
themselves per script) is kept per model in ``calibration.json`` beside the socket, for
``status`` and ``doctor``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

import numpy as np

from ovhooks.lexical.text import script_of
from ovhooks.semantic import service_dir
from ovhooks.semantic.model import PROBES
from ovhooks.semantic.remote import BATCH_TIMEOUT_S, RemoteEncoder, failure_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.log import Log
    from ovhooks.semantic.model import Embedder, Encoder
    from ovhooks.semantic.remote import EmbedSpec

RETRY_S = 60.0


def calibration_path(state_dir: str) -> str:
    return os.path.join(service_dir(state_dir), "calibration.json")


def probe_summary(vectors: np.ndarray) -> dict[str, Any]:
    """What the probes say about a model: its dimensions and, per script, the mean and
    spread of the cosine between two different probes (an unrelated pair's level)."""
    scripts = np.array([script_of(p) for p in PROBES])
    out: dict[str, Any] = {"dim": int(vectors.shape[1])}
    for script in ("en", "zh"):
        chosen = vectors[scripts == script]
        sims = chosen @ chosen.T
        pairs = sims[~np.eye(chosen.shape[0], dtype=bool)]
        mean, spread = round(float(pairs.mean()), 4), round(float(pairs.std()), 4)
        out[script] = {"mean": mean, "spread": spread}
    return out


class Models:
    """The bundled encoder, the user's (if configured), their probe vectors and state."""

    def __init__(self, state_dir: str, spec: EmbedSpec | None, log: Log) -> None:
        self.state_dir = state_dir
        self.log = log
        self.bundled: Encoder | None = None
        self.state = "loading"
        self.error = ""
        self.remote = RemoteEncoder(spec) if spec is not None else None
        self.remote_state = "off" if spec is None else "checking"
        self.remote_error = ""
        self.retry_at = 0.0
        self.checking = False
        self.probes: dict[str, np.ndarray] = {}
        self.calibration: dict[str, Any] = {}

    def load(self) -> None:
        """Load the bundled model, then calibrate the user's (in the service's load thread)."""
        try:
            from ovhooks.semantic.model import Encoder

            encoder = Encoder()
            self.probes[encoder.key] = encoder.encode(list(PROBES))
            self.bundled = encoder
            self.state = "warm"
        except Exception as exc:  # a broken model: hooks answer lexically
            self.error = f"{type(exc).__name__}: {exc}"[:300]
            # Logged before the state turns, so whoever sees "broken" finds the entry too.
            self.log.error("semantic_model_unavailable", error=self.error)
            self.state = "broken"
        if self.remote is not None:
            self.checking = True
            self.check_remote()

    def configure(self, spec: EmbedSpec | None) -> bool:
        """Take the settings' model now (config.toml changed under a running service); the
        bundled model serves until the new one has embedded each store. Whether it changed."""
        now = self.remote.spec if self.remote is not None else None
        if (spec is None and now is None) or (
            spec is not None and now is not None and (spec.key, spec.url) == (now.key, now.url)
        ):
            return False
        self.log.info("semantic_model_configured", model=spec.key if spec else "bundled")
        self.remote = RemoteEncoder(spec) if spec is not None else None
        self.remote_state, self.remote_error = ("off" if spec is None else "checking"), ""
        if spec is not None and self.state != "loading":  # else the load thread checks it
            self.checking = True
            threading.Thread(target=self.check_remote, daemon=True).start()
        return True

    def check_remote(self) -> None:
        """Encode the probes with the user's model: its calibration on first use, and the
        sign that a failed endpoint answers again."""
        remote = self.remote
        if remote is None:
            self.checking = False
            return
        # The check learns the model's dimension afresh: a model that changed behind the
        # same name (Ollama's tag moved) answers in another one from now on, and its stored
        # vectors are replaced as rows are embedded again (index.embed_pending).
        remote.dim = 0
        try:
            vectors = remote.encode(list(PROBES), BATCH_TIMEOUT_S)
        except Exception as exc:  # any answer this code did not foresee is a failed endpoint
            if self.remote is remote:
                self.fail(failure_text(exc))
            return
        finally:
            self.checking = False
        if self.remote is not remote:
            return  # configured away meanwhile
        self.probes[remote.key] = vectors
        self.calibration[remote.key] = probe_summary(vectors)
        self._save_calibration()
        if self.remote_state == "unreachable":
            self.log.info("semantic_endpoint_back", model=remote.key)
        self.remote_state, self.remote_error = "ok", ""

    def fail(self, error: str) -> None:
        """The endpoint failed: the bundled model serves; logged once per outage."""
        if self.remote_state != "unreachable":
            model = self.remote.key if self.remote is not None else ""
            self.log.error("semantic_endpoint_unreachable", model=model, error=error[:300])
        self.remote_state, self.remote_error = "unreachable", error[:300]
        self.retry_at = time.monotonic() + RETRY_S

    def retry_due(self) -> None:
        """Try a failed endpoint again, in a thread, once ``RETRY_S`` has passed."""
        if self.remote_state != "unreachable" or self.checking:
            return
        if time.monotonic() < self.retry_at:
            return
        self.checking = True
        threading.Thread(target=self.check_remote, daemon=True).start()

    def kept(self) -> list[Embedder]:
        """The encoders whose vectors are kept current, the bundled one first (new rows are
        found by it at once while the user's model catches up)."""
        out: list[Embedder] = [] if self.bundled is None else [self.bundled]
        if self.remote is not None and self.remote_state == "ok":
            out.append(self.remote)
        return out

    def serving(self, remote_pending: int) -> Embedder | None:
        """Who answers for a store: the user's model once it answers and every row has its
        vector (``remote_pending`` 0), else the bundled one (``None``: neither can)."""
        if self.remote is not None and self.remote_state == "ok" and remote_pending == 0:
            return self.remote
        return self.bundled

    def for_texts(self) -> Embedder | None:
        """Who scores texts sent with a request (no store to wait for)."""
        return self.serving(0)

    def describe(self) -> dict[str, Any]:
        if self.remote is None:
            return {"state": "off"}
        return {
            **self.remote.spec.describe(),
            "key": self.remote.key,
            "state": self.remote_state,
            "error": self.remote_error,
            "calibration": self.calibration.get(self.remote.key),
        }

    def _save_calibration(self) -> None:
        from ovhooks.fsutil import read_json, write_json_atomic

        path = calibration_path(self.state_dir)
        try:
            doc = read_json(path)
        except (OSError, ValueError):
            doc = {}
        stored = dict(doc) if isinstance(doc, dict) else {}
        for key, summary in self.calibration.items():
            stored[key] = {**summary, "at": round(time.time(), 3)}
        if not os.path.isdir(service_dir(self.state_dir)):
            return  # the service's home is gone: it is leaving, and makes nothing again
        with contextlib.suppress(OSError):
            write_json_atomic(path, stored, durable=False)
