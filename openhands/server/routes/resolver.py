"""Resolve an issue from the web server (`POST /api/resolver/conversations`; not in 0.59).

The run is an ordinary conversation (trigger ``resolver``): the caller's git token reads the
issue, or the pull request and its feedback, with the resolver's handlers; the conversation
clones the repository (on the pull request's branch) into its sandbox and starts with the
resolver's task. It shows up in the UI like any other conversation, so its progress is
followed there; the changes are pushed from it like those of any conversation.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, field_validator

from openhands.integrations.service_types import ProviderType
from openhands.runtime.workspace_setup import repository_dir_name
from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, Conversations, Providers, Services
from openhands.server.errors import MappedErrorsRoute, PlainTextError, ProviderRequestError
from openhands.server.services.conversation_ids import generate_unique_conversation_id
from openhands.storage.data_models.conversation_metadata import ConversationTrigger
from openhands.storage.data_models.conversation_status import ConversationStatus

if TYPE_CHECKING:
    import httpx

    from openhands.resolver.web_task import ResolverTask

# owner/repo, GitLab groups nesting (group/sub/repo); no URLs, no `..`.
REPOSITORY_PATTERN = r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$"

resolver_api_router = APIRouter(
    route_class=MappedErrorsRoute, prefix="/api", tags=["resolver"], dependencies=API_GUARDS
)


class ResolveIssueRequest(BaseModel):
    """Body of POST /api/resolver/conversations; unknown keys are a 422."""

    model_config = ConfigDict(extra="forbid")

    repository: str = Field(
        pattern=REPOSITORY_PATTERN,
        max_length=300,
        description="owner/repo (GitLab: group/subgroup/repo)",
    )
    issue_number: int = Field(ge=1, description="Number of the issue or pull request")
    issue_type: Literal["issue", "pr"] = Field(
        default="issue", description="`issue`: resolve it; `pr`: address its review feedback"
    )
    git_provider: ProviderType | None = Field(
        default=None, description="Provider of the repository (default: the first with a token)"
    )
    comment_id: int | None = Field(
        default=None, ge=1, description="Only address this comment of the issue or PR"
    )

    @field_validator("repository")
    @classmethod
    def _no_dot_segments(cls, value: str) -> str:
        # The name becomes a directory of the sandbox's workspace.
        if any(part.strip(".") == "" for part in value.split("/")):
            raise ValueError("repository path segments cannot be '.' or '..'")
        return value


class ResolveIssueResponse(BaseModel):
    status: Literal["ok"] = "ok"
    conversation_id: str = Field(description="The conversation that runs the resolver")
    conversation_status: ConversationStatus | None = None
    issue_title: str = Field(description="Title of the issue or pull request being resolved")
    selected_branch: str | None = Field(
        default=None, description="The pull request's branch the conversation works on"
    )


@resolver_api_router.post(
    "/resolver/conversations",
    responses={
        400: errors.status_error(
            "No settings stored (`CONFIGURATION$SETTINGS_NOT_FOUND`) or no LLM key "
            "(`STATUS$ERROR_LLM_AUTHENTICATION`)"
        ),
        401: errors.text("No token for the provider, or the provider refused it (a string)"),
        404: errors.text("The issue or pull request is not open in the repository (a string)"),
        429: errors.text("The provider's API rate limit is exhausted (a string)"),
        502: errors.text("The provider failed to answer (a string)"),
    },
)
async def resolve_issue(
    body: ResolveIssueRequest,
    conversations: Conversations,
    providers: Providers,
    services: Services,
) -> ResolveIssueResponse:
    """Start a conversation that resolves an issue, or a pull request's feedback."""
    provider = providers.provider(body.git_provider)
    token = providers.tokens[provider]
    assert token.token is not None  # checked by `provider()`
    repo_dir = (
        f"{services.config.workspace_mount_path_in_sandbox.rstrip('/')}/"
        f"{repository_dir_name(body.repository)}"
    )
    task = await _read_task(body, provider, token.token.get_secret_value(), token.host, repo_dir)

    # The same steps as POST /api/conversations, with the resolver's trigger and task.
    settings = await conversations.startable_settings()
    conversation_id = await generate_unique_conversation_id(conversations.store)
    await conversations.initialize(
        conversation_id, body.repository, task.branch, ConversationTrigger.RESOLVER, provider
    )
    init_data = await conversations.init_data(
        settings,
        selected_repository=body.repository,
        selected_branch=task.branch,
        git_provider=provider,
        conversation_instructions=task.conversation_instructions,
    )
    loop = await conversations.start_loop(
        conversation_id, init_data, task.instruction, task.image_urls
    )
    return ResolveIssueResponse(
        conversation_id=conversation_id,
        conversation_status=loop.status,
        issue_title=task.issue.title,
        selected_branch=task.branch,
    )


async def _read_task(
    body: ResolveIssueRequest,
    provider: ProviderType,
    token: str,
    host: str | None,
    repo_dir: str,
) -> ResolverTask:
    """The resolver's task, read from the provider (the handlers block: run in a thread);
    provider failures become clear 4xx/502 answers."""
    # Imported here: the handlers bring the LLM stack and httpx, which the server's own
    # import must not pay for (tests/unit/server/test_listen.py).
    import httpx

    from openhands.resolver.web_task import IssueNotFoundError, load_resolver_task

    try:
        return await asyncio.to_thread(
            load_resolver_task,
            repository=body.repository,
            issue_number=body.issue_number,
            issue_type=body.issue_type,
            platform=provider,
            token=token,
            base_domain=host,
            repo_dir=repo_dir,
            comment_id=body.comment_id,
        )
    except IssueNotFoundError as e:
        raise PlainTextError(str(e), 404) from None
    except httpx.HTTPStatusError as e:
        raise _provider_status_error(provider, e.response) from None
    except httpx.HTTPError as e:
        raise ProviderRequestError(f"{provider.value} could not be reached: {e}") from None


def _provider_status_error(provider: ProviderType, response: httpx.Response) -> PlainTextError:
    status = response.status_code
    name = provider.value
    rate_limited = status == 429 or (
        status == 403 and response.headers.get("x-ratelimit-remaining") == "0"
    )
    if rate_limited:
        return PlainTextError(f"The {name} API rate limit is exhausted; try again later", 429)
    if status == 401:
        return PlainTextError(f"{name} refused the token", 401)
    if status in (403, 404):
        return PlainTextError(
            f"The repository or issue cannot be read on {name} (HTTP {status})", 404
        )
    return ProviderRequestError(f"{name} answered HTTP {status}")
