"""First messages written for suggested tasks and microagent creation. Pure."""

from __future__ import annotations

from openhands.server.models.conversation import CreateMicroagent, SuggestedTask

_TASK_PROMPTS = {
    "MERGE_CONFLICTS": (
        "Pull request #{number} in {repo} ({title}) has merge conflicts. Check out its branch, "
        "resolve the conflicts with the base branch, make sure the tests still pass, and push."
    ),
    "FAILING_CHECKS": (
        "Pull request #{number} in {repo} ({title}) has failing checks. Check out its branch, "
        "find out why the checks fail, fix the problems, and push the fix."
    ),
    "UNRESOLVED_COMMENTS": (
        "Pull request #{number} in {repo} ({title}) has unresolved review comments. Check out "
        "its branch, address each comment, and push the changes."
    ),
    "OPEN_ISSUE": (
        "Issue #{number} in {repo} is open: {title}. Read the issue, implement a fix on a new "
        "branch, add tests where it makes sense, and open a pull request."
    ),
    "OPEN_PR": (
        "Pull request #{number} in {repo} ({title}) is open. Review it, check that it builds "
        "and its tests pass, and fix what is missing."
    ),
}


def suggested_task_prompt(task: SuggestedTask) -> str:
    template = _TASK_PROMPTS.get(
        task.task_type, "Work on #{number} in {repo}: {title}. Explain what you changed."
    )
    return template.format(number=task.issue_number, repo=task.repo, title=task.title)


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
