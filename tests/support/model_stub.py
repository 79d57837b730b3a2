"""A deterministic OpenAI-compatible model stub for running OpenViking offline in tests.

OpenViking 0.5.2 needs an embedding endpoint to start at all and a chat endpoint to extract
memories. This stub serves both on loopback, using only the standard library:

- ``POST /v1/embeddings``: hashed bag-of-words vectors (lowercase words and single CJK
  characters), L2-normalised, so texts sharing words score high and unrelated texts sit at
  cosine ~0 (OpenViking reports that as ~0.5).
- ``POST /v1/chat/completions``: OpenViking's memory-extraction prompt gets a well-formed
  answer in its restricted Python DSL, built from the user lines of the conversation; any
  other prompt (working-memory notes, query planner, summaries) gets short plain text.
- ``GET /health``.

Run standalone with ``python -m tests.support.model_stub PORT [DIMENSION]``.

The pure parts (tokenising, embedding, conversation parsing, DSL building) are plain functions
so they can be tested without a socket; :class:`RecordingServer` is the shared HTTP plumbing
that the host stubs (``tests.support.host_stubs``) reuse.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

DEFAULT_DIMENSION = 384
EXTRACTION_MARKER = "memory extraction and maintenance agent"
# OpenViking 0.5.2 batches the patches of several extractions and asks for them merged.
MERGE_MARKER = "memory patch merge agent"
_PATCH_RE = re.compile(r"^Patch \d+\s*$", re.MULTILINE)
_PATCH_FIELD_RE = re.compile(r"^  (\w+):\s*$")

# Words and single CJK ideographs/kana/hangul; CJK has no spaces, so each character is a token.
_TOKEN_RE = re.compile(
    r"[a-z0-9_]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# One message of OpenViking's "## Conversation History" block: "[idx][role][speaker]: body".
_MESSAGE_HEADER_RE = re.compile(r"^\[(\d+)\]\[([a-z_]+)\]\[[^\]\n]*\]: ?", re.MULTILINE)
_PREFERENCE_CUES = (
    "remember",
    "always",
    "never",
    "prefer",
    "i like",
    "i use",
    "don't",
    "do not",
    "记住",
    "总是",
    "一直",
    "永远",
    "从不",
    "不要",
    "喜欢",
    "偏好",
)
_LEADING_CUE_RE = re.compile(r"^\s*(please\s+)?(remember|note)\s*(that)?\s*[:,\-]?\s*", re.I)
# Kept as text: a one-word-per-line literal would be 80 lines of noise.
_STOPWORD_TEXT = """
a an the and or but if then so to of in on at for from with by as is are was were be
been am i me my we our you your it its this that these those there here do does did don
t not no never always remember please note use uses using used like prefer prefers want
should would could will can just also about into over than very repo project"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


# ---------------------------------------------------------------------------------------
# Pure logic
# ---------------------------------------------------------------------------------------


def tokenize(text: str) -> list[str]:
    """Lowercase words and single CJK characters, in order."""
    return _TOKEN_RE.findall(text.lower())


def _bucket(token: str, dimension: int) -> tuple[int, float]:
    # blake2b, not hash(): Python's string hash is salted per process and vectors must be
    # identical across the stub's restarts (OpenViking persists them).
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % dimension, (1.0 if (value >> 63) & 1 else -1.0)


def embed(text: str, dimension: int = DEFAULT_DIMENSION) -> list[float]:
    """A deterministic, L2-normalised hashed bag-of-words vector."""
    vector = [0.0] * dimension
    for token in tokenize(text):
        index, sign = _bucket(token, dimension)
        vector[index] += sign
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        # Empty text still needs a valid unit vector; a fixed axis keeps it deterministic.
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


