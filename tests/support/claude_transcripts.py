"""Writers for Claude Code 2.1.197 transcripts in the real record shapes (host-samples/claude).

``ClaudeTranscript`` appends to ``projects/<slug>/<session>.jsonl``; ``subagent()`` returns a
writer for ``<session>/subagents/agent-<id>.jsonl`` whose records carry ``isSidechain`` and
``agentId``, as Claude writes them. ``payload()`` builds hook stdin like the fixture payloads.
"""

from __future__ import annotations

import json
import uuid as uuidlib
from pathlib import Path
from typing import Any

VERSION = "2.1.197"


class ClaudeTranscript:
    def __init__(
        self,
        config_dir: Path,
        session_id: str,
        cwd: Path | str,
        *,
        agent_id: str = "",
        path: Path | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = str(cwd)
        slug = "".join(ch if ch.isalnum() else "-" for ch in self.cwd)
        self.path = path or config_dir / "projects" / slug / f"{session_id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.agent_id = agent_id
        self.parent: str | None = None
        self.n = 0
        self.msg_n = 0
        self.tool_n = 0

    # --- plumbing ---------------------------------------------------------------------------
    def _stamp(self) -> str:
        self.n += 1
        return f"2026-11-22T06:{self.n // 60 % 60:02d}:{self.n % 60:02d}.{self.n % 1000:03d}Z"

    def write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _envelope(self, record: dict[str, Any], *, chain: bool = True) -> dict[str, Any]:
        uid = str(uuidlib.uuid4())
        out: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": bool(self.agent_id)}
        if self.agent_id:
            out["agentId"] = self.agent_id
        out.update(record)
        out.update(
            uuid=uid,
            timestamp=self._stamp(),
            userType="external",
            entrypoint="sdk-cli",
            cwd=self.cwd,
            sessionId=self.session_id,
            version=VERSION,
            gitBranch="HEAD",
        )
        if chain:
            self.parent = uid
        self.write(out)
        return out

    # --- bookkeeping records ---------------------------------------------------------------
    def queue(self, prompt: str) -> None:
        for op in ("enqueue", "dequeue"):
            rec: dict[str, Any] = {
                "type": "queue-operation",
                "operation": op,
                "timestamp": self._stamp(),
                "sessionId": self.session_id,
            }
            if op == "enqueue":
                rec["content"] = prompt
            self.write(rec)

    def last_prompt(self, prompt: str) -> None:
        self.write(
            {
                "type": "last-prompt",
                "lastPrompt": prompt,
                "leafUuid": self.parent,
                "sessionId": self.session_id,
            }
        )

    def hook_context(self, hook: str, text: str) -> None:
        self._envelope(
            {
                "type": "attachment",
                "attachment": {
                    "type": "hook_additional_context",
                    "content": [text],
                    "hookName": hook,
                    "toolUseID": f"hook-{uuidlib.uuid4()}",
                    "hookEvent": hook,
                },
            }
        )

    def hook_success(self, hook_name: str, stdout: str) -> None:
        self._envelope(
            {
                "type": "attachment",
                "attachment": {
                    "type": "hook_success",
                    "hookName": hook_name,
                    "toolUseID": str(uuidlib.uuid4()),
                    "hookEvent": hook_name.split(":", maxsplit=1)[0],
                    "content": "",
                    "stdout": stdout,
                    "stderr": "",
                    "exitCode": 0,
                    "command": "ovhooks",
                    "durationMs": 40,
                },
            }
        )

    # --- conversation ------------------------------------------------------------------------
    def user(self, content: str | list[dict[str, Any]], **flags: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "type": "user",
            "message": {"role": "user", "content": content},
            "promptId": str(uuidlib.uuid4()),
        }
        if isinstance(content, str) and not flags:
            record.update(permissionMode="default", promptSource="sdk")
        record.update(flags)
        return self._envelope(record)

    def prompt(self, text: str, *, recalled: str = "") -> None:
        """A real user prompt as Claude records it: queue ops, the prompt, hook context."""
        self.queue(text)
        self.user(text)
        if recalled:
            self.hook_context("UserPromptSubmit", recalled)

    def assistant(
        self, blocks: list[dict[str, Any]], *, msg_id: str | None = None
    ) -> dict[str, Any]:
        """One assistant record (Claude writes one per content block, sharing ``message.id``)."""
        if msg_id is None:
            self.msg_n += 1
            msg_id = f"msg_test_{self.msg_n}"
        stop = "tool_use" if any(b.get("type") == "tool_use" for b in blocks) else "end_turn"
        return self._envelope(
            {
                "type": "assistant",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-4-8",
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 20, "output_tokens": 5},
                },
            }
        )

    def reply(self, text: str) -> None:
        self.assistant([{"type": "text", "text": text}])

    def thinking(self, text: str = "let me think") -> None:
        self.assistant([{"type": "thinking", "thinking": text, "signature": "sig"}])

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        output: str | list[dict[str, Any]],
        *,
        is_error: bool = False,
    ) -> str:
        self.tool_n += 1
        tool_id = f"toolu_test_{self.tool_n}"
        self.assistant([{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}])
        self.user(
            [
                {
                    "tool_use_id": tool_id,
                    "type": "tool_result",
                    "content": output,
                    "is_error": is_error,
                }
            ],
            toolUseResult={"stdout": str(output)},
        )
        return tool_id

    def agent_call(self, prompt: str, result: str, agent_id: str) -> str:
        """The parent's side of a subagent: the Agent tool call and its result."""
        return self.tool(
            "Agent",
            {"description": "test subagent", "prompt": prompt, "subagent_type": "general-purpose"},
            [
                {"type": "text", "text": result},
                {
                    "type": "text",
                    "text": f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' to "
                    "continue this agent)\n<usage>subagent_tokens: 25</usage>",
                },
            ],
        )

    def turn(self, i: int) -> None:
        self.prompt(
            f"Question number {i}: how should the parser handle nested lists?",
            recalled='<openviking-context source="recall">old memory</openviking-context>',
        )
        self.reply(f"Answer number {i}: recurse into each nested list and flatten it.")
        self.last_prompt(f"Question number {i}")

    # --- compaction --------------------------------------------------------------------------
    def compact(self, trigger: str, summary: str = "STUB-COMPACT-SUMMARY") -> None:
        """What a manual (``/compact``) or auto compaction appends."""
        if trigger == "manual":
            self.queue("/compact")
        self.write({"type": "mode", "mode": "normal", "sessionId": self.session_id})
        self._envelope(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "parentUuid": None,
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "logicalParentUuid": self.parent,
                "compactMetadata": {"trigger": trigger, "preTokens": 190000},
            }
        )
        self.user(
            "This session is being continued from a previous conversation that ran out of "
            f"context. The summary below covers the earlier portion of the conversation.\n\n"
            f"Summary:\n{summary}\n\nIf you need specific details from before compaction, read "
            f"the full transcript at: {self.path}",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )
        if trigger == "manual":
            self.user(
                "<local-command-caveat>Caveat: The messages below were generated by the user "
                "while running local commands. DO NOT respond to these messages."
                "</local-command-caveat>",
                isMeta=True,
            )
            self.user(
                "<command-name>/compact</command-name>\n            "
                "<command-message>compact</command-message>\n            "
                "<command-args></command-args>"
            )
            self.user(
                "<local-command-stdout>Compacted (ctrl+o to see full summary)\nPreCompact "
                "[ovhooks pre-compact --host claude] completed successfully</local-command-stdout>"
            )
        self.hook_success(
            "SessionStart:compact",
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "SessionStart",
                        "additionalContext": (
                            '<openviking-context source="compact">x</openviking-context>'
                        ),
                    }
                }
            ),
        )
        if trigger == "manual":
            self.user([{"type": "text", "text": "Continue from where you left off."}], isMeta=True)
            self.reply("No response requested.")

    # --- subagents ---------------------------------------------------------------------------
    def subagent(self, agent_id: str, agent_type: str = "general-purpose") -> ClaudeTranscript:
        base = self.path.with_suffix("")
        sub = ClaudeTranscript(
            self.path.parent,
            self.session_id,
            self.cwd,
            agent_id=agent_id,
            path=base / "subagents" / f"agent-{agent_id}.jsonl",
        )
        meta = base / "subagents" / f"agent-{agent_id}.meta.json"
        meta.write_text(
            json.dumps(
                {
                    "agentType": agent_type,
                    "description": "test subagent",
                    "toolUseId": f"toolu_test_{self.tool_n + 1}",
                    "spawnDepth": 1,
                }
            )
        )
        return sub

    def subagent_path(self, agent_id: str) -> Path:
        return self.path.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"

    # --- hook payloads -----------------------------------------------------------------------
    def payload(self, event: str, **extra: Any) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.path),
            "cwd": self.cwd,
            "prompt_id": str(uuidlib.uuid4()),
            "hook_event_name": event,
        }
        if event in ("Stop", "SubagentStop", "PreToolUse", "PostToolUse", "UserPromptSubmit"):
            doc["permission_mode"] = "default"
        if event in ("Stop", "SubagentStop"):
            doc.update(stop_hook_active=False, background_tasks=[], session_crons=[])
        doc.update(extra)
        return doc

    def subagent_stop_payload(
        self, agent_id: str, last: str, agent_type: str = "general-purpose"
    ) -> dict[str, Any]:
        return self.payload(
            "SubagentStop",
            agent_id=agent_id,
            agent_type=agent_type,
            agent_transcript_path=str(self.subagent_path(agent_id)),
            last_assistant_message=last,
        )
