"""A real ``ovhooks ui`` process for tests, and a small HTTP client that signs in to it."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


class Viewer:
    """A running viewer: its URL with the token, and requests made as a browser would."""

    def __init__(self, url: str, proc: subprocess.Popen[str]) -> None:
        self.url = url
        self.proc = proc
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = int(parts.port or 0)
        self.token = parts.query.removeprefix("token=")
        self.origin = f"http://127.0.0.1:{self.port}"
        self.cookie = ""
        self.csrf = ""

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        address: str = "127.0.0.1",
    ) -> Answer:
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if self.cookie:
            sent["Cookie"] = self.cookie
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        con = http.client.HTTPConnection(address, self.port, timeout=30)
        try:
            con.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in sent.items():
                con.putheader(name, value)
            if data is not None:
                con.putheader("Content-Length", str(len(data)))
            con.endheaders(data)
            answer = con.getresponse()
            return Answer(
                answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
            )
        finally:
            con.close()

    def sign_in(self) -> None:
        """Open the printed URL: the token is swapped for the cookie; read the CSRF token."""
        answer = self.request("GET", f"/?token={self.token}")
        assert answer.status == 303, answer.text
        self.cookie = answer.headers["set-cookie"].split(";", 1)[0]
        page = self.request("GET", "/memories")
        marker = 'name="csrf-token" content="'
        start = page.text.index(marker) + len(marker)
        self.csrf = page.text[start : page.text.index('"', start)]

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, body: Any) -> Answer:
        headers = {"X-CSRF-Token": self.csrf, "Origin": self.origin}
        return self.request("POST", path, body, headers)


@contextmanager
def running_viewer(
    env: Mapping[str, str], cwd: str, *extra: str, timeout_s: float = 30.0
) -> Iterator[Viewer]:
    """``ovhooks ui --no-open --port 0 --json`` as a real process, stopped afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ovhooks", "ui", "--no-open", "--port", "0", "--json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env),
        cwd=cwd,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        line = proc.stdout.readline()
        if not line:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"ovhooks ui printed nothing: {err[-2000:]}")
        assert time.monotonic() < deadline
        doc = json.loads(line)
        yield Viewer(doc["url"], proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def env_for_viewer(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(overrides)
    return env
