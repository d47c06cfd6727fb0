"""GitLab over its REST API v4 (``gitlab.com``, ``https://<host>/api/v4`` self-hosted, or
``GITLAB_API_URL``). Projects are addressed by their URL-encoded ``group/project`` path."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import SecretStr

from openhands.integrations.protocols.http_client import (
    HTTPClient,
    api_base_url,
    has_next_page,
    header_value,
)
from openhands.integrations.repository_urls import gitlab_project_from_url
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
    TaskType,
    UnknownException,
    User,
)
from openhands.utils.import_utils import get_impl

MAX_REPOS = 1000
MAX_BRANCHES = 500
PER_PAGE = 100
# Suggested tasks: how many merge requests and issues to look at, and how many merge
# request details to fetch at once.
SUGGESTED_PER_PAGE = 30
DETAIL_CONCURRENCY = 8
# GitLab's `order_by` names for the sorts the UI asks for.
_ORDER_BY = {
    "pushed": "last_activity_at",
    "updated": "last_activity_at",
    "created": "created_at",
    "full_name": "name",
}


def _project(repository: str) -> str:
    return quote(repository, safe="")


class GitLabService(BaseGitService, HTTPClient):
    provider_name = "GitLab"

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
            "GITLAB_API_URL",
            "https://gitlab.com/api/v4",
            ("gitlab.com",),
            "/api/v4",
            api_url,
        )

    @property
    def provider(self) -> str:
        return ProviderType.GITLAB.value

    async def _get_headers(self) -> dict[str, Any]:
        if not self.token:
            self.token = await self.get_latest_token() or self.token
        return {"Authorization": f"Bearer {self.token.get_secret_value()}"}

    async def get_latest_token(self) -> SecretStr | None:
        return self.token

    # --- user -------------------------------------------------------------------------

    async def get_user(self) -> User:
        data, _ = await self._make_request(f"{self.BASE_URL}/user")
        return User(
            id=str(data.get("id", "")),
            login=data.get("username", ""),
            avatar_url=data.get("avatar_url") or "",
            company=data.get("organization"),
            name=data.get("name"),
            email=data.get("email"),
        )

    # --- repositories -----------------------------------------------------------------

    async def get_repository_details_from_repo_name(self, repository: str) -> Repository:
        data, _ = await self._make_request(f"{self.BASE_URL}/projects/{_project(repository)}")
        return _repository(data)

    async def _projects(self, params: dict[str, Any]) -> tuple[list[Repository], Mapping[str, str]]:
        data, headers = await self._make_request(f"{self.BASE_URL}/projects", params)
        return [_repository(item) for item in data], headers

    async def get_paginated_repos(
        self,
        page: int,
        per_page: int,
        sort: str,
        installation_id: str | None,
        query: str | None = None,
    ) -> list[Repository]:
        """A page of the projects the user is a member of; ``query`` matches their names
        and their groups' names."""
        params: dict[str, Any] = {
            "page": str(page),
            "per_page": str(per_page),
            "order_by": _ORDER_BY.get(sort, "last_activity_at"),
            "sort": "desc",
            "membership": True,
        }
        if query:
            params["search"] = query
            params["search_namespaces"] = True
        repositories, headers = await self._projects(params)
        link = header_value(headers, "link")
        if repositories and link:
            repositories[0].link_header = link
        return repositories

    async def get_all_repositories(self, sort: str, app_mode: Any) -> list[Repository]:
        repositories: list[Repository] = []
        page = 1
        while len(repositories) < MAX_REPOS:
            batch, headers = await self._projects(
                {
                    "page": str(page),
                    "per_page": str(PER_PAGE),
                    "order_by": _ORDER_BY.get(sort, "last_activity_at"),
                    "sort": "desc",
                    "membership": True,
                }
            )
            repositories.extend(batch)
            if not batch or not _more_pages(headers):
                break
            page += 1
        return repositories[:MAX_REPOS]

    def _parse_gitlab_url(self, url: str) -> str | None:
        """``group[/subgroup…]/project`` of a GitLab project URL, or None."""
        return gitlab_project_from_url(url)

    async def search_repositories(
        self,
        query: str,
        per_page: int = 30,
        sort: str = "updated",
        order: str = "desc",
        public: bool = False,
    ) -> list[Repository]:
        """``public``: ``query`` is a project's URL, and the answer is that project (none
        when the URL names none or GitLab does not know it). Otherwise the first page of
        the user's projects matching ``query``."""
        if public:
            path = self._parse_gitlab_url(query)
            if path is None:
                return []
            try:
                return [await self.get_repository_details_from_repo_name(path)]
            except ResourceNotFoundError:
                return []
        return await self.get_paginated_repos(1, per_page, sort, None, query)

    # --- branches ---------------------------------------------------------------------

    async def get_paginated_branches(
        self, repository: str, page: int = 1, per_page: int = 30
    ) -> PaginatedBranchesResponse:
        data, headers = await self._make_request(
            f"{self.BASE_URL}/projects/{_project(repository)}/repository/branches",
            {"page": str(page), "per_page": str(per_page)},
        )
        total = header_value(headers, "x-total")
        return PaginatedBranchesResponse(
            branches=[_branch(item) for item in data],
            has_next_page=_more_pages(headers),
            current_page=page,
            per_page=per_page,
            total_count=int(total) if total.isdigit() else None,
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
        data, _ = await self._make_request(
            f"{self.BASE_URL}/projects/{_project(repository)}/repository/branches",
            {"search": query, "per_page": str(per_page)},
        )
        return [_branch(item) for item in data][:per_page]

    # --- suggested tasks --------------------------------------------------------------

    async def get_suggested_tasks(self) -> list[SuggestedTask]:
        """The open merge requests the user wrote, each with the most pressing of
        MERGE_CONFLICTS > FAILING_CHECKS > UNRESOLVED_COMMENTS > OPEN_PR, then the open
        issues assigned to the user (OPEN_ISSUE)."""
        mrs, _ = await self._make_request(
            f"{self.BASE_URL}/merge_requests",
            {"state": "opened", "scope": "created_by_me", "per_page": SUGGESTED_PER_PAGE},
        )
        limit = asyncio.Semaphore(DETAIL_CONCURRENCY)

        async def task_for(item: dict[str, Any]) -> SuggestedTask:
            async with limit:
                return _task(item, await self._merge_request_task_type(item))

        tasks = list(await asyncio.gather(*(task_for(item) for item in mrs)))
        issues, _ = await self._make_request(
            f"{self.BASE_URL}/issues",
            {"state": "opened", "scope": "assigned_to_me", "per_page": SUGGESTED_PER_PAGE},
        )
        tasks.extend(_task(item, TaskType.OPEN_ISSUE) for item in issues)
        return tasks

    async def _merge_request_task_type(self, item: dict[str, Any]) -> TaskType:
        """The list answer has ``has_conflicts`` and ``blocking_discussions_resolved`` but
        not ``head_pipeline``: a merge request without conflicts is fetched on its own."""
        if item.get("has_conflicts"):
            return TaskType.MERGE_CONFLICTS
        project_id, iid = item.get("project_id"), item.get("iid")
        details: dict[str, Any] = {}
        if project_id is not None and iid is not None:
            try:
                data, _ = await self._make_request(
                    f"{self.BASE_URL}/projects/{project_id}/merge_requests/{iid}"
                )
            except ResourceNotFoundError:  # merged or hidden since the list was read
                data = {}
            details = data if isinstance(data, dict) else {}
        return _merge_request_task_type({**item, **details})

    # --- merge requests ---------------------------------------------------------------

    async def get_pr_details(self, repository: str, pr_number: int) -> dict[str, Any]:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/projects/{_project(repository)}/merge_requests/{pr_number}"
        )
        return dict(data)

    async def is_pr_open(self, repository: str, pr_number: int) -> bool:
        return (await self.get_pr_details(repository, pr_number)).get("state") == "opened"

    async def create_mr(
        self,
        id: int | str,
        source_branch: str,
        target_branch: str,
        title: str,
        description: str | None = None,
    ) -> str:
        """Open a merge request in the project ``id`` (numeric id or ``group/project``
        path); its web URL."""
        data, _ = await self._make_request(
            f"{self.BASE_URL}/projects/{_project(str(id))}/merge_requests",
            {
                "source_branch": source_branch,
                "target_branch": target_branch,
                "title": title,
                "description": description or "",
            },
            RequestMethod.POST,
        )
        url = data.get("web_url") if isinstance(data, dict) else None
        if not isinstance(url, str) or not url:
            raise UnknownException("GitLab did not return the new merge request's URL")
        return url

    # --- files (microagents) ----------------------------------------------------------

    async def _list_directory(self, repository: str, path: str) -> list[tuple[str, str]]:
        params: dict[str, Any] = {"per_page": 100}
        if path:
            params["path"] = path
        try:
            data, _ = await self._make_request(
                f"{self.BASE_URL}/projects/{_project(repository)}/repository/tree", params
            )
        except ResourceNotFoundError:
            return []
        return [(item["name"], item["path"]) for item in data if item.get("type") == "blob"]

    async def _get_file_text(self, repository: str, path: str) -> str:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/projects/{_project(repository)}/repository/files/"
            f"{quote(path, safe='')}/raw",
            {"ref": "HEAD"},
        )
        return data if isinstance(data, str) else str(data)


