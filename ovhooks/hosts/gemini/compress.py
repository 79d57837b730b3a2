"""Whether a Gemini CLI ``PreCompress`` will really be followed by a compression.

Gemini CLI fires ``PreCompress`` on every compression *attempt*: at the start of each turn
with a history and before each further model call of a turn, ahead of its own threshold check
(google-gemini/gemini-cli#18083). Committing on each would commit every turn. Gemini's check
(0.61, ``ChatCompressionService.compress``): compress when the last prompt's token count is at
least ``model.compressionThreshold`` (default 0.5) times the model's token limit (1,048,576;
256,000 for the Gemma 4 models); ``/compress`` (``trigger: "manual"``) always compresses.

The same check is made here from what Gemini left on disk: the ``tokens.input`` of the last
``gemini`` record in the transcript, when it was written by the running process; after a
resume or a compression (a ``$set`` record naming the ``sessionId``) Gemini estimates the
history instead, and so do we, from the bytes of the history it loaded (the last
``$set.messages`` record and what followed it), four to a token. The threshold comes from the
settings files Gemini reads (system overrides, then the project's, then the user's).
"""

from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEFAULT_THRESHOLD = 0.5
DEFAULT_TOKEN_LIMIT = 1_048_576
GEMMA_4_TOKEN_LIMIT = 256_000
TAIL_BYTES = 512 * 1024
SYSTEM_SETTINGS = "/etc/gemini-cli/settings.json"
# The keys a ``$set`` record starts with (``sessionId`` is short and comes first when present).
_SET_KEYS = re.compile(rb'[{,]\s*"(\w+)"\s*:')


def token_limit(model: str) -> int:
    return GEMMA_4_TOKEN_LIMIT if model.startswith("gemma-4") else DEFAULT_TOKEN_LIMIT


def expected(prompt_tokens: int, model: str, threshold: float, *, manual: bool = False) -> bool:
    """Gemini's own rule: a compression follows this PreCompress."""
    return manual or prompt_tokens >= threshold * token_limit(model)


def prompt_tokens(lines: list[tuple[int, bytes]], end: int) -> tuple[int, str]:
    """(Gemini's last prompt token count, the model) from the transcript's last lines.

    ``lines``: (byte offset, line) pairs of the file's tail, in order; ``end``: the file size.
    """
    model = ""
    marker = history = -1
    for offset, line in reversed(lines):
        if b'"$set"' in line[:16]:
            keys = _SET_KEYS.findall(line[:400])
            if marker < 0 and b"sessionId" in keys:
                marker = offset
            if history < 0 and keys[:1] == [b"messages"]:
                history = offset
            continue
        if model or b'"tokens"' not in line or b'"gemini"' not in line:
            continue
        record = _record(line)
        tokens = record.get("tokens") if record else None
        if record is None or record.get("type") != "gemini" or not isinstance(tokens, dict):
            continue
        model = str(record.get("model") or "?")
        count = tokens.get("input")
        if marker < 0 and isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            return count, model  # written by the running process, after its last reset
    # Gemini estimates the history it loaded or compressed to: at most the bytes since the
    # last full list, and all of the file when that list is not in the tail.
    start = history if history >= 0 else 0
    return max(0, end - start) // 4, "" if model == "?" else model


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def read_tail_lines(path: str, max_bytes: int = TAIL_BYTES) -> tuple[list[tuple[int, bytes]], int]:
    """The complete lines of the last ``max_bytes`` of ``path`` with their offsets, and the
    file's size. Raises ``OSError`` when the path is not a readable regular file."""
    from ovhooks.transcripts.reader import open_regular

    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        data = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    lines: list[tuple[int, bytes]] = []
    position = 0
    if start:
        position = data.find(b"\n") + 1
        if position == 0:
            return [], size
    while position < len(data):
        end = data.find(b"\n", position)
        if end < 0:
            break
        if end > position:
            lines.append((start + position, data[position:end]))
        position = end + 1
    return lines, size


def _threshold_in(path: str) -> float | None:
    from ovhooks.transcripts.reader import open_regular

    if not os.path.isfile(path):
        return None  # the common case (no system or project file): not even an open
    try:
        fd = open_regular(path)
        try:
            data = os.read(fd, 1 << 20)
        finally:
            os.close(fd)
        doc = json.loads(data)
    except (OSError, ValueError, RecursionError):
        return None  # missing, unreadable, or JSON with comments: Gemini's default then
    model = doc.get("model") if isinstance(doc, dict) else None
    value = model.get("compressionThreshold") if isinstance(model, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        return None
    return float(value)


def threshold(environ: Mapping[str, str], project_dir: str) -> float:
    """``model.compressionThreshold`` as Gemini resolves it (system > project > user)."""
    from ovhooks.hosts.gemini import gemini_dir

    candidates = [
        environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or SYSTEM_SETTINGS,
        os.path.join(project_dir, ".gemini", "settings.json") if project_dir else "",
        os.path.join(gemini_dir(environ), "settings.json"),
    ]
    for path in candidates:
        value = _threshold_in(path) if path else None
        if value is not None:
            return value
    return DEFAULT_THRESHOLD


def compression_follows(
    transcript_path: str, trigger: str, environ: Mapping[str, str], project_dir: str
) -> bool:
    """Whether Gemini will compress right after this PreCompress (False when unknowable)."""
    if trigger == "manual":
        return True
    if not transcript_path:
        return False
    try:
        lines, size = read_tail_lines(transcript_path)
    except OSError:
        return False
    tokens, model = prompt_tokens(lines, size)
    return expected(tokens, model, threshold(environ, project_dir))
