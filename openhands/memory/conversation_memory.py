"""Turning the agent's view of the history into the list of LLM messages.

Order: the system message, the initial user message, then one message per event. An
action that came from a tool call is held back until every call of its LLM response has
an answer; then the assistant message with the calls goes out, followed by the tool
answers in call order. Calls without answers and answers without calls are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from openhands.core.logger import openhands_logger as logger
from openhands.core.message import Content, ImageContent, Message, TextContent
from openhands.events.action import (
    Action,
    AgentDelegateAction,
    AgentFinishAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    IPythonRunCellAction,
    MCPAction,
    MessageAction,
    SystemMessageAction,
    TaskTrackingAction,
)
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import Observation, RecallObservation
from openhands.events.observation.agent import MicroagentKnowledge
from openhands.memory.observation_messages import (
    RenderOptions,
    is_valid_image_url,
    render_observation,
)
from openhands.memory.recall_messages import render_recall

if TYPE_CHECKING:
    from openhands.core.config import AgentConfig
    from openhands.utils.prompt import PromptManager

# Actions that the agent only produces through a tool call; they are answered by a tool message.
TOOL_CALL_ACTIONS: tuple[type[Action], ...] = (
    AgentDelegateAction,
    AgentThinkAction,
    IPythonRunCellAction,
    FileEditAction,
    FileReadAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    MCPAction,
    TaskTrackingAction,
)


class ConversationMemory:
    def __init__(self, config: AgentConfig, prompt_manager: PromptManager) -> None:
        self.agent_config = config
        self.prompt_manager = prompt_manager

    def process_events(
        self,
        condensed_history: list[Event],
        initial_user_action: MessageAction,
        max_message_chars: int | None = None,
        vision_is_active: bool = False,
    ) -> list[Message]:
        """The messages for ``condensed_history`` (which gets the system and initial user
        messages inserted in place when they are missing)."""
        events = condensed_history
        self._ensure_system_message(events)
        self._ensure_initial_user_message(events, initial_user_action)
        options = RenderOptions(
            max_message_chars=max_message_chars,
            vision_is_active=vision_is_active,
            enable_som_visual_browsing=self.agent_config.enable_som_visual_browsing,
        )

        messages: list[Message] = []
        pending_calls: dict[str, Message] = {}  # response id → assistant message with calls
        tool_answers: dict[str, Message] = {}  # tool call id → tool message
        for index, event in enumerate(events):
            if isinstance(event, Action):
                messages += self._action_messages(event, pending_calls, vision_is_active)
            elif isinstance(event, Observation):
                # Only a recall looks back (for microagents already shown); no copy for the rest.
                earlier = events[:index] if isinstance(event, RecallObservation) else ()
                messages += self._observation_messages(event, tool_answers, options, earlier)
            else:
                raise ValueError(f"Unknown event type: {type(event)}")
            messages += _complete_tool_exchanges(pending_calls, tool_answers)

        messages = list(_filter_unmatched_tool_calls(messages))
        return _separate_consecutive_user_messages(messages)

    # --- insertions -----------------------------------------------------------------------

    def _ensure_system_message(self, events: list[Event]) -> None:
        if any(isinstance(event, SystemMessageAction) for event in events):
            return
        # Histories from before the system prompt was an event.
        prompt = self.prompt_manager.get_system_message(cli_mode=self.agent_config.cli_mode)
        if prompt:
            events.insert(0, SystemMessageAction(content=prompt))

    @staticmethod
    def _ensure_initial_user_message(events: list[Event], initial: MessageAction) -> None:
        if not events:
            logger.error("Cannot add the initial user message to an empty history")
            return
        second = events[1] if len(events) > 1 else None
        if not (isinstance(second, MessageAction) and second.source == EventSource.USER):
            events.insert(1, initial)

    # --- actions --------------------------------------------------------------------------

    def _action_messages(
        self, action: Action, pending_calls: dict[str, Message], vision_is_active: bool
    ) -> list[Message]:
        role: Literal["user", "assistant"] = (
            "user" if action.source == EventSource.USER else "assistant"
        )
        if isinstance(action, TOOL_CALL_ACTIONS) or (
            isinstance(action, CmdRunAction) and action.source == EventSource.AGENT
        ):
            metadata = action.tool_call_metadata
            if metadata is None and action.source == EventSource.USER:
                text = f"User requested to read file: {action!s}"
                return [Message(role="user", content=[TextContent(text=text)])]
            if metadata is None:
                raise ValueError(f"An agent tool action has no tool call metadata: {action}")
            response = metadata.model_response
            assistant = _field(_field(response, "choices")[0], "message")
            text = _text_of(_field(assistant, "content"))
            pending_calls[_field(response, "id")] = Message(
                role=_field(assistant, "role") or "assistant",
                content=[TextContent(text=text)] if text.strip() else [],
                tool_calls=_field(assistant, "tool_calls"),
            )
            return []
        if isinstance(action, AgentFinishAction):
            return [self._finish_message(action)]
        if isinstance(action, MessageAction):
            return [Message(role=role, content=_message_content(action, role, vision_is_active))]
        if isinstance(action, CmdRunAction):  # from the user (the agent's went above)
            text = f"User executed the command:\n{action.command}"
            return [Message(role="user", content=[TextContent(text=text)])]
        if isinstance(action, SystemMessageAction):
            return [Message(role="system", content=[TextContent(text=action.content)])]
        return []

    @staticmethod
    def _finish_message(action: AgentFinishAction) -> Message:
        role: Literal["user", "assistant"] = (
            "user" if action.source == EventSource.USER else "assistant"
        )
        metadata = action.tool_call_metadata
        if metadata is not None:
            # The finish call's reply text belongs with the thought; the call itself was
            # already answered by this message, so it is not a pending tool call.
            content = _text_of(metadata.model_response["choices"][0]["message"].get("content"))
            if not action.thought:
                action.thought = content
            elif action.thought != content:
                action.thought += "\n" + content
            action.tool_call_metadata = None
        return Message(role=role, content=[TextContent(text=action.thought)])

    # --- observations ---------------------------------------------------------------------

    def _observation_messages(
        self,
        obs: Observation,
        tool_answers: dict[str, Message],
        options: RenderOptions,
        earlier_events: Sequence[Event],
    ) -> list[Message]:
        content: list[Content]
        if isinstance(obs, RecallObservation):
            if not self.agent_config.enable_prompt_extensions:
                return []
            # Only a recall that carries knowledge needs the disabled list (a partial agent
            # config, as some harnesses build, may not have one).
            disabled = self.agent_config.disabled_microagents if obs.microagent_knowledge else ()
            content = render_recall(obs, earlier_events, self.prompt_manager, disabled)
            if not content:
                return []
        else:
            content = render_observation(obs, options)

        metadata = obs.tool_call_metadata
        if metadata is not None:
            tool_answers[metadata.tool_call_id] = Message(
                role="tool",
                content=content,
                tool_call_id=metadata.tool_call_id,
                name=metadata.function_name,
            )
            return []
        return [Message(role="user", content=content)]

    # --- per-event entry points (the reference's names) ---------------------------------

    @staticmethod
    def _is_valid_image_url(url: str | None) -> bool:
        return is_valid_image_url(url)

    def _process_action(
        self,
        action: Action,
        pending_tool_call_action_messages: dict[str, Message],
        vision_is_active: bool = False,
    ) -> list[Message]:
        """The messages for one action; a tool-call action is parked in
        ``pending_tool_call_action_messages`` (by response id) and gives none."""
        return self._action_messages(action, pending_tool_call_action_messages, vision_is_active)

    def _process_observation(
        self,
        obs: Observation,
        tool_call_id_to_message: dict[str, Message],
        max_message_chars: int | None = None,
        vision_is_active: bool = False,
        enable_som_visual_browsing: bool = False,
        current_index: int = 0,
        events: list[Event] | None = None,
    ) -> list[Message]:
        """The messages for one observation; a tool answer is parked in
        ``tool_call_id_to_message`` (by tool call id) and gives none."""
        options = RenderOptions(
            max_message_chars=max_message_chars,
            vision_is_active=vision_is_active,
            enable_som_visual_browsing=enable_som_visual_browsing,
        )
        earlier = events[:current_index] if events else ()
        return self._observation_messages(obs, tool_call_id_to_message, options, earlier)

    def _filter_agents_in_microagent_obs(
        self, obs: RecallObservation, current_index: int, events: list[Event]
    ) -> list[MicroagentKnowledge]:
        """The microagents of a knowledge recall not already shown by an earlier recall."""
        if obs.recall_type != RecallType.KNOWLEDGE:
            return obs.microagent_knowledge
        return [
            agent
            for agent in obs.microagent_knowledge
            if not self._has_agent_in_earlier_events(agent.name, current_index, events)
        ]

    @staticmethod
    def _has_agent_in_earlier_events(
        agent_name: str, current_index: int, events: list[Event]
    ) -> bool:
        return any(
            isinstance(event, RecallObservation)
            and any(agent.name == agent_name for agent in event.microagent_knowledge)
            for event in events[:current_index]
        )

    @staticmethod
    def _filter_unmatched_tool_calls(messages: list[Message]) -> Iterable[Message]:
        """Drop tool answers without their call and calls without their answer."""
        return _filter_unmatched_tool_calls(messages)

    @staticmethod
    def _apply_user_message_formatting(messages: list[Message]) -> list[Message]:
        """Start a user message that directly follows another user message with a blank
        line (a new list; changed messages are copies)."""
        return _separate_consecutive_user_messages(messages)

    # --- caching --------------------------------------------------------------------------

    @staticmethod
    def apply_prompt_caching(messages: list[Message]) -> None:
        """Mark the system prompt and the newest user/tool message as cache breakpoints."""
        if messages and messages[0].role == "system" and messages[0].content:
            messages[0].content[-1].cache_prompt = True
        for message in reversed(messages):
            if message.role in ("user", "tool"):
                if message.content:
                    message.content[-1].cache_prompt = True
                break


def _field(obj: Any, key: str) -> Any:
    """``obj[key]`` of a dict-like response part, else the attribute (None when absent)."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _message_content(action: MessageAction, role: str, vision_is_active: bool) -> list[Content]:
    content: list[Content] = [TextContent(text=action.content or "")]
    if not action.image_urls:
        return content
    if role == "assistant":
        content.append(ImageContent(image_urls=list(action.image_urls)))
        return content
    for number, url in enumerate(action.image_urls, start=1):
        if vision_is_active:
            content.append(TextContent(text=f"Image {number}:"))
        content.append(ImageContent(image_urls=[url]))
    return content


