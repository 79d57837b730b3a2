"""SubagentStart: give the subagent what memory holds about its task.

A subagent starts with a fresh context: none of the parent's recalled memory reaches it
(anchor W6). Its task is the prompt the parent gave the Agent/Task tool; it is found in the
subagent's own transcript (first user message) or, failing that, in the parent's Agent call.
The recall is the UserPromptSubmit one, under the same deadline, keyed to the subagent's own
session so the parent's "already injected" memory does not hide anything from it.
No task found, or nothing relevant, means the no-op.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event

# The query is the task's head: long task prompts carry instructions, not topics.
MAX_QUERY_CHARS = 2000
_PARENT_TAIL_BYTES = 256 * 1024


def subagent_task(transcript_path: str, agent_id: str) -> str:
    """The subagent's task, from local files only; ``""`` when it cannot be found."""
    import json

    from ovhooks.transcripts.claude import (
        subagent_files,
        subagent_task_from_own,
        subagent_task_from_parent,
    )
    from ovhooks.transcripts.reader import read_tail

    own, meta = subagent_files(transcript_path, agent_id)
    if own:
        try:
            task = subagent_task_from_own(read_tail(own, 64 * 1024))
        except OSError:
            task = ""
        if task.strip():
            return task
    tool_use_id = ""
    if meta:
        try:
            with open(meta, "rb") as fh:
                doc = json.loads(fh.read(64 * 1024))
            if isinstance(doc, dict) and isinstance(doc.get("toolUseId"), str):
                tool_use_id = doc["toolUseId"]
        except (OSError, ValueError, RecursionError):
            pass
    if not transcript_path:
        return ""
    try:
        return subagent_task_from_parent(
            read_tail(transcript_path, _PARENT_TAIL_BYTES), tool_use_id
        )
    except OSError:
        return ""


def handle(event: Event, ctx: HookContext) -> Reply:
    """Recall for the subagent's task, keyed to the subagent's own session."""
    settings = ctx.settings
    if not event.session_id or not event.agent_id or not settings.recall or ctx.bypassed(event):
        return Reply()
    task = subagent_task(event.transcript_path, event.agent_id).strip()
    if len(task) < settings.recall_min_prompt_chars:
        return Reply()
    from ovhooks.ids import subagent_session_id
    from ovhooks.recall import recall_for_prompt

    key = subagent_session_id(ctx.session_key(event), event.agent_id)
    deadline = ctx.started + settings.recall_deadline_s
    outcome = recall_for_prompt(
        task[:MAX_QUERY_CHARS],
        recent_user_texts=[],
        session_key=key,
        # no server session yet for the subagent: a session id would only add the server's
        # query planner to a call that has to be quick
        ov_session_id=None,
        backend=ctx.backend(event, deadline=deadline),
        settings=settings,
        now=ctx.now,
    )
    ctx.log.info("subagent_start", session=key, chars=len(outcome.context or ""))
    return Reply(context=outcome.context)
