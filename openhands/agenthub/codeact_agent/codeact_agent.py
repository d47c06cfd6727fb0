"""CodeActAgent: one LLM call per step, acting through tool calls (bash, Python, editor, ...).

A step condenses the history, turns it into messages, asks the LLM and maps its tool
calls to actions. A response with several calls yields several actions: the first is
returned now, the others by the next steps without calling the LLM again.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar

from openhands.agenthub.codeact_agent.function_calling import check_tools, response_to_actions
from openhands.agenthub.codeact_agent.tools import (
    BrowserTool,
    CondensationRequestTool,
    FinishTool,
    IPythonTool,
    LLMBasedFileEditTool,
    ThinkTool,
    Tool,
    create_cmd_run_tool,
    create_str_replace_editor_tool,
    create_task_tracker_tool,
)
from openhands.controller.agent import Agent
from openhands.core.config import AgentConfig
from openhands.core.message import Message
from openhands.events.action import (
    Action,
    AgentFinishAction,
    MessageAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource
from openhands.memory.condenser import Condensation, Condenser
from openhands.memory.conversation_memory import ConversationMemory
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.utils.prompt import PromptManager

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.llm.llm_registry import LLMRegistry

EXIT_COMMAND = "/exit"
# Models that get the short tool descriptions (their tool description limits are tight).
SHORT_DESCRIPTION_MODEL_MARKERS = ("gpt-4", "o3", "o1", "o4")


class CodeActAgent(Agent):
    VERSION = "2.2"
    sandbox_plugins: ClassVar[list[Any]] = [AgentSkillsRequirement(), JupyterRequirement()]

    def __init__(self, config: AgentConfig, llm_registry: LLMRegistry) -> None:
        super().__init__(config, llm_registry)
        self.pending_actions: deque[Action] = deque()
        self.llm = llm_registry.get_router(config)
        self._prompt_manager = PromptManager(
            prompt_dir=self.prompt_dir(), system_prompt_filename=self.system_prompt_filename()
        )
        self.tools = self._get_tools()
        self.conversation_memory = ConversationMemory(self.config, self._prompt_manager)
        self.condenser = Condenser.from_config(self.config.condenser, llm_registry)

    # --- configuration hooks (overridden by subclasses) -------------------------------------

    def prompt_dir(self) -> str:
        return os.path.join(os.path.dirname(__file__), "prompts")

    def system_prompt_filename(self) -> str:
        return self.config.resolved_system_prompt_filename

    def _get_tools(self) -> list[Tool]:
        """The enabled tools, in the fixed order of the tool table."""
        model = self.llm.config.model.lower()
        short = any(marker in model for marker in SHORT_DESCRIPTION_MODEL_MARKERS)
        config = self.config
        tools: list[Tool] = []
        if config.enable_cmd:
            tools.append(create_cmd_run_tool(use_short_description=short))
        if config.enable_think:
            tools.append(ThinkTool)
        if config.enable_finish:
            tools.append(FinishTool)
        if config.enable_condensation_request:
            tools.append(CondensationRequestTool)
        if config.enable_browsing and sys.platform != "win32":
            tools.append(BrowserTool)
        if config.enable_jupyter:
            tools.append(IPythonTool)
        if config.enable_plan_mode:
            tools.append(create_task_tracker_tool(use_short_description=short))
        if config.enable_llm_editor:
            tools.append(LLMBasedFileEditTool)
        elif config.enable_editor:
            tools.append(
                create_str_replace_editor_tool(
                    use_short_description=short, runtime_type=config.runtime
                )
            )
        return tools

    # --- the step ---------------------------------------------------------------------------

    def reset(self) -> None:
        super().reset()
        self.pending_actions.clear()

    def step(self, state: State) -> Action:
        if self.pending_actions:
            return self.pending_actions.popleft()

        last_user_message = state.get_last_user_message()
        if last_user_message is not None and last_user_message.content.strip() == EXIT_COMMAND:
            return AgentFinishAction()

        condensed = self.condenser.condensed_history(state)
        if isinstance(condensed, Condensation):
            return condensed.action

        initial_user_message = self._get_initial_user_message(state.history)
        messages = self._get_messages(list(condensed.events), initial_user_message)
        response = self.llm.completion(
            messages=messages,
            tools=check_tools(self.tools, self.llm.config.model),
            extra_body={
                "metadata": state.to_llm_metadata(
                    model_name=self.llm.config.model, agent_name=self.name
                )
            },
        )
        self.pending_actions.extend(self.response_to_actions(response))
        return self.pending_actions.popleft()

    def get_system_message(self) -> SystemMessageAction | None:
        """The system prompt and tools, already marked as coming from the agent."""
        message = super().get_system_message()
        if message is not None:
            message.source = EventSource.AGENT
        return message

    def _get_initial_user_message(self, history: list[Event]) -> MessageAction:
        """The first message the user sent (ValueError when there is none)."""
        return _initial_user_message(history)

    def response_to_actions(self, response: Any) -> list[Action]:
        return response_to_actions(response, mcp_tool_names=list(self.mcp_tools))

    def _get_messages(
        self, events: list[Event], initial_user_message: MessageAction
    ) -> list[Message]:
        messages = self.conversation_memory.process_events(
            condensed_history=events,
            initial_user_action=initial_user_message,
            max_message_chars=self.llm.config.max_message_chars,
            vision_is_active=self.llm.vision_is_active(),
        )
        if self.llm.is_caching_prompt_active():
            self.conversation_memory.apply_prompt_caching(messages)
        return messages


def _initial_user_message(history: list[Event]) -> MessageAction:
    for event in history:
        if isinstance(event, MessageAction) and event.source == EventSource.USER:
            return event
    raise ValueError(
        f"Initial user message not found in history ({len(history)} events). "
        "Please report this issue."
    )
