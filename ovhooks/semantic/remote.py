"""An embedding model of the user's own behind an HTTP endpoint (``embed_url``): an
OpenAI-compatible ``/v1/embeddings`` or Ollama's ``/api/embed``.

Only the embedding service uses it, through the project's own transport (``transport.http``),
with tight deadlines: a prompt's few texts get ``QUERY_TIMEOUT_S``, a background batch
``BATCH_TIMEOUT_S``. Any failure is a ``RemoteError``; the service then serves the bundled
model and tries the endpoint again later. The API key is read from the environment variable
the settings name (``embed_key_env``), when a request is made, and is never stored or logged
(``redact.remember_secret`` keeps it out of every log line and error text).

numpy is imported only where vectors are made: ``status`` and ``doctor`` read the settings'
side (``EmbedSpec``) without it. Vectors are kept per model: ``EmbedSpec.key``
(``ext:<api>:<model>``) is the ``model`` column of the store's vectors table, so the bundled
model's vectors stay beside the new ones and serve until the new model has embedded every row.
"""

from __future__ import annotations

import json
import os
import threading

from ovhooks.transport.errors import BackendError
from ovhooks.transport.http import HttpClient, Request
from ovhooks.transport.url import shown_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    from ovhooks.settings.config import Settings

QUERY_TIMEOUT_S = 2.0
BATCH_TIMEOUT_S = 15.0
CONNECT_TIMEOUT_S = 1.0
# Texts per request: an endpoint's own batch limit is usually 64-2048 inputs.
MAX_BATCH = 32
MAX_CHARS = 2000
_OLLAMA_PATH = "/api/embed"


class RemoteError(Exception):
    """The endpoint did not give one vector per text (unreachable, slow, refused, malformed)."""


def failure_text(exc: BaseException) -> str:
    """What a failed call to the endpoint logs: our own words for a ``RemoteError``, the
    type alone for anything else (its text may quote the answer)."""
    return str(exc) if isinstance(exc, RemoteError) else type(exc).__name__


class EmbedSpec:
    """What the settings say about the user's own model (``None`` from ``spec_from`` when
    no URL is set)."""

    __slots__ = ("api", "key_env", "model", "url")

    def __init__(self, url: str, model: str, key_env: str = "", api: str = "auto") -> None:
        self.api = endpoint_api(url, api)
        self.url = endpoint_url(url, self.api)
        self.model = model
        self.key_env = key_env

    @property
    def key(self) -> str:
        """The model's name among the stored vectors."""
        return f"ext:{self.api}:{self.model}"

    def describe(self) -> dict[str, str]:
        """For ``status`` and ``doctor``: the endpoint without credentials or query, the
        model, the API shape, and the NAME of the key's variable (never its value)."""
        return {
            "url": shown_url(self.url),
            "model": self.model,
            "api": self.api,
            "key_env": self.key_env,
        }


def spec_from(settings: Settings) -> EmbedSpec | None:
    if not settings.embed_url:
        return None
    return EmbedSpec(
        settings.embed_url, settings.embed_model, settings.embed_key_env, settings.embed_api
    )


def endpoint_api(url: str, setting: str = "auto") -> str:
    """``openai`` or ``ollama``: as set, else from the URL's path (``/api/embed`` is
    Ollama's; anything else is taken for an OpenAI-compatible endpoint)."""
    if setting in ("openai", "ollama"):
        return setting
    path = _path_of(url).rstrip("/")
    return "ollama" if path.endswith(_OLLAMA_PATH) else "openai"


def endpoint_url(url: str, api: str) -> str:
    """The URL to post to: a base URL (``http://host:11434``, ``https://host/v1``) gets its
    API's path; a full one is kept."""
    url = url.strip()
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    base, tail = url[:cut].rstrip("/"), url[cut:]  # the path goes before a query
    path = _path_of(base)
    suffix = _OLLAMA_PATH if api == "ollama" else "/embeddings"
    return base + tail if path.endswith(suffix) else base + suffix + tail


def _path_of(url: str) -> str:
    rest = url.split("://", 1)[-1]
    slash = rest.find("/")
    return "" if slash < 0 else rest[slash:].split("?", 1)[0]


def request_body(api: str, model: str, texts: list[str]) -> bytes:
    body: dict[str, object] = {"model": model, "input": texts}
    if api == "ollama":
        body["truncate"] = True
    else:
        body["encoding_format"] = "float"
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate (a model name from bytes that are not UTF-8): escaped, it is still
        # valid JSON, and the endpoint says what it makes of it (doctor failed as a bug)
        return json.dumps(body).encode("ascii")


