"""GitHub over its REST API v3 (``api.github.com``, ``https://<host>/api/v3`` for GitHub
Enterprise, or ``GITHUB_API_URL``) and, for suggested tasks and branch search, its GraphQL
API (``/graphql`` next to the REST root, ``https://<host>/api/graphql`` on Enterprise)."""

from __future__ import annotations

import base64
import logging
import os
from datetime import datetime
from typing import Any

from pydantic import SecretStr

from openhands.integrations.protocols.http_client import (
    HTTPClient,
    api_base_url,
    has_next_page,
    header_value,
)
from openhands.integrations.repository_urls import repository_from_url
from openhands.integrations.service_types import (
    BaseGitService,
    Branch,
    OwnerType,
    PaginatedBranchesResponse,
    ProviderType,
    RateLimitError,
    Repository,
    RequestMethod,
    ResourceNotFoundError,
    SuggestedTask,
    TaskType,
    UnknownException,
    User,
)
from openhands.utils.import_utils import get_impl

logger = logging.getLogger(__name__)

# Upper bounds of the "fetch everything" walks, so a huge account cannot stall a request.
MAX_REPOS = 1000
MAX_BRANCHES = 500
PER_PAGE = 100
# Suggested tasks: how many open PRs, review threads per PR and assigned issues to look at.
SUGGESTED_PULL_REQUESTS = 100
SUGGESTED_REVIEW_THREADS = 100
SUGGESTED_ISSUES = 30

# One round trip for everything the PR task types need: conflicts, the head commit's
# combined check state and whether any review thread is still open.
SUGGESTED_PULL_REQUESTS_QUERY = """
query SuggestedPullRequests($pullRequests: Int!, $reviewThreads: Int!) {
  viewer {
    login
    pullRequests(
      first: $pullRequests
      states: [OPEN]
      orderBy: {field: UPDATED_AT, direction: DESC}
    ) {
      nodes {
        number
        title
        repository { nameWithOwner }
        mergeable
        commits(last: 1) { nodes { commit { statusCheckRollup { state } } } }
        reviewThreads(first: $reviewThreads) { nodes { isResolved } }
      }
    }
  }
}
"""
# Branches whose name contains a text, over GraphQL: REST can only list them all.
SEARCH_BRANCHES_QUERY = """
query SearchBranches($owner: String!, $name: String!, $query: String!, $perPage: Int!) {
  repository(owner: $owner, name: $name) {
    refs(
      refPrefix: "refs/heads/"
      query: $query
      first: $perPage
      orderBy: {field: ALPHABETICAL, direction: ASC}
    ) {
      nodes {
        name
        target { __typename ... on Commit { oid committedDate } }
        branchProtectionRule { id }
      }
    }
  }
}
"""
# GitHub answers at most this many nodes per connection.
GRAPHQL_MAX_PAGE = 100
# Suggested orgs in a search: this many of the most-starred repositories of an org whose
# name looks like the query.
TOP_REPOS_OF_MATCHING_ORG = 2
_FAILED_ROLLUP_STATES = frozenset({"FAILURE", "ERROR"})
# Static-validation codes GitHub gives a query its schema does not know (an old Enterprise
# server): the suggested tasks then fall back to REST.
_SCHEMA_ERROR_CODES = frozenset(
    {
        "undefinedField",
        "undefinedType",
        "undefinedEnumValue",
        "argumentNotAccepted",
        "argumentLiteralsIncompatible",
    }
)


