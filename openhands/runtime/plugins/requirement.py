"""What an agent asks the sandbox to provide (plugins are started by the action server)."""

from __future__ import annotations

from dataclasses import dataclass, field

from openhands.runtime.plugins.agent_skills.agentskills import DOCUMENTATION


@dataclass(frozen=True)
class PluginRequirement:
    name: str


@dataclass(frozen=True)
class JupyterRequirement(PluginRequirement):
    name: str = "jupyter"


@dataclass(frozen=True)
class AgentSkillsRequirement(PluginRequirement):
    name: str = "agent_skills"
    # Signatures and docstrings of the kernel functions, for prompts.
    documentation: str = field(default=DOCUMENTATION, repr=False, compare=False)


@dataclass(frozen=True)
class VSCodeRequirement(PluginRequirement):
    name: str = "vscode"


ALL_PLUGINS: dict[str, type[PluginRequirement]] = {
    "jupyter": JupyterRequirement,
    "agent_skills": AgentSkillsRequirement,
    "vscode": VSCodeRequirement,
}
