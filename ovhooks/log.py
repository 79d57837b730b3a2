"""A small JSONL log under the state directory.

The stdlib ``logging`` package is not used on hook paths: it costs several milliseconds to
import and its handlers buy nothing for one short line per event. Each record is one
``O_APPEND`` write, so concurrent hooks never interleave within a line; past 5 MB the file is
rotated to ``ovhooks.log.1``.

Callers pass counts, ids and error texts, not message text. Every line has our own
credentials removed (``redact.redact_known_secrets``), and a line with a string value over 16
characters (an error may quote a server's answer or a command) also goes through the secret
scrubber, which catches the credential formats it knows: a secret of no known shape inside
an error text can still reach the log, which is private to the user (mode 0600).
"""

from __future__ import annotations

import json
import os
import time

_LEVELS = {"silent": 0, "error": 1, "info": 2, "debug": 3}
_MAX_BYTES = 5 * 1024 * 1024


class Log:
    def __init__(self, state_dir: str, level: str = "error", *, component: str = "") -> None:
        from ovhooks.settings.layout import log_path

        self.path = log_path(state_dir)
        self.threshold = _LEVELS.get(level, 1)
        self.component = component

    def error(self, event: str, **fields: object) -> None:
        self._write(1, "error", event, fields)

    def info(self, event: str, **fields: object) -> None:
        self._write(2, "info", event, fields)

    def debug(self, event: str, **fields: object) -> None:
        self._write(3, "debug", event, fields)

    def _write(self, rank: int, level: str, event: str, fields: dict[str, object]) -> None:
        if rank > self.threshold:
            return
        record = {
            "ts": round(time.time(), 3),
            "level": level,
            "pid": os.getpid(),
            "component": self.component,
            "event": event,
            **fields,
        }
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        try:
            from ovhooks.redact import redact_known_secrets

            line = redact_known_secrets(line)
            if any(isinstance(v, str) and len(v) > 16 for v in fields.values()):
                # an error text may quote a server answer or a command: secrets stay out
                from ovhooks.capture.scrub import scrub_text

                line = scrub_text(line)
        except Exception:  # pragma: no cover (redaction must never lose the record)
            pass
        try:
            from ovhooks.fsutil import ensure_dir

            ensure_dir(os.path.dirname(self.path))
            try:
                if os.path.getsize(self.path) > _MAX_BYTES:
                    os.replace(self.path, self.path + ".1")
            except OSError:
                pass
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                if hasattr(os, "fchmod") and os.fstat(fd).st_mode & 0o777 != 0o600:
                    os.fchmod(fd, 0o600)  # a log left readable by an older version
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError:
            pass  # logging must never break a hook


def read_recent(
    state_dir: str, *, level: str = "error", limit: int = 20
) -> list[dict[str, object]]:
    """The last ``limit`` records at ``level`` (for ``status`` and ``doctor``)."""
    from ovhooks.settings.layout import log_path
    from ovhooks.transcripts.reader import read_tail

    records: list[dict[str, object]] = []
    base = log_path(state_dir)
    for path in (base + ".1", base):
        try:
            found = read_tail(path, 4 * _MAX_BYTES)  # rotation keeps each file near _MAX_BYTES
        except OSError:
            continue
        records.extend(rec for rec in found if rec.get("level") == level)
    return records[-limit:]
