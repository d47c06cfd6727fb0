"""Credentials for git providers, user-defined secrets, and ``ProviderHandler``.

``ProviderToken`` and ``CustomSecret`` are immutable; their values are ``SecretStr`` so they
never show up in ``repr`` or logs. ``ProviderHandler`` answers questions across all the
providers a user has tokens for (which provider hosts a repository, its branches, the
authenticated clone URL, ...). The provider services are imported when first used, so the
storage layer can import the data types here cheaply.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Protocol, overload
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, WithJsonSchema

from openhands.core.schema.action import ActionType
from openhands.integrations.service_types import (
    AuthenticationError,
    Branch,
    MicroagentContentResponse,
    MicroagentResponse,
    PaginatedBranchesResponse,
    ProviderType,
    Repository,
    SuggestedTask,
    User,
)

if TYPE_CHECKING:
    from openhands.integrations.bitbucket.bitbucket_service import BitBucketService
    from openhands.integrations.github.github_service import GitHubService
    from openhands.integrations.gitlab.gitlab_service import GitLabService

    ServiceClass = type[GitHubService] | type[GitLabService] | type[BitBucketService]
    Service = GitHubService | GitLabService | BitBucketService

logger = logging.getLogger(__name__)

# Seconds to wait for a hosted deployment's refresh-token answer.
REFRESH_TIMEOUT = 15.0


class ProviderToken(BaseModel):
    """An access token for one provider, with the provider's host and the user's id there."""

    model_config = ConfigDict(frozen=True)

    token: SecretStr | None = Field(default=None, description="The access token")
    user_id: str | None = Field(default=None, description="The user's id at the provider")
    host: str | None = Field(default=None, description="e.g. github.com or an enterprise host")

    @classmethod
    def from_value(cls, value: ProviderToken | Mapping[str, Any] | str | None) -> ProviderToken:
        """Accept a ProviderToken, a ``{token, user_id?, host?}`` dict or a bare token string."""
        if isinstance(value, ProviderToken):
            return value
        if value is None:
            return cls()
        if isinstance(value, str):
            return cls(token=SecretStr(value))
        if isinstance(value, Mapping):
            return cls.model_validate(
                {
                    "token": value.get("token"),
                    "user_id": value.get("user_id"),
                    "host": value.get("host"),
                }
            )
        raise TypeError(f"Cannot build a ProviderToken from {type(value).__name__}")

    @property
    def has_token(self) -> bool:
        return self.token is not None and bool(self.token.get_secret_value())


class CustomSecret(BaseModel):
    """A user-defined secret, exposed to the agent's sandbox as an environment variable."""

    model_config = ConfigDict(frozen=True)

    secret: SecretStr = Field(default=SecretStr(""), description="The secret value")
    description: str = Field(default="", description="What the secret is for")

    @classmethod
    def from_value(cls, value: CustomSecret | Mapping[str, Any] | str) -> CustomSecret:
        """Accept a CustomSecret, a ``{secret, description?}`` dict or a bare value string."""
        if isinstance(value, CustomSecret):
            return value
        if isinstance(value, str):
            return cls(secret=SecretStr(value))
        if isinstance(value, Mapping):
            return cls.model_validate(
                {"secret": value.get("secret", ""), "description": value.get("description") or ""}
            )
        raise TypeError(f"Cannot build a CustomSecret from {type(value).__name__}")


PROVIDER_TOKEN_TYPE = MappingProxyType[ProviderType, ProviderToken]
CUSTOM_SECRETS_TYPE = MappingProxyType[str, CustomSecret]
PROVIDER_TOKEN_TYPE_WITH_JSON_SCHEMA = Annotated[
    PROVIDER_TOKEN_TYPE,
    WithJsonSchema({"type": "object", "additionalProperties": {"type": "string"}}),
]
CUSTOM_SECRETS_TYPE_WITH_JSON_SCHEMA = Annotated[
    CUSTOM_SECRETS_TYPE,
    WithJsonSchema({"type": "object", "additionalProperties": {"type": "string"}}),
]


class _SecretsSink(Protocol):
    """What ``set_event_stream_secrets`` needs of an event stream."""

    def set_secrets(self, secrets: dict[str, str]) -> None: ...


