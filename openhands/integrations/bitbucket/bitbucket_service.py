"""Bitbucket Cloud over its REST API 2.0 (``api.bitbucket.org/2.0``, ``https://<host>/2.0``,
or ``BITBUCKET_API_URL``). A token ``user:app_password`` is sent as Basic credentials, any
other token as an OAuth bearer token. Workspaces play the part of GitHub installations."""

from __future__ import annotations

import base64
import os
from typing import Any

from pydantic import SecretStr

from openhands.integrations.protocols.http_client import HTTPClient, api_base_url
from openhands.integrations.repository_urls import repository_from_url
from openhands.integrations.service_types import (
    BaseGitService,
    Branch,
    OwnerType,
    PaginatedBranchesResponse,
    ProviderType,
    Repository,
    RequestMethod,
    ResourceNotFoundError,
    SuggestedTask,
    UnknownException,
    User,
)
from openhands.utils.import_utils import get_impl

MAX_REPOS = 1000
MAX_BRANCHES = 500
PER_PAGE = 100
# Bitbucket's sort fields for the sorts the UI asks for (newest first).
_SORT = {"pushed": "-updated_on", "updated": "-updated_on", "created": "-created_on"}


class BitBucketService(BaseGitService, HTTPClient):
    provider_name = "Bitbucket"

    def __init__(
        self,
        user_id: str | None = None,
        token: SecretStr | None = None,
        external_auth_id: str | None = None,
        external_auth_token: SecretStr | None = None,
        external_token_manager: bool = False,
        base_domain: str | None = None,
        api_url: str | None = None,
    ) -> None:
        """``api_url``: the public API's root to use instead of the ``*_API_URL``
        environment variable or the public default (a self-hosted ``base_domain`` still
        wins); the web server passes its configured root here."""
        self.user_id = user_id
        self.token = token if token is not None else SecretStr("")
        self.external_auth_id = external_auth_id
        self.external_auth_token = external_auth_token
        self.external_token_manager = external_token_manager
        self.base_domain = base_domain
        self.BASE_URL = api_base_url(
            base_domain,
            "BITBUCKET_API_URL",
            "https://api.bitbucket.org/2.0",
            ("bitbucket.org", "api.bitbucket.org"),
            "/2.0",
            api_url,
        )

    @property
    def provider(self) -> str:
        return ProviderType.BITBUCKET.value

    async def _get_headers(self) -> dict[str, Any]:
        if not self.token:
            self.token = await self.get_latest_token() or self.token
        secret = self.token.get_secret_value()
        if ":" in secret:
            return {"Authorization": "Basic " + base64.b64encode(secret.encode()).decode()}
        return {"Authorization": f"Bearer {secret}"}

    async def get_latest_token(self) -> SecretStr | None:
        return self.token

    async def _fetch_paginated_data(
        self, url: str, params: dict[str, Any], max_items: int
    ) -> list[Any]:
        """Every ``values`` item, following the ``next`` links, up to ``max_items`` items."""
        items: list[Any] = []
        next_url: str | None = url
        next_params: dict[str, Any] | None = params
        while next_url and len(items) < max_items:
            data, _ = await self._make_request(next_url, next_params)
            items.extend(data.get("values", []))
            # The next link carries the query already.
            next_url, next_params = data.get("next"), None
        return items[:max_items]

    # --- user -------------------------------------------------------------------------

    async def get_user(self) -> User:
        data, _ = await self._make_request(f"{self.BASE_URL}/user")
        return User(
            id=str(data.get("uuid") or data.get("account_id") or ""),
            login=data.get("username") or data.get("nickname") or "",
            avatar_url=((data.get("links") or {}).get("avatar") or {}).get("href", ""),
            name=data.get("display_name"),
        )

    async def get_installations(self) -> list[str]:
        """The slugs of the user's workspaces."""
        values = await self._fetch_paginated_data(
            f"{self.BASE_URL}/workspaces", {"pagelen": 100}, 1000
        )
        return [item["slug"] for item in values if item.get("slug")]

    # --- repositories -----------------------------------------------------------------

    async def get_repository_details_from_repo_name(self, repository: str) -> Repository:
        data, _ = await self._make_request(f"{self.BASE_URL}/repositories/{repository}")
        return _repository(data)

    async def get_paginated_repos(
        self,
        page: int,
        per_page: int,
        sort: str,
        installation_id: str | None,
        query: str | None = None,
    ) -> list[Repository]:
        url = (
            f"{self.BASE_URL}/repositories/{installation_id}"
            if installation_id
            else f"{self.BASE_URL}/repositories"
        )
        params: dict[str, Any] = {"page": page, "pagelen": per_page, "sort": _sort(sort)}
        if not installation_id:
            params["role"] = "member"
        if query:
            params["q"] = f"name~{_bbql_string(query)}"
        data, _ = await self._make_request(url, params)
        repositories = [_repository(item) for item in data.get("values", [])]
        if repositories and data.get("next"):
            repositories[0].link_header = f'<{data["next"]}>; rel="next"'
        return repositories

    async def get_all_repositories(self, sort: str, app_mode: Any) -> list[Repository]:
        repositories: list[Repository] = []
        for workspace in await self.get_installations():
            values = await self._fetch_paginated_data(
                f"{self.BASE_URL}/repositories/{workspace}",
                {"pagelen": PER_PAGE, "sort": _sort(sort)},
                MAX_REPOS - len(repositories),
            )
            repositories.extend(_repository(item) for item in values)
            if len(repositories) >= MAX_REPOS:
                break
        return repositories

    async def search_repositories(
        self, query: str, per_page: int, sort: str, order: str, public: bool
    ) -> list[Repository]:
        """``public``: ``query`` is a repository's URL, and the answer is that repository
        (none when the URL names none or Bitbucket does not know it). Otherwise the first
        page of the user's repositories whose name contains ``query``."""
        if public:
            full_name = repository_from_url(query)
            if full_name is None:
                return []
            try:
                return [await self.get_repository_details_from_repo_name(full_name)]
            except ResourceNotFoundError:
                return []
        return await self.get_paginated_repos(1, per_page, sort, None, query)

    # --- branches ---------------------------------------------------------------------

    async def get_paginated_branches(
        self, repository: str, page: int = 1, per_page: int = 30
    ) -> PaginatedBranchesResponse:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repositories/{repository}/refs/branches",
            {"page": page, "pagelen": per_page},
        )
        return PaginatedBranchesResponse(
            branches=[_branch(item) for item in data.get("values", [])],
            has_next_page=bool(data.get("next")),
            current_page=page,
            per_page=per_page,
            total_count=data.get("size"),
        )

    async def get_branches(self, repository: str) -> list[Branch]:
        values = await self._fetch_paginated_data(
            f"{self.BASE_URL}/repositories/{repository}/refs/branches",
            {"pagelen": PER_PAGE},
            MAX_BRANCHES,
        )
        return [_branch(item) for item in values]

    async def search_branches(
        self, repository: str, query: str, per_page: int = 30
    ) -> list[Branch]:
        """Branches whose name contains ``query``, most recently committed first."""
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repositories/{repository}/refs/branches",
            {"pagelen": per_page, "q": f"name~{_bbql_string(query)}", "sort": "-target.date"},
        )
        return [_branch(item) for item in data.get("values", [])][:per_page]

    async def get_suggested_tasks(self) -> list[SuggestedTask]:
        """Bitbucket has no search across repositories to find them: none."""
        return []

    # --- pull requests ----------------------------------------------------------------

    async def get_pr_details(self, repository: str, pr_number: int) -> dict[str, Any]:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repositories/{repository}/pullrequests/{pr_number}"
        )
        return dict(data)

    async def is_pr_open(self, repository: str, pr_number: int) -> bool:
        return (await self.get_pr_details(repository, pr_number)).get("state") == "OPEN"

    async def create_pr(
        self,
        repo_name: str,
        source_branch: str,
        target_branch: str,
        title: str,
        body: str | None = None,
        draft: bool = False,
    ) -> str:
        """Open a pull request of ``source_branch`` into ``target_branch``; its web URL."""
        request: dict[str, Any] = {
            "title": title,
            "description": body or "",
            "source": {"branch": {"name": source_branch}},
            "destination": {"branch": {"name": target_branch}},
        }
        if draft:
            request["draft"] = True
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repositories/{repo_name}/pullrequests", request, RequestMethod.POST
        )
        links = data.get("links") if isinstance(data, dict) else None
        html = links.get("html") if isinstance(links, dict) else None
        url = html.get("href") if isinstance(html, dict) else None
        if not isinstance(url, str) or not url:
            raise UnknownException("Bitbucket did not return the new pull request's URL")
        return url

    # --- files (microagents) ----------------------------------------------------------

    async def _main_branch(self, repository: str) -> str:
        details = await self.get_repository_details_from_repo_name(repository)
        return details.main_branch or "main"

    async def _list_directory(self, repository: str, path: str) -> list[tuple[str, str]]:
        try:
            branch = await self._main_branch(repository)
            values = await self._fetch_paginated_data(
                f"{self.BASE_URL}/repositories/{repository}/src/{branch}/{path}",
                {"pagelen": 100},
                1000,
            )
        except ResourceNotFoundError:
            return []
        return [
            (item["path"].rsplit("/", 1)[-1], item["path"])
            for item in values
            if item.get("type") == "commit_file"
        ]

    async def _get_file_text(self, repository: str, path: str) -> str:
        branch = await self._main_branch(repository)
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repositories/{repository}/src/{branch}/{path}"
        )
        return data if isinstance(data, str) else str(data)


