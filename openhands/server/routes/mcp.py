"""Compatibility path: the reference's ``openhands.server.routes.mcp`` (the server's own
MCP endpoint). The endpoint itself is ``openhands/server/mcp_endpoint/`` (mounted lazily
at `/mcp`); this module imports the MCP SDK, so import it only when needed.

- ``mcp_server``: an MCP server with the tools ``create_pr``, ``create_mr`` and
  ``create_bitbucket_pr`` (``mcp_endpoint.tools.build_mcp_server``), acting on the app
  running in this process;
- ``create_pr``/``create_mr``/``create_bitbucket_pr``: the tools as coroutine functions;
  the conversation is named by ``conversation_id`` (the endpoint takes it from the
  `X-OpenHands-ServerConversation-ID` header), and each answers with the new PR/MR's URL;
- ``get_conversation_link``, ``save_pr_metadata``: from ``services/pull_requests.py``;
- ``HOST``, ``CONVERSATION_URL``: the public web host (env ``WEB_HOST``) and the URL
  pattern of a conversation there.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from openhands.server.mcp_endpoint.tools import build_mcp_server
from openhands.server.services.pull_requests import (
    CONVERSATION_URL,
    HOST,
    open_bitbucket_pr,
    open_github_pr,
    open_gitlab_mr,
    save_pr_metadata,
)
from openhands.server.services.pull_requests import (
    get_conversation_link as link_conversation,
)
from openhands.server.shared import module_getattr

__all__ = [
    "CONVERSATION_URL",
    "HOST",
    "create_bitbucket_pr",
    "create_mr",
    "create_pr",
    "get_conversation_link",
    "mcp_server",
    "save_pr_metadata",
    "server_config",
]

if TYPE_CHECKING:  # served by __getattr__
    from openhands.server.app_services import AppServices
    from openhands.server.server_config import ServerConfig

    server_config: ServerConfig


# ``server_config``: the server config of this process (the compatibility adapter's).
__getattr__ = module_getattr(__name__, ("server_config",))


async def get_conversation_link(service: Any, conversation_id: str, body: str) -> str:
    """``body`` plus a link back to the conversation for ``@<login>`` of
    ``service.get_user()`` — only when this module's ``server_config`` is in SaaS mode
    (the conversation has a public URL, this module's ``CONVERSATION_URL``)."""
    module = sys.modules[__name__]
    return await link_conversation(
        service,
        conversation_id,
        body,
        app_mode=module.server_config.app_mode,
        url_pattern=module.CONVERSATION_URL,
    )


def _services() -> AppServices:
    # The reference's module-level tools name no app: the one running in this process (the
    # adapter's lookup). The app's own `/mcp` endpoint acts on its app (mcp_endpoint/).
    from openhands.server import shared

    return shared.running_app_services()


mcp_server: Any = build_mcp_server(_services)


async def create_pr(
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    body: str | None = None,
    draft: bool = True,
    *,
    conversation_id: str | None = None,
) -> str:
    created = await open_github_pr(
        _services(),
        conversation_id,
        repo_name=repo_name,
        source_branch=source_branch,
        target_branch=target_branch,
        title=title,
        body=body,
        draft=draft,
    )
    return created.url


async def create_mr(
    id: int | str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None = None,
    *,
    conversation_id: str | None = None,
) -> str:
    created = await open_gitlab_mr(
        _services(),
        conversation_id,
        project=str(id),
        source_branch=source_branch,
        target_branch=target_branch,
        title=title,
        description=description,
    )
    return created.url


async def create_bitbucket_pr(
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None = None,
    *,
    conversation_id: str | None = None,
) -> str:
    created = await open_bitbucket_pr(
        _services(),
        conversation_id,
        repo_name=repo_name,
        source_branch=source_branch,
        target_branch=target_branch,
        title=title,
        description=description,
    )
    return created.url
