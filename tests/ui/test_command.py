"""``ovhooks ui``'s arguments: a bad ``--bind`` is a usage error before anything listens."""

from __future__ import annotations

import pytest

from tests.support.cli import run_json


@pytest.mark.parametrize("bind", ["not-an-ip", "999.1.1.1", "", "127.0.0.1:80", "[::1]"])
def test_a_bind_that_is_no_address_is_refused(bind: str) -> None:
    code, doc = run_json("ui", "--no-open", "--bind", bind, "--port", "0")
    assert code == 2, doc
    assert "--bind" in doc["error"]["message"] and "127.0.0.1" in doc["error"]["fix"]


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "::ffff:0.0.0.0"])  # the last: a campaign
def test_every_interface_is_refused_with_what_to_give(bind: str) -> None:
    """The Host check serves the bound address only, and no browser names 0.0.0.0: such a
    viewer refused every request from the network while warning that it was reachable."""
    code, doc = run_json("ui", "--no-open", "--bind", bind, "--port", "0")
    assert code == 2, doc
    assert "every interface" in doc["error"]["message"] and "127.0.0.1" in doc["error"]["fix"]
