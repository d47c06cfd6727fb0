"""Suggested tasks of the GitHub and GitLab services, against stand-ins of their APIs.

GitHub: one GraphQL query for the viewer's open PRs (executed by the stand-in against a
subset of GitHub's schema), the REST search for assigned issues, and the REST fallback
where GraphQL cannot be used. GitLab: the REST merge request list plus each merge request's
own answer for its head pipeline.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from openhands.integrations.github.github_service import (
    SUGGESTED_PULL_REQUESTS_QUERY,
    GitHubService,
    GraphQLSchemaError,
)
from openhands.integrations.gitlab.gitlab_service import GitLabService
from openhands.integrations.service_types import (
    AuthenticationError,
    ProviderType,
    RateLimitError,
    ResourceNotFoundError,
    SuggestedTask,
    TaskType,
    UnknownException,
)
from tests.unit.integrations.stand_in_api import (
    Recorded,
    Reply,
    Responder,
    StandInAPI,
    StandInPullRequest,
    github_graphql,
    stand_in_api,
)

TOKEN = SecretStr("tok")
GRAPHQL = "/api/graphql"  # where an Enterprise-style host (the stand-in) serves GraphQL
SEARCH = "/api/v3/search/issues"


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def _github(api: StandInAPI) -> GitHubService:
    return GitHubService(token=TOKEN, base_domain=api.url)


def _gitlab(api: StandInAPI) -> GitLabService:
    return GitLabService(token=TOKEN, base_domain=api.url)


def _summary(tasks: list[SuggestedTask]) -> list[tuple[TaskType, str, int, str]]:
    return [(t.task_type, t.repo, t.issue_number, t.title) for t in tasks]


def _search_hit(repo: str, number: int, title: str) -> dict[str, Any]:
    return {"number": number, "title": title, "repository_url": f"http://x/repos/{repo}"}


def _github_search(prs: list[dict[str, Any]], issues: list[dict[str, Any]]) -> Responder:
    """``/search/issues`` answering PR searches with ``prs`` and issue searches with
    ``issues``, as GitHub filters by the ``q`` qualifiers."""

    def answer(request: Recorded) -> Reply:
        query = request.query.get("q", [""])[0]
        return 200, {"items": prs if "is:pr" in query else issues}, {}

    return answer


def _graphql_requests(api: StandInAPI) -> list[Recorded]:
    return [r for r in api.requests if r.path == GRAPHQL]


# --- GitHub: GraphQL ---------------------------------------------------------------------


def test_graphql_url_sits_next_to_the_rest_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    assert GitHubService(token=TOKEN).graphql_url == "https://api.github.com/graphql"
    assert GitHubService(base_domain="github.com").graphql_url == "https://api.github.com/graphql"
    assert GitHubService(base_domain="ghe.corp").graphql_url == "https://ghe.corp/api/graphql"
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/")
    assert GitHubService(token=TOKEN).graphql_url == "http://127.0.0.1:9/graphql"


async def test_github_every_task_type_from_one_query(api: StandInAPI) -> None:
    pull_requests = [
        StandInPullRequest("o/a", 1, "Conflicted", mergeable="CONFLICTING"),
        StandInPullRequest("o/a", 2, "Red", checks=("FAILURE",)),
        StandInPullRequest("o/b", 3, "Broken CI", checks=("ERROR",)),
        StandInPullRequest("o/b", 4, "Reviewed", checks=("SUCCESS",), threads=(True, False)),
        StandInPullRequest("o/c", 5, "Green", checks=("SUCCESS",), threads=(True, True)),
        StandInPullRequest("o/c", 6, "Running", checks=("PENDING",), mergeable="UNKNOWN"),
        StandInPullRequest("o/c", 7, "No checks"),
        StandInPullRequest("o/c", 8, "Done", state="MERGED", mergeable="CONFLICTING"),
        StandInPullRequest("o/c", 9, "Dropped", state="CLOSED", checks=("FAILURE",)),
    ]
    api.respond(GRAPHQL, github_graphql("octo", pull_requests), method="POST")
    api.respond(SEARCH, _github_search([], [_search_hit("o/d", 11, "Bug")]))

    tasks = await _github(api).get_suggested_tasks()

    assert _summary(tasks) == [
        (TaskType.MERGE_CONFLICTS, "o/a", 1, "Conflicted"),
        (TaskType.FAILING_CHECKS, "o/a", 2, "Red"),
        (TaskType.FAILING_CHECKS, "o/b", 3, "Broken CI"),
        (TaskType.UNRESOLVED_COMMENTS, "o/b", 4, "Reviewed"),
        (TaskType.OPEN_PR, "o/c", 5, "Green"),
        (TaskType.OPEN_PR, "o/c", 6, "Running"),
        (TaskType.OPEN_PR, "o/c", 7, "No checks"),
        (TaskType.OPEN_ISSUE, "o/d", 11, "Bug"),
    ]
    assert all(t.git_provider is ProviderType.GITHUB for t in tasks)
    # One GraphQL query (the login comes with it), then the issue search; no REST per PR.
    assert [(r.method, r.path) for r in api.requests] == [("POST", GRAPHQL), ("GET", SEARCH)]
    graphql = api.requests[0]
    assert graphql.headers["authorization"] == "Bearer tok"
    assert graphql.body["query"] == SUGGESTED_PULL_REQUESTS_QUERY
    assert graphql.body["variables"] == {"pullRequests": 100, "reviewThreads": 100}
    assert api.requests[1].query["q"] == ["is:issue is:open assignee:octo"]


@pytest.mark.parametrize(
    ("pull_request", "expected"),
    [
        (
            StandInPullRequest(
                "o/r", 1, mergeable="CONFLICTING", checks=("FAILURE",), threads=(False,)
            ),
            TaskType.MERGE_CONFLICTS,
        ),
        (
            StandInPullRequest("o/r", 1, checks=("ERROR",), threads=(False,)),
            TaskType.FAILING_CHECKS,
        ),
        (
            StandInPullRequest("o/r", 1, checks=("PENDING",), threads=(True, False)),
            TaskType.UNRESOLVED_COMMENTS,
        ),
        (StandInPullRequest("o/r", 1, checks=("SUCCESS",), threads=(True,)), TaskType.OPEN_PR),
        # Only the head commit's checks count.
        (StandInPullRequest("o/r", 1, checks=("FAILURE", "SUCCESS")), TaskType.OPEN_PR),
        (StandInPullRequest("o/r", 1, checks=("SUCCESS", "FAILURE")), TaskType.FAILING_CHECKS),
    ],
)
async def test_github_priority_order(
    api: StandInAPI, pull_request: StandInPullRequest, expected: TaskType
) -> None:
    api.respond(GRAPHQL, github_graphql("octo", [pull_request]), method="POST")
    api.respond(SEARCH, _github_search([], []))
    tasks = await _github(api).get_suggested_tasks()
    assert [t.task_type for t in tasks] == [expected]


async def test_github_execute_graphql_query_returns_the_answer(api: StandInAPI) -> None:
    api.respond(GRAPHQL, github_graphql("octo", []), method="POST")
    answer = await _github(api).execute_graphql_query("query { viewer { login } }", {})
    assert answer == {"data": {"viewer": {"login": "octo"}}}


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (401, {"message": "Bad credentials"}, AuthenticationError),
        (429, {"message": "slow down"}, RateLimitError),
        (502, {"message": "bad gateway"}, UnknownException),
        (
            200,
            {"data": None, "errors": [{"type": "RATE_LIMITED", "message": "API rate limit"}]},
            RateLimitError,
        ),
        (
            200,
            {"data": {"viewer": None}, "errors": [{"type": "FORBIDDEN", "message": "SAML"}]},
            UnknownException,
        ),
        (200, {"data": None}, UnknownException),
        (200, "<html>maintenance</html>", UnknownException),
    ],
)
async def test_github_graphql_failures_raise_the_service_errors(
    api: StandInAPI, status: int, body: Any, error: type[Exception]
) -> None:
    api.add(GRAPHQL, body, status=status, method="POST")
    api.respond(SEARCH, _github_search([_search_hit("o/r", 1, "PR")], []))
    service = _github(api)
    with pytest.raises(error):
        await service.execute_graphql_query(SUGGESTED_PULL_REQUESTS_QUERY, {})
    with pytest.raises(error):
        await service.get_suggested_tasks()
    # A failing GraphQL call is reported, not papered over with the REST path.
    assert all(r.path == GRAPHQL for r in api.requests)


async def test_github_invalid_query_is_a_graphql_error(api: StandInAPI) -> None:
    api.respond(GRAPHQL, github_graphql("octo", []), method="POST")
    with pytest.raises(UnknownException, match="Cannot query field"):
        await _github(api).execute_graphql_query("query { viewer { nickname } }", {})


async def test_github_missing_token_is_an_authentication_error(api: StandInAPI) -> None:
    api.respond(GRAPHQL, github_graphql("octo", [], token="other"), method="POST")
    with pytest.raises(AuthenticationError):
        await _github(api).get_suggested_tasks()


async def test_github_not_found_graphql_error(api: StandInAPI) -> None:
    api.add(GRAPHQL, {"errors": [{"type": "NOT_FOUND", "message": "no repo"}]}, method="POST")
    with pytest.raises(ResourceNotFoundError):
        await _github(api).execute_graphql_query("query { viewer { login } }", {})


# --- GitHub: REST fallback ---------------------------------------------------------------


def _rest_fallback_routes(api: StandInAPI) -> None:
    api.add("/api/v3/user", {"id": 1, "login": "octo", "avatar_url": ""})
    prs = [
        _search_hit("o/r", 1, "Conflicted"),
        _search_hit("o/r", 2, "Red"),
        _search_hit("o/r", 3, "Fine"),
        _search_hit("o/r", 4, "Gone"),
    ]
    api.respond(SEARCH, _github_search(prs, [_search_hit("o/s", 9, "Bug")]))
    api.add("/api/v3/repos/o/r/pulls/1", {"state": "open", "mergeable_state": "dirty"})
    api.add("/api/v3/repos/o/r/pulls/2", {"state": "open", "mergeable_state": "unstable"})
    api.add("/api/v3/repos/o/r/pulls/3", {"state": "open", "mergeable_state": "clean"})


REST_FALLBACK_TASKS = [
    (TaskType.MERGE_CONFLICTS, "o/r", 1, "Conflicted"),
    (TaskType.FAILING_CHECKS, "o/r", 2, "Red"),
    (TaskType.OPEN_PR, "o/r", 3, "Fine"),
    (TaskType.OPEN_PR, "o/r", 4, "Gone"),  # vanished since the search: a plain open PR
    (TaskType.OPEN_ISSUE, "o/s", 9, "Bug"),
]


async def test_github_falls_back_to_rest_without_graphql(api: StandInAPI) -> None:
    _rest_fallback_routes(api)  # no GraphQL route: the stand-in answers 404, like old GHE
    tasks = await _github(api).get_suggested_tasks()
    assert _summary(tasks) == REST_FALLBACK_TASKS
    assert api.requests[0].path == GRAPHQL
    queries = [r.query["q"][0] for r in api.requests if r.path == SEARCH]
    assert queries == ["is:pr is:open author:octo", "is:issue is:open assignee:octo"]


async def test_github_falls_back_to_rest_when_the_schema_is_too_old(api: StandInAPI) -> None:
    _rest_fallback_routes(api)
    schema_error = {
        "errors": [
            {
                "message": "Field 'statusCheckRollup' doesn't exist on type 'Commit'",
                "extensions": {"code": "undefinedField", "typeName": "Commit"},
            }
        ]
    }
    api.add(GRAPHQL, schema_error, method="POST")
    with pytest.raises(GraphQLSchemaError):
        await _github(api).execute_graphql_query(SUGGESTED_PULL_REQUESTS_QUERY, {})
    assert _summary(await _github(api).get_suggested_tasks()) == REST_FALLBACK_TASKS


# --- GitLab ------------------------------------------------------------------------------


def _merge_request(
    iid: int, title: str, *, conflicts: bool = False, discussions_resolved: bool = True
) -> dict[str, Any]:
    """A merge request as GitLab's list answer has it: no ``head_pipeline``."""
    return {
        "iid": iid,
        "project_id": 11,
        "title": title,
        "has_conflicts": conflicts,
        "blocking_discussions_resolved": discussions_resolved,
        "references": {"full": f"g/p!{iid}"},
    }


