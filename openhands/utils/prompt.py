"""Rendering an agent's prompt templates (system prompt, workspace context, microagent info)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from jinja2 import Environment, FileSystemLoader, Template

if TYPE_CHECKING:
    from openhands.core.message import Message
    from openhands.events.observation.agent import MicroagentKnowledge

DEFAULT_SYSTEM_PROMPT = "system_prompt.j2"


@dataclass
class RuntimeInfo:
    """What the agent should know about the machine it works on."""

    date: str
    available_hosts: dict[str, int] = field(default_factory=dict)
    additional_agent_instructions: str = ""
    custom_secrets_descriptions: dict[str, str] = field(default_factory=dict)
    working_dir: str = ""


@dataclass
class RepositoryInfo:
    """The repository cloned into the workspace, if any."""

    repo_name: str | None = None
    repo_directory: str | None = None
    branch_name: str | None = None


@dataclass
class ConversationInstructions:
    """Extra instructions for this one conversation (e.g. from an integration)."""

    content: str = ""


class _IterationState(Protocol):
    @property
    def iteration_flag(self) -> Any: ...


def refine_prompt(text: str) -> str:
    """On Windows the shell is PowerShell; say so wherever the text mentions bash."""
    if sys.platform == "win32":
        return text.replace("bash", "powershell")
    return text


class PromptManager:
    """Loads the Jinja templates of one prompt directory.

    Required templates: the system prompt (``system_prompt_filename``), ``user_prompt.j2``,
    ``additional_info.j2`` and ``microagent_info.j2``. A missing one raises
    FileNotFoundError. Templates may ``{% include %}`` each other.
    """

    def __init__(self, prompt_dir: str, system_prompt_filename: str = DEFAULT_SYSTEM_PROMPT):
        if not prompt_dir:
            raise ValueError("Prompt directory is not set")
        self.prompt_dir = prompt_dir
        self.env = Environment(
            loader=FileSystemLoader(prompt_dir),
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.system_template = self._load_template(system_prompt_filename)
        self.user_template = self._load_template("user_prompt.j2")
        self.additional_info_template = self._load_template("additional_info.j2")
        self.microagent_info_template = self._load_template("microagent_info.j2")

    def _load_template(self, filename: str) -> Template:
        path = os.path.join(self.prompt_dir, filename)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"Prompt file {path} not found")
        return self.env.get_template(filename)

    def get_system_message(self, cli_mode: bool = False, **context: Any) -> str:
        text = self.system_template.render(cli_mode=cli_mode, **context).strip()
        return refine_prompt(text)

    def get_example_user_message(self) -> str:
        return self.user_template.render().strip()

    def build_workspace_context(
        self,
        repository_info: RepositoryInfo | None,
        runtime_info: RuntimeInfo | None,
        conversation_instructions: ConversationInstructions | None,
        repo_instructions: str = "",
    ) -> str:
        return self.additional_info_template.render(
            repository_info=repository_info,
            repository_instructions=repo_instructions,
            runtime_info=runtime_info,
            conversation_instructions=conversation_instructions,
        ).strip()

    def build_microagent_info(self, triggered_agents: list[MicroagentKnowledge]) -> str:
        return self.microagent_info_template.render(triggered_agents=triggered_agents).strip()

    def add_turns_left_reminder(self, messages: list[Message], state: _IterationState) -> None:
        """Tell the model how many iterations remain (kept for parity; unused by CodeAct)."""
        from openhands.core.message import TextContent

        flag = state.iteration_flag
        turns_left = flag.max_value - flag.current_value
        for message in reversed(messages):
            if message.role == "user" and any(isinstance(c, TextContent) for c in message.content):
                message.content.append(
                    TextContent(
                        text=f"\n\nENVIRONMENT REMINDER: {turns_left} turns remain to finish "
                        "the task. Call the finish tool when you are done."
                    )
                )
                return
