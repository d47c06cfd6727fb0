"""The caller's git providers, for the `/api/user/*` routes and the repository check.

The providers themselves are ``openhands.integrations`` (``ProviderHandler`` and the GitHub,
GitLab and Bitbucket services). This module only decides which provider a request is for
and refuses what must not reach a provider (no token, a token HTTP cannot carry). The
services' failures propagate; ``errors.ERROR_TABLE`` turns them into responses.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.service_types import (
    AuthenticationError,
    InstallationsService,
    ProviderType,
    Repository,
    SuggestedTask,
)
from openhands.server.errors import (
    PROVIDER_FAILURES,
    ApiError,
    PlainTextError,
    ProviderAuthError,
    ProviderRequestError,
    ProviderTokenRequiredError,
)

if TYPE_CHECKING:
    from openhands.integrations.provider import Service
    from openhands.server.server_config import ServerConfig

logger = logging.getLogger(__name__)

# What leaves one provider out of an answer that spans providers: its failure, or this
# module's refusal to call it (a token HTTP cannot carry, a provider without a service).
_ONE_PROVIDER_FAILURES: tuple[type[Exception], ...] = (*PROVIDER_FAILURES, ApiError)

# The 401 texts without a token (server-api §6.6).
TOKEN_REQUIRED = "Git provider token required. (such as GitHub)."
SEARCH_TOKEN_REQUIRED = "Git provider token required."
NO_PROVIDERS = "No providers set."

# The public API roots the services default to: a server config naming one of these
# passes nothing, so the services (and replacement service classes) keep their defaults.
PUBLIC_API_URLS = {
    ProviderType.GITHUB: "https://api.github.com",
    ProviderType.GITLAB: "https://gitlab.com/api/v4",
    ProviderType.BITBUCKET: "https://api.bitbucket.org/2.0",
}


def is_plausible_token(token: str) -> bool:
    """Provider tokens are printable ASCII without spaces; anything else cannot even be
    sent in an HTTP header (0.59 crashed with a 500 on a non-ASCII token)."""
    return token.isascii() and token.isprintable() and not any(c.isspace() for c in token)


def provider_api_urls(server_config: ServerConfig) -> dict[ProviderType, str]:
    """The API roots the server is configured with (``github_api_url`` …) where they
    differ from the public ones, for ``ProviderHandler.with_api_urls``."""
    configured = {
        ProviderType.GITHUB: server_config.github_api_url,
        ProviderType.GITLAB: server_config.gitlab_api_url,
        ProviderType.BITBUCKET: server_config.bitbucket_api_url,
    }
    return {
        provider: url.rstrip("/")
        for provider, url in configured.items()
        if url and url.rstrip("/") != PUBLIC_API_URLS[provider]
    }


class GitProviders:
    """The caller's provider tokens (those with a value) and their services."""

    def __init__(
        self,
        tokens: Mapping[ProviderType, ProviderToken] | None,
        api_urls: Mapping[ProviderType, str] | None = None,
    ) -> None:
        self.tokens = {p: t for p, t in (tokens or {}).items() if t.has_token}
        self.handler = ProviderHandler(MappingProxyType(self.tokens)).with_api_urls(api_urls or {})

    def provider(
        self, selected: ProviderType | None = None, missing: str = TOKEN_REQUIRED
    ) -> ProviderType:
        """``selected``, or the first provider with a token. 401 ``missing`` when that
        provider has no token, 401 when its token cannot be sent, 400 when the server has
        no service for it."""
        if not self.tokens:
            raise ProviderTokenRequiredError(missing)
        chosen = selected or next(iter(self.tokens))
        token = self.tokens.get(chosen)
        if token is None or token.token is None:
            raise ProviderTokenRequiredError(missing)
        if chosen not in self.handler.service_class_for_provider:
            raise ProviderRequestError(
                f"Provider {chosen.value} is not supported by this server", 400
            )
        if not is_plausible_token(token.token.get_secret_value()):
            raise ProviderAuthError()
        return chosen

    def service(
        self, selected: ProviderType | None = None, missing: str = TOKEN_REQUIRED
    ) -> Service:
        """The service of ``provider(selected, missing)``."""
        return self.handler.get_service(self.provider(selected, missing))

    async def repository_service(
        self,
        repository: str,
        selected: ProviderType | None = None,
        missing: str = TOKEN_REQUIRED,
    ) -> Service:
        """The service for ``repository``: ``selected`` when given; with one token, its
        provider; with several, the first that can read the repository (the first
        provider when none can, so that its failure is the answer)."""
        first = self.provider(selected, missing)
        if selected is None and len(self.tokens) > 1:
            try:
                found = await self.handler.verify_repo_provider(repository)
            except AuthenticationError:
                pass
            else:
                return self.service(found.git_provider, missing)
        return self.handler.get_service(first)

    async def installations(self, provider: ProviderType) -> list[str]:
        """GitHub app installations or Bitbucket workspaces: 400 for a provider whose
        service has none (GitLab), before its token is looked at."""
        unsupported = PlainTextError(
            f"Provider {provider.value} doesn't support installations", 400
        )
        service_class = self.handler.service_class_for_provider.get(provider)
        if service_class is None or not issubclass(service_class, InstallationsService):
            raise unsupported
        service = self.service(provider)
        if not isinstance(service, InstallationsService):
            raise unsupported
        return await service.get_installations()

    async def suggested_tasks(self) -> list[SuggestedTask]:
        """The tasks of every provider with a token, asked at once. A failing provider is
        left out, unless all fail: then the first failure is the answer."""
        if not self.tokens:
            raise ProviderTokenRequiredError(NO_PROVIDERS)

        async def tasks_of(provider: ProviderType) -> list[SuggestedTask] | Exception:
            try:
                return await self.service(provider, NO_PROVIDERS).get_suggested_tasks()
            except _ONE_PROVIDER_FAILURES as failure:
                logger.warning("No suggested tasks from %s: %s", provider.value, failure)
                return failure

        answers = await asyncio.gather(*(tasks_of(provider) for provider in self.tokens))
        failures = [answer for answer in answers if isinstance(answer, Exception)]
        if len(failures) == len(answers):
            raise failures[0]
        return [task for answer in answers if isinstance(answer, list) for task in answer]

    async def search_repositories(
        self,
        query: str,
        per_page: int,
        sort: str,
        order: str,
        selected: ProviderType | None = None,
    ) -> list[Repository]:
        """Repositories matching ``query`` at ``selected`` (else the first provider with a
        token). A pasted repository URL is looked up at the provider whose host it names
        (with no provider selected, any provider with a token); a URL no such provider
        hosts finds nothing rather than being searched for as text."""
        provider = self.provider(selected, SEARCH_TOKEN_REQUIRED)
        if not query.strip().startswith(("http://", "https://")):
            return await self.service(provider).search_repositories(
                query, per_page, sort, order, False
            )
        candidates = [selected] if selected else list(self.tokens)
        for candidate in candidates:
            if self.handler.is_repository_url(query, candidate):
                service = self.service(candidate, SEARCH_TOKEN_REQUIRED)
                return await service.search_repositories(query, per_page, sort, order, True)
        return []

    async def can_read(self, repository: str, provider: ProviderType | None) -> bool:
        """Whether a provider with a token (``provider`` asked first) can read
        ``repository``."""
        try:
            await self.handler.verify_repo_provider(repository, provider)
        except AuthenticationError:
            return False
        return True