def parse_vectors(api: str, body: bytes | bytearray, count: int) -> np.ndarray:
    """The answer's vectors as unit float32 rows, in the order of the texts sent; raises
    ``RemoteError`` for any other shape (a count that differs, ragged or empty vectors)."""
    import numpy as np

    try:
        doc = json.loads(bytes(body))
    except (ValueError, RecursionError):
        raise RemoteError("the answer is not JSON") from None
    rows: object = None
    if isinstance(doc, dict) and api == "ollama":
        rows = doc.get("embeddings")
    elif isinstance(doc, dict) and isinstance(doc.get("data"), list):
        items = [i for i in doc["data"] if isinstance(i, dict)]
        order = [i.get("index", n) for n, i in enumerate(items)]
        if any(type(i) is not int for i in order):  # not bool, float, str or None
            raise RemoteError("an index in the answer is not a whole number")
        ranked = sorted(zip(order, items, strict=True), key=_first)
        rows = [item.get("embedding") for _, item in ranked]
    if not isinstance(rows, list) or len(rows) != count:
        raise RemoteError(f"expected {count} vectors in the answer")
    try:
        vectors = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past any float
        raise RemoteError("the vectors are not lists of numbers of one length") from None
    if vectors.ndim != 2 or vectors.shape[1] == 0 or not np.isfinite(vectors).all():
        raise RemoteError("the vectors are not lists of numbers of one length")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if not norms.any():  # a model answering zeros for every text would match nothing, ever
        raise RemoteError("every vector in the answer is zero")
    norms[norms == 0] = 1.0
    return np.asarray(vectors / norms, dtype=np.float32)


def _first(pair: tuple[int, object]) -> int:
    return pair[0]


class RemoteEncoder:
    """``encode(texts) -> float32 (n, dim)`` unit rows from the endpoint (``dim`` is the
    model's own, learnt from its first answer). One HTTP client per thread: the service's
    loop and its background check never share a connection."""

    def __init__(self, spec: EmbedSpec, environ: Mapping[str, str] | None = None) -> None:
        self.spec = spec
        self.key = spec.key
        self.environ = os.environ if environ is None else environ
        self.dim = 0
        self._local = threading.local()

    def _client(self) -> HttpClient:
        client = getattr(self._local, "client", None)
        if client is None:
            client = HttpClient(connect_timeout_s=CONNECT_TIMEOUT_S, environ=self.environ)
            self._local.client = client
        return client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        secret = self.environ.get(self.spec.key_env, "") if self.spec.key_env else ""
        if secret:
            from ovhooks.redact import remember_secret

            remember_secret(secret)
            headers["Authorization"] = f"Bearer {secret}"
        return headers

    def encode(self, texts: list[str], timeout_s: float = QUERY_TIMEOUT_S) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim or 1), dtype=np.float32)
        parts = [
            self._post([t[:MAX_CHARS] or " " for t in texts[i : i + MAX_BATCH]], timeout_s)
            for i in range(0, len(texts), MAX_BATCH)
        ]
        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if self.dim and out.shape[1] != self.dim:
            raise RemoteError(f"the model answered {out.shape[1]} dimensions, not {self.dim}")
        self.dim = int(out.shape[1])
        return out

    def encode_docs(self, texts: list[str]) -> np.ndarray:
        """Stored rows, in the background: a longer deadline than a prompt's."""
        return self.encode(texts, BATCH_TIMEOUT_S)

    def _post(self, texts: list[str], timeout_s: float) -> np.ndarray:
        body = request_body(self.spec.api, self.spec.model, texts)
        request = Request("POST", self.spec.url, self._headers(), body, timeout_s)
        try:
            response = self._client()(request)
        except BackendError as exc:
            said = str(exc)
            said = said if said.startswith(exc.kind) else f"{exc.kind}: {said}"
            raise RemoteError(said[:300]) from None
        if not 200 <= response.status < 300:
            key_env = self.spec.key_env
            if response.status in (401, 403) and key_env and not self.environ.get(key_env):
                raise RemoteError(
                    f"HTTP {response.status}: {key_env}, which OVHOOKS_EMBED_KEY_ENV names as "
                    "the key's variable, is not set where the service started"
                )
            raise RemoteError(f"HTTP {response.status}")
        return parse_vectors(self.spec.api, response.body, len(texts))