def parse_conversation(prompt_text: str) -> list[tuple[str, str]]:
    """(role, body) pairs from the "## Conversation History" block of an extraction prompt."""
    headers = list(_MESSAGE_HEADER_RE.finditer(prompt_text))
    messages: list[tuple[str, str]] = []
    for position, header in enumerate(headers):
        end = headers[position + 1].start() if position + 1 < len(headers) else len(prompt_text)
        body = prompt_text[header.end() : end]
        # The last message is followed by the prompt's closing instruction paragraph.
        body = body.split("\n\nAfter exploring, analyze the conversation", 1)[0]
        messages.append((header.group(2), body.strip()))
    return messages


def states_preference(line: str) -> bool:
    lowered = line.lower()
    return any(cue in lowered for cue in _PREFERENCE_CUES)


def topic_for(text: str) -> str:
    """A short snake_case topic from the content words of ``text`` (CJK characters otherwise)."""
    words = [w for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if w not in _STOPWORDS]
    if words:
        return "_".join(words[:3])
    cjk = _CJK_RE.findall(text)
    if cjk:
        return "".join(cjk[:4])
    return "note"


def _clean_statement(line: str) -> str:
    return _LEADING_CUE_RE.sub("", line).strip() or line.strip()


def build_extraction_dsl(
    conversation: list[tuple[str, str]], user: str = "default", extraction: str = "cues"
) -> str:
    """OpenViking's restricted-Python extraction answer for ``conversation``.

    ``extraction="cues"`` (what tests predict): every user line that states a preference
    becomes a preference memory, grouped by topic (one file per topic: two creates of the same
    file would conflict). If the user stated no preference, the first user line becomes one
    project entity, so that every commit with user text writes exactly one kind of memory.

    ``extraction="statements"`` (recall evaluation of the capture path): the statements
    ovhooks' own local extractor keeps, each its own memory; a stand-in for a real model,
    which would keep the facts of a conversation and drop its requests.
    """
    if extraction == "statements":
        return _statement_dsl(conversation, user)
    user_lines = [
        line.strip()
        for role, body in conversation
        if role == "user"
        for line in body.splitlines()
        if line.strip()
    ]
    preferences: dict[str, list[str]] = {}
    for line in user_lines:
        if states_preference(line):
            statement = _clean_statement(line)
            preferences.setdefault(topic_for(statement), []).append(statement)
    calls: list[str] = []
    for topic, statements in preferences.items():
        content = "\n".join(f"- {s}" for s in statements)
        calls.append(f"sdk.create_preferences(user={user!r}, topic={topic!r}, content={content!r})")
    if not calls and user_lines:
        first = user_lines[0]
        name = topic_for(first)
        content = f"# {name}\n- {first}"
        calls.append(f"sdk.create_entities(category='project', name={name!r}, content={content!r})")
    calls.append("sdk.commit()")
    return "\n".join(calls)


def _statement_dsl(conversation: list[tuple[str, str]], user: str) -> str:
    from ovhooks.backend.local.extraction import memory_candidates

    preferences: dict[str, list[str]] = {}
    calls: list[str] = []
    for candidate in memory_candidates(body for role, body in conversation if role == "user"):
        if candidate.category == "preferences":
            preferences.setdefault(topic_for(candidate.text), []).append(candidate.text)
            continue
        digest = hashlib.blake2b(candidate.text.encode("utf-8"), digest_size=4).hexdigest()
        name = f"{topic_for(candidate.text)}_{digest}"
        content = f"# {name}\n- {candidate.text}"
        calls.append(f"sdk.create_entities(category='project', name={name!r}, content={content!r})")
    for topic, statements in preferences.items():
        content = "\n".join(f"- {s}" for s in statements)
        calls.append(f"sdk.create_preferences(user={user!r}, topic={topic!r}, content={content!r})")
    calls.append("sdk.commit()")
    return "\n".join(calls)


