"""``ovhooks ui``'s arguments: a bad ``--bind`` is a usage error before anything listens."""

from __future__ import annotations

import pytest

from tests.support.cli import run_json


@pytest.mark.parametrize("bind", ["not-an-ip", "999.1.1.1", "", "127.0.0.1:80", "[::1]"])
def test_a_bind_that_is_no_address_is_refused(bind: str) -> None:
    code, doc = run_json("ui", "--no-open", "--bind", bind, "--port", "0")
    assert code == 2, doc
    assert "--bind" in doc["error"]["message"] and "127.0.0.1" in doc["error"]["fix"]
