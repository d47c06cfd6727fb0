"""Microagents: prompt extensions loaded from markdown files.

``types`` has the frontmatter models, ``microagent`` the three kinds (repo, knowledge,
task), the file parser and ``load_microagents_from_dir``.
"""

from openhands.microagent.microagent import (
    BaseMicroagent,
    KnowledgeMicroagent,
    RepoMicroagent,
    TaskMicroagent,
    load_microagents_from_dir,
)
from openhands.microagent.types import InputMetadata, MicroagentMetadata, MicroagentType

__all__ = [
    "BaseMicroagent",
    "InputMetadata",
    "KnowledgeMicroagent",
    "MicroagentMetadata",
    "MicroagentType",
    "RepoMicroagent",
    "TaskMicroagent",
    "load_microagents_from_dir",
]
