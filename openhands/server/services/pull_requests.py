"""Opening pull/merge requests for a conversation (the server's own MCP tools, §6.7).

A tool call names its conversation in a header; the conversation's owner's stored
git-provider token is used, and the new PR/MR number is appended to the conversation's
``pr_number``. Nothing here imports the MCP SDK: the endpoint (``openhands.server.mcp_endpoint``)
is a thin layer over these functions, and tests can call them directly.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.errors import InvalidConversationIdError, ProviderTokenRequiredError
from openhands.server.services.conversation_ids import check_conversation_id
from openhands.server.services.git_providers import GitHubClient
from openhands.server.types import AppMode

if TYPE_CHECKING:
    from openhands.server.app_services import AppServices
    from openhands.storage.data_models.conversation_metadata import ConversationMetadata

_TIMEOUT_SECONDS = 30.0
GITLAB_API_URL = "https://gitlab.com/api/v4"
BITBUCKET_API_URL = "https://api.bitbucket.org/2.0"


class PullRequestError(Exception):
    """Why a PR/MR could not be opened, worded for the agent that asked."""


@dataclass(frozen=True)
class CreatedPullRequest:
    url: str
    number: int


# --- the providers' APIs ----------------------------------------------------------------


def _api_base(token: ProviderToken, default: str, suffix: str, default_hosts: set[str]) -> str:
    """The provider's REST root: the default one, or the token's own (self-hosted) host.
    A host given with a scheme is used as-is, which is also how tests point at a stand-in."""
    host = (token.host or "").strip().rstrip("/")
    if not host or host in default_hosts:
        return default
    base = host if host.startswith(("http://", "https://")) else f"https://{host}"
    return f"{base}{suffix}"


async def _post(provider: str, url: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
    import httpx  # not needed to start the server

    try:
        async with httpx.AsyncClient(timeout=_TIMEOUT_SECONDS) as client:
            response = await client.post(url, json=body, headers=headers)
    except httpx.HTTPError as error:
        raise PullRequestError(f"Could not reach {provider}: {error}") from error
    if response.status_code >= 400:
        raise PullRequestError(
            f"{provider} refused the request ({response.status_code}): {_reason(response)}"
        )
    try:
        return response.json()
    except ValueError as error:
        raise PullRequestError(f"{provider} answered with something that is not JSON") from error


def _reason(response: Any) -> str:
    """The provider's own error message when it sent one (all three send JSON errors)."""
    try:
        data = response.json()
    except ValueError:
        return str(response.text)[:500] or "no details"
    if isinstance(data, dict):
        for key in ("message", "error", "errors"):
            if data.get(key):
                value = data[key]
                if isinstance(value, dict):  # Bitbucket: {"error": {"message": ...}}
                    value = value.get("message", value)
                text = str(value)
                if key == "message" and data.get("errors"):  # GitHub adds the details here
                    text += f" {data['errors']}"
                return text[:500]
    return str(data)[:500]


def _created(provider: str, url: Any, number: Any) -> CreatedPullRequest:
    if not isinstance(url, str) or not isinstance(number, int):
        raise PullRequestError(f"{provider} did not return the new request's URL and number")
    return CreatedPullRequest(url=url, number=number)


async def create_github_pr(
    token: ProviderToken,
    default_api_url: str,
    *,
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    body: str | None,
    draft: bool,
) -> CreatedPullRequest:
    client = GitHubClient(token, default_api_url)  # base URL and auth headers, as elsewhere
    data = await _post(
        "GitHub",
        f"{client.base_url}/repos/{repo_name}/pulls",
        client.headers,
        {
            "title": title,
            "head": source_branch,
            "base": target_branch,
            "body": body or "",
            "draft": draft,
        },
    )
    return _created("GitHub", data.get("html_url"), data.get("number"))


async def create_gitlab_mr(
    token: ProviderToken,
    *,
    project: str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None,
) -> CreatedPullRequest:
    base = _api_base(token, GITLAB_API_URL, "/api/v4", {"gitlab.com"})
    # A project is named by its numeric id or its URL-encoded path (`group/project`).
    data = await _post(
        "GitLab",
        f"{base}/projects/{quote(project, safe='')}/merge_requests",
        {"Authorization": f"Bearer {_secret(token)}"},
        {
            "source_branch": source_branch,
            "target_branch": target_branch,
            "title": title,
            "description": description or "",
        },
    )
    return _created("GitLab", data.get("web_url"), data.get("iid"))


