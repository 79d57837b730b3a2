"""The user's own embedding endpoint, as ``semantic/remote.py`` reads the settings and the
answers: which API a URL names, where to post, what is shown, and which answers are refused.
The encoder against a live endpoint: tests/semantic/test_own_model.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ovhooks.semantic.remote import (
    EmbedSpec,
    RemoteEncoder,
    RemoteError,
    endpoint_api,
    endpoint_url,
    parse_vectors,
    request_body,
    spec_from,
)
from ovhooks.transport.url import shown_url
from tests.support.embed_stub import EmbedStub
from tests.support.fake_backend import make_settings


@pytest.mark.parametrize(
    ("url", "setting", "api", "posted"),
    [
        ("http://127.0.0.1:8080/v1/embeddings", "auto", "openai", "/v1/embeddings"),
        ("https://api.example.com/v1", "auto", "openai", "/v1/embeddings"),
        ("http://127.0.0.1:11434/api/embed", "auto", "ollama", "/api/embed"),
        ("http://127.0.0.1:11434/api/embed/", "auto", "ollama", "/api/embed"),
        ("http://127.0.0.1:11434", "ollama", "ollama", "/api/embed"),
        ("http://127.0.0.1:11434/api/embed", "openai", "openai", "/api/embed/embeddings"),
    ],
)
def test_the_api_comes_from_the_path_unless_set(
    url: str, setting: str, api: str, posted: str
) -> None:
    assert endpoint_api(url, setting) == api
    assert endpoint_url(url, api).endswith(posted)
    spec = EmbedSpec(url, "m1", api=setting)
    assert (spec.api, spec.key) == (api, f"ext:{api}:m1")


@pytest.mark.parametrize(
    ("url", "posted"),
    [
        ("http://h/v1?api_key=K", "http://h/v1/embeddings?api_key=K"),
        ("http://h/v1#part", "http://h/v1/embeddings#part"),
        ("http://h/v1/embeddings?x=1", "http://h/v1/embeddings?x=1"),
    ],
)
def test_the_api_path_goes_before_a_query(url: str, posted: str) -> None:
    assert endpoint_url(url, "openai") == posted


def test_what_is_shown_has_no_credentials() -> None:
    assert shown_url("https://me:pw@host:1/v1/embeddings?key=s") == "https://host:1/v1/embeddings"
    assert shown_url("host/api/embed") == "host/api/embed"
    spec = EmbedSpec("https://me:pw@host/v1", "m", key_env="MY_KEY")
    assert spec.describe() == {
        "url": "https://host/v1/embeddings",
        "model": "m",
        "api": "openai",
        "key_env": "MY_KEY",
    }


def test_settings_without_a_url_mean_the_bundled_model(tmp_path: Path) -> None:
    assert spec_from(make_settings(str(tmp_path))) is None
    settings = make_settings(
        str(tmp_path), embed_url="http://127.0.0.1:9/api/embed", embed_model="nomic"
    )
    spec = spec_from(settings)
    assert spec is not None and spec.key == "ext:ollama:nomic"


def test_request_bodies_follow_each_api() -> None:
    assert json.loads(request_body("ollama", "m", ["a"])) == {
        "model": "m",
        "input": ["a"],
        "truncate": True,
    }
    assert json.loads(request_body("openai", "m", ["a", "b"]))["encoding_format"] == "float"
    # a model name from bytes that are not UTF-8 (a lone surrogate) is sent escaped: doctor
    # failed on it as "unexpected UnicodeEncodeError (a bug in ovhooks)"
    odd = os.fsdecode(b"m\xff")
    assert json.loads(request_body("openai", odd, ["é"])) == {
        "model": odd,
        "input": ["é"],
        "encoding_format": "float",
    }


def test_answers_become_unit_rows_in_the_order_sent() -> None:
    openai = {"data": [{"index": 1, "embedding": [0, 2]}, {"index": 0, "embedding": [3, 4]}]}
    rows = parse_vectors("openai", json.dumps(openai).encode(), 2)
    assert np.allclose(rows, [[0.6, 0.8], [0.0, 1.0]])
    ollama = {"embeddings": [[0, 0], [1, 0]]}
    assert np.allclose(parse_vectors("ollama", json.dumps(ollama).encode(), 2), [[0, 0], [1, 0]])


@pytest.mark.parametrize(
    "body",
    [
        b"<html>",
        b'{"embeddings": [[1, 2]]}',  # one vector for two texts
        b'{"embeddings": [[1, 2], [1]]}',  # ragged
        b'{"embeddings": [[], []]}',
        b'{"embeddings": [["a", 1], [1, 2]]}',
        b'{"embeddings": [[NaN, 1], [1, 2]]}',
        b'{"data": "none"}',
        b"[]",
        # a fault campaign's answers that crashed the service or left it stuck in "checking"
        b'{"data": [{"index": "x0", "embedding": [1, 2]}, {"index": 1, "embedding": [1, 2]}]}',
        b'{"data": [{"index": null, "embedding": [1, 2]}, {"index": 1, "embedding": [1, 2]}]}',
        b'{"data": [{"index": 1e400, "embedding": [1, 2]}, {"index": 1, "embedding": [1, 2]}]}',
        b'{"data": [{"index": true, "embedding": [1, 2]}, {"index": 1, "embedding": [1, 2]}]}',
        b'{"embeddings": [[1' + b"9" * 400 + b", 1], [1, 2]]}",
        b'{"embeddings": [[0, 0], [0, 0]]}',  # a broken model: zeros for every text
    ],
)
def test_any_other_answer_is_refused(body: bytes) -> None:
    with pytest.raises(RemoteError):
        parse_vectors("ollama" if b"embeddings" in body else "openai", body, 2)


@pytest.mark.parametrize("api", ["ollama", "openai"])
def test_the_encoder_against_a_live_stub(api: str) -> None:
    stub = EmbedStub(api).start()
    try:
        env = {"EMBED_SECRET": "s3cr3t-value-for-the-endpoint"}
        encoder = RemoteEncoder(EmbedSpec(stub.url, "m", key_env="EMBED_SECRET"), env)
        texts = [f"text {i}" for i in range(40)]  # more than one request's worth
        rows = encoder.encode(texts)
        assert rows.shape == (40, 64) and encoder.dim == 64
        assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
        assert [len(r["texts"]) for r in stub.requests] == [32, 8]
        assert {r["authorization"] for r in stub.requests} == {f"Bearer {env['EMBED_SECRET']}"}
        assert encoder.encode([]).shape == (0, 64)
        encoder.dim = 32  # as if the endpoint's model changed behind the same name
        with pytest.raises(RemoteError, match="64 dimensions, not 32"):
            encoder.encode(["x"])
        stub.failing = True
        with pytest.raises(RemoteError, match="HTTP 500"):
            encoder.encode_docs(["x"])
    finally:
        stub.stop()


def test_an_endpoint_nobody_listens_on_is_a_remote_error() -> None:
    from tests.support.ov_server import free_port

    encoder = RemoteEncoder(EmbedSpec(f"http://127.0.0.1:{free_port()}/api/embed", "m"), {})
    with pytest.raises(RemoteError, match="unreachable"):
        encoder.encode(["x"])


def test_a_refusal_names_the_key_variable_that_is_not_set() -> None:
    """An endpoint that wants a key, and the variable OVHOOKS_EMBED_KEY_ENV names is not set
    where the service runs: 'HTTP 401' alone left the user guessing."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Refuses(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        encoder = RemoteEncoder(EmbedSpec(url, "m", key_env="MY_EMBED_KEY"), {})
        with pytest.raises(RemoteError) as refused:
            encoder.encode(["a text"])
        assert "MY_EMBED_KEY" in str(refused.value) and "not set" in str(refused.value)
        keyed = RemoteEncoder(EmbedSpec(url, "m", key_env="MY_EMBED_KEY"), {"MY_EMBED_KEY": "k"})
        with pytest.raises(RemoteError) as wrong_key:
            keyed.encode(["a text"])
        assert str(wrong_key.value) == "HTTP 401"
    finally:
        server.shutdown()
