"""An embedding endpoint on loopback for the service's tests: Ollama's ``/api/embed`` or an
OpenAI-shaped ``/v1/embeddings``, answering hashed bag-of-words vectors (texts sharing words
are near, others far: enough to tell which stored row a prompt names).

It records each request's texts and ``Authorization`` header, can wait ``delay_s`` before
each answer (a slow model, so a test sees the bundled model serve meanwhile), and answers
HTTP 500 while ``failing`` is set.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 64


def bag_of_words(text: str, dim: int = DIM) -> list[float]:
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vector[int.from_bytes(digest, "big") % dim] += 1.0
    vector[0] += 0.1  # never all zero
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


class EmbedStub:
    def __init__(self, api: str = "ollama", delay_s: float = 0.0) -> None:
        self.api = api
        self.delay_s = delay_s
        self.failing = False
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                texts = body.get("input")
                texts = [texts] if isinstance(texts, str) else list(texts or [])
                with stub.lock:
                    stub.requests.append(
                        {
                            "path": self.path,
                            "model": body.get("model"),
                            "texts": texts,
                            "authorization": self.headers.get("Authorization", ""),
                        }
                    )
                if stub.delay_s:
                    threading.Event().wait(stub.delay_s)
                if stub.failing or self.path != stub.path:
                    self.send_response(500 if stub.failing else 404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                vectors = [bag_of_words(t) for t in texts]
                if stub.api == "ollama":
                    answer: dict[str, Any] = {"model": body.get("model"), "embeddings": vectors}
                else:
                    data = [{"index": i, "embedding": v} for i, v in enumerate(vectors)]
                    answer = {"object": "list", "data": data[::-1]}  # order by index, not place
                raw = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def path(self) -> str:
        return "/api/embed" if self.api == "ollama" else "/v1/embeddings"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{self.path}"

    def start(self) -> EmbedStub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def texts(self) -> list[str]:
        with self.lock:
            return [t for r in self.requests for t in r["texts"]]
