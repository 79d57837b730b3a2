"""The log keeps no secret and no key, whatever a caller passes it (issue 14, items 2-3)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ovhooks.log import Log
from ovhooks.redact import remember_secret


def test_log_lines_are_scrubbed_and_keyless(tmp_path: Path) -> None:
    key = "ovk-root-Jx4Rm8Tq2Lw6Zp1Vn5Bc9"
    token = "ghp_" + "Yt6Kp1Lw8Qz3Xv7Nm2Bc5Rd9Hf4Jg0Sa1Eu2"
    remember_secret(key)
    log = Log(str(tmp_path), "debug")
    log.error(
        "send_failed",
        error=f"http (HTTP 401): rejected POST /x\r\nAuthorization: Bearer {key}\r\n",
        detail=f"the command was: git push https://{token}@github.com/org/repo.git",
    )
    text = (tmp_path / "logs" / "ovhooks.log").read_text()
    assert key not in text and token not in text and "Yt6Kp1Lw" not in text
    assert "send_failed" in text and "[REDACTED:" in text
    assert stat.S_IMODE(os.stat(tmp_path / "logs" / "ovhooks.log").st_mode) == 0o600