def _more_pages(headers: Mapping[str, str]) -> bool:
    """GitLab names the next page in ``X-Next-Page`` and in the ``Link`` header; some
    proxies drop the former, keyset pagination sends only the latter."""
    return bool(header_value(headers, "x-next-page")) or has_next_page(headers)


def _repository(data: dict[str, Any]) -> Repository:
    namespace = data.get("namespace") or {}
    return Repository(
        id=str(data.get("id", "")),
        full_name=data.get("path_with_namespace", ""),
        git_provider=ProviderType.GITLAB,
        is_public=data.get("visibility") == "public",
        stargazers_count=data.get("star_count"),
        pushed_at=data.get("last_activity_at"),
        owner_type=OwnerType.ORGANIZATION if namespace.get("kind") == "group" else OwnerType.USER,
        main_branch=data.get("default_branch"),
    )


def _branch(data: dict[str, Any]) -> Branch:
    commit = data.get("commit") or {}
    return Branch(
        name=data["name"],
        commit_sha=commit.get("id", ""),
        protected=bool(data.get("protected", False)),
        last_push_date=commit.get("committed_date"),
    )


def _merge_request_task_type(mr: dict[str, Any]) -> TaskType:
    """The most pressing task type of a merge request (a single-MR REST answer)."""
    if mr.get("has_conflicts"):
        return TaskType.MERGE_CONFLICTS
    pipeline = mr.get("head_pipeline")
    if isinstance(pipeline, dict) and pipeline.get("status") == "failed":
        return TaskType.FAILING_CHECKS
    if mr.get("blocking_discussions_resolved") is False:
        return TaskType.UNRESOLVED_COMMENTS
    return TaskType.OPEN_PR


def _task(item: dict[str, Any], kind: TaskType) -> SuggestedTask:
    references = item.get("references") or {}
    full = references.get("full", "")
    repo = full.split("!")[0].split("#")[0] if full else ""
    return SuggestedTask(
        git_provider=ProviderType.GITLAB,
        task_type=kind,
        repo=repo,
        issue_number=item["iid"],
        title=item.get("title", ""),
    )


GitLabServiceImpl: type[GitLabService] = get_impl(
    GitLabService, os.environ.get("OPENHANDS_GITLAB_SERVICE_CLS")
)