def _complete_tool_exchanges(
    pending_calls: dict[str, Message], tool_answers: dict[str, Message]
) -> list[Message]:
    """Release each assistant message whose calls are all answered, with its answers."""
    released: list[Message] = []
    for response_id, assistant in list(pending_calls.items()):
        calls = assistant.tool_calls or []
        if not all(call.id in tool_answers for call in calls):
            continue
        released.append(assistant)
        released += [tool_answers.pop(call.id) for call in calls]
        del pending_calls[response_id]
    return released


def _filter_unmatched_tool_calls(messages: list[Message]) -> Iterable[Message]:
    call_ids = {
        call.id
        for message in messages
        if message.role == "assistant" and message.tool_calls
        for call in message.tool_calls
    }
    answer_ids = {
        message.tool_call_id
        for message in messages
        if message.role == "tool" and message.tool_call_id
    }
    for message in messages:
        if message.role == "tool" and message.tool_call_id:
            if message.tool_call_id in call_ids:
                yield message
        elif message.role == "assistant" and message.tool_calls:
            answered = [call for call in message.tool_calls if call.id in answer_ids]
            if len(answered) == len(message.tool_calls):
                yield message
            elif answered:
                yield message.model_copy(update={"tool_calls": answered})
        else:
            yield message


def _separate_consecutive_user_messages(messages: list[Message]) -> list[Message]:
    """A user message right after another starts with a blank line.

    Runs on every step over the whole history, so only the changed messages are copied
    (and their text item replaced, never edited in place).
    """
    formatted: list[Message] = []
    previous_role: str | None = None
    for message in messages:
        if message.role == "user" and previous_role == "user":
            message = _with_leading_blank_line(message)
        formatted.append(message)
        previous_role = message.role
    return formatted


def _with_leading_blank_line(message: Message) -> Message:
    content = list(message.content)
    for index, item in enumerate(content):
        if isinstance(item, TextContent):
            content[index] = item.model_copy(update={"text": "\n\n" + item.text})
            break
    return message.model_copy(update={"content": content})