def _merge_request_details(mr: dict[str, Any], pipeline: str | None) -> dict[str, Any]:
    return {**mr, "head_pipeline": {"id": 1, "status": pipeline} if pipeline else None}


async def test_gitlab_every_task_type(api: StandInAPI) -> None:
    mrs = [
        _merge_request(1, "Conflicted", conflicts=True),
        _merge_request(2, "Red"),
        _merge_request(3, "Reviewed", discussions_resolved=False),
        _merge_request(4, "Green"),
        _merge_request(5, "No pipeline"),
    ]
    api.add("/api/v4/merge_requests", mrs)
    pipelines = {2: "failed", 3: "success", 4: "success", 5: None}
    for mr in mrs[1:]:
        details = _merge_request_details(mr, pipelines[mr["iid"]])
        api.add(f"/api/v4/projects/11/merge_requests/{mr['iid']}", details)
    api.add("/api/v4/issues", [{"iid": 8, "title": "Bug", "references": {"full": "g/q#8"}}])

    tasks = await _gitlab(api).get_suggested_tasks()

    assert _summary(tasks) == [
        (TaskType.MERGE_CONFLICTS, "g/p", 1, "Conflicted"),
        (TaskType.FAILING_CHECKS, "g/p", 2, "Red"),
        (TaskType.UNRESOLVED_COMMENTS, "g/p", 3, "Reviewed"),
        (TaskType.OPEN_PR, "g/p", 4, "Green"),
        (TaskType.OPEN_PR, "g/p", 5, "No pipeline"),
        (TaskType.OPEN_ISSUE, "g/q", 8, "Bug"),
    ]
    assert all(t.git_provider is ProviderType.GITLAB for t in tasks)
    listing = api.requests[0]
    assert listing.query["scope"] == ["created_by_me"] and listing.query["state"] == ["opened"]
    issues = next(r for r in api.requests if r.path == "/api/v4/issues")
    assert issues.query["scope"] == ["assigned_to_me"]
    # A conflicted merge request needs no details: conflicts outrank everything.
    fetched = sorted(r.path for r in api.requests if "/merge_requests/" in r.path)
    assert fetched == [f"/api/v4/projects/11/merge_requests/{iid}" for iid in (2, 3, 4, 5)]


