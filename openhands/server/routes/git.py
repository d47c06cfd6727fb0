"""Git-provider routes for the home page (`/api/user`, OSS only; server-api §6.6).

Each route picks the provider (``GitProviders``) and asks its service
(``openhands.integrations``); provider failures become responses in ``errors.ERROR_TABLE``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import MappingProxyType
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import SecretStr

from openhands.integrations.provider import ProviderHandler
from openhands.integrations.service_types import ProviderType
from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, Providers
from openhands.server.errors import MappedErrorsRoute, PlainTextError
from openhands.server.models.git import (
    Branch,
    GitUser,
    PaginatedBranches,
    RepoMicroagent,
    RepoMicroagentContent,
    Repository,
    SuggestedTaskOut,
)
from openhands.server.services.git_providers import SEARCH_TOKEN_REQUIRED, GitProviders
from openhands.server.user_auth.request_auth import get_access_token, get_user_id

github_api_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/user",
    tags=["git"],
    dependencies=API_GUARDS,
    responses=errors.GIT_PROVIDER_RESPONSES,
)
app = github_api_router  # the reference's name of this router
# A page of repositories when the caller names no page size.
DEFAULT_REPOSITORIES_PER_PAGE = 100


@github_api_router.get("/installations")
async def get_installations(providers: Providers, provider: ProviderType) -> list[str]:
    return await providers.installations(provider)


@github_api_router.get("/repositories")
async def get_repositories(
    providers: Providers,
    sort: str = "pushed",
    selected_provider: ProviderType | None = None,
    page: int | None = None,
    per_page: int | None = None,
    installation_id: str | None = None,
) -> list[Repository]:
    service = providers.service(selected_provider)
    return await service.get_paginated_repos(
        page or 1, per_page or DEFAULT_REPOSITORIES_PER_PAGE, sort, installation_id
    )


@github_api_router.get("/info")
async def get_user(providers: Providers) -> GitUser:
    return await providers.service().get_user()


@github_api_router.get("/search/repositories")
async def search_repositories(
    providers: Providers,
    query: str,
    per_page: int = 5,
    sort: str = "stars",
    order: str = "desc",
    selected_provider: ProviderType | None = None,
) -> list[Repository]:
    return await providers.search_repositories(query, per_page, sort, order, selected_provider)


@github_api_router.get("/search/branches")
async def search_branches(
    providers: Providers,
    repository: str,
    query: str,
    per_page: int = 30,
    selected_provider: ProviderType | None = None,
) -> list[Branch]:
    service = await providers.repository_service(
        repository, selected_provider, SEARCH_TOKEN_REQUIRED
    )
    return await service.search_branches(repository, query, per_page)


@github_api_router.get("/suggested-tasks")
async def get_suggested_tasks(providers: Providers) -> list[SuggestedTaskOut]:
    return await providers.suggested_tasks()


@github_api_router.get("/repository/branches")
async def get_repository_branches(
    providers: Providers, repository: str, page: int = 1, per_page: int = 30
) -> PaginatedBranches:
    service = await providers.repository_service(repository)
    return await service.get_paginated_branches(repository, page, per_page)


@github_api_router.get("/repository/{repository_name:path}/microagents/content")
async def get_repository_microagent_content(
    providers: Providers,
    repository_name: str,
    file_path: str,
    access_token: Annotated[SecretStr | None, Depends(get_access_token)],
    user_id: Annotated[str | None, Depends(get_user_id)],
) -> RepoMicroagentContent:
    handler = _microagent_handler(providers, access_token, user_id)
    with _runtime_errors_as_500():
        return await handler.get_microagent_content(repository_name, file_path)


@github_api_router.get("/repository/{repository_name:path}/microagents")
async def get_repository_microagents(
    providers: Providers,
    repository_name: str,
    access_token: Annotated[SecretStr | None, Depends(get_access_token)],
    user_id: Annotated[str | None, Depends(get_user_id)],
) -> list[RepoMicroagent]:
    handler = _microagent_handler(providers, access_token, user_id)
    with _runtime_errors_as_500():
        return await handler.get_microagents(repository_name)


def _microagent_handler(
    providers: GitProviders, access_token: SecretStr | None, user_id: str | None
) -> ProviderHandler:
    """The caller's ``ProviderHandler`` (this module's name, read when called, as the
    reference's routes built theirs): 401 first when the caller has no usable token."""
    providers.provider()
    handler = ProviderHandler(
        MappingProxyType(providers.tokens),
        external_auth_token=access_token,
        external_auth_id=user_id,
    )
    if providers.handler.api_urls:
        handler.with_api_urls(providers.handler.api_urls)
    return handler


@contextmanager
def _runtime_errors_as_500() -> Iterator[None]:
    """A RuntimeError of the provider layer: 500 with its text, as 0.59 answered."""
    try:
        yield
    except RuntimeError as error:
        raise PlainTextError(str(error), 500) from error
