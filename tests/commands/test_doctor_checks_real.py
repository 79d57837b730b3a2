"""doctor's /ready and double-ingestion checks against a real OpenViking 0.5.2 server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.commands.doctor.ingestion import check_double_ingestion
from ovhooks.commands.doctor.server import check_ready
from ovhooks.settings.config import load_settings

pytestmark = pytest.mark.real_server


def test_ready_and_ingestion_on_a_real_server(
    ov_server_capture: Any, capture_client: Any, ov_user: str, tmp_path: Path
) -> None:
    settings = load_settings(
        {
            "OVHOOKS_STATE_DIR": str(tmp_path / "state"),
            "OPENVIKING_URL": ov_server_capture.url,
            "OPENVIKING_USER": ov_user,
        }
    )
    backend = OpenVikingBackend(settings, "", request_timeout_s=10.0)
    ready = check_ready(settings, backend)
    assert ready["status"] == "ok", ready
    assert "vectordb" in ready["details"]["checks"]
    clean = check_double_ingestion({"HOME": str(tmp_path)}, backend, scan_processes=False)
    assert clean["status"] == "ok", clean
    # a session named the way `openviking-server ingest` names its own
    sid = "ovingest__codex__019a-test"
    resp = capture_client.post(
        f"/api/v1/sessions/{sid}/messages",
        json={"role": "user", "content": "imported turn"},
        headers={"X-OpenViking-User": ov_user},
    )
    resp.raise_for_status()
    seen = check_double_ingestion({"HOME": str(tmp_path)}, backend, scan_processes=False)
    assert seen["status"] == "warn", seen