async def create_bitbucket_pr(
    token: ProviderToken,
    *,
    repo_name: str,
    source_branch: str,
    target_branch: str,
    title: str,
    description: str | None,
) -> CreatedPullRequest:
    base = _api_base(token, BITBUCKET_API_URL, "/2.0", {"bitbucket.org", "api.bitbucket.org"})
    secret = _secret(token)
    # `user:app_password` tokens are Basic credentials; anything else is an OAuth token.
    if ":" in secret:
        authorization = "Basic " + base64.b64encode(secret.encode()).decode()
    else:
        authorization = f"Bearer {secret}"
    data = await _post(
        "Bitbucket",
        f"{base}/repositories/{repo_name}/pullrequests",
        {"Authorization": authorization},
        {
            "title": title,
            "description": description or "",
            "source": {"branch": {"name": source_branch}},
            "destination": {"branch": {"name": target_branch}},
        },
    )
    link = ((data.get("links") or {}).get("html") or {}).get("href")
    return _created("Bitbucket", link, data.get("id"))


def _secret(token: ProviderToken) -> str:
    return token.token.get_secret_value() if token.token else ""


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
    services: AppServices, conversation_id: str | None, **fields: Any
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    token = await conversation.token(ProviderType.GITHUB)
    try:
        created = await create_github_pr(token, services.server_config.github_api_url, **fields)
    except ProviderTokenRequiredError as error:
        raise PullRequestError(str(error)) from error
    await conversation.record(created.number)
    return created


async def open_gitlab_mr(
    services: AppServices, conversation_id: str | None, **fields: Any
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    created = await create_gitlab_mr(await conversation.token(ProviderType.GITLAB), **fields)
    await conversation.record(created.number)
    return created


async def open_bitbucket_pr(
    services: AppServices, conversation_id: str | None, **fields: Any
) -> CreatedPullRequest:
    conversation = ConversationPullRequests(services, conversation_id)
    created = await create_bitbucket_pr(await conversation.token(ProviderType.BITBUCKET), **fields)
    await conversation.record(created.number)
    return created


# --- reference helpers ---------------------------------------------------------------------

# The public web host of a SaaS deployment (env `WEB_HOST`) and a conversation's URL there.
HOST = f"https://{os.getenv('WEB_HOST', 'app.all-hands.dev').strip()}"
CONVERSATION_URL = HOST + "/conversations/{}"
_NUMBER_IN_URL = re.compile(r"(?:pull|merge_requests|pull-requests)/(\d+)")


async def get_conversation_link(
    service: Any, conversation_id: str, body: str, app_mode: AppMode = AppMode.OSS
) -> str:
    """``body`` with a link back to the conversation for the user ``service.get_user()``
    names (``@login``) — only in SaaS mode, where the conversation has a public URL
    (``CONVERSATION_URL``); unchanged otherwise."""
    if app_mode != AppMode.SAAS:
        return body
    user = await service.get_user()
    link = CONVERSATION_URL.format(conversation_id)
    return f"{body}\n\n@{user.login} can click here to [continue refining the PR]({link})"


async def save_pr_metadata(
    user_id: str | None,
    conversation_id: str,
    tool_result: str,
    services: AppServices | None = None,
) -> None:
    """Append the PR/MR number found in ``tool_result`` (a PR/MR URL or a text holding
    one) to the conversation's ``pr_number``; nothing when no number is found.
    ``services`` defaults to the running app's; ``user_id`` is not needed (metadata lives
    under the conversation id)."""
    match = _NUMBER_IN_URL.search(tool_result)
    if match is None:
        return
    if services is None:
        from openhands.server.app_services import running_services

        services = running_services()
        if services is None:
            raise RuntimeError("No OpenHands app is running in this process")
    await ConversationPullRequests(services, conversation_id).record(int(match.group(1)))
