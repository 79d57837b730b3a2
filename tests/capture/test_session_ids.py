"""Session ids are look-alikes, not secrets: every host's, bare and as our session keys.

The log, ``status`` and the recall journal name sessions by them, so a log whose OpenCode
sessions read ``[REDACTED:high_entropy]`` cannot be matched to anything. Every host in
``hosts.base.HOSTS`` is covered through its ``session_prefix`` (a new host's key prefix is
checked the day it is added), in the places the ids are written: a real log line, JSON
fields named ``session``/``session_id``/``key``, a command line, a setting, prose.

The other side is checked too: what only resembles a session id (a random value after
``ses_``, a UUID named an API key, a session cookie) is still redacted.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from ovhooks.capture.scrub import scrub, scrub_text
from ovhooks.hosts.base import HOSTS
from ovhooks.hosts.registry import session_key
from ovhooks.ids import subagent_session_id
from ovhooks.log import Log
from ovhooks.settings.layout import log_path

# OpenCode's own session ids, from the recorded payloads in tests/fixtures/opencode
OPENCODE = (
    "ses_de95b4f53ffeC53qCCBzfixfHt",
    "ses_de95b80d9ffeWDQ8GKe0EjZjIG",
    "ses_de95bcfacffe8rIDyx7Gwoc3ck",
)
# Codex (UUID v7), Claude/Gemini/Pi/Copilot/Qwen/Droid (UUID v4 or v7)
UUIDS = (
    "019a2b3c-4d5e-7f80-9a1b-2c3d4e5f6a7b",
    "ab70adff-15fa-4614-b574-cddb8e61ec37",
    "01a201de-87c7-7a30-ba45-7a6cf1e11575",
    str(uuid.UUID(int=0x8F3E_1C2B_4A59_4D6E_9F0A_7B8C_1D2E_3F40)),
)
PLACES = (
    '{{"ts": 1.0, "level": "info", "event": "capture_redacted", "session": "{v}"}}',
    '{{"session_id": "{v}", "sessionID": "{v}"}}',
    '{{"key": "{v}", "host": "opencode"}}',
    "opencode run --session {v} 'continue'",
    "session={v}",
    "session: {v}",
    "resumed session {v} after the compaction",
)


def session_ids() -> list[str]:
    """Every host's ids, bare and as the session keys ovhooks makes of them."""
    found = [*OPENCODE, *UUIDS]
    for host in HOSTS:
        for raw in (*OPENCODE, *UUIDS):
            key = session_key(host, raw)
            found += [key, subagent_session_id(key, "a1b2c3d4e5f6a7b8c")]
    return found


def test_every_host_and_every_key_shape_is_listed() -> None:
    ids = session_ids()
    assert len(ids) >= len(HOSTS) * 14
    assert {i.split("-", 1)[0] for i in ids if not i.startswith("ses_")} >= {"cx", "cc", "oc"}


@pytest.mark.parametrize("place", PLACES)
def test_a_session_id_is_left_alone(place: str) -> None:
    altered = []
    for value in session_ids():
        if '"key"' in place and value in UUIDS:
            continue  # a bare UUID named a key may be an API key: see the last test
        text = place.format(v=value)
        if scrub(text)[0] != text:
            altered.append(scrub_text(text))
    assert altered == []


def test_the_log_keeps_the_sessions_it_names(tmp_path: Path) -> None:
    """The real log path: a line with a long field goes through the scrubber."""
    log = Log(str(tmp_path), "info", component="opencode")
    for value in session_ids():
        log.info("capture_redacted", session=value, error="a transport error, quoted here")
    lines = Path(log_path(str(tmp_path))).read_text("utf-8").splitlines()
    assert [json.loads(line)["session"] for line in lines] == session_ids()


RANDOM_26 = "Zq8VwL3nTk5Rb2XcM9pHf4Jd7G"  # not OpenCode's shape: no 12 hex digits of time
LOOK_ALIKE_SECRETS = (
    (f"session={RANDOM_26}x9QmT2", "Zq8VwL3nTk5Rb2Xc"),
    (f'{{"session": "ses_{RANDOM_26}"}}', RANDOM_26),
    (f"export API_KEY={UUIDS[1]}", UUIDS[1]),  # UUID-shaped API keys exist (Heroku)
    (f'{{"api_key": "oc-{RANDOM_26}"}}', RANDOM_26),
    ("Cookie: sessionid=9f8Kq2LmZx7Vb3Nc5Tr1Yw6Hp4Jd0Gs8", "9f8Kq2LmZx7Vb3Nc5Tr1"),
)


@pytest.mark.parametrize(("text", "secret"), LOOK_ALIKE_SECRETS)
def test_what_only_resembles_a_session_id_is_still_redacted(text: str, secret: str) -> None:
    assert secret not in scrub_text(text)
