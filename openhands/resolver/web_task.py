"""The task of a resolver run started from the web server (not in the reference).

The server's resolver route reads the issue (or the pull request and its feedback) with the
resolver's provider handlers and renders the resolver's templates, so that a conversation
of the web app gets the same task a command-line run gives the agent. The repository of a
web conversation is cloned into a directory of the workspace, not into the workspace
itself, so the templates' ``/workspace`` is replaced by that directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from openhands.integrations.service_types import ProviderType
from openhands.resolver.interfaces.issue import Issue
from openhands.resolver.issue_handler_factory import IssueHandlerFactory

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts" / "resolve"
TEMPLATES = {
    "issue": ("basic-with-tests.jinja", "basic-with-tests-conversation-instructions.jinja"),
    "pr": ("basic-followup.jinja", "basic-followup-conversation-instructions.jinja"),
}
DEFAULT_BASE_DOMAINS = {
    ProviderType.GITHUB: "github.com",
    ProviderType.GITLAB: "gitlab.com",
    ProviderType.BITBUCKET: "bitbucket.org",
}


class IssueNotFoundError(LookupError):
    """The issue or pull request is not open in the repository (or has no such comment)."""


@dataclass(frozen=True)
class ResolverTask:
    issue: Issue
    # The branch the conversation must check out: the pull request's head, else None.
    branch: str | None
    instruction: str
    conversation_instructions: str
    image_urls: list[str]


def load_resolver_task(
    *,
    repository: str,
    issue_number: int,
    issue_type: str,
    platform: ProviderType,
    token: str,
    base_domain: str | None,
    repo_dir: str,
    comment_id: int | None = None,
) -> ResolverTask:
    """Read the issue from its provider and render the agent's task for it (blocking HTTP).

    ``IssueNotFoundError`` when the issue is not there; the handlers' ``httpx`` errors
    (refused token, rate limit) propagate.
    """
    owner, _, repo = repository.rpartition("/")
    handler = IssueHandlerFactory(
        owner=owner,
        repo=repo,
        token=token,
        username=None,  # no clone happens here, only API reads
        platform=platform,
        base_domain=base_domain or DEFAULT_BASE_DOMAINS[platform],
        issue_type=issue_type,
        llm_config=None,  # no success check here: no LLM
    ).create()
    try:
        issues = handler.get_converted_issues(issue_numbers=[issue_number], comment_id=comment_id)
    except ValueError as e:  # "Issue <n> not found"
        raise IssueNotFoundError(str(e)) from None
    if not issues:
        kind = "pull request" if issue_type == "pr" else "issue"
        raise IssueNotFoundError(f"No open {kind} #{issue_number} in {repository}")
    issue = issues[0]
    if issue_type == "pr" and not issue.head_branch:
        raise IssueNotFoundError(f"Pull request #{issue_number} has no source branch")

    user_template, conversation_template = (
        (PROMPTS_DIR / name).read_text(encoding="utf-8") for name in TEMPLATES[issue_type]
    )
    instruction, conversation_instructions, image_urls = handler.get_instruction(
        issue, user_template, conversation_template, None
    )
    return ResolverTask(
        issue=issue,
        branch=issue.head_branch if issue_type == "pr" else None,
        instruction=instruction.replace("/workspace", repo_dir),
        conversation_instructions=conversation_instructions.replace("/workspace", repo_dir),
        image_urls=image_urls,
    )