def merge_patches_dsl(patches_text: str) -> str:
    """The merge agent's answer for a "# Memory File Patches" block: every patch that creates
    a new file is created as proposed (nothing is merged; a stand-in keeps every fact apart).
    A patch that edits an existing file is left out: the file keeps its earlier content."""
    calls: list[str] = []
    for block in _PATCH_RE.split(patches_text)[1:]:
        fields: dict[str, list[str]] = {}
        current = ""
        creates = True
        for line in block.splitlines():
            field = _PATCH_FIELD_RE.match(line)
            if field:
                current = field.group(1)
                fields[current] = []
            elif line.startswith("    @@"):
                creates = creates and line.strip().startswith("@@ -0,0 ")
            elif line.startswith("    +") and current:
                fields[current].append(line[5:])
        memory_type = "\n".join(fields.pop("memory_type", []))
        fields.pop("version", None)
        if not creates or not memory_type.isidentifier() or not fields:
            continue
        args = ", ".join(f"{k}={chr(10).join(v)!r}" for k, v in fields.items())
        calls.append(f"sdk.create_{memory_type}({args})")
    calls.append("sdk.commit()")
    return "\n".join(calls)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def chat_reply(body: dict[str, Any], extraction: str = "cues") -> str:
    """The assistant text for one ``/v1/chat/completions`` request body."""
    messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
    system_text = "\n".join(_message_text(m) for m in messages if m.get("role") == "system")
    if EXTRACTION_MARKER in system_text:
        for message in messages:
            text = _message_text(message)
            if message.get("role") == "user" and "## Conversation History" in text:
                return build_extraction_dsl(parse_conversation(text), extraction=extraction)
        return "sdk.commit()"
    if extraction == "statements" and MERGE_MARKER in system_text:
        patches = "\n".join(
            _message_text(m)
            for m in messages
            if m.get("role") == "user" and "# Memory File Patches" in _message_text(m)
        )
        return merge_patches_dsl(patches)
    last_user = next((_message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    words = " ".join(last_user.split()[:12])
    return f"Stub note: {words}" if words else "Stub note."


def embeddings_response(body: dict[str, Any], dimension: int) -> dict[str, Any]:
    raw = body.get("input", "")
    inputs: list[Any] = raw if isinstance(raw, list) else [raw]
    # The openai SDK may send token arrays; hash their string form so the result stays stable.
    texts = [item if isinstance(item, str) else json.dumps(item) for item in inputs]
    data = [
        {"object": "embedding", "index": index, "embedding": embed(text, dimension)}
        for index, text in enumerate(texts)
    ]
    tokens = sum(len(tokenize(t)) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "hash"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def chat_response(
    body: dict[str, Any], request_number: int, extraction: str = "cues"
) -> dict[str, Any]:
    text = chat_reply(body, extraction)
    return {
        "id": f"chatcmpl-stub-{request_number}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "stub-llm"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


# ---------------------------------------------------------------------------------------
# HTTP plumbing shared with the host stubs
# ---------------------------------------------------------------------------------------


class RecordedRequest:
    """One request as the stub received it (headers lower-cased, body parsed when JSON)."""

    __slots__ = ("body", "headers", "method", "number", "path")

    def __init__(
        self, number: int, method: str, path: str, headers: dict[str, str], body: Any
    ) -> None:
        self.number = number
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body

    def as_json(self) -> dict[str, Any]:
        return {
            "n": self.number,
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "body": self.body,
        }


class StubResponse:
    """What a route returns: a JSON document, or a list of pre-encoded SSE frames."""

    __slots__ = ("json_body", "sse_frames", "status")

    def __init__(
        self,
        status: int = 200,
        json_body: Any = None,
        sse_frames: list[bytes] | None = None,
    ) -> None:
        self.status = status
        self.json_body = json_body
        self.sse_frames = sse_frames


def sse_frame(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class _LoopbackServer(ThreadingHTTPServer):
    # Hosts keep HTTP/1.1 connections alive; joining their handler threads on close would
    # wait for the client to hang up, so stopping must not block on them.
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A host that exits drops its keep-alive connection: that is not a stub failure.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class RecordingServer:
    """A loopback ThreadingHTTPServer that records every request, in memory and optionally
    as ``req-NNN-METHOD-path.json`` files, and dispatches to :meth:`handle`."""

    def __init__(self, port: int = 0, log_dir: str | None = None) -> None:
        self._requested_port = port
        self.log_dir = log_dir
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # Subclasses override this.
    def handle(self, request: RecordedRequest) -> StubResponse:
        return StubResponse(404, {"error": {"message": f"stub: no route {request.path}"}})

    def should_record(self, request: RecordedRequest) -> bool:
        return True

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("stub server not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request log replaces the access log

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body: Any
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = stub._record(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                try:
                    response = stub.handle(request)
                except Exception as exc:  # a stub bug must show up as a 500, not a hang
                    response = StubResponse(500, {"error": {"message": f"stub error: {exc!r}"}})
                self._send(response)

            def _send(self, response: StubResponse) -> None:
                self.send_response(response.status)
                if response.sse_frames is not None:
                    payload = b"".join(response.sse_frames)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("cache-control", "no-cache")
                else:
                    payload = json.dumps(response.json_body).encode()
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _serve  # noqa: N815
            do_POST = _serve  # noqa: N815
            do_HEAD = _serve  # noqa: N815

        self._server = _LoopbackServer(("127.0.0.1", self._requested_port), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name=type(self).__name__, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: Any
    ) -> RecordedRequest:
        with self._lock:
            request = RecordedRequest(len(self.requests) + 1, method, path, headers, body)
            if not self.should_record(request):
                return request
            self.requests.append(request)
        if self.log_dir:
            os.makedirs(self.log_dir, exist_ok=True)
            safe_path = re.sub(r"[^A-Za-z0-9]+", "_", path.split("?", 1)[0]).strip("_")
            name = f"req-{request.number:03d}-{method}-{safe_path}.json"
            with open(os.path.join(self.log_dir, name), "w", encoding="utf-8") as handle:
                json.dump(request.as_json(), handle, indent=1, ensure_ascii=False)
        return request

    def requests_to(self, path_prefix: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith(path_prefix)]


class ModelStub(RecordingServer):
    """The OpenAI-compatible embeddings + chat stub that OpenViking is configured against.

    Embedding requests are numerous and uninteresting, so only chat requests are recorded.
    """

    def __init__(
        self,
        port: int = 0,
        dimension: int = DEFAULT_DIMENSION,
        log_dir: str | None = None,
        extraction: str = "cues",
    ) -> None:
        super().__init__(port, log_dir)
        self.dimension = dimension
        self.extraction = extraction  # see build_extraction_dsl
        self._chat_count = 0

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    def should_record(self, request: RecordedRequest) -> bool:
        return "/chat/completions" in request.path

    def extraction_requests(self) -> list[RecordedRequest]:
        return [
            r
            for r in self.requests_to("/v1/chat/completions")
            if isinstance(r.body, dict) and EXTRACTION_MARKER in json.dumps(r.body)
        ]

    def handle(self, request: RecordedRequest) -> StubResponse:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "GET" and path in ("/health", "/v1/health"):
            return StubResponse(200, {"status": "ok"})
        if request.method == "GET" and path == "/v1/models":
            return StubResponse(
                200, {"object": "list", "data": [{"id": "stub", "object": "model"}]}
            )
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "POST" and path == "/v1/embeddings":
            return StubResponse(200, embeddings_response(body, self.dimension))
        if request.method == "POST" and path == "/v1/chat/completions":
            with self._lock:
                self._chat_count += 1
                number = self._chat_count
            return StubResponse(200, chat_response(body, number, self.extraction))
        return super().handle(request)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tests.support.model_stub PORT [DIMENSION]", file=sys.stderr)
        return 2
    port = int(argv[0])
    dimension = int(argv[1]) if len(argv) > 1 else DEFAULT_DIMENSION
    stub = ModelStub(port, dimension).start()
    print(f"model stub on {stub.api_base} (dimension {dimension})", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
