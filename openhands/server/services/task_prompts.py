"""First messages of conversations started from a suggested task or to create a microagent."""

from __future__ import annotations

from openhands.integrations.service_types import CreateMicroagent, SuggestedTask
from openhands.server.errors import PlainTextError


def suggested_task_prompt(task: SuggestedTask) -> str:
    """The task's own prompt (``SuggestedTask.get_prompt_for_task``); 400 for a provider
    that has no wording for it."""
    try:
        return task.get_prompt_for_task()
    except ValueError as error:
        raise PlainTextError(str(error), 400) from error


def create_microagent_prompt(request: CreateMicroagent, user_message: str | None) -> str:
    intro = (
        f"Create a microagent for the repository {request.repo}. Write it as a Markdown file "
        "under .openhands/microagents/ with YAML frontmatter (name, type, and triggers for a "
        "knowledge microagent), then open a pull request with it."
    )
    if request.title:
        intro += f" Title of the pull request: {request.title}."
    if user_message:
        intro += f"\n\nWhat the microagent should cover:\n{user_message}"
    return intro
