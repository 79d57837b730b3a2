"""Forget and undo (``ui.trash``) on the real OpenViking 0.5.2 server: the text comes back at
the same URI (all the server's API can write)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError
from ovhooks.ui import trash

pytestmark = pytest.mark.real_server


def test_undo_on_the_real_server_brings_the_text_back(
    ov_server_capture: Any, ov_user: str, tmp_path: Path
) -> None:
    env = {**os.environ, "OPENVIKING_URL": ov_server_capture.url, "OPENVIKING_USER": ov_user}
    backend = OpenVikingBackend(load_settings(env), "")
    uri = f"viking://user/{ov_user}/memories/preferences/{ov_user}/deploy-day.md"
    text = "We deploy the billing service on Tuesdays only.\n"
    backend.write(uri, text)
    done = trash.forget(backend, str(tmp_path), [uri], 1000.0)
    assert done["forgotten"] == [uri]
    with pytest.raises(BackendError) as gone:
        backend.read(uri)
    assert gone.value.not_found
    assert trash.undo(backend, str(tmp_path), done["undo"], 1001.0) == [uri]
    assert backend.read(uri).rstrip("\n") == text.rstrip("\n")
