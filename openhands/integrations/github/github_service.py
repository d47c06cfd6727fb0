"""GitHub over its REST API v3 (``api.github.com``, ``https://<host>/api/v3`` for GitHub
Enterprise, or ``GITHUB_API_URL``)."""

from __future__ import annotations

import base64
import os
import re
from datetime import datetime
from typing import Any

from pydantic import SecretStr

from openhands.integrations.http_client import HTTPClient, api_base_url
from openhands.integrations.service_types import (
    BaseGitService,
    Branch,
    OwnerType,
    PaginatedBranchesResponse,
    ProviderType,
    Repository,
    ResourceNotFoundError,
    SuggestedTask,
    TaskType,
    User,
)
from openhands.utils.import_utils import get_impl

_NEXT_LINK = re.compile(r'<[^>]+>;\s*rel="next"')
# Upper bounds of the "fetch everything" walks, so a huge account cannot stall a request.
MAX_REPOS = 1000
MAX_BRANCHES = 500
PER_PAGE = 100


class GitHubService(BaseGitService, HTTPClient):
    """One user's view of GitHub, authenticated by a token."""

    provider_name = "GitHub"

    def __init__(
        self,
        user_id: str | None = None,
        token: SecretStr | None = None,
        external_auth_id: str | None = None,
        external_auth_token: SecretStr | None = None,
        external_token_manager: bool = False,
        base_domain: str | None = None,
    ) -> None:
        self.user_id = user_id
        self.token = token
        self.external_auth_id = external_auth_id
        self.external_auth_token = external_auth_token
        self.external_token_manager = external_token_manager
        self.base_domain = base_domain
        self.BASE_URL = api_base_url(
            base_domain,
            "GITHUB_API_URL",
            "https://api.github.com",
            ("github.com", "api.github.com"),
            "/api/v3",
        )

    @property
    def provider(self) -> str:
        return ProviderType.GITHUB.value

    async def _get_headers(self) -> dict[str, str]:
        if self.token is None:
            self.token = await self.get_latest_token()
        return {
            "Authorization": f"Bearer {self._token_value()}",
            "Accept": "application/vnd.github+json",
        }

    async def get_latest_token(self) -> SecretStr | None:
        return self.token

    async def verify_access(self) -> bool:
        await self._make_request(self.BASE_URL)
        return True

    # --- user -------------------------------------------------------------------------

    async def get_user(self) -> User:
        data, _ = await self._make_request(f"{self.BASE_URL}/user")
        return User(
            id=str(data.get("id", "")),
            login=data.get("login", ""),
            avatar_url=data.get("avatar_url") or "",
            company=data.get("company"),
            name=data.get("name"),
            email=data.get("email"),
        )

    async def get_installations(self) -> list[str]:
        data, _ = await self._make_request(f"{self.BASE_URL}/user/installations")
        return [str(item["id"]) for item in data.get("installations", [])]

    # --- repositories -----------------------------------------------------------------

    async def get_repository_details_from_repo_name(self, repository: str) -> Repository:
        data, _ = await self._make_request(f"{self.BASE_URL}/repos/{repository}")
        return _repository(data)

    async def get_paginated_repos(
        self,
        page: int,
        per_page: int,
        sort: str,
        installation_id: str | None,
        query: str | None = None,
    ) -> list[Repository]:
        params: dict[str, Any] = {"page": page, "per_page": per_page}
        if installation_id:
            url = f"{self.BASE_URL}/user/installations/{installation_id}/repositories"
            data, headers = await self._make_request(url, params)
            items = data.get("repositories", [])
        else:
            data, headers = await self._make_request(
                f"{self.BASE_URL}/user/repos", {**params, "sort": sort}
            )
            items = data
        repositories = [_repository(item) for item in items]
        if query:
            needle = query.lower()
            repositories = [r for r in repositories if needle in r.full_name.lower()]
        if repositories and headers.get("link"):
            repositories[0].link_header = headers["link"]
        return repositories

    async def get_all_repositories(self, sort: str, app_mode: Any) -> list[Repository]:
        repositories: list[Repository] = []
        page = 1
        while len(repositories) < MAX_REPOS:
            data, headers = await self._make_request(
                f"{self.BASE_URL}/user/repos", {"page": page, "per_page": PER_PAGE, "sort": sort}
            )
            repositories.extend(_repository(item) for item in data)
            if not _NEXT_LINK.search(headers.get("link", "")):
                break
            page += 1
        return repositories[:MAX_REPOS]

    async def search_repositories(
        self, query: str, per_page: int, sort: str, order: str, public: bool
    ) -> list[Repository]:
        params = {
            "q": f"{query} is:public" if public else query,
            "per_page": per_page,
            "sort": sort,
            "order": order,
        }
        data, _ = await self._make_request(f"{self.BASE_URL}/search/repositories", params)
        return [_repository(item) for item in data.get("items", [])]

    # --- branches ---------------------------------------------------------------------

    async def get_paginated_branches(
        self, repository: str, page: int = 1, per_page: int = 30
    ) -> PaginatedBranchesResponse:
        data, headers = await self._make_request(
            f"{self.BASE_URL}/repos/{repository}/branches", {"page": page, "per_page": per_page}
        )
        return PaginatedBranchesResponse(
            branches=[_branch(item) for item in data],
            has_next_page=bool(_NEXT_LINK.search(headers.get("link", ""))),
            current_page=page,
            per_page=per_page,
        )

    async def get_branches(self, repository: str) -> list[Branch]:
        branches: list[Branch] = []
        page = 1
        while len(branches) < MAX_BRANCHES:
            result = await self.get_paginated_branches(repository, page, PER_PAGE)
            branches.extend(result.branches)
            if not result.has_next_page:
                break
            page += 1
        return branches[:MAX_BRANCHES]

    async def search_branches(
        self, repository: str, query: str, per_page: int = 30
    ) -> list[Branch]:
        needle = query.lower()
        matches = [b for b in await self.get_branches(repository) if needle in b.name.lower()]
        return matches[:per_page]

    # --- suggested tasks --------------------------------------------------------------

    async def get_suggested_tasks(self) -> list[SuggestedTask]:
        """Open PRs the user wrote (with merge conflicts or failing checks when GitHub says
        so) and open issues assigned to the user."""
        login = (await self.get_user()).login
        tasks: list[SuggestedTask] = []
        searches = (
            (f"is:pr is:open author:{login}", TaskType.OPEN_PR),
            (f"is:issue is:open assignee:{login}", TaskType.OPEN_ISSUE),
        )
        for query, task_type in searches:
            data, _ = await self._make_request(
                f"{self.BASE_URL}/search/issues", {"q": query, "per_page": 30}
            )
            for item in data.get("items", []):
                repo = "/".join(item.get("repository_url", "").rstrip("/").split("/")[-2:])
                kind = task_type
                if task_type is TaskType.OPEN_PR:
                    kind = await self._pr_task_type(repo, item["number"])
                tasks.append(
                    SuggestedTask(
                        git_provider=ProviderType.GITHUB,
                        task_type=kind,
                        repo=repo,
                        issue_number=item["number"],
                        title=item.get("title", ""),
                    )
                )
        return tasks

    async def _pr_task_type(self, repository: str, number: int) -> TaskType:
        try:
            details = await self.get_pr_details(repository, number)
        except ResourceNotFoundError:  # deleted or hidden since the search ran
            return TaskType.OPEN_PR
        state = details.get("mergeable_state")
        if state == "dirty":
            return TaskType.MERGE_CONFLICTS
        if state == "unstable":
            return TaskType.FAILING_CHECKS
        return TaskType.OPEN_PR

    # --- pull requests ----------------------------------------------------------------

    async def get_pr_details(self, repository: str, pr_number: int) -> dict[str, Any]:
        data, _ = await self._make_request(f"{self.BASE_URL}/repos/{repository}/pulls/{pr_number}")
        return dict(data)

    async def is_pr_open(self, repository: str, pr_number: int) -> bool:
        details = await self.get_pr_details(repository, pr_number)
        return details.get("state") == "open" and not details.get("merged", False)

    # --- files (microagents) ----------------------------------------------------------

    async def _list_directory(self, repository: str, path: str) -> list[tuple[str, str]]:
        url = f"{self.BASE_URL}/repos/{repository}/contents"
        if path:
            url += f"/{path}"
        try:
            data, _ = await self._make_request(url)
        except ResourceNotFoundError:
            return []
        if not isinstance(data, list):
            return []
        return [(item["name"], item["path"]) for item in data if item.get("type") == "file"]

    async def _get_file_text(self, repository: str, path: str) -> str:
        data, _ = await self._make_request(f"{self.BASE_URL}/repos/{repository}/contents/{path}")
        return base64.b64decode(data.get("content", "")).decode("utf-8", errors="replace")

    async def _get_file_created_at(self, repository: str, path: str) -> datetime | None:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repos/{repository}/commits", {"path": path, "per_page": 1}
        )
        if not data:
            return None
        return datetime.fromisoformat(data[0]["commit"]["committer"]["date"].replace("Z", "+00:00"))


def _repository(data: dict[str, Any]) -> Repository:
    owner = data.get("owner") or {}
    return Repository(
        id=str(data.get("id", "")),
        full_name=data.get("full_name", ""),
        git_provider=ProviderType.GITHUB,
        is_public=not data.get("private", False),
        stargazers_count=data.get("stargazers_count"),
        pushed_at=data.get("pushed_at"),
        owner_type=OwnerType.ORGANIZATION
        if owner.get("type") == "Organization"
        else OwnerType.USER,
        main_branch=data.get("default_branch"),
    )


def _branch(data: dict[str, Any]) -> Branch:
    return Branch(
        name=data["name"],
        commit_sha=(data.get("commit") or {}).get("sha", ""),
        protected=bool(data.get("protected", False)),
    )


GithubServiceImpl: type[GitHubService] = get_impl(
    GitHubService, os.environ.get("OPENHANDS_GITHUB_SERVICE_CLS")
)
