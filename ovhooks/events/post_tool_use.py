"""PostToolUse: after a Read of a skill's SKILL.md, add what memory holds about that skill.

Seed 004 component 4. Every other tool call gets the no-op at once, without importing
anything or touching the network. The look-up has its own short deadline (the hook sits on
the agent's tool loop) and fails open: any error means no block.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """After a Read of a SKILL.md, the skill's memory as context; otherwise the no-op."""
    settings = ctx.settings
    if event.tool_name != "Read" or not (settings.recall and settings.skill_memory):
        return Reply()
    from ovhooks.recall import skills

    path = skills.skill_file(event.tool_name, event.tool_input)
    if not path or ctx.bypassed(event):
        return Reply()
    name = skills.skill_name(path, skills.read_head(path))
    if not name:
        return Reply()
    backend = ctx.backend(event, deadline=ctx.started + ctx.settings.skill_memory_deadline_s)
    try:
        text, experiences = skills.lookup(backend, name)
    except Exception as exc:  # a nicety: never let it cost the agent its Read
        from ovhooks.redact import describe_exception

        ctx.log.info("skill_memory_failed", skill=name, error=describe_exception(exc))
        return Reply()
    block = skills.render(name, text, experiences)
    ctx.log.info("skill_memory", skill=name, chars=len(block), experiences=len(experiences))
    return Reply(context=block or None)
