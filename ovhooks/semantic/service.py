"""``ovhooks _embedd``: the per-user embedding service (see ``ovhooks.semantic``).

One process per user and model version: it holds an exclusive lock beside its socket, so a
second start exits at once. The socket's folder is 0700 and the socket 0600 (it answers what
the user's memories say). Requests are one JSON line each, answered in turn on one thread;
between requests the pending rows of the stores it was asked about are embedded a small
batch at a time. A request for another protocol or model version is refused and the service
exits (an upgraded ovhooks starts its own). It exits after ``--idle`` seconds without a
request once nothing is pending, and removes its socket. It exits within a few seconds
(``HOME_EVERY_S``) of losing its folder, lock file or socket (a deleted temporary home), and
then writes nothing there.

The model loads in a thread after the socket is up, so a hook asking meanwhile is told
``loading`` at once and answers lexically.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import contextlib  # noqa: E402
import fcntl  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from ovhooks.fsutil import ensure_dir  # noqa: E402
from ovhooks.semantic import (  # noqa: E402
    MODEL_KEY,
    PROTOCOL,
    lock_path,
    service_dir,
    socket_path,
    status_path,
)
from ovhooks.semantic.home import Home, bind, identity  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.semantic.answers import DocVectors
    from ovhooks.semantic.index import RemoteBatch, StoreIndex
    from ovhooks.semantic.model import Embedder

_READ_TIMEOUT_S = 1.0
_MAX_REQUEST = 1 << 20
_STATUS_EVERY_S = 5.0
_PENDING_EVERY_S = 3.0


class Service:
    def __init__(self, state_dir: str, idle_s: float) -> None:
        from ovhooks.log import Log
        from ovhooks.semantic.answers import Stores
        from ovhooks.semantic.remote import spec_from
        from ovhooks.semantic.serving import Models
        from ovhooks.settings.config import load_settings

        self.state_dir = state_dir
        self.idle_s = idle_s
        self.log = Log(state_dir, "info", component="embedd")
        self.stores = Stores()
        self.doc_vectors: dict[str, DocVectors] = {}
        # The user's own model, as the settings this service started with name it.
        self.models = Models(state_dir, spec_from(load_settings(os.environ)), self.log)
        self.last_request = time.monotonic()
        self.stop = False
        self.status_at = 0.0
        self.pending_at = 0.0
        self.pending_total = 0
        self.force_count = False
        self.started = time.time()
        self.remote_batch: RemoteBatch | None = None

    # --- model ------------------------------------------------------------------------------
    def load(self) -> None:
        self.models.load()
        self.write_status(force=True)

    def place(self, path: str, index: StoreIndex) -> Embedder | None:
        """The model that answers for this store now; its vectors are loaded on the next
        refresh when it is another than the loaded one."""
        remote = self.models.remote
        waiting = -1 if remote is None else self.stores.counts.get((path, remote.key), -1)
        encoder = self.models.serving(waiting)
        if encoder is not None and index.model != encoder.key:
            index.model = encoder.key
            index.version = None
        return encoder

    # --- requests ---------------------------------------------------------------------------
    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        version, model = request.get("v"), request.get("model")
        if not isinstance(version, int) or not isinstance(model, str):
            return {"ok": False, "error": "bad_request"}  # not a client of any version
        if version != PROTOCOL or model != MODEL_KEY:
            self.stop = True  # another ovhooks version asks: it starts a service of its own
            return {"ok": False, "error": "version", "model": MODEL_KEY, "v": PROTOCOL}
        op = request.get("op")
        if op == "ping":
            return {"ok": True, **self.status()}
        if op == "stop":
            self.stop = True
            return {"ok": True}
        db = str(request.get("db") or "")
        if db:
            self.stores.get(db)  # remembered for indexing even while the model loads
        if op == "index":
            self.pending_at = 0.0
            self.force_count = True
            return {"ok": True}
        if op not in ("search", "score"):
            return {"ok": False, "error": "unknown_op"}
        from ovhooks.semantic.remote import RemoteError

        try:
            return self.embedded(op, request)
        except RemoteError as exc:  # the user's endpoint failed: the bundled model answers
            self.models.fail(str(exc))
            return self.embedded(op, request)

    def embedded(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        from ovhooks.semantic import answers

        if op == "score":
            encoder = self.models.for_texts()
            if encoder is None:
                return {"ok": False, "error": self.models.state}
            cache = self.doc_vectors.get(encoder.key)
            if cache is None:
                cache = self.doc_vectors[encoder.key] = answers.DocVectors(answers.CACHED_DOCS)
            probes = self.models.probes[encoder.key]
            return {**answers.score(request, encoder, probes, cache), "embed_model": encoder.key}
        index = self.stores.get(str(request.get("db") or ""))
        encoder = self.place(index.path, index) if index is not None else self.models.bundled
        if encoder is None:
            return {"ok": False, "error": self.models.state}
        reply = answers.search(request, encoder, self.stores, self.models.probes[encoder.key])
        return {**reply, "embed_model": encoder.key}

    def handle(self, conn: socket.socket) -> None:
        # One deadline for the whole request, not one per read: a client sending a byte now
        # and then (or nothing) held every other client up for as long as it liked. A hook
        # sends its request whole as soon as it connects.
        deadline = time.monotonic() + _READ_TIMEOUT_S
        data = b""
        try:
            while not data.endswith(b"\n") and len(data) < _MAX_REQUEST:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                conn.settimeout(left)
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            conn.settimeout(_READ_TIMEOUT_S)
            try:
                request = json.loads(data)
            except (ValueError, RecursionError):
                request = None
            if isinstance(request, dict):
                try:
                    reply = self.answer(request)
                except Exception as exc:  # one bad request must not end the service
                    self.log.error("semantic_request_failed", error=f"{type(exc).__name__}")
                    reply = {"ok": False, "error": "internal"}
            else:
                reply = {"ok": False, "error": "bad_request"}
            conn.sendall(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
        except OSError:
            pass
        finally:
            conn.close()
        self.last_request = time.monotonic()

    def reread_settings(self) -> None:
        """config.toml may name another model now (the environment the service started
        with cannot change: a variable set later takes effect with the next service)."""
        from ovhooks.semantic.remote import spec_from
        from ovhooks.settings.config import load_settings

        if self.models.configure(spec_from(load_settings(os.environ))):
            self.pending_at = 0.0  # count the new model's pending rows now

    # --- background work --------------------------------------------------------------------
    def index_some(self) -> bool:
        """Embed one batch of pending rows; whether any work was done."""
        self.models.retry_due()
        kept = self.models.kept()
        if not kept:
            return False
        from ovhooks.semantic.answers import refresh, update_pending
        from ovhooks.semantic.vectors import ensure_table

        for path, index in self.stores.open.items():
            # Another connection wrote (a commit, a forget), this service embedded new rows,
            # or another model now serves the store: reload between requests, so a prompt
            # never waits for it (it is answered from the previous load meanwhile).
            encoder = self.place(path, index)
            if encoder is not None and (index.version is not None or index.rows):
                waiting = self.stores.counts.get((path, index.model), 0)
                refresh(index, self.models.probes[encoder.key], pending=waiting)
        now = time.monotonic()
        if now - self.pending_at >= _PENDING_EVERY_S:
            for index in self.stores.open.values():
                ensure_table(index.con)
            models = tuple(encoder.key for encoder in kept)
            self.pending_total = update_pending(self.stores, force=self.force_count, models=models)
            self.pending_at = now
            self.force_count = False
        if self.pending_total <= 0:
            return False
        return self.embed_batch(kept)

    def embed_batch(self, kept: list[Embedder]) -> bool:
        """One batch for the first store and model with rows waiting (the bundled model
        first: a new row is found by it at once while the user's model catches up). The
        user's model embeds on a thread of its own, one batch at a time: its endpoint may
        take seconds a batch, and on this loop every prompt waited for it (0 of 25 answered
        in time while a 1.5 s endpoint backfilled)."""
        from ovhooks.semantic.index import embed_pending

        if self.remote_batch is not None and not self.remote_batch.is_alive():
            self._settle_remote_batch(self.remote_batch)
            self.remote_batch = None
        counts = self.stores.counts
        for path, index in self.stores.open.items():
            for encoder in kept:
                if counts.get((path, encoder.key), 0) <= 0:
                    continue
                if encoder is not self.models.bundled:
                    if self.remote_batch is None:
                        from ovhooks.semantic.index import RemoteBatch

                        self.remote_batch = RemoteBatch(path, encoder)
                        self.remote_batch.start()
                    continue
                done = embed_pending(index.con, encoder.encode_docs, model=encoder.key)
                self._count_done(path, encoder.key, done)
                if done:
                    return True
        return False

    def _settle_remote_batch(self, batch: RemoteBatch) -> None:
        from ovhooks.semantic.remote import failure_text

        if batch.error is not None:
            self.models.fail(failure_text(batch.error))
            return
        index = self.stores.open.get(batch.path)
        if index is not None and batch.encoder.key == index.model:
            index.stale = index.stale or batch.done > 0
        # Counted again from the store, not by subtraction: the count may have been read
        # while the batch was being written, and a count gone to 0 too soon switched the
        # store to a model that had not embedded every row.
        self.pending_at, self.force_count = 0.0, True

    def _count_done(self, path: str, key: str, done: int) -> None:
        counts = self.stores.counts
        index = self.stores.open.get(path)
        if index is not None and key == index.model:
            index.stale = index.stale or done > 0
        waiting = counts.get((path, key), 0)
        left = max(0, waiting - done) if done else 0
        self.pending_total = max(0, self.pending_total - waiting + left)
        self.stores.pending[path] = max(0, self.stores.pending.get(path, 0) - waiting + left)
        counts[(path, key)] = left

    def status(self) -> dict[str, Any]:
        from ovhooks.semantic.answers import rss_mib, store_summary

        texts = self.models.for_texts()
        return {
            "pid": os.getpid(),
            "model": MODEL_KEY,
            "state": self.models.state,
            "error": self.models.error,
            "rss_mib": rss_mib(),
            "pending": self.pending_total,
            "stores": store_summary(self.stores),
            "started": self.started,
            "at": time.time(),
            "idle_s": self.idle_s,
            # added with the user's own model (older readers ignore them): who answers texts
            # sent with a request, and the endpoint's state and calibration
            "serving": "" if texts is None else texts.key,
            "embed": self.models.describe(),
        }

    def status_due(self) -> bool:
        return time.monotonic() - self.status_at >= _STATUS_EVERY_S

    def write_status(self, *, force: bool = False, state: str | None = None) -> None:
        now = time.monotonic()
        if not force and now - self.status_at < _STATUS_EVERY_S:
            return
        self.status_at = now
        doc = self.status()
        if state:
            doc["state"] = state
        from ovhooks.fsutil import write_json_atomic

        path = status_path(self.state_dir)
        if not os.path.isdir(os.path.dirname(path)):
            # the folder was deleted (the loading thread writes too, between the main loop's
            # checks): writing would make it again, for a service that is about to leave
            return
        with contextlib.suppress(OSError):
            write_json_atomic(path, doc, durable=False)

    def idle(self) -> bool:
        quiet = time.monotonic() - self.last_request
        return quiet >= self.idle_s and (self.pending_total <= 0 or not self.models.kept())


def serve(state_dir: str, idle_s: float, dbs: list[str]) -> int:
    os.umask(0o077)
    folder = service_dir(state_dir)
    ensure_dir(folder)
    lock_fd = os.open(lock_path(state_dir), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another service of this model version runs for this user
    path = socket_path(state_dir)
    server = bind(path)
    home = Home(folder, lock_path(state_dir), path)
    service = Service(state_dir, idle_s)
    for db in dbs:
        service.stores.get(db)
    threading.Thread(target=service.load, daemon=True).start()
    service.write_status(force=True)
    orphan = ""
    try:
        while not service.stop:
            try:
                busy = service.index_some()
            except Exception as exc:  # a store or model fault: the service keeps answering
                service.log.error("semantic_index_failed", error=type(exc).__name__)
                busy = False
            # While the user's model embeds a batch on its thread, look back soon for its end.
            server.settimeout(0.0 if busy else 0.05 if service.remote_batch else 0.5)
            try:
                conn, _addr = server.accept()
            except (BlockingIOError, TimeoutError):
                if not busy and service.idle():
                    break
            else:
                service.handle(conn)
            # Checked before the status is written too: writing it would make the deleted
            # folder again.
            if (home.due() or service.status_due()) and (orphan := home.lost()):
                break
            if service.status_due():
                service.reread_settings()
            service.write_status()
    finally:
        with contextlib.suppress(OSError):
            if identity(path) == home.marks[2]:
                os.unlink(path)
        server.close()
        if not orphan:  # an orphan writes nothing: that would make its deleted home again
            service.write_status(force=True, state="stopped")
        os.close(lock_fd)
    return 0


def main(argv: list[str]) -> int:
    state_dir = ""
    idle_s = 1800.0
    dbs: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--state-dir":
            state_dir = next(it, "")
        elif arg == "--idle":
            idle_s = float(next(it, "1800"))
        elif arg == "--db":
            dbs.append(next(it, ""))
    if not state_dir:
        return 2
    return serve(state_dir, idle_s, [d for d in dbs if d])
