from dataclasses import dataclass, field
from typing import Any

from openhands.core.schema import ObservationType
from openhands.events.event import RecallType
from openhands.events.observation.observation import Observation


@dataclass
class AgentStateChangedObservation(Observation):
    agent_state: str
    reason: str = ""

    observation = ObservationType.AGENT_STATE_CHANGED.value

    @property
    def message(self) -> str:
        return ""


@dataclass
class AgentCondensationObservation(Observation):
    observation = ObservationType.CONDENSE.value

    @property
    def message(self) -> str:
        return self.content


@dataclass
class AgentThinkObservation(Observation):
    observation = ObservationType.THINK.value

    @property
    def message(self) -> str:
        return self.content


@dataclass
class MicroagentKnowledge:
    """A triggered knowledge microagent: its name, the keyword that fired, its text."""

    name: str
    trigger: str
    content: str


@dataclass
class RecallObservation(Observation):
    recall_type: RecallType
    repo_name: str = ""
    repo_directory: str = ""
    repo_branch: str = ""
    repo_instructions: str = ""
    runtime_hosts: dict[str, int] = field(default_factory=dict)
    additional_agent_instructions: str = ""
    date: str = ""
    custom_secrets_descriptions: dict[str, str] = field(default_factory=dict)
    conversation_instructions: str = ""
    working_dir: str = ""
    microagent_knowledge: list[MicroagentKnowledge] = field(default_factory=list)

    observation = ObservationType.RECALL.value

    @property
    def message(self) -> str:
        if self.recall_type == RecallType.WORKSPACE_CONTEXT:
            return "Added workspace context"
        return "Added microagent knowledge"

    def __str__(self) -> str:
        text = f"**RecallObservation** (type={self.recall_type})\n"
        if self.recall_type == RecallType.WORKSPACE_CONTEXT:
            text += (
                f"repo_name={self.repo_name}, repo_directory={self.repo_directory}, "
                f"runtime_hosts={self.runtime_hosts}, working_dir={self.working_dir}"
            )
        else:
            text += "microagents: " + ", ".join(k.name for k in self.microagent_knowledge)
        return text


@dataclass
class AgentDelegateObservation(Observation):
    outputs: dict[str, Any]

    observation = ObservationType.DELEGATE.value

    @property
    def message(self) -> str:
        return ""
