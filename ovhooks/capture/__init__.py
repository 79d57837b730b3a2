"""Capture: transcript turns -> the OpenViking message bodies actually sent.

One pipeline for every host. For each turn, in order:

1. only ``user`` and ``assistant`` turns (assistant ones only if enabled);
2. ``sanitize.strip_injected``: injected context, ``<private>`` spans and host boilerplate go;
3. ``noise.is_noise``: acks, slash commands, punctuation, too-short turns are skipped (an
   assistant turn with tool calls keeps its tools even when its text is noise);
4. ``scrub.scrub`` on every string that is sent: text, tool inputs, tool outputs;
5. long text is cut to ``max_chars`` (head and tail kept), after the scrub;
6. tool calls become compacted tool parts after a one-line ``Tools: …`` summary
   (``tools``); results are dropped unless ``tool_results``; tool parts only ever ride on
   assistant messages, never on user ones;
7. keyword mode: an exchange (a user turn and the assistant turns after it) is sent only when
   its user turn has a memory trigger; the exchanges before it are held (bounded) and sent
   with it, as seed 000 describes.

Every rule applies to the parts that are sent: there is no separate "text" that is cleaned
while the raw text goes out (the anchor Codex plugin's bug).
"""

from __future__ import annotations

# Nothing is imported here at module level: ``ovhooks.capture.tokens`` and
# ``ovhooks.capture.bypass`` are on hook hot paths and importing them runs this file first.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.model import Turn
    from ovhooks.settings.config import Settings

__all__ = ["CaptureOptions", "CaptureResult", "build_messages"]

# Keyword mode holds skipped exchanges in the session state: bound what a long run of
# trigger-less turns can pile up (the anchor's held turns grew without limit).
HELD_MAX_MESSAGES = 40
HELD_MAX_CHARS = 48_000


class CaptureOptions:
    """What to capture and how; ``from_settings`` maps the ``capture_*`` settings."""

    __slots__ = (
        "assistant",
        "max_chars",
        "mode",
        "scrub",
        "scrub_emails",
        "scrub_phones",
        "tool_result_chars",
        "tool_results",
    )

    def __init__(
        self,
        *,
        mode: str = "semantic",
        assistant: bool = True,
        tool_results: bool = False,
        tool_result_chars: int = 2000,
        max_chars: int = 24000,
        scrub: bool = True,
        scrub_emails: bool = False,
        scrub_phones: bool = False,
    ) -> None:
        self.mode = mode
        self.assistant = assistant
        self.tool_results = tool_results
        self.tool_result_chars = tool_result_chars
        self.max_chars = max_chars
        self.scrub = scrub
        self.scrub_emails = scrub_emails
        self.scrub_phones = scrub_phones

    @classmethod
    def from_settings(cls, settings: Settings) -> CaptureOptions:
        return cls(
            mode=str(getattr(settings, "capture_mode", "semantic")),
            assistant=bool(getattr(settings, "capture_assistant", True)),
            tool_results=bool(getattr(settings, "capture_tool_results", False)),
            tool_result_chars=int(getattr(settings, "capture_tool_result_chars", 2000)),
            max_chars=int(getattr(settings, "capture_max_chars", 24000)),
            scrub=bool(getattr(settings, "scrub", True)),
            scrub_emails=bool(getattr(settings, "scrub_emails", False)),
            scrub_phones=bool(getattr(settings, "scrub_phones", False)),
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"CaptureOptions({inner})"


class CaptureResult:
    """The messages to send, the messages held back (keyword mode), and counters."""

    __slots__ = ("held", "messages", "stats")

    def __init__(
        self,
        messages: list[dict[str, Any]],
        held: list[dict[str, Any]],
        stats: dict[str, int],
    ) -> None:
        self.messages = messages
        self.held = held
        self.stats = stats


class _Cleaner:
    """Scrubs strings for sending and tallies what was redacted (counts, never content)."""

    __slots__ = ("emails", "enabled", "phones", "stats")

    def __init__(self, options: CaptureOptions, stats: dict[str, int]) -> None:
        self.enabled = options.scrub
        self.emails = options.scrub_emails
        self.phones = options.scrub_phones
        self.stats = stats

    def __call__(self, text: str) -> str:
        if not text:
            return text
        if "\x00" in text:
            text = text.replace("\x00", "")
        if not self.enabled:
            # Private spans are the user's explicit wish: honoured even with the scrubber off.
            from ovhooks.capture.scrub import remove_private

            text, n = remove_private(text)
            if n:
                _bump(self.stats, "redacted_private", n)
            return text
        from ovhooks.capture.scrub import scrub

        text, counts = scrub(text, emails=self.emails, phones=self.phones)
        for kind, n in counts.items():
            _bump(self.stats, "redacted_" + kind, n)
        return text

    def output(self, text: str) -> str:
        """A tool result: harness reminders stripped as well as secrets."""
        from ovhooks.capture.sanitize import strip_injected

        return self(strip_injected(text))


def _bump(stats: dict[str, int], key: str, n: int = 1) -> None:
    stats[key] = stats.get(key, 0) + n


def _turn_bytes(turn: Turn) -> int:
    import json

    size = len(turn.text.encode("utf-8", "surrogatepass"))
    for tool in turn.tools:
        size += len(
            json.dumps(tool.input, ensure_ascii=False, default=str).encode("utf-8", "replace")
        )
        if tool.output is not None:
            size += len(str(tool.output).encode("utf-8", "surrogatepass"))
    return size


def _message_chars(message: dict[str, Any]) -> int:
    total = 0
    parts = message.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict):
            total += sum(len(str(v)) for v in part.values())
    return total