class GraphQLSchemaError(UnknownException):
    """GitHub's GraphQL schema does not have a field or argument the query uses."""


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
            "GITHUB_API_URL",
            "https://api.github.com",
            ("github.com", "api.github.com"),
            "/api/v3",
            api_url,
        )

    @property
    def provider(self) -> str:
        return ProviderType.GITHUB.value

    async def _get_headers(self) -> dict[str, Any]:
        if not self.token:
            self.token = await self.get_latest_token() or self.token
        return {
            "Authorization": f"Bearer {self.token.get_secret_value()}",
            "Accept": "application/vnd.github.v3+json",
        }

    async def get_latest_token(self) -> SecretStr | None:
        return self.token

    @property
    def graphql_url(self) -> str:
        """``<root>/graphql``; an Enterprise ``…/api/v3`` root becomes ``…/api/graphql``."""
        if self.BASE_URL.endswith("/api/v3"):
            return self.BASE_URL.removesuffix("/v3") + "/graphql"
        return f"{self.BASE_URL}/graphql"

    async def execute_graphql_query(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """POST one GraphQL query; the decoded answer (``{"data": …}``).

        HTTP failures raise as ``_make_request`` does (401 ``AuthenticationError``, 404
        ``ResourceNotFoundError``, 429 ``RateLimitError``, else ``UnknownException``). An
        ``errors`` array in a 200 answer raises too: ``RateLimitError`` for RATE_LIMITED,
        ``ResourceNotFoundError`` for NOT_FOUND, ``GraphQLSchemaError`` when the schema lacks
        a field, else ``UnknownException``.
        """
        response = await self._send(
            self.graphql_url, {"query": query, "variables": variables}, RequestMethod.POST
        )
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise UnknownException("GitHub GraphQL answered with something other than JSON")
        errors = body.get("errors")
        if errors:
            raise _graphql_error(errors)
        if not isinstance(body.get("data"), dict):
            raise UnknownException("GitHub GraphQL answered without data")
        return body

    async def verify_access(self) -> bool:
        """True when GitHub accepts the token (else the request's error is raised). Asked
        of ``/user``, as every other check of a user's token here: the API root would
        also answer a request without any valid token."""
        await self._make_request(f"{self.BASE_URL}/user")
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
        params: dict[str, Any] = {"page": str(page), "per_page": str(per_page)}
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
        link = header_value(headers, "link")
        if repositories and link:
            repositories[0].link_header = link
        return repositories

    async def _fetch_paginated_repos(
        self, url: str, params: dict[str, Any], max_repos: int, extract_key: str | None = None
    ) -> list[dict[str, Any]]:
        """The raw repositories of every page of ``url`` (at most ``max_repos``); the
        installation listings wrap them in an object under ``extract_key``."""
        repos: list[dict[str, Any]] = []
        page = 1
        while len(repos) < max_repos:
            data, headers = await self._make_request(url, {**params, "page": str(page)})
            items = data.get(extract_key, []) if extract_key else data
            if not items:
                break
            repos.extend(items)
            if not has_next_page(headers):
                break
            page += 1
        return repos[:max_repos]

    async def get_all_repositories(self, sort: str, app_mode: Any) -> list[Repository]:
        """Up to ``MAX_REPOS`` repositories: in SaaS mode those of the user's app
        installations (most recently pushed first when ``sort`` is "pushed"), otherwise
        the user's own list in GitHub's ``sort`` order."""
        if getattr(app_mode, "value", app_mode) != "saas":
            raw = await self._fetch_paginated_repos(
                f"{self.BASE_URL}/user/repos", {"per_page": str(PER_PAGE), "sort": sort}, MAX_REPOS
            )
            return [_repository(item) for item in raw]
        raw = []
        for installation_id in await self.get_installations():
            raw.extend(
                await self._fetch_paginated_repos(
                    f"{self.BASE_URL}/user/installations/{installation_id}/repositories",
                    {"per_page": str(PER_PAGE)},
                    MAX_REPOS - len(raw),
                    extract_key="repositories",
                )
            )
            if len(raw) >= MAX_REPOS:
                break
        if sort == "pushed":
            # ISO 8601 UTC stamps sort as text; a never-pushed repository goes last.
            raw.sort(key=lambda item: str(item.get("pushed_at") or ""), reverse=True)
        return [_repository(item) for item in raw]

    async def get_user_organizations(self) -> list[str]:
        """The logins of the organizations the user belongs to ([] when GitHub will not
        say: the search then just covers the user's own repositories)."""
        try:
            data, _ = await self._make_request(f"{self.BASE_URL}/user/orgs")
        except Exception as error:
            logger.warning("Could not list the user's GitHub organizations: %s", error)
            return []
        return [str(org["login"]) for org in _objects(data) if org.get("login")]

    async def search_repositories(
        self, query: str, per_page: int, sort: str, order: str, public: bool
    ) -> list[Repository]:
        """Repositories matching ``query``.

        ``public``: ``query`` is a repository's URL, and the answer is that repository
        (none when the URL names none or GitHub does not know it). Otherwise the search
        covers what the user can reach, not all of GitHub: ``owner/text`` searches the
        owner's repositories; plain text searches the user's repositories by name, each of
        the user's organizations, and the top repositories of an organization whose name
        looks like the text.
        """
        if public:
            return await self._repository_at_url(query)
        url = f"{self.BASE_URL}/search/repositories"
        params: dict[str, Any] = {"per_page": per_page, "sort": sort, "order": order}
        if "/" in query:
            owner, text = query.split("/", 1)
            data, _ = await self._make_request(url, {**params, "q": f"org:{owner} in:name {text}"})
            return [_repository(item) for item in _objects(_object(data).get("items"))]
        login = (await self.get_user()).login
        organizations = await self.get_user_organizations()
        # The user's and each organization's repositories are disjoint: no duplicates.
        searches = [f"in:name {query} user:{login}"] + [
            f"{query} org:{org}" for org in organizations
        ]
        found: list[Repository] = []
        for q in searches:
            found.extend(await self._search_quietly(url, {**params, "q": q}))
        for org in organizations:
            if _looks_like(query, org):
                top = {**params, "q": f"org:{org}", "sort": "stars"}
                top["per_page"] = TOP_REPOS_OF_MATCHING_ORG
                seen = {repo.id for repo in found}
                found.extend(r for r in await self._search_quietly(url, top) if r.id not in seen)
        return found

    async def _search_quietly(self, url: str, params: dict[str, Any]) -> list[Repository]:
        """One repository search; a failing one (an org that blocks the app, …) is logged
        and counts as no hits, so the other scopes still answer."""
        try:
            data, _ = await self._make_request(url, params)
        except Exception as error:
            logger.warning("GitHub repository search %r failed: %s", params.get("q"), error)
            return []
        return [_repository(item) for item in _objects(_object(data).get("items"))]

    async def _repository_at_url(self, url: str) -> list[Repository]:
        full_name = repository_from_url(url)
        if full_name is None:
            return []
        try:
            return [await self.get_repository_details_from_repo_name(full_name)]
        except ResourceNotFoundError:
            return []

    # --- branches ---------------------------------------------------------------------

    async def get_paginated_branches(
        self, repository: str, page: int = 1, per_page: int = 30
    ) -> PaginatedBranchesResponse:
        data, headers = await self._make_request(
            f"{self.BASE_URL}/repos/{repository}/branches",
            {"page": str(page), "per_page": str(per_page)},
        )
        return PaginatedBranchesResponse(
            branches=[_branch(item) for item in data],
            has_next_page=has_next_page(headers),
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
        """Up to ``per_page`` (at most 100) branches whose name contains ``query``, in
        name order, from GitHub's GraphQL ``refs``. Search is a typing aid: an empty query,
        a name that is not ``owner/repo`` or a failing query give no branches."""
        owner, _, name = repository.partition("/")
        if not query or not owner or not name:
            return []
        variables = {
            "owner": owner,
            "name": name,
            "query": query,
            "perPage": max(1, min(per_page, GRAPHQL_MAX_PAGE)),
        }
        try:
            body = await self.execute_graphql_query(SEARCH_BRANCHES_QUERY, variables)
        except Exception as error:
            logger.warning("GitHub branch search in %s failed: %s", repository, error)
            return []
        refs = _object(_object(_object(body.get("data")).get("repository")).get("refs"))
        return [_graphql_branch(node) for node in _objects(refs.get("nodes"))]

    # --- suggested tasks --------------------------------------------------------------

    async def get_suggested_tasks(self) -> list[SuggestedTask]:
        """The user's open PRs, each with the most pressing of MERGE_CONFLICTS >
        FAILING_CHECKS > UNRESOLVED_COMMENTS > OPEN_PR, then the open issues assigned to the
        user (OPEN_ISSUE).

        The PRs come from one GraphQL query; where GraphQL is missing (404) or its schema is
        too old, from the REST search, which cannot see review threads.
        """
        try:
            login, tasks = await self._pull_request_tasks_graphql()
        except (ResourceNotFoundError, GraphQLSchemaError) as error:
            logger.info("GitHub GraphQL unusable (%s); suggested PRs over REST", error)
            login = (await self.get_user()).login
            tasks = await self._pull_request_tasks_rest(login)
        return tasks + await self._assigned_issue_tasks(login)

    async def _pull_request_tasks_graphql(self) -> tuple[str, list[SuggestedTask]]:
        """The viewer's login and a task per open PR."""
        body = await self.execute_graphql_query(
            SUGGESTED_PULL_REQUESTS_QUERY,
            {"pullRequests": SUGGESTED_PULL_REQUESTS, "reviewThreads": SUGGESTED_REVIEW_THREADS},
        )
        viewer = _object(body["data"].get("viewer"))
        login = viewer.get("login")
        if not isinstance(login, str) or not login:
            raise UnknownException("GitHub GraphQL answered without the viewer's login")
        tasks: list[SuggestedTask] = []
        for node in _objects(_object(viewer.get("pullRequests")).get("nodes")):
            repo = _object(node.get("repository")).get("nameWithOwner")
            number = node.get("number")
            if not isinstance(repo, str) or not isinstance(number, int):
                continue
            tasks.append(
                SuggestedTask(
                    git_provider=ProviderType.GITHUB,
                    task_type=_graphql_pull_request_task_type(node),
                    repo=repo,
                    issue_number=number,
                    title=str(node.get("title") or ""),
                )
            )
        return login, tasks

    async def _pull_request_tasks_rest(self, login: str) -> list[SuggestedTask]:
        items = await self._search_issues(f"is:pr is:open author:{login}")
        return [_search_task(item, await self._rest_pull_request_task_type(item)) for item in items]

    async def _assigned_issue_tasks(self, login: str) -> list[SuggestedTask]:
        items = await self._search_issues(f"is:issue is:open assignee:{login}")
        return [_search_task(item, TaskType.OPEN_ISSUE) for item in items]

    async def _search_issues(self, query: str) -> list[dict[str, Any]]:
        data, _ = await self._make_request(
            f"{self.BASE_URL}/search/issues", {"q": query, "per_page": SUGGESTED_ISSUES}
        )
        return _objects(_object(data).get("items"))

    async def _rest_pull_request_task_type(self, item: dict[str, Any]) -> TaskType:
        """From REST ``mergeable_state``: dirty → conflicts, unstable → failing checks."""
        try:
            details = await self.get_pr_details(_search_repo(item), item["number"])
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

    async def create_pr(
        self,
        repo_name: str,
        source_branch: str,
        target_branch: str,
        title: str,
        body: str | None = None,
        draft: bool = True,
    ) -> str:
        """Open a pull request of ``source_branch`` into ``target_branch``; its web URL."""
        data, _ = await self._make_request(
            f"{self.BASE_URL}/repos/{repo_name}/pulls",
            {
                "title": title,
                "head": source_branch,
                "base": target_branch,
                "body": body or "",
                "draft": draft,
            },
            RequestMethod.POST,
        )
        return _created_url(self.provider_name, _object(data).get("html_url"))

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


def _created_url(provider: str, url: object) -> str:
    if not isinstance(url, str) or not url:
        raise UnknownException(f"{provider} did not return the new pull request's URL")
    return url


def _object(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}`` (GraphQL answers null for hidden parts)."""
    return value if isinstance(value, dict) else {}


def _objects(value: object) -> list[dict[str, Any]]:
    """The JSON objects of a list (null entries dropped); ``[]`` for anything else."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _graphql_error(errors: object) -> UnknownException | RateLimitError | ResourceNotFoundError:
    entries = _objects(errors)
    message = "; ".join(str(e.get("message", "")) for e in entries) or str(errors)
    kinds = {e.get("type") for e in entries}
    codes = {_object(e.get("extensions")).get("code") for e in entries}
    if "RATE_LIMITED" in kinds:
        return RateLimitError(f"GitHub GraphQL rate limit exceeded: {message}")
    if codes & _SCHEMA_ERROR_CODES:
        return GraphQLSchemaError(f"GitHub GraphQL schema mismatch: {message}")
    if kinds == {"NOT_FOUND"}:
        return ResourceNotFoundError(f"GitHub GraphQL found nothing: {message}")
    return UnknownException(f"GitHub GraphQL error: {message}")


def _graphql_pull_request_task_type(node: dict[str, Any]) -> TaskType:
    """The most pressing task type of a PR node of ``SUGGESTED_PULL_REQUESTS_QUERY``."""
    if node.get("mergeable") == "CONFLICTING":
        return TaskType.MERGE_CONFLICTS
    head = _objects(_object(node.get("commits")).get("nodes"))[-1:]
    for commit_node in head:
        rollup = _object(_object(commit_node.get("commit")).get("statusCheckRollup"))
        if rollup.get("state") in _FAILED_ROLLUP_STATES:
            return TaskType.FAILING_CHECKS
    threads = _objects(_object(node.get("reviewThreads")).get("nodes"))
    if any(thread.get("isResolved") is False for thread in threads):
        return TaskType.UNRESOLVED_COMMENTS
    return TaskType.OPEN_PR


def _search_repo(item: dict[str, Any]) -> str:
    """``owner/name`` from a search hit's ``repository_url`` (``…/repos/owner/name``)."""
    return "/".join(str(item.get("repository_url", "")).rstrip("/").split("/")[-2:])


def _search_task(item: dict[str, Any], kind: TaskType) -> SuggestedTask:
    return SuggestedTask(
        git_provider=ProviderType.GITHUB,
        task_type=kind,
        repo=_search_repo(item),
        issue_number=item["number"],
        title=str(item.get("title") or ""),
    )


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
    """A REST branch; the list answer carries the commit's date only on some servers."""
    commit = _object(data.get("commit"))
    committer = _object(_object(commit.get("commit")).get("committer"))
    return Branch(
        name=data["name"],
        commit_sha=str(commit.get("sha") or ""),
        protected=bool(data.get("protected", False)),
        last_push_date=committer.get("date"),
    )


def _graphql_branch(node: dict[str, Any]) -> Branch:
    """A ``refs`` node of ``SEARCH_BRANCHES_QUERY``: a branch pointing at something other
    than a commit has no sha or date; one with a protection rule (even an empty answer
    for it) is protected."""
    target = _object(node.get("target"))
    is_commit = target.get("__typename") == "Commit"
    return Branch(
        name=str(node.get("name") or ""),
        commit_sha=str(target.get("oid") or "") if is_commit else "",
        protected=node.get("branchProtectionRule") is not None,
        last_push_date=target.get("committedDate") if is_commit else None,
    )


def _looks_like(query: str, org: str) -> bool:
    """Whether an organization's name and the search text contain one another, ignoring
    case, spaces, dashes and underscores ("all hands" finds All-Hands-AI)."""

    def squash(text: str) -> str:
        return "".join(ch for ch in text.lower() if ch not in " -_")

    text, name = squash(query), squash(org)
    return bool(text) and (text in name or name in text)


GithubServiceImpl: type[GitHubService] = get_impl(
    GitHubService, os.environ.get("OPENHANDS_GITHUB_SERVICE_CLS")
)
