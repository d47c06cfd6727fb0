"""How a RecallObservation (workspace context, triggered microagents) becomes prompt text."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from openhands.core.message import Content, TextContent
from openhands.events.event import Event, RecallType
from openhands.events.observation.agent import MicroagentKnowledge, RecallObservation
from openhands.utils.prompt import (
    ConversationInstructions,
    PromptManager,
    RepositoryInfo,
    RuntimeInfo,
)


def render_recall(
    obs: RecallObservation,
    earlier_events: Sequence[Event],
    prompt_manager: PromptManager,
    disabled_microagents: Collection[str],
) -> list[Content]:
    """Text items for a recall; an empty list when there is nothing worth sending."""
    if obs.recall_type == RecallType.WORKSPACE_CONTEXT:
        return _workspace_context(obs, prompt_manager, disabled_microagents)
    if obs.recall_type == RecallType.KNOWLEDGE:
        already_shown = _names_in_earlier_recalls(earlier_events)
        agents = [
            agent
            for agent in obs.microagent_knowledge
            if agent.name not in already_shown and agent.name not in disabled_microagents
        ]
        if not agents:
            return []
        return [TextContent(text=prompt_manager.build_microagent_info(triggered_agents=agents))]
    return []


def _workspace_context(
    obs: RecallObservation,
    prompt_manager: PromptManager,
    disabled_microagents: Collection[str],
) -> list[Content]:
    repo_info = (
        RepositoryInfo(
            repo_name=obs.repo_name or "",
            repo_directory=obs.repo_directory or "",
            branch_name=obs.repo_branch or None,
        )
        if obs.repo_name or obs.repo_directory
        else None
    )
    runtime_info = RuntimeInfo(
        date=obs.date,
        available_hosts=dict(obs.runtime_hosts),
        additional_agent_instructions=obs.additional_agent_instructions,
        custom_secrets_descriptions=dict(obs.custom_secrets_descriptions),
        working_dir=obs.working_dir,
    )
    instructions = (
        ConversationInstructions(content=obs.conversation_instructions)
        if obs.conversation_instructions
        else None
    )
    repo_instructions = obs.repo_instructions or ""

    has_context = (
        repo_info is not None
        or bool(runtime_info.date or runtime_info.custom_secrets_descriptions)
        or bool(repo_instructions.strip())
        or instructions is not None
    )
    content: list[Content] = []
    if has_context:
        content.append(
            TextContent(
                text=prompt_manager.build_workspace_context(
                    repository_info=repo_info,
                    runtime_info=runtime_info,
                    conversation_instructions=instructions,
                    repo_instructions=repo_instructions,
                )
            )
        )
    agents = [a for a in obs.microagent_knowledge if a.name not in disabled_microagents]
    if agents:
        content.append(
            TextContent(text=prompt_manager.build_microagent_info(triggered_agents=agents))
        )
    return content


def _names_in_earlier_recalls(events: Sequence[Event]) -> set[str]:
    names: set[str] = set()
    for event in events:
        if isinstance(event, RecallObservation):
            names.update(_names(event.microagent_knowledge))
    return names


def _names(knowledge: Sequence[MicroagentKnowledge]) -> set[str]:
    return {item.name for item in knowledge}
