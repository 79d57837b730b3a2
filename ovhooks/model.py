"""Typed values that flow between the transcript readers, capture and the events.

These are plain ``__slots__`` classes rather than dataclasses on purpose: every hook is a fresh
process and ``import dataclasses`` alone costs ~10 ms (it pulls in ``inspect``), a quarter of the
UserPromptSubmit budget. They are immutable by convention: nothing assigns to them after
construction, and ``__eq__``/``__repr__`` make them usable in tests like frozen dataclasses.
"""

from __future__ import annotations

# ``typing`` costs ~7 ms to import; mypy honours this spelling of the guard.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class _Value:
    """Equality, hashing and repr over ``__slots__``, like a frozen dataclass."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *(repr(v) for v in self._fields())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({inner})"


class ToolUse(_Value):
    """One tool call the agent made, with its result when the transcript has it."""

    __slots__ = ("call_id", "input", "is_error", "name", "output")

    def __init__(
        self,
        name: str,
        input: Mapping[str, object],
        call_id: str = "",
        output: str | None = None,
        is_error: bool = False,
    ) -> None:
        self.name = name
        self.input = dict(input)
        self.call_id = call_id
        self.output = output
        self.is_error = is_error


class Turn(_Value):
    """One user or assistant message as the transcript recorded it, before capture rules.

    ``text`` is raw: injected context and host boilerplate are still in it; the capture
    pipeline decides what of it is sent. ``uid`` is a stable id from the transcript (Codex
    item id, Claude record uuid) used to recognise a turn seen before; ``synthetic`` marks a
    turn ovhooks built itself (Claude's ``last_assistant_message`` before it reaches the file).
    """

    __slots__ = ("role", "synthetic", "text", "timestamp", "tools", "uid")

    def __init__(
        self,
        role: str,
        text: str,
        tools: tuple[ToolUse, ...] = (),
        *,
        timestamp: str | None = None,
        uid: str = "",
        synthetic: bool = False,
    ) -> None:
        self.role = role
        self.text = text
        self.tools = tools
        self.timestamp = timestamp
        self.uid = uid
        self.synthetic = synthetic
