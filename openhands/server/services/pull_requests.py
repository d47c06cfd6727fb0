"""Opening pull/merge requests for a conversation (the server's own MCP tools, §6.7).

A tool call names its conversation in a header; the conversation's owner's stored
git-provider token is used, and the new PR/MR number is appended to the conversation's
``pr_number``. Nothing here imports the MCP SDK: the endpoint (``openhands.server.mcp_endpoint``)
is a thin layer over these functions, and tests can call them directly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from openhands.integrations.provider import ProviderHandler, ProviderToken, ProviderType
from openhands.server.errors import PROVIDER_FAILURES, InvalidConversationIdError
from openhands.server.services.conversation_ids import check_conversation_id
from openhands.server.services.git_providers import provider_api_urls
from openhands.server.types import AppMode

if TYPE_CHECKING:
    from openhands.server.app_services import AppServices
    from openhands.storage.data_models.conversation_metadata import ConversationMetadata


class PullRequestError(Exception):
    """Why a PR/MR could not be opened, worded for the agent that asked."""


@dataclass(frozen=True)
class CreatedPullRequest:
    url: str
    number: int | None  # read from the URL; None when it holds none


# --- the calling conversation -----------------------------------------------------------


class ConversationPullRequests:
    """The conversation named by a tool call: its owner's tokens and its ``pr_number``."""

    def __init__(self, services: AppServices, conversation_id: str | None) -> None:
        self.services = services
        self.conversation_id = (conversation_id or "").strip()

    async def metadata(self) -> ConversationMetadata:
        if not self.conversation_id:
            raise PullRequestError(
                "No conversation id: the X-OpenHands-ServerConversation-ID header is missing."
            )
        try:
            check_conversation_id(self.conversation_id)
            return await self.services.conversation_store.get_metadata(self.conversation_id)
        except (FileNotFoundError, InvalidConversationIdError) as error:
            raise PullRequestError(f"Conversation {self.conversation_id} not found.") from error

    async def token(self, provider: ProviderType) -> ProviderToken:
        """The stored token of the conversation's owner (the request carries no user)."""
        metadata = await self.metadata()
        store_cls = self.services.secrets_store_cls
        store = await store_cls.get_instance(self.services.config, metadata.user_id)
        secrets = await store.load()
        token = (secrets.provider_tokens if secrets else {}).get(provider)
        if token is None or not token.has_token:
            raise PullRequestError(
                f"No {provider.value} token is stored for this conversation's user: add one "
                "in Settings > Git before opening a pull request."
            )
        return token

    async def providers(self, provider: ProviderType) -> ProviderHandler:
        """The owner's ``provider`` token as a ``ProviderHandler``, with the server's API
        roots."""
        token = await self.token(provider)
        return ProviderHandler(MappingProxyType({provider: token})).with_api_urls(
            provider_api_urls(self.services.server_config)
        )

    async def opened(self, url: str) -> CreatedPullRequest:
        """The request at ``url`` was opened: its number (from the URL) is recorded."""
        created = CreatedPullRequest(url=url, number=pr_number_in(url))
        if created.number is not None:
            await self.record(created.number)
        return created

    async def record(self, number: int) -> None:
        """Append ``number`` to ``pr_number`` under the metadata lock (no lost updates)."""
        manager = self.services.conversation_manager
        async with manager.metadata_lock(self.conversation_id):
            metadata = await self.metadata()
            if number in metadata.pr_number:
                return
            await self.services.conversation_store.save_metadata(
                metadata.model_copy(
                    update={
                        "pr_number": [*metadata.pr_number, number],
                        "last_updated_at": datetime.now(UTC),
                    }
                )
            )


async def open_github_pr(
    services: AppServices,
    conversation_id: str | None,
    *,
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    body: str | None,
    draft: bool,
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    service = (await conversation.providers(ProviderType.GITHUB)).get_service(ProviderType.GITHUB)
    opened = service.create_pr(repo_name, source_branch, target_branch, title, body, draft)
    return await conversation.opened(await _provider_answer(opened))


async def open_gitlab_mr(
    services: AppServices,
    conversation_id: str | None,
    *,
    project: str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None,
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    service = (await conversation.providers(ProviderType.GITLAB)).get_service(ProviderType.GITLAB)
    opened = service.create_mr(project, source_branch, target_branch, title, description)
    return await conversation.opened(await _provider_answer(opened))


async def open_bitbucket_pr(
    services: AppServices,
    conversation_id: str | None,
    *,
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None,
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    handler = await conversation.providers(ProviderType.BITBUCKET)
    service = handler.get_service(ProviderType.BITBUCKET)
    opened = service.create_pr(repo_name, source_branch, target_branch, title, description)
    return await conversation.opened(await _provider_answer(opened))


async def _provider_answer(request: Awaitable[str]) -> str:
    """The new request's URL; a provider failure becomes the tool's error text (the
    provider's status and reason, e.g. ``GitHub refused the request (422): …``)."""
    try:
        return await request
    except PROVIDER_FAILURES as error:
        raise PullRequestError(str(error)) from error


# --- reference helpers ---------------------------------------------------------------------

# The public web host of a SaaS deployment (env `WEB_HOST`) and a conversation's URL there.
HOST = f"https://{os.getenv('WEB_HOST', 'app.all-hands.dev').strip()}"
CONVERSATION_URL = HOST + "/conversations/{}"
_NUMBER_IN_URL = re.compile(r"(?:pull|merge_requests|pull-requests)/(\d+)")


def pr_number_in(text: str) -> int | None:
    """The number of the first PR/MR URL in ``text`` (GitHub ``…/pull/7``, GitLab
    ``…/merge_requests/7``, Bitbucket ``…/pull-requests/7``)."""
    match = _NUMBER_IN_URL.search(text)
    return int(match.group(1)) if match else None


async def get_conversation_link(
    service: Any,
    conversation_id: str,
    body: str,
    app_mode: AppMode = AppMode.OSS,
    url_pattern: str | None = None,
) -> str:
    """``body`` with a link back to the conversation for the user ``service.get_user()``
    names (``@login``) — only in SaaS mode, where the conversation has a public URL
    (``CONVERSATION_URL``); unchanged otherwise."""
    if app_mode != AppMode.SAAS:
        return body
    user = await service.get_user()
    link = (url_pattern or CONVERSATION_URL).format(conversation_id)
    return f"{body}\n\n@{user.login} can click here to [continue refining the PR]({link})"


async def save_pr_metadata(
    user_id: str | None,
    conversation_id: str,
    tool_result: str,
    services: AppServices | None = None,
) -> None:
    """Append the PR/MR number found in ``tool_result`` (a PR/MR URL or a text holding
    one) to the conversation's ``pr_number``; nothing when no number is found.
    ``services`` defaults to this process's (``shared.process_services()``); ``user_id`` is not needed (metadata lives
    under the conversation id)."""
    number = pr_number_in(tool_result)
    if number is None:
        return
    if services is None:  # the reference's call names no app: this process's (the adapter)
        from openhands.server import shared

        services = await shared.process_services()
    await ConversationPullRequests(services, conversation_id).record(number)
