"""Collecting one assistant turn (its text and tool calls) while reading records."""

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
