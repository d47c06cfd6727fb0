"""The MCP server behind `/mcp/mcp` and its three tools (imports the MCP SDK: load lazily).

Every tool names its conversation with the `X-OpenHands-ServerConversation-ID` header
(the agent's MCP client sends it), opens the PR/MR with the token stored for that
conversation's user and answers with the new PR/MR's URL. Failures come back as tool
errors whose text the agent can act on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field
from starlette.types import ASGIApp

from openhands.server.mcp_endpoint import CONVERSATION_HEADER
from openhands.server.services.pull_requests import (
    CreatedPullRequest,
    PullRequestError,
    open_bitbucket_pr,
    open_github_pr,
    open_gitlab_mr,
)

if TYPE_CHECKING:
    from openhands.server.app_services import AppServices

MCP_PATH = "/mcp"  # inside the `/mcp` mount: the endpoint is `/mcp/mcp`

Opener = Callable[..., Awaitable[CreatedPullRequest]]

SourceBranch = Annotated[str, Field(description="The branch holding the changes.")]
TargetBranch = Annotated[str, Field(description="The branch the changes should land on.")]
Title = Annotated[str, Field(description="A short title for the request.")]


def build_mcp_app(
    services: Callable[[], AppServices],
) -> tuple[ASGIApp, StreamableHTTPSessionManager]:
    """The streamable-HTTP app (stateless: no session survives a request) and the session
    manager whose ``run()`` must be active while the app serves."""
    server = build_mcp_server(services)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        # The agent reaches us as `mcp_host`, which may be any name (a LAN address, a
        # container host name): a localhost-only Host check would refuse it. Browsers are
        # kept off by the app's CORS rules like every other route.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return app, server.session_manager


def build_mcp_server(services: Callable[[], AppServices]) -> MCPServer[Any]:
    """The MCP server with the three tools, acting on the app ``services()`` returns."""
    server: MCPServer[Any] = MCPServer("openhands", instructions=_INSTRUCTIONS)

    async def run(opener: Opener, ctx: Context, **fields: Any) -> str:
        headers = ctx.headers or {}
        conversation_id = next(
            (value for key, value in headers.items() if key.lower() == CONVERSATION_HEADER),
            None,
        )
        try:
            created = await opener(services(), conversation_id, **fields)
        except PullRequestError as error:
            raise ToolError(str(error)) from error
        return created.url

    @server.tool(
        name="create_pr",
        description=(
            "Open a GitHub pull request from a branch you already pushed. Answers with the "
            "pull request's URL."
        ),
    )
    async def create_pr(
        repo_name: Annotated[str, Field(description="The repository, as `owner/repo`.")],
        source_branch: SourceBranch,
        target_branch: TargetBranch,
        title: Title,
        ctx: Context,
        body: Annotated[str | None, Field(description="The description, Markdown.")] = None,
        draft: Annotated[bool, Field(description="Open it as a draft.")] = True,
    ) -> str:
        return await run(
            open_github_pr,
            ctx,
            repo_name=repo_name,
            source_branch=source_branch,
            target_branch=target_branch,
            title=title,
            body=body,
            draft=draft,
        )

    @server.tool(
        name="create_mr",
        description=(
            "Open a GitLab merge request from a branch you already pushed. Answers with the "
            "merge request's URL."
        ),
    )
    async def create_mr(
        id: Annotated[  # the spec names this parameter `id`
            int | str,
            Field(description="The project: its numeric id or its path (`group/project`)."),
        ],
        source_branch: SourceBranch,
        target_branch: TargetBranch,
        title: Title,
        ctx: Context,
        description: Annotated[str | None, Field(description="The description.")] = None,
    ) -> str:
        return await run(
            open_gitlab_mr,
            ctx,
            project=str(id),
            source_branch=source_branch,
            target_branch=target_branch,
            title=title,
            description=description,
        )

    @server.tool(
        name="create_bitbucket_pr",
        description=(
            "Open a Bitbucket pull request from a branch you already pushed. Answers with the "
            "pull request's URL."
        ),
    )
    async def create_bitbucket_pr(
        repo_name: Annotated[str, Field(description="The repository, as `workspace/repo`.")],
        source_branch: SourceBranch,
        target_branch: TargetBranch,
        title: Title,
        ctx: Context,
        description: Annotated[str | None, Field(description="The description.")] = None,
    ) -> str:
        return await run(
            open_bitbucket_pr,
            ctx,
            repo_name=repo_name,
            source_branch=source_branch,
            target_branch=target_branch,
            title=title,
            description=description,
        )

    return server


_INSTRUCTIONS = (
    "Tools of the OpenHands server: open pull/merge requests on GitHub, GitLab and "
    "Bitbucket with the git-provider token of the user who owns the conversation."
)
