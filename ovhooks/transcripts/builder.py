"""Collecting turns while reading records: one assistant turn (its text and tool calls) at a
time, closed when the user speaks again; what every host's reader shares."""

from __future__ import annotations

from ovhooks.model import ToolUse, Turn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class AssistantTurnBuilder:
    """Accumulates an assistant reply spread over several records, then builds its Turn."""

    def __init__(self, uid: str, timestamp: str | None) -> None:
        self.uid = uid
        self.timestamp = timestamp
        self.texts: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}

    def add_call(self, name: str, tool_input: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Record a tool call; the returned dict receives ``output``/``error`` later."""
        call: dict[str, Any] = {"name": name, "input": tool_input, "id": call_id, "error": False}
        self.calls.append(call)
        self.by_id[call_id] = call
        return call

    @property
    def empty(self) -> bool:
        return not (self.texts or self.calls)

    def finish(self) -> Turn:
        tools = tuple(
            ToolUse(c["name"], c["input"], c["id"], output=c.get("output"), is_error=c["error"])
            for c in self.calls
        )
        text = "\n\n".join(self.texts)
        return Turn("assistant", text, tools, timestamp=self.timestamp, uid=self.uid)


class TurnCollector:
    """The turns read so far and the assistant turn still open (a reader's running state)."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.current: AssistantTurnBuilder | None = None

    def user(self, text: str, timestamp: str | None, uid: str) -> None:
        """A user message: it closes the assistant turn before it."""
        self.flush()
        self.turns.append(Turn("user", text, timestamp=timestamp, uid=uid))

    def assistant(self, uid: str, timestamp: str | None) -> AssistantTurnBuilder:
        """The open assistant turn, opened with ``uid`` when none is."""
        if self.current is None:
            self.current = AssistantTurnBuilder(uid, timestamp)
        return self.current

    def flush(self) -> None:
        if self.current is not None and not self.current.empty:
            self.turns.append(self.current.finish())
        self.current = None

    def finish(self) -> list[Turn]:
        self.flush()
        return self.turns
