"""`/api/user/*` for GitLab, Bitbucket and GitHub (GraphQL) through the integrations'
services, against one local stand-in that plays all three APIs: GitHub at the root (the
server's `github_api_url`), GitLab under `/api/v4` (the server's `gitlab_api_url`) and
Bitbucket under `/2.0` (a self-hosted token host)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.integrations.service_types import ProviderType
from openhands.server.server_config import ServerConfig
from openhands.server.services.git_providers import provider_api_urls
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from tests.unit.integrations.stand_in_api import (
    Recorded,
    Reply,
    StandInAPI,
    StandInPullRequest,
    github_graphql,
    stand_in_api,
)
from tests.unit.server.conftest import Harness, build_app, running

GITHUB_TOKEN = "ghp_routes"
GITLAB_TOKEN = "glpat-routes"
BITBUCKET_TOKEN = "me:app-password"
TOKEN_REQUIRED = "Git provider token required. (such as GitHub)."

GITLAB_PROJECT = {
    "id": 11,
    "path_with_namespace": "g/p",
    "visibility": "public",
    "star_count": 4,
    "last_activity_at": "2025-02-01T10:00:00Z",
    "namespace": {"kind": "group"},
    "default_branch": "main",
}
BITBUCKET_REPO = {
    "uuid": "{r1}",
    "full_name": "ws/r",
    "is_private": True,
    "updated_on": "2025-03-01T09:00:00+00:00",
    "owner": {"type": "team"},
    "mainbranch": {"name": "trunk"},
}


def _gitlab_authorized(request: Recorded) -> bool:
    return request.headers.get("authorization") == f"Bearer {GITLAB_TOKEN}"


def _serve_gitlab(api: StandInAPI) -> None:
    def user(request: Recorded) -> Reply:
        if not _gitlab_authorized(request):
            return 401, {"message": "401 Unauthorized"}, {}
        return 200, {"id": 3, "username": "gl", "avatar_url": "http://a/gl", "name": "G L"}, {}

    api.respond("/api/v4/user", user)
    api.add(
        "/api/v4/projects",
        [GITLAB_PROJECT],
        headers={"Link": '<http://gl/api/v4/projects?page=2>; rel="next"'},
    )
    api.add("/api/v4/projects/g%2Fp", GITLAB_PROJECT)

    def branches(request: Recorded) -> Reply:
        listed = [
            {"name": "main", "protected": True, "commit": {"id": "c1", "committed_date": "d1"}},
            {"name": "feature", "commit": {"id": "c2", "committed_date": "d2"}},
        ]
        search = request.query.get("search", [""])[0]
        chosen = [branch for branch in listed if search in branch["name"]]
        return 200, chosen, {"X-Next-Page": "2", "X-Total": "41"}

    api.respond("/api/v4/projects/g%2Fp/repository/branches", branches)
    # Suggested tasks: one merge request per task type, and an assigned issue.
    listed = [
        _merge_request(1, "Conflicted", conflicts=True),
        _merge_request(2, "Red"),
        _merge_request(3, "Discussed", resolved=False),
        _merge_request(4, "Green"),
    ]
    api.add("/api/v4/merge_requests", listed)
    for mr, pipeline in zip(listed[1:], ("failed", "success", "success"), strict=True):
        details = {**mr, "head_pipeline": {"status": pipeline}}
        api.add(f"/api/v4/projects/11/merge_requests/{mr['iid']}", details)
    api.add("/api/v4/issues", [{"iid": 8, "title": "Bug", "references": {"full": "g/p#8"}}])

    def tree(request: Recorded) -> Reply:
        if request.query.get("path") == [".openhands/microagents"]:
            files = [("deploy.md", ".openhands/microagents/deploy.md"), ("notes.txt", "x")]
        else:
            files = [("AGENTS.md", "AGENTS.md"), ("README.md", "README.md")]
        return 200, [{"name": n, "path": p, "type": "blob"} for n, p in files], {}

    api.respond("/api/v4/projects/g%2Fp/repository/tree", tree)
    api.add(
        "/api/v4/projects/g%2Fp/repository/files/.openhands%2Fmicroagents%2Fdeploy.md/raw",
        "---\ntriggers:\n- deploy\n---\nHow to deploy.\n",
    )


def _merge_request(
    iid: int, title: str, *, conflicts: bool = False, resolved: bool = True
) -> dict[str, Any]:
    return {
        "iid": iid,
        "project_id": 11,
        "title": title,
        "has_conflicts": conflicts,
        "blocking_discussions_resolved": resolved,
        "references": {"full": f"g/p!{iid}"},
    }


def _serve_bitbucket(api: StandInAPI) -> None:
    basic = "Basic " + base64.b64encode(BITBUCKET_TOKEN.encode()).decode()

    def guarded(body: Any) -> Any:
        def answer(request: Recorded) -> Reply:
            if request.headers.get("authorization") != basic:
                return 401, {"type": "error", "error": {"message": "Bad credentials"}}, {}
            return 200, body, {}

        return answer

    api.respond("/2.0/user", guarded({"uuid": "{u}", "username": "bb", "display_name": "B"}))
    api.respond("/2.0/workspaces", guarded({"values": [{"slug": "ws"}, {"slug": "team"}]}))
    api.respond(
        "/2.0/repositories",
        guarded({"values": [BITBUCKET_REPO], "next": "http://bb/2.0/repositories?page=2"}),
    )
    api.respond("/2.0/repositories/ws/r", guarded(BITBUCKET_REPO))


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        _serve_gitlab(server)
        _serve_bitbucket(server)
        yield server


@pytest.fixture
async def harness(
    app_config: OpenHandsConfig, workspace: Path, api: StandInAPI
) -> AsyncIterator[Harness]:
    server = ServerConfig(
        rate_limit_enabled=False,
        serve_frontend=False,
        github_api_url=api.url,
        gitlab_api_url=f"{api.url}/api/v4",
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        yield h


async def _store(client: httpx.AsyncClient, tokens: dict[str, dict[str, str]]) -> None:
    stored = await client.post("/api/add-git-providers", json={"provider_tokens": tokens})
    assert stored.status_code == 200, stored.text


GITLAB = {"gitlab": {"token": GITLAB_TOKEN, "host": "gitlab.com"}}


async def test_gitlab_token_is_checked_with_gitlab(harness: Harness, api: StandInAPI) -> None:
    client = harness.client
    bad = await client.post(
        "/api/add-git-providers",
        json={"provider_tokens": {"gitlab": {"token": "glpat-wrong", "host": "gitlab.com"}}},
    )
    assert bad.status_code == 401
    assert bad.json() == {"error": "Invalid token. Please make sure it is a valid gitlab token."}
    # Only GitLab was asked: the token was not shown to GitHub or Bitbucket.
    assert api.paths() == ["/api/v4/user"]
    await _store(client, GITLAB)
    await client.post("/api/settings", json={"llm_api_key": "k"})
    settings = (await client.get("/api/settings")).json()
    assert settings["provider_tokens_set"] == {"gitlab": "gitlab.com"}


async def test_gitlab_user_repositories_and_branches(harness: Harness, api: StandInAPI) -> None:
    client = harness.client
    await _store(client, GITLAB)
    api.requests.clear()

    user = await client.get("/api/user/info")
    assert user.json() == {
        "id": "3",
        "login": "gl",
        "avatar_url": "http://a/gl",
        "company": None,
        "name": "G L",
        "email": None,
    }
    repos = await client.get(
        "/api/user/repositories",
        params={"sort": "pushed", "selected_provider": "gitlab", "page": 2, "per_page": 30},
    )
    assert repos.json() == [
        {
            "id": "11",
            "full_name": "g/p",
            "git_provider": "gitlab",
            "is_public": True,
            "stargazers_count": 4,
            "link_header": '<http://gl/api/v4/projects?page=2>; rel="next"',
            "pushed_at": "2025-02-01T10:00:00Z",
            "owner_type": "organization",
            "main_branch": "main",
        }
    ]
    listing = api.requests[-1]
    assert listing.query["page"] == ["2"] and listing.query["per_page"] == ["30"]
    assert listing.query["order_by"] == ["last_activity_at"]

    found = await client.get("/api/user/search/repositories", params={"query": "p"})
    assert [repo["full_name"] for repo in found.json()] == ["g/p"]
    assert api.requests[-1].query["search"] == ["p"]

    branches = await client.get("/api/user/repository/branches", params={"repository": "g/p"})
    assert branches.json() == {
        "branches": [
            {"name": "main", "commit_sha": "c1", "protected": True, "last_push_date": "d1"},
            {"name": "feature", "commit_sha": "c2", "protected": False, "last_push_date": "d2"},
        ],
        "has_next_page": True,
        "current_page": 1,
        "per_page": 30,
        "total_count": 41,
    }
    searched = await client.get(
        "/api/user/search/branches", params={"repository": "g/p", "query": "feat"}
    )
    assert [branch["name"] for branch in searched.json()] == ["feature"]

    assert all(r.headers["authorization"] == f"Bearer {GITLAB_TOKEN}" for r in api.requests)
    installations = await client.get("/api/user/installations", params={"provider": "gitlab"})
    assert installations.status_code == 400
    assert installations.json() == "Provider gitlab doesn't support installations"


async def test_gitlab_suggested_tasks_and_microagents(harness: Harness) -> None:
    client = harness.client
    await _store(client, GITLAB)

    tasks = await client.get("/api/user/suggested-tasks")
    assert tasks.status_code == 200
    assert tasks.json() == [
        {
            "git_provider": "gitlab",
            "task_type": task_type,
            "repo": "g/p",
            "issue_number": number,
            "title": title,
        }
        for task_type, number, title in (
            ("MERGE_CONFLICTS", 1, "Conflicted"),
            ("FAILING_CHECKS", 2, "Red"),
            ("UNRESOLVED_COMMENTS", 3, "Discussed"),
            ("OPEN_PR", 4, "Green"),
            ("OPEN_ISSUE", 8, "Bug"),
        )
    ]

    microagents = await client.get("/api/user/repository/g/p/microagents")
    assert microagents.json() == [
        {"name": "deploy", "path": ".openhands/microagents/deploy.md", "created_at": None},
        {"name": "AGENTS", "path": "AGENTS.md", "created_at": None},
    ]
    content = await client.get(
        "/api/user/repository/g/p/microagents/content",
        params={"file_path": ".openhands/microagents/deploy.md"},
    )
    assert content.json() == {
        "content": "How to deploy.",
        "path": ".openhands/microagents/deploy.md",
        "triggers": ["deploy"],
        "git_provider": "gitlab",
    }


async def test_bitbucket_repositories_and_workspaces(harness: Harness, api: StandInAPI) -> None:
    client = harness.client
    # A self-hosted Bitbucket: the token's host is the stand-in (API under `/2.0`).
    await _store(client, {"bitbucket": {"token": BITBUCKET_TOKEN, "host": api.url}})

    repos = await client.get(
        "/api/user/repositories",
        params={"selected_provider": "bitbucket", "page": 1, "per_page": 10},
    )
    assert repos.status_code == 200, repos.text
    assert repos.json() == [
        {
            "id": "{r1}",
            "full_name": "ws/r",
            "git_provider": "bitbucket",
            "is_public": False,
            "stargazers_count": None,
            "link_header": '<http://bb/2.0/repositories?page=2>; rel="next"',
            "pushed_at": "2025-03-01T09:00:00+00:00",
            "owner_type": "organization",
            "main_branch": "trunk",
        }
    ]
    assert api.requests[-1].query["pagelen"] == ["10"]
    assert api.requests[-1].query["role"] == ["member"]
    workspaces = await client.get("/api/user/installations", params={"provider": "bitbucket"})
    assert workspaces.json() == ["ws", "team"]
    assert (await client.get("/api/user/info")).json()["login"] == "bb"
    # Bitbucket has no suggested tasks: an empty list, not an error.
    assert (await client.get("/api/user/suggested-tasks")).json() == []


async def test_github_suggested_tasks_over_graphql(harness: Harness, api: StandInAPI) -> None:
    pull_requests = [
        StandInPullRequest("octo/a", 1, "Conflicted", mergeable="CONFLICTING"),
        StandInPullRequest("octo/a", 2, "Red", checks=("SUCCESS", "FAILURE")),
        StandInPullRequest("octo/b", 3, "Discussed", threads=(True, False)),
        StandInPullRequest("octo/b", 4, "Done", threads=(True,), checks=("SUCCESS",)),
    ]
    api.respond("/graphql", github_graphql("octo", pull_requests, GITHUB_TOKEN), method="POST")
    issue = {"number": 9, "title": "Bug", "repository_url": f"{api.url}/repos/octo/c"}
    api.add("/search/issues", {"items": [issue]})

    tasks = await harness.client.get(
        "/api/user/suggested-tasks", headers={"X-GitHub-Token": GITHUB_TOKEN}
    )
    assert tasks.status_code == 200, tasks.text
    assert [(t["task_type"], t["repo"], t["issue_number"]) for t in tasks.json()] == [
        ("MERGE_CONFLICTS", "octo/a", 1),
        ("FAILING_CHECKS", "octo/a", 2),
        ("UNRESOLVED_COMMENTS", "octo/b", 3),
        ("OPEN_PR", "octo/b", 4),
        ("OPEN_ISSUE", "octo/c", 9),
    ]
    assert {t["git_provider"] for t in tasks.json()} == {"github"}
    search = next(r for r in api.requests if r.path == "/search/issues")
    assert search.query["q"] == ["is:issue is:open assignee:octo"]


async def test_several_providers(harness: Harness, api: StandInAPI) -> None:
    """GitHub first, GitLab second: tasks of both; a GitLab repository's branches come
    from GitLab; a provider that fails is left out of the tasks."""
    client = harness.client
    api.add("/user", {"id": 1, "login": "octo", "avatar_url": ""})
    api.respond("/graphql", github_graphql("octo", [StandInPullRequest("octo/a", 5)]), "POST")
    api.add("/search/issues", {"items": []})
    github_token = "tok"  # what `github_graphql` accepts
    await _store(
        client,
        {"github": {"token": github_token, "host": "github.com"}, **GITLAB},
    )

    tasks = (await client.get("/api/user/suggested-tasks")).json()
    assert [(t["git_provider"], t["issue_number"]) for t in tasks] == [
        ("github", 5),
        ("gitlab", 1),
        ("gitlab", 2),
        ("gitlab", 3),
        ("gitlab", 4),
        ("gitlab", 8),
    ]
    branches = await client.get("/api/user/repository/branches", params={"repository": "g/p"})
    assert [branch["name"] for branch in branches.json()["branches"]] == ["main", "feature"]
    # The first provider answers the user question.
    assert (await client.get("/api/user/info")).json()["login"] == "octo"

    api.add("/graphql", {"message": "Server Error"}, status=500, method="POST")
    tasks = (await client.get("/api/user/suggested-tasks")).json()
    assert {t["git_provider"] for t in tasks} == {"gitlab"}


async def test_missing_tokens_answer_the_spec_texts(harness: Harness, api: StandInAPI) -> None:
    client = harness.client
    for path, text in (
        ("/api/user/info", TOKEN_REQUIRED),
        ("/api/user/repositories", TOKEN_REQUIRED),
        ("/api/user/repository/branches?repository=g/p", TOKEN_REQUIRED),
        ("/api/user/repository/g/p/microagents", TOKEN_REQUIRED),
        ("/api/user/installations?provider=github", TOKEN_REQUIRED),
        ("/api/user/search/repositories?query=x", "Git provider token required."),
        ("/api/user/search/branches?repository=g/p&query=x", "Git provider token required."),
        ("/api/user/suggested-tasks", "No providers set."),
    ):
        response = await client.get(path)
        assert (response.status_code, response.json()) == (401, text), path

    # A GitLab token does not answer for GitHub.
    await _store(client, GITLAB)
    github = await client.get("/api/user/repositories", params={"selected_provider": "github"})
    assert (github.status_code, github.json()) == (401, TOKEN_REQUIRED)
    assert all(r.path.startswith("/api/v4/") for r in api.requests)


async def test_provider_failures_are_plain_text(harness: Harness, api: StandInAPI) -> None:
    client = harness.client
    await _store(client, GITLAB)

    # The provider stops accepting the token: 401 with its reason.
    api.add("/api/v4/user", {"message": "401 Unauthorized"}, status=401)
    refused = await client.get("/api/user/info")
    assert refused.status_code == 401
    assert refused.json() == (
        "Invalid gitlab token: GitLab refused the request (401): 401 Unauthorized"
    )

    missing = await client.get("/api/user/repository/branches", params={"repository": "g/none"})
    assert missing.status_code == 404
    assert missing.json() == (
        "Resource not found on gitlab API: GitLab refused the request (404): Not Found"
    )

    api.add("/api/v4/projects", {"message": "Too Many Requests"}, status=429)
    limited = await client.get("/api/user/repositories")
    assert limited.status_code == 502
    assert limited.json() == (
        "gitlab API rate limit exceeded: GitLab refused the request (429): Too Many Requests"
    )

    api.add("/api/v4/projects", "upstream exploded", status=503)
    broken = await client.get("/api/user/repositories")
    assert broken.status_code == 502
    assert broken.json() == "Unknown error: GitLab failed to answer (503): upstream exploded"

    # All providers failing is the answer of suggested tasks too.
    api.add("/api/v4/merge_requests", {"message": "401 Unauthorized"}, status=401)
    tasks = await client.get("/api/user/suggested-tasks")
    assert tasks.status_code == 401 and isinstance(tasks.json(), str)


async def test_unreachable_provider_is_a_502(app_config: OpenHandsConfig, workspace: Path) -> None:
    server = ServerConfig(
        rate_limit_enabled=False, serve_frontend=False, github_api_url="http://127.0.0.1:9"
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        response = await h.client.get("/api/user/info", headers={"X-GitHub-Token": "ghp_x"})
    assert response.status_code == 502
    assert response.json().startswith("Could not reach GitHub")


async def test_conversation_repository_is_checked_with_gitlab(
    harness: Harness, api: StandInAPI
) -> None:
    client = harness.client
    await _store(client, GITLAB)
    await harness.store_settings()
    ok = await client.post(
        "/api/conversations", json={"repository": "g/p", "git_provider": "gitlab"}
    )
    assert ok.status_code == 200, ok.text
    assert "/api/v4/projects/g%2Fp" in api.paths()
    refused = await client.post("/api/conversations", json={"repository": "g/nope"})
    assert (refused.status_code, refused.json()) == (401, "Unable to access repo g/nope")


def test_only_configured_roots_that_differ_from_the_public_ones_are_passed() -> None:
    assert provider_api_urls(ServerConfig()) == {}
    configured = ServerConfig(
        github_api_url="http://127.0.0.1:9/",
        gitlab_api_url="https://gitlab.com/api/v4",
        bitbucket_api_url="http://bb/2.0",
    )
    assert provider_api_urls(configured) == {
        ProviderType.GITHUB: "http://127.0.0.1:9",
        ProviderType.BITBUCKET: "http://bb/2.0",
    }
    env = {"GITLAB_API_URL": "http://gl/api/v4/", "BITBUCKET_API_URL": ""}
    assert provider_api_urls(ServerConfig.from_env(env)) == {
        ProviderType.GITLAB: "http://gl/api/v4"
    }


async def test_a_pasted_repository_url_is_looked_up_where_it_is_hosted(
    harness: Harness, api: StandInAPI
) -> None:
    client = harness.client
    api.add("/user", {"id": 1, "login": "octo", "avatar_url": ""})
    await _store(client, {"github": {"token": "tok", "host": "github.com"}, **GITLAB})
    search = "/api/user/search/repositories"
    stored = len(api.requests)

    found = await client.get(search, params={"query": "https://gitlab.com/g/p/-/tree/main"})
    assert [(r["git_provider"], r["full_name"]) for r in found.json()] == [("gitlab", "g/p")]
    # Neither GitHub (the first provider) nor any search was asked: one project look-up.
    assert api.paths()[stored:] == ["/api/v4/projects/g%2Fp"]

    nowhere = await client.get(search, params={"query": "https://example.com/o/r"})
    assert (nowhere.status_code, nowhere.json()) == (200, [])
    elsewhere = await client.get(
        search, params={"query": "https://gitlab.com/g/p", "selected_provider": "github"}
    )
    assert (elsewhere.status_code, elsewhere.json()) == (200, [])
    assert len(api.requests) == stored + 1


async def test_microagent_conversations_without_closed_pull_requests(
    harness: Harness, api: StandInAPI
) -> None:
    await _store(harness.client, GITLAB)
    api.add("/api/v4/projects/g%2Fp/merge_requests/5", {"iid": 5, "state": "opened"})
    api.add("/api/v4/projects/g%2Fp/merge_requests/6", {"iid": 6, "state": "merged"})
    api.add("/api/v4/projects/g%2Fp/merge_requests/7", {"iid": 7, "state": "closed"})
    store = harness.services.conversation_store
    now = datetime.now(UTC)
    conversations = {
        "open": ("microagent_management", [6, 5]),  # the last PR counts
        "merged": ("microagent_management", [5, 6]),
        "closed": ("microagent_management", [7]),
        "no-pr": ("microagent_management", []),
        "unknown-pr": ("microagent_management", [99]),  # cannot tell: kept
        "gui": ("gui", [5]),
    }
    for index, (conversation_id, (trigger, prs)) in enumerate(conversations.items()):
        await store.save_metadata(
            ConversationMetadata(
                conversation_id=conversation_id,
                selected_repository="g/p",
                git_provider=ProviderType.GITLAB,
                trigger=trigger,
                pr_number=prs,
                created_at=now - timedelta(minutes=index),
            )
        )

    listed = await harness.client.get(
        "/api/microagent-management/conversations", params={"selected_repository": "g/p"}
    )
    assert listed.status_code == 200
    assert [c["conversation_id"] for c in listed.json()["results"]] == [
        "open",
        "no-pr",
        "unknown-pr",
    ]