@pytest.mark.parametrize(
    ("listed", "pipeline", "expected"),
    [
        (
            _merge_request(1, "t", conflicts=True, discussions_resolved=False),
            "failed",
            TaskType.MERGE_CONFLICTS,
        ),
        (_merge_request(1, "t", discussions_resolved=False), "failed", TaskType.FAILING_CHECKS),
        (
            _merge_request(1, "t", discussions_resolved=False),
            "running",
            TaskType.UNRESOLVED_COMMENTS,
        ),
        (_merge_request(1, "t"), "canceled", TaskType.OPEN_PR),
    ],
)
async def test_gitlab_priority_order(
    api: StandInAPI, listed: dict[str, Any], pipeline: str, expected: TaskType
) -> None:
    api.add("/api/v4/merge_requests", [listed])
    api.add("/api/v4/projects/11/merge_requests/1", _merge_request_details(listed, pipeline))
    api.add("/api/v4/issues", [])
    tasks = await _gitlab(api).get_suggested_tasks()
    assert [t.task_type for t in tasks] == [expected]


async def test_gitlab_details_newer_than_the_list_win(api: StandInAPI) -> None:
    listed = _merge_request(1, "t")
    api.add("/api/v4/merge_requests", [listed])
    api.add("/api/v4/projects/11/merge_requests/1", {**listed, "has_conflicts": True})
    api.add("/api/v4/issues", [])
    assert [t.task_type for t in await _gitlab(api).get_suggested_tasks()] == [
        TaskType.MERGE_CONFLICTS
    ]


async def test_gitlab_vanished_merge_request_uses_the_list(api: StandInAPI) -> None:
    api.add("/api/v4/merge_requests", [_merge_request(1, "t", discussions_resolved=False)])
    api.add("/api/v4/issues", [])  # no details route: 404
    assert [t.task_type for t in await _gitlab(api).get_suggested_tasks()] == [
        TaskType.UNRESOLVED_COMMENTS
    ]


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, AuthenticationError), (429, RateLimitError), (500, UnknownException)],
)
async def test_gitlab_failures_raise_the_service_errors(
    api: StandInAPI, status: int, error: type[Exception]
) -> None:
    api.add("/api/v4/merge_requests", [_merge_request(1, "t")])
    api.add("/api/v4/projects/11/merge_requests/1", {"message": "x"}, status=status)
    with pytest.raises(error):
        await _gitlab(api).get_suggested_tasks()
    api.add("/api/v4/merge_requests", {"message": "x"}, status=status)
    with pytest.raises(error):
        await _gitlab(api).get_suggested_tasks()