def _message_for(
    turn: Turn, index: int, options: CaptureOptions, clean: _Cleaner, stats: dict[str, int]
) -> tuple[dict[str, Any] | None, str]:
    """The message for one turn and its sanitised text, or ``None`` when nothing is sent."""
    from ovhooks.capture.noise import is_noise
    from ovhooks.capture.sanitize import strip_injected

    text = strip_injected(turn.text) if turn.text else ""
    reason = is_noise(text, turn.role)
    if reason == "empty" and turn.text.strip():
        # the raw text was all boilerplate; a Claude slash command leaves only <command-*> tags
        reason = "slash" if "<command-name>" in turn.text else "boilerplate"
    tools = turn.tools if turn.role == "assistant" else ()
    if reason is not None and not tools:
        _bump(stats, "skipped_" + reason)
        return None, text
    parts: list[dict[str, Any]] = []
    if reason is None:
        # Scrub, then cut: cutting first could keep the head of a token that crosses the cut
        # while its tail, the part the rules recognise, is dropped.
        cleaned = clean(text).strip()
        if len(cleaned) > options.max_chars > 0:
            _bump(stats, "truncated")
            from ovhooks.capture.caps import cut_middle

            cleaned = cut_middle(cleaned, options.max_chars)
        if cleaned:
            parts.append({"type": "text", "text": cleaned})
    elif text:
        _bump(stats, "skipped_text_" + reason)  # noise text of a turn kept for its tools
    if tools:
        from ovhooks.capture.tools import summary_line, tool_part

        parts.append({"type": "text", "text": clean(summary_line(tools))})
        for n, tool in enumerate(tools):
            parts.append(
                tool_part(
                    tool,
                    clean,
                    fallback_id=f"{turn.uid or f'turn{index}'}-tool{n}",
                    results=options.tool_results,
                    result_chars=options.tool_result_chars,
                    clean_output=clean.output,
                )
            )
        _bump(stats, "tools", len(tools))
    if not parts:
        _bump(stats, "skipped_empty")
        return None, text
    message: dict[str, Any] = {"role": turn.role, "parts": parts}
    if isinstance(turn.timestamp, str) and turn.timestamp:
        message["created_at"] = turn.timestamp
    return message, text


def _bounded_held(held: list[dict[str, Any]], stats: dict[str, int]) -> list[dict[str, Any]]:
    total = sum(_message_chars(m) for m in held)
    while held and (len(held) > HELD_MAX_MESSAGES or total > HELD_MAX_CHARS):
        total -= _message_chars(held.pop(0))
        _bump(stats, "held_dropped")
    return held


def build_messages(
    turns: Sequence[Turn], options: CaptureOptions, held: Sequence[Mapping[str, Any]] = ()
) -> CaptureResult:
    """The AddMessage bodies for ``turns`` in order, plus what keyword mode holds back."""
    from ovhooks.capture.noise import has_memory_trigger

    stats: dict[str, int] = {"turns_in": 0, "turns_sent": 0, "bytes_in": 0, "bytes_out": 0}
    clean = _Cleaner(options, stats)
    keyword = options.mode == "keyword"
    out: list[dict[str, Any]] = []
    kept_held: list[dict[str, Any]] = [
        dict(m) for m in held if isinstance(m, dict) and m.get("role") in ("user", "assistant")
    ]
    if not keyword and kept_held:
        # switched out of keyword mode: what was held goes out first, in order
        _bump(stats, "held_released", len(kept_held))
        out.extend(kept_held)
        kept_held = []
    exchange: list[dict[str, Any]] = []
    triggered = False

    def close_exchange() -> None:
        nonlocal exchange, kept_held
        if not exchange:
            return
        if triggered:
            if kept_held:
                _bump(stats, "held_released", len(kept_held))
            out.extend(kept_held)
            out.extend(exchange)
            kept_held = []
        else:
            kept_held.extend(exchange)
        exchange = []

    for index, turn in enumerate(turns):
        stats["turns_in"] += 1
        stats["bytes_in"] += _turn_bytes(turn)
        if turn.role not in ("user", "assistant"):
            _bump(stats, "skipped_role")
            continue
        if turn.role == "assistant" and not options.assistant:
            _bump(stats, "skipped_assistant")
            continue
        message, text = _message_for(turn, index, options, clean, stats)
        if message is None:
            continue
        stats["turns_sent"] += 1
        if not keyword:
            out.append(message)
            continue
        if turn.role == "user":
            close_exchange()
            triggered = has_memory_trigger(text)
        exchange.append(message)
    if keyword:
        close_exchange()
        kept_held = _bounded_held(kept_held, stats)
        stats["turns_sent"] = len(out)
        stats["held"] = len(kept_held)
    from ovhooks.capture.caps import cap_message

    out = [cap_message(m, stats) for m in out]
    kept_held = [cap_message(m, stats) for m in kept_held]
    import json

    stats["bytes_out"] = len(json.dumps(out, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    stats["messages"] = len(out)
    return CaptureResult(out, kept_held if keyword else [], stats)