def _bbql_string(text: str) -> str:
    """``text`` as a quoted string of Bitbucket's query language, so a quote or backslash
    the user typed cannot end the string and change the filter."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _sort(sort: str) -> str:
    return _SORT.get(sort, "-updated_on")


def _repository(data: dict[str, Any]) -> Repository:
    owner = data.get("owner") or {}
    workspace, slug = (data.get("workspace") or {}).get("slug"), data.get("slug")
    full_name = data.get("full_name") or (f"{workspace}/{slug}" if workspace and slug else "")
    # Every repository lives in a workspace, which the UI groups like an organization;
    # only an owner Bitbucket itself calls a personal account makes it a user's.
    owner_type = OwnerType.USER if owner.get("type") == "user" else OwnerType.ORGANIZATION
    return Repository(
        id=str(data.get("uuid", "")),
        full_name=full_name,
        git_provider=ProviderType.BITBUCKET,
        is_public=not data.get("is_private", True),
        pushed_at=data.get("updated_on"),
        owner_type=owner_type,
        main_branch=(data.get("mainbranch") or {}).get("name"),
    )


def _branch(data: dict[str, Any]) -> Branch:
    target = data.get("target") or {}
    return Branch(
        name=data["name"],
        commit_sha=target.get("hash", ""),
        protected=False,
        last_push_date=target.get("date"),
    )


BitBucketServiceImpl: type[BitBucketService] = get_impl(
    BitBucketService, os.environ.get("OPENHANDS_BITBUCKET_SERVICE_CLS")
)
