"""CodeActAgent: the default agent. ``codeact_agent`` (the step), ``function_calling``
(tool call → Action), ``tools/`` (one schema per tool), ``prompts/`` (Jinja templates)."""

from openhands.agenthub.codeact_agent.codeact_agent import CodeActAgent

__all__ = ["CodeActAgent"]
