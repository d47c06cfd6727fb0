from openhands.runtime.plugins.requirement import (
    ALL_PLUGINS,
    AgentSkillsRequirement,
    JupyterRequirement,
    PluginRequirement,
    VSCodeRequirement,
)

__all__ = [
    "ALL_PLUGINS",
    "AgentSkillsRequirement",
    "JupyterRequirement",
    "PluginRequirement",
    "VSCodeRequirement",
]