def _service_classes() -> dict[ProviderType, ServiceClass]:
    from openhands.integrations.bitbucket.bitbucket_service import BitBucketServiceImpl
    from openhands.integrations.github.github_service import GithubServiceImpl
    from openhands.integrations.gitlab.gitlab_service import GitLabServiceImpl

    return {
        ProviderType.GITHUB: GithubServiceImpl,
        ProviderType.GITLAB: GitLabServiceImpl,
        ProviderType.BITBUCKET: BitBucketServiceImpl,
    }


class ProviderHandler:
    """A user's provider tokens, and the questions that span providers."""

    PROVIDER_DOMAINS: ClassVar[dict[ProviderType, str]] = {
        ProviderType.GITHUB: "github.com",
        ProviderType.GITLAB: "gitlab.com",
        ProviderType.BITBUCKET: "bitbucket.org",
    }

    def __init__(
        self,
        provider_tokens: PROVIDER_TOKEN_TYPE,
        external_auth_id: str | None = None,
        external_auth_token: SecretStr | None = None,
        external_token_manager: bool = False,
        session_api_key: str | None = None,
        sid: str | None = None,
    ) -> None:
        if not isinstance(provider_tokens, MappingProxyType):
            raise TypeError(
                f"provider_tokens must be a MappingProxyType, got {type(provider_tokens).__name__}"
            )
        self._provider_tokens = provider_tokens
        self.external_auth_id = external_auth_id
        self.external_auth_token = external_auth_token
        self.external_token_manager = external_token_manager
        self.session_api_key = session_api_key
        self.sid = sid
        # Per provider, the public API root its service uses instead of the `*_API_URL`
        # environment variable or the public default (the services' `api_url`; a token's
        # self-hosted `host` still wins). Empty unless the caller configures its own roots:
        # see `with_api_urls`.
        self.api_urls: dict[ProviderType, str] = {}
        self.service_class_for_provider = _service_classes()
        # A hosted deployment (env ``WEB_HOST``) hands out fresh tokens for a conversation
        # at this URL; without it a service's ``get_latest_token`` is asked instead.
        web_host = os.getenv("WEB_HOST", "").strip()
        self.REFRESH_TOKEN_URL: str | None = (
            f"https://{web_host}/api/refresh-tokens" if web_host else None
        )

    @property
    def provider_tokens(self) -> PROVIDER_TOKEN_TYPE:
        """Read-only view of the tokens."""
        return self._provider_tokens

    def with_api_urls(self, api_urls: Mapping[ProviderType, str]) -> ProviderHandler:
        """This handler, its services using ``api_urls`` as their API roots (where given)."""
        self.api_urls.update(api_urls)
        return self

    @overload
    def get_service(self, provider: Literal[ProviderType.GITHUB]) -> GitHubService: ...

    @overload
    def get_service(self, provider: Literal[ProviderType.GITLAB]) -> GitLabService: ...

    @overload
    def get_service(self, provider: Literal[ProviderType.BITBUCKET]) -> BitBucketService: ...

    @overload
    def get_service(self, provider: ProviderType) -> Service: ...

    def get_service(self, provider: ProviderType) -> Service:
        """The service of ``provider`` for its token (``KeyError`` without one)."""
        return self._get_service(provider)

    def _get_service(self, provider: ProviderType) -> Service:
        token = self._provider_tokens[provider]
        service_class = self.service_class_for_provider[provider]
        # Passed only when set, so a replacement class (OPENHANDS_*_SERVICE_CLS) written
        # against the reference's constructor keeps working.
        api_url = self.api_urls.get(provider)
        extra = {"api_url": api_url} if api_url else {}
        return service_class(
            user_id=token.user_id,
            external_auth_id=self.external_auth_id,
            external_auth_token=self.external_auth_token,
            token=token.token,
            external_token_manager=self.external_token_manager,
            base_domain=token.host,
            **extra,
        )

    def _usable(self) -> list[ProviderType]:
        """Providers with a service and a token (or an external token manager)."""
        return [
            provider
            for provider, token in self._provider_tokens.items()
            if provider in self.service_class_for_provider
            and (token.has_token or self.external_token_manager)
        ]

    # --- user and accounts ------------------------------------------------------------

    async def get_user(self) -> User:
        """The user at the first provider that answers."""
        for provider in self._usable():
            try:
                return await self._get_service(provider).get_user()
            except Exception as error:
                logger.info("Could not get the user from %s: %s", provider.value, error)
        raise AuthenticationError("Need valid provider token")

    async def _installations(self, provider: ProviderType) -> list[str]:
        if provider not in self._usable():
            return []
        service = self._get_service(provider)
        try:
            return await service.get_installations()  # type: ignore[union-attr]
        except Exception as error:
            logger.info("Could not list %s installations: %s", provider.value, error)
            return []

    async def get_github_installations(self) -> list[str]:
        return await self._installations(ProviderType.GITHUB)

    async def get_bitbucket_workspaces(self) -> list[str]:
        return await self._installations(ProviderType.BITBUCKET)

    # --- repositories -----------------------------------------------------------------

    async def get_repositories(
        self,
        sort: str,
        app_mode: Any,
        selected_provider: ProviderType | None,
        page: int | None,
        per_page: int | None,
        installation_id: str | None,
    ) -> list[Repository]:
        """One page from ``selected_provider`` when given (and paging is asked for),
        otherwise every repository of every provider (a failing provider is skipped)."""
        if selected_provider is not None:
            if not page or not per_page:
                raise ValueError("Failed to provide params for paginating repos")
            service = self._get_service(selected_provider)
            return await service.get_paginated_repos(page, per_page, sort, installation_id)
        repositories: list[Repository] = []
        for provider in self._usable():
            try:
                repositories.extend(
                    await self._get_service(provider).get_all_repositories(sort, app_mode)
                )
            except Exception as error:
                logger.info("Could not list %s repositories: %s", provider.value, error)
        return repositories

    async def search_repositories(
        self,
        selected_provider: ProviderType | None,
        query: str,
        per_page: int,
        sort: str,
        order: str,
    ) -> list[Repository]:
        """Repositories matching ``query`` at ``selected_provider``, or at every provider
        (a failing one is skipped). A pasted repository URL is looked up at the provider
        whose host it names (a custom host of the token counts), and only there."""
        providers = [selected_provider] if selected_provider else self._usable()
        is_url = query.strip().startswith(("http://", "https://"))
        found: list[Repository] = []
        for provider in providers:
            public = is_url and self.is_repository_url(query, provider)
            if is_url and not public:
                continue
            try:
                found.extend(
                    await self._get_service(provider).search_repositories(
                        query, per_page, sort, order, public
                    )
                )
            except Exception as error:
                logger.info("Repository search on %s failed: %s", provider.value, error)
        return self._deduplicate_repositories(found)

    def is_repository_url(self, query: str, provider: ProviderType) -> bool:
        """Whether ``query`` is an http(s) URL on ``provider``'s public host or on the
        custom host of the user's token for it (and on its port, when that host names
        one)."""
        try:
            url = urlsplit(query.strip())
            if url.scheme not in ("http", "https") or not url.hostname:
                return False
            if url.hostname == self.PROVIDER_DOMAINS[provider]:
                return True
            token = self._provider_tokens.get(provider)
            if token is None or not token.host:
                return False
            host = urlsplit(token.host if "://" in token.host else f"//{token.host}")
            return url.hostname == host.hostname and host.port in (None, url.port)
        except ValueError:  # a port that is not a number
            return False

    @staticmethod
    def _deduplicate_repositories(repos: list[Repository]) -> list[Repository]:
        """``repos`` without repeats of a provider's repository (first one kept)."""
        seen: set[tuple[ProviderType, str]] = set()
        unique: list[Repository] = []
        for repo in repos:
            key = (repo.git_provider, repo.full_name)
            if key not in seen:
                seen.add(key)
                unique.append(repo)
        return unique

    async def verify_repo_provider(
        self, repository: str, specified_provider: ProviderType | None = None
    ) -> Repository:
        """The repository as seen by the given provider, else by the first provider with a
        token that can read it."""
        order = [specified_provider] if specified_provider in self._usable() else []
        order += [p for p in self._usable() if p not in order]
        for provider in order:
            try:
                service = self._get_service(provider)
                return await service.get_repository_details_from_repo_name(repository)
            except Exception as error:
                logger.info("%s cannot read %s: %s", provider.value, repository, error)
        raise AuthenticationError(f"Unable to access repo {repository}")

    async def get_suggested_tasks(self) -> list[SuggestedTask]:
        tasks: list[SuggestedTask] = []
        for provider in self._usable():
            try:
                tasks.extend(await self._get_service(provider).get_suggested_tasks())
            except Exception as error:
                logger.info("Could not get %s suggested tasks: %s", provider.value, error)
        return tasks

    # --- branches ---------------------------------------------------------------------

    async def _provider_of(self, repository: str, specified: ProviderType | None) -> ProviderType:
        usable = self._usable()
        if specified is not None and specified in usable:
            return specified
        if specified is None and len(usable) == 1:
            return usable[0]  # the only provider to ask: no look-up first
        return (await self.verify_repo_provider(repository, specified)).git_provider

    async def get_branches(
        self,
        repository: str,
        specified_provider: ProviderType | None = None,
        page: int = 1,
        per_page: int = 30,
    ) -> PaginatedBranchesResponse:
        """A page of branches from the provider hosting ``repository``; an empty page when
        no provider can list them."""
        try:
            provider = await self._provider_of(repository, specified_provider)
            service = self._get_service(provider)
            return await service.get_paginated_branches(repository, page, per_page)
        except Exception as error:
            logger.info("Could not list the branches of %s: %s", repository, error)
            return PaginatedBranchesResponse(
                branches=[], has_next_page=False, current_page=page, per_page=per_page
            )

    async def search_branches(
        self,
        selected_provider: ProviderType | None,
        repository: str,
        query: str,
        per_page: int = 30,
    ) -> list[Branch]:
        provider = await self._provider_of(repository, selected_provider)
        return await self._get_service(provider).search_branches(repository, query, per_page)

    # --- microagents ------------------------------------------------------------------

    async def get_microagents(self, repository: str) -> list[MicroagentResponse]:
        provider = await self._provider_of(repository, None)
        return await self._get_service(provider).get_microagents(repository)

    async def get_microagent_content(
        self, repository: str, file_path: str
    ) -> MicroagentContentResponse:
        provider = await self._provider_of(repository, None)
        return await self._get_service(provider).get_microagent_content(repository, file_path)

    # --- clone URLs and pull requests -------------------------------------------------

    async def get_authenticated_git_url(self, repo_name: str) -> str:
        """``https://<credentials>@<domain>/<repo>.git`` for the provider hosting the
        repository (the token's host as the domain when set)."""
        try:
            repository = await self.verify_repo_provider(repo_name)
        except AuthenticationError as error:
            raise Exception("Git provider authentication issue when getting remote URL") from error
        provider = repository.git_provider
        full_name = repository.full_name or repo_name
        token = self._provider_tokens.get(provider)
        domain = (token.host if token and token.host else None) or self.PROVIDER_DOMAINS[provider]
        scheme = "https"
        if "://" in domain:  # a host written with its scheme (e.g. a local stand-in)
            scheme, domain = domain.split("://", 1)
        domain = domain.rstrip("/")
        secret = token.token.get_secret_value() if token and token.token else ""
        if not secret:
            return f"{scheme}://{domain}/{full_name}.git"
        if provider is ProviderType.GITLAB:
            credentials = f"oauth2:{secret}"
        elif provider is ProviderType.BITBUCKET:
            credentials = secret if ":" in secret else f"x-token-auth:{secret}"
        else:
            credentials = secret
        return f"{scheme}://{credentials}@{domain}/{full_name}.git"

    async def is_pr_open(self, repository: str, pr_number: int, git_provider: ProviderType) -> bool:
        """Whether the PR/MR is still open; True when that cannot be found out."""
        try:
            return await self._get_service(git_provider).is_pr_open(repository, pr_number)
        except Exception as error:
            logger.info("Could not check %s #%s: %s", repository, pr_number, error)
            return True

    # --- secrets for the sandbox ------------------------------------------------------

    @classmethod
    def get_provider_env_key(cls, provider: ProviderType) -> str:
        """The secret's name in the sandbox: ``github_token``, ``gitlab_token``, …"""
        return f"{provider.value}_token".lower()

    @classmethod
    def check_cmd_action_for_provider_token_ref(cls, event: Any) -> list[ProviderType]:
        """Providers whose token variable a command mentions (``CmdRunAction`` only)."""
        if getattr(event, "action", None) != ActionType.RUN:
            return []
        command = str(getattr(event, "command", "")).lower()
        return [p for p in ProviderType if cls.get_provider_env_key(p) in command]

    @staticmethod
    def expose_env_vars(env_secrets: Mapping[ProviderType, SecretStr]) -> dict[str, str]:
        return {
            ProviderHandler.get_provider_env_key(provider): secret.get_secret_value()
            for provider, secret in env_secrets.items()
        }

    async def get_env_vars(
        self,
        expose_secrets: bool = False,
        providers: list[ProviderType] | None = None,
        get_latest: bool = False,
    ) -> dict[ProviderType, SecretStr] | dict[str, str]:
        """The tokens of ``providers`` (default: all), keyed by provider, or by env-var name
        with plain values when ``expose_secrets``; ``{}`` without tokens. ``get_latest``
        asks each service for a fresh token (external token managers)."""
        env = await self._collect_env(providers, get_latest)
        if expose_secrets:
            return self.expose_env_vars(env)
        return env

    async def _collect_env(
        self, providers: list[ProviderType] | None, get_latest: bool
    ) -> dict[ProviderType, SecretStr]:
        env: dict[ProviderType, SecretStr] = {}
        for provider in providers or list(self._provider_tokens):
            token = self._provider_tokens.get(provider)
            if token is None:
                continue
            value = token.token
            if get_latest and self.REFRESH_TOKEN_URL and self.sid:
                value = await self._get_latest_provider_token(provider) or value
            elif get_latest and provider in self.service_class_for_provider:
                value = await self._get_service(provider).get_latest_token() or value
            if value is not None and value.get_secret_value():
                env[provider] = value
        return env

    async def _get_latest_provider_token(self, provider: ProviderType) -> SecretStr | None:
        """This conversation's current token for ``provider`` from ``REFRESH_TOKEN_URL``
        (``{"token": ...}``); None when it cannot be had (logged without the answer)."""
        if self.REFRESH_TOKEN_URL is None:
            return None
        import httpx  # here: the storage layer imports this module for the token types

        headers = {"X-Session-API-Key": self.session_api_key} if self.session_api_key else {}
        try:
            async with httpx.AsyncClient(timeout=REFRESH_TIMEOUT) as client:
                response = await client.get(
                    self.REFRESH_TOKEN_URL,
                    headers=headers,
                    params={"provider": provider.value, "sid": self.sid or ""},
                )
            response.raise_for_status()
            token = response.json().get("token")
        except (httpx.HTTPError, ValueError, AttributeError) as error:
            logger.error("Could not refresh the %s token: %s", provider.value, type(error).__name__)
            return None
        return SecretStr(token) if isinstance(token, str) and token else None

    async def set_event_stream_secrets(
        self,
        event_stream: _SecretsSink,
        env_vars: Mapping[ProviderType, SecretStr] | None = None,
    ) -> None:
        """Give the event stream the token values so they are masked in its events."""
        if env_vars:
            exposed = self.expose_env_vars(env_vars)
        else:
            exposed = self.expose_env_vars(await self._secret_env())
        event_stream.set_secrets(exposed)

    async def _secret_env(self) -> dict[ProviderType, SecretStr]:
        env = await self.get_env_vars(expose_secrets=False)
        return {
            p: v for p, v in env.items() if isinstance(p, ProviderType) and not isinstance(v, str)
        }


__all__ = [
    "CUSTOM_SECRETS_TYPE",
    "CUSTOM_SECRETS_TYPE_WITH_JSON_SCHEMA",
    "PROVIDER_TOKEN_TYPE",
    "PROVIDER_TOKEN_TYPE_WITH_JSON_SCHEMA",
    "CustomSecret",
    "ProviderHandler",
    "ProviderToken",
    "ProviderType",
]
