"""The secrets corpus through the real capture path (Stop, inline worker, recording server).

Every corpus row is placed four times in a host transcript: as the user's text, as the
assistant's text, inside a tool call's input and in the tool's output. Each placement
carries a case marker (``case-<id>-<place>``) so what the server received can be traced
back to it. A secret counts as caught in a placement when no 12-character piece of it
reached the server there; a negative counts as a false positive when its placement arrived
with a redaction marker in it.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_inline
from tests.support.rollouts import CodexRollout, codex_payload

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "secrets"
# the issue-22 families (scripts/make_fresh_families.py)
FRESH = FIXTURES / "secrets_fresh"
# the blind set for them, never tuned on (scripts/fresh_families_blind.py)
BLIND = FIXTURES / "secrets_blind"
PLACES = ("user", "assistant", "tool_input", "tool_output")
_CASE = re.compile(r"case-([sn]\d{3,4})-(user|assistant|tool_input|tool_output)")


def load(name: str, corpus: Path = CORPUS) -> list[dict[str, Any]]:
    lines = (corpus / name).read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def leaked(secret: str, out: str) -> bool:
    """Whether the secret, or a 12-character piece of it, survived in ``out``."""
    if len(secret) < 12:
        return secret in out
    return any(secret[i : i + 12] in out for i in range(0, len(secret) - 11, 4))


def _placements(row: dict[str, Any]) -> dict[str, str]:
    case = f"case-{row['id']}"
    text = row["text"]
    return {
        "user": f"Note for {case}-user, keep it for later:\n{text}",
        "assistant": f"Here is what I found for {case}-assistant:\n{text}",
        "tool_input": f"echo {case}-tool_input && cat <<'EOF'\n{text}\nEOF",
        "tool_output": f"{case}-tool_output\n{text}",
    }


def write_transcript(host: str, rows: list[dict[str, Any]], tmp: Path, sid: str) -> Any:
    if host == "codex":
        rollout = CodexRollout(tmp / "rollout.jsonl", sid)
        for row in rows:
            place = _placements(row)
            rollout.user(place["user"])
            rollout.assistant(place["assistant"])
            rollout.shell(place["tool_input"], place["tool_output"])
        return rollout
    transcript = ClaudeTranscript(tmp / "claude-config", sid, tmp)
    for row in rows:
        place = _placements(row)
        transcript.prompt(place["user"])
        transcript.reply(place["assistant"])
        transcript.tool("Bash", {"command": place["tool_input"]}, place["tool_output"])
    return transcript


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def capture(host: str, rows: list[dict[str, Any]], tmp: Path) -> tuple[dict[str, str], float]:
    """Run Stop over a transcript holding ``rows``; ``{case: what arrived}`` and seconds."""
    sid = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
    fake = FakeOpenViking().start()
    try:
        env = hook_env(
            fake.url,
            OVHOOKS_DETACH="0",
            OVHOOKS_CAPTURE_TOOL_RESULTS="1",
            OVHOOKS_CAPTURE_TOOL_RESULT_CHARS="100000",
            OVHOOKS_CAPTURE_MAX_CHARS="100000",
            OVHOOKS_RECALL="0",
            OVHOOKS_SESSION_CONTEXT="0",
            OVHOOKS_COMMIT_TOKEN_THRESHOLD="100000000",
            # Stop works inline here over ~280 kB of transcript: about 2 s on an idle 2-core
            # machine, past Stop's 5 s deadline on a loaded one, where the hook then sends
            # nothing. This measures what the scrubber lets through, not the hook's speed
            # (capture has its own timing tests), so the inline worker gets the time it needs.
            OVHOOKS_HOOK_DEADLINE_S="300",
        )
        transcript = write_transcript(host, rows, tmp, sid)
        if host == "codex":
            payload = codex_payload("Stop", sid, transcript.path, tmp)
        else:
            payload = transcript.payload("Stop", last_assistant_message="")
        started = time.perf_counter()
        run_inline("stop", payload, env, host=host)
        seconds = time.perf_counter() - started
        arrived: dict[str, str] = {}
        for request in fake.requests:
            for text in _strings(request.get("body")):
                for m in _CASE.finditer(text):
                    key = f"{m.group(1)}-{m.group(2)}"
                    arrived[key] = arrived.get(key, "") + text
        # Nothing arrived counts as "nothing leaked" for every secret: a hook that sent nothing
        # (a deadline, a crash) must fail here, not pass as perfect recall.
        assert arrived, f"the {host} Stop hook sent nothing in {seconds:.1f} s"
        return arrived, seconds
    finally:
        fake.stop()


def figures(
    host: str, tmp: Path, corpus: Path = CORPUS
) -> tuple[dict[str, dict[str, list[int]]], list[str], float, int]:
    """Per ``family|split`` and place: ``[caught or clean, total]``; the misses; the seconds
    and bytes of transcript text captured."""
    secrets = load("secrets.jsonl", corpus)
    negatives = load("negatives.jsonl", corpus)
    arrived, seconds = capture(host, secrets + negatives, tmp)
    table: dict[str, dict[str, list[int]]] = {}
    misses: list[str] = []
    for row in secrets + negatives:
        is_secret = row["id"].startswith("s")
        for place in PLACES:
            got = arrived.get(f"{row['id']}-{place}")
            if got is None:
                ok = is_secret  # nothing arrived: nothing leaked (a negative was dropped)
                if not is_secret:
                    misses.append(f"{row['format']}@{place}: not sent")
            elif is_secret:
                ok = not leaked(row["secret"], got)
            else:
                ok = "[REDACTED:" not in got
            cell = table.setdefault(f"{row['family']}|{row['split']}", {}).setdefault(place, [0, 0])
            cell[0] += ok
            cell[1] += 1
            if not ok:
                misses.append(f"{row['format']}@{place}")
    size = sum(len(t) for row in secrets + negatives for t in _placements(row).values())
    return table, misses, seconds, size


def rates(table: dict[str, dict[str, list[int]]], families: set[str], split: str) -> float:
    """The share of placements handled right (caught secrets, or untouched negatives)."""
    ok = total = 0
    for key, places in table.items():
        family, row_split = key.split("|")
        if family in families and split in ("all", row_split):
            for good, count in places.values():
                ok += good
                total += count
    return ok / total if total else 1.0
