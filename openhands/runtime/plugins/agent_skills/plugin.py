"""The sandbox side of ``agent_skills``: no process, just the import the kernel runs (§3.3)."""

from __future__ import annotations

from openhands.runtime.plugins.base import Plugin

KERNEL_IMPORT = "from openhands.runtime.plugins.agent_skills.agentskills import *"


class AgentSkillsPlugin(Plugin):
    name = "agent_skills"

    async def initialize(self, username: str, work_dir: str) -> None:
        return None
