"""GitHub, GitLab and Bitbucket services against a stand-in of each provider's API."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from openhands.integrations.bitbucket.bitbucket_service import (
    BitBucketService,
    BitBucketServiceImpl,
)
from openhands.integrations.github.github_service import GitHubService, GithubServiceImpl
from openhands.integrations.gitlab.gitlab_service import GitLabService, GitLabServiceImpl
from openhands.integrations.service_types import (
    AuthenticationError,
    GitService,
    InstallationsService,
    OwnerType,
    ProviderType,
    RateLimitError,
    ResourceNotFoundError,
    TaskType,
    UnknownException,
)
from openhands.integrations.utils import validate_provider_token
from tests.unit.integrations.stand_in_api import (
    StandInAPI,
    StandInBranch,
    github_graphql,
    stand_in_api,
)

TOKEN = SecretStr("tok")


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def _github(api: StandInAPI) -> GitHubService:
    return GitHubService(token=TOKEN, base_domain=api.url)


def test_impl_classes_default_to_the_services() -> None:
    assert GithubServiceImpl is GitHubService
    assert GitLabServiceImpl is GitLabService
    assert BitBucketServiceImpl is BitBucketService
    for cls in (GitHubService, GitLabService, BitBucketService):
        assert isinstance(cls(token=TOKEN), GitService)
    assert isinstance(GitHubService(token=TOKEN), InstallationsService)


def test_base_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    assert GitHubService(token=TOKEN).BASE_URL == "https://api.github.com"
    assert GitHubService(base_domain="ghe.corp").BASE_URL == "https://ghe.corp/api/v3"
    assert GitLabService(base_domain="git.corp").BASE_URL == "https://git.corp/api/v4"
    assert BitBucketService().BASE_URL == "https://api.bitbucket.org/2.0"
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/")
    assert GitHubService(token=TOKEN).BASE_URL == "http://127.0.0.1:9"


# --- GitHub ------------------------------------------------------------------------------


async def test_github_user_and_auth_header(api: StandInAPI) -> None:
    api.add("/api/v3/user", {"id": 7, "login": "octo", "avatar_url": "a", "name": "O"})
    user = await _github(api).get_user()
    assert (user.id, user.login, user.name) == ("7", "octo", "O")
    assert api.requests[0].headers["authorization"] == "Bearer tok"


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (401, AuthenticationError),
        (404, ResourceNotFoundError),
        (429, RateLimitError),
        (500, UnknownException),
    ],
)
async def test_github_errors_are_translated(
    api: StandInAPI, status: int, error: type[Exception]
) -> None:
    api.add("/api/v3/user", {"message": "x"}, status=status)
    with pytest.raises(error):
        await _github(api).get_user()


async def test_github_repositories_and_link_header(api: StandInAPI) -> None:
    repo = {
        "id": 1,
        "full_name": "o/r",
        "private": False,
        "stargazers_count": 3,
        "owner": {"type": "Organization"},
        "default_branch": "main",
    }
    link = '<http://x/user/repos?page=2>; rel="next"'
    api.add("/api/v3/user/repos", [repo], headers={"Link": link})
    api.add("/api/v3/repos/o/r", repo)
    repos = await _github(api).get_paginated_repos(1, 30, "pushed", None)
    assert repos[0].full_name == "o/r"
    assert repos[0].owner_type is OwnerType.ORGANIZATION
    assert repos[0].link_header == link
    assert api.requests[0].query["sort"] == ["pushed"]
    details = await _github(api).get_repository_details_from_repo_name("o/r")
    assert details.main_branch == "main" and details.is_public
    assert details.git_provider is ProviderType.GITHUB


async def test_github_branches_pages_and_search(api: StandInAPI) -> None:
    branches = [
        {"name": "main", "commit": {"sha": "s1"}, "protected": True},
        {"name": "feature-x", "commit": {"sha": "s2"}},
    ]
    api.add("/api/v3/repos/o/r/branches", branches)
    page = await _github(api).get_paginated_branches("o/r", 1, 30)
    assert [b.name for b in page.branches] == ["main", "feature-x"]
    assert not page.has_next_page
    assert page.branches[0].commit_sha == "s1" and page.branches[0].protected


async def test_github_branch_search_asks_graphql_for_matching_refs(api: StandInAPI) -> None:
    repo_branches = [
        StandInBranch("main", "s1", protected=True),
        StandInBranch("feature-x", "s2", "2024-02-03T04:05:06Z", protected=True),
        StandInBranch("feature-y", "s3"),
        StandInBranch("feature-tag", "t1", tag=True),
        StandInBranch("other", "s4"),
    ]
    graphql = github_graphql("octo", token="tok", branches={"o/r": repo_branches})
    api.respond("/api/graphql", graphql, method="POST")
    found = await _github(api).search_branches("o/r", "FEAT")
    assert [(b.name, b.commit_sha, b.protected, b.last_push_date) for b in found] == [
        ("feature-tag", "", False, None),
        ("feature-x", "s2", True, "2024-02-03T04:05:06Z"),
        ("feature-y", "s3", False, "2024-01-01T00:00:00Z"),
    ]
    # GitHub serves at most 100 nodes: a bigger page is asked as 100.
    await _github(api).search_branches("o/r", "feat", per_page=500)
    assert api.requests[-1].body["variables"]["perPage"] == 100
    assert [b.name for b in await _github(api).search_branches("o/r", "x", per_page=1)] == [
        "feature-x"
    ]
    # Search is a typing aid: no text, no owner, an unknown repository or a refused token
    # give no branches (and the first two do not ask GitHub at all).
    asked = len(api.requests)
    assert await _github(api).search_branches("o/r", "") == []
    assert await _github(api).search_branches("no-owner", "feat") == []
    assert len(api.requests) == asked
    assert await _github(api).search_branches("o/gone", "feat") == []
    refused = GitHubService(token=SecretStr("wrong"), base_domain=api.url)
    assert await refused.search_branches("o/r", "feat") == []


async def test_github_suggested_tasks(api: StandInAPI) -> None:
    api.add("/api/v3/user", {"id": 1, "login": "octo", "avatar_url": ""})
    pr = {"number": 5, "title": "Fix", "repository_url": "http://x/repos/o/r"}
    issue = {"number": 9, "title": "Bug", "repository_url": "http://x/repos/o/r"}
    api.add("/api/v3/search/issues", {"items": [pr]})
    api.add("/api/v3/repos/o/r/pulls/5", {"state": "open", "mergeable_state": "dirty"})
    tasks = await _github(api).get_suggested_tasks()
    # No GraphQL route (404): the REST path. The stand-in answers both searches with the PR
    # list; the PR has merge conflicts. (test_suggested_tasks.py covers GraphQL.)
    assert tasks[0].task_type is TaskType.MERGE_CONFLICTS
    assert tasks[1].task_type is TaskType.OPEN_ISSUE
    assert tasks[0].repo == "o/r" and tasks[0].issue_number == 5
    queries = [r.query["q"][0] for r in api.requests if r.path.endswith("/search/issues")]
    assert queries == ["is:pr is:open author:octo", "is:issue is:open assignee:octo"]
    api.add("/api/v3/search/issues", {"items": [issue]})
    tasks = await _github(api).get_suggested_tasks()
    # Issue 9 is no PR the stand-in knows: listed as a plain open PR, not an error.
    assert [(t.task_type, t.title) for t in tasks] == [
        (TaskType.OPEN_PR, "Bug"),
        (TaskType.OPEN_ISSUE, "Bug"),
    ]


async def test_github_microagents_and_content(api: StandInAPI) -> None:
    api.add(
        "/api/v3/repos/o/r/contents/.openhands/microagents",
        [
            {"name": "db.md", "path": ".openhands/microagents/db.md", "type": "file"},
            {"name": "README.md", "path": ".openhands/microagents/README.md", "type": "file"},
            {"name": "sub", "path": ".openhands/microagents/sub", "type": "dir"},
        ],
    )
    api.add(
        "/api/v3/repos/o/r/contents", [{"name": "AGENTS.md", "path": "AGENTS.md", "type": "file"}]
    )
    api.add(
        "/api/v3/repos/o/r/commits",
        [{"commit": {"committer": {"date": "2024-01-02T03:04:05Z"}}}],
    )
    text = "---\ntriggers: [db, sql]\n---\nUse the DB.\n"
    api.add(
        "/api/v3/repos/o/r/contents/.openhands/microagents/db.md",
        {"content": base64.b64encode(text.encode()).decode()},
    )
    found = await _github(api).get_microagents("o/r")
    assert [(m.name, m.path) for m in found] == [
        ("db", ".openhands/microagents/db.md"),
        ("AGENTS", "AGENTS.md"),
    ]
    assert found[0].created_at is not None and found[0].created_at.year == 2024
    content = await _github(api).get_microagent_content("o/r", ".openhands/microagents/db.md")
    assert content.triggers == ["db", "sql"]
    assert content.content.strip() == "Use the DB."
    assert content.git_provider == "github"


async def test_github_pr_state(api: StandInAPI) -> None:
    api.add("/api/v3/repos/o/r/pulls/1", {"state": "open", "merged": False})
    api.add("/api/v3/repos/o/r/pulls/2", {"state": "closed", "merged": True})
    assert await _github(api).is_pr_open("o/r", 1)
    assert not await _github(api).is_pr_open("o/r", 2)
    assert (await _github(api).get_pr_details("o/r", 1))["state"] == "open"


# --- GitLab ------------------------------------------------------------------------------


async def test_gitlab_user_repos_branches(api: StandInAPI) -> None:
    service = GitLabService(token=TOKEN, base_domain=api.url)
    api.add("/api/v4/user", {"id": 3, "username": "gl", "avatar_url": "a"})
    api.add(
        "/api/v4/projects/g%2Fp",
        {
            "id": 11,
            "path_with_namespace": "g/p",
            "visibility": "private",
            "namespace": {"kind": "group"},
            "default_branch": "dev",
        },
    )
    api.add(
        "/api/v4/projects/g%2Fp/repository/branches",
        [{"name": "dev", "commit": {"id": "c1", "committed_date": "2024-01-01"}}],
        headers={"X-Next-Page": "2", "X-Total": "40"},
    )
    assert (await service.get_user()).login == "gl"
    repo = await service.get_repository_details_from_repo_name("g/p")
    assert (repo.full_name, repo.is_public, repo.owner_type) == (
        "g/p",
        False,
        OwnerType.ORGANIZATION,
    )
    page = await service.get_paginated_branches("g/p", 1, 1)
    assert page.has_next_page and page.total_count == 40
    assert page.branches[0].commit_sha == "c1"
    assert api.requests[0].headers["authorization"] == "Bearer tok"


async def test_gitlab_tasks_and_mr_state(api: StandInAPI) -> None:
    service = GitLabService(token=TOKEN, base_domain=api.url)
    api.add(
        "/api/v4/merge_requests",
        [{"iid": 4, "title": "MR", "has_conflicts": True, "references": {"full": "g/p!4"}}],
    )
    api.add("/api/v4/issues", [{"iid": 8, "title": "I", "references": {"full": "g/p#8"}}])
    tasks = await service.get_suggested_tasks()
    assert [(t.task_type, t.repo, t.issue_number) for t in tasks] == [
        (TaskType.MERGE_CONFLICTS, "g/p", 4),
        (TaskType.OPEN_ISSUE, "g/p", 8),
    ]
    api.add("/api/v4/projects/g%2Fp/merge_requests/4", {"state": "opened"})
    assert await service.is_pr_open("g/p", 4)


# --- Bitbucket ---------------------------------------------------------------------------


async def test_bitbucket_auth_styles_and_workspaces(api: StandInAPI) -> None:
    api.add("/2.0/user", {"uuid": "{u}", "username": "bb", "display_name": "B"})
    api.add("/2.0/workspaces", {"values": [{"slug": "ws1"}, {"slug": "ws2"}]})
    basic = BitBucketService(token=SecretStr("me:app-pw"), base_domain=api.url)
    assert (await basic.get_user()).login == "bb"
    expected = "Basic " + base64.b64encode(b"me:app-pw").decode()
    assert api.requests[-1].headers["authorization"] == expected
    bearer = BitBucketService(token=TOKEN, base_domain=api.url)
    assert await bearer.get_installations() == ["ws1", "ws2"]
    assert api.requests[-1].headers["authorization"] == "Bearer tok"


async def test_bitbucket_repository_branches_pr(api: StandInAPI) -> None:
    service = BitBucketService(token=TOKEN, base_domain=api.url)
    api.add(
        "/2.0/repositories/ws/r",
        {"uuid": "{r}", "full_name": "ws/r", "is_private": False, "mainbranch": {"name": "m"}},
    )
    api.add(
        "/2.0/repositories/ws/r/refs/branches",
        {"values": [{"name": "m", "target": {"hash": "h"}}], "next": "x", "size": 2},
    )
    api.add("/2.0/repositories/ws/r/pullrequests/3", {"state": "MERGED"})
    repo = await service.get_repository_details_from_repo_name("ws/r")
    assert (repo.is_public, repo.main_branch) == (True, "m")
    page = await service.get_paginated_branches("ws/r")
    assert page.has_next_page and page.total_count == 2
    assert not await service.is_pr_open("ws/r", 3)
    assert await service.get_suggested_tasks() == []


async def test_bitbucket_listing_pages_names_and_owners(api: StandInAPI) -> None:
    service = BitBucketService(token=TOKEN, base_domain=api.url)
    api.add("/2.0/workspaces", {"values": [{"slug": "ws"}]})
    second_page = f"{api.url}/2.0/repositories/ws/page2"
    api.add(
        "/2.0/repositories/ws",
        {
            # No full_name: the name is the workspace's slug and the repository's.
            "values": [{"uuid": "{a}", "slug": "a", "workspace": {"slug": "ws"}}],
            "next": second_page,
        },
    )
    api.add(
        "/2.0/repositories/ws/page2",
        {"values": [{"uuid": "{b}", "full_name": "ws/b", "owner": {"type": "user"}}]},
    )
    repos = await service.get_all_repositories("pushed", None)
    assert [r.full_name for r in repos] == ["ws/a", "ws/b"]
    # A workspace is an organization unless Bitbucket calls the owner a personal account.
    assert [r.owner_type for r in repos] == [OwnerType.ORGANIZATION, OwnerType.USER]
    # The next link carries its own query: nothing is added to it.
    assert api.requests[-1].path == "/2.0/repositories/ws/page2"
    assert api.requests[-1].query == {}


# --- token validation --------------------------------------------------------------------


async def test_validate_provider_token_finds_the_provider(api: StandInAPI) -> None:
    api.add("/api/v4/user", {"id": 3, "username": "gl", "avatar_url": ""})
    assert await validate_provider_token(TOKEN, base_domain=api.url) is ProviderType.GITLAB
    api.routes.clear()
    assert await validate_provider_token(TOKEN, base_domain=api.url) is None


async def test_validate_provider_token_uses_the_module_service_names(
    api: StandInAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service class replaced by its name in ``openhands.integrations.utils`` (as the
    reference's code did) is the one asked; GitHub is asked through ``verify_access``."""
    import openhands.integrations.utils as token_utils

    asked: list[str] = []

    class RefusingGitHub(GitHubService):
        async def verify_access(self) -> bool:
            asked.append("github")
            raise AuthenticationError("no")

    monkeypatch.setattr(token_utils, "GitHubService", RefusingGitHub)
    api.add("/api/v4/user", {"id": 3, "username": "gl", "avatar_url": ""})
    assert await validate_provider_token(TOKEN, base_domain=api.url) is ProviderType.GITLAB
    assert asked == ["github"]
    assert [r.path for r in api.requests] == ["/api/v4/user"]
