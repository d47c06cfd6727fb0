"""The GitHub handlers against a stand-in GitHub Enterprise API (real HTTPS requests)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from openhands.resolver.interfaces.github import GithubIssueHandler, GithubPRHandler
from openhands.resolver.interfaces.issue import ReviewThread
from tests.unit.resolver.provider_stand_in import Seen, StandInProvider

REPO = "/api/v3/repos/acme/widgets"


def issue_handler(api: StandInProvider) -> GithubIssueHandler:
    return GithubIssueHandler("acme", "widgets", "ghp_secret", "bot", api.domain)


def test_enterprise_urls_use_the_domain_and_cached_urls_stay_on_the_original_owner(
    provider: StandInProvider,
) -> None:
    handler = issue_handler(provider)
    assert handler.base_url == f"https://{provider.domain}{REPO}"
    assert handler.get_graphql_url() == f"https://{provider.domain}/api/graphql"
    handler.set_owner("fork-owner")
    assert (
        handler.get_clone_url()
        == f"https://bot:ghp_secret@{provider.domain}/fork-owner/widgets.git"
    )
    assert handler.base_url == f"https://{provider.domain}{REPO}"
    no_user = GithubIssueHandler("acme", "widgets", "ghp_secret", None, provider.domain)
    assert no_user.get_clone_url().startswith("https://x-auth-token:ghp_secret@")


def test_issues_are_paged_and_pull_requests_left_out(provider: StandInProvider) -> None:
    provider.pages(
        f"{REPO}/issues",
        [
            [
                {"number": 1, "title": "One", "body": None},
                {"number": 2, "title": "A PR", "pull_request": {}},
            ],
            [{"number": 3, "title": "Three", "body": "Body ![shot](https://img.example/x.png)"}],
        ],
    )
    provider.pages(
        f"{REPO}/issues/1/comments", [[{"id": 10, "body": "first"}], [{"id": 11, "body": "second"}]]
    )
    provider.pages(f"{REPO}/issues/3/comments", [])

    issues = issue_handler(provider).get_converted_issues([1, 2, 3])

    assert [(i.number, i.body, i.thread_comments) for i in issues] == [
        (1, "", ["first", "second"]),
        (3, "Body ![shot](https://img.example/x.png)", None),
    ]
    listing = [r for r in provider.requests if r.path == f"{REPO}/issues"]
    assert [r.query["page"] for r in listing] == [["1"], ["2"], ["3"]]
    assert listing[0].query["state"] == ["open"]
    assert listing[0].headers["authorization"] == "token ghp_secret"


def test_a_comment_id_keeps_only_that_comment(provider: StandInProvider) -> None:
    provider.pages(f"{REPO}/issues", [[{"number": 1, "title": "One", "body": "b"}]])
    provider.pages(
        f"{REPO}/issues/1/comments", [[{"id": 10, "body": "a"}], [{"id": 11, "body": "b"}]]
    )
    handler = issue_handler(provider)

    assert handler.get_issue_comments(1, comment_id=11) == ["b"]
    assert handler.get_issue_comments(1, comment_id=99) is None


def test_a_missing_or_closed_issue_is_reported(provider: StandInProvider) -> None:
    provider.pages(f"{REPO}/issues", [[{"number": 1, "title": "One", "body": "b"}]])
    with pytest.raises(ValueError, match="Issue 7 not found"):
        issue_handler(provider).get_converted_issues([7])
    with pytest.raises(ValueError, match="Unspecified issue number"):
        issue_handler(provider).get_converted_issues([])


def test_an_api_error_is_raised_not_swallowed(provider: StandInProvider) -> None:
    provider.on("GET", f"{REPO}/issues", (502, {"message": "Bad gateway"}))
    with pytest.raises(httpx.HTTPStatusError):
        issue_handler(provider).download_issues()


def test_free_branch_name_tries_numbered_suffixes(provider: StandInProvider) -> None:
    provider.on("GET", f"{REPO}/branches/fix", (200, {}))
    provider.on("GET", f"{REPO}/branches/fix-try2", (200, {}))
    assert issue_handler(provider).get_branch_name("fix") == "fix-try3"


def test_pull_request_creation_and_its_permission_error(provider: StandInProvider) -> None:
    handler = issue_handler(provider)
    provider.on("POST", f"{REPO}/pulls", (201, {"html_url": "https://x/pull/5", "number": 5}))
    provider.on("POST", f"{REPO}/pulls/5/requested_reviewers", (201, {}))
    created = handler.create_pull_request(
        {"title": "t", "head": "b", "base": "main", "draft": True}
    )
    handler.request_reviewers("alice", created["number"])
    assert created["number"] == 5
    assert provider.requests[-1].body == {"reviewers": ["alice"]}

    provider.on("POST", f"{REPO}/pulls", (403, {"message": "Resource not accessible"}))
    with pytest.raises(RuntimeError, match="missing permissions"):
        handler.create_pull_request({})


def test_thread_reply_goes_through_graphql_with_the_summary_prefix(
    provider: StandInProvider,
) -> None:
    provider.on("POST", "/api/graphql", (200, {"data": {}}))
    issue_handler(provider).reply_to_comment(5, "PRRT_abc", "Fixed it")
    sent = provider.requests[-1]
    assert sent.headers["authorization"] == "Bearer ghp_secret"
    assert sent.body["variables"] == {
        "body": "Openhands fix success summary\n\n\nFixed it",
        "pullRequestReviewThreadId": "PRRT_abc",
    }


def _pr_metadata(seen: Seen) -> tuple[int, Any]:
    assert seen.body["variables"] == {"owner": "acme", "repo": "widgets", "pr": 4}
    comments = [
        {"body": "Rename this", "path": "src/a.py", "fullDatabaseId": "501"},
        {"body": "And this", "path": "src/b.py", "fullDatabaseId": "502"},
        {"body": "See #12", "path": "src/a.py", "fullDatabaseId": "503"},
    ]
    pull_request = {
        "closingIssuesReferences": {"edges": [{"node": {"body": "Closing body", "number": 9}}]},
        "reviews": {"nodes": [{"body": "Looks off", "state": "COMMENTED", "fullDatabaseId": 700}]},
        "reviewThreads": {
            "edges": [
                {"node": {"id": "T1", "isResolved": False, "comments": {"nodes": comments}}},
                {"node": {"id": "T2", "isResolved": True, "comments": {"nodes": comments[:1]}}},
            ]
        },
    }
    return 200, {"data": {"repository": {"pullRequest": pull_request}}}


def test_pull_request_conversion_gathers_feedback_and_referenced_issues(
    provider: StandInProvider,
) -> None:
    provider.pages(
        f"{REPO}/pulls",
        [[{"number": 4, "title": "PR", "body": "Also #3 and #9", "head": {"ref": "feature"}}]],
    )
    provider.on("POST", "/api/graphql", _pr_metadata)
    provider.pages(f"{REPO}/issues/4/comments", [[{"id": 1, "body": "Please see #12"}]])
    provider.on("GET", f"{REPO}/issues/3", (200, {"body": "Issue three"}))
    provider.on("GET", f"{REPO}/issues/12", (404, {"message": "Not Found"}))

    handler = GithubPRHandler("acme", "widgets", "ghp_secret", "bot", provider.domain)
    [pr] = handler.get_converted_issues([4])

    assert pr.head_branch == "feature"
    assert pr.review_comments == ["Looks off"]
    assert pr.thread_ids == ["T1"]
    assert pr.review_threads == [
        ReviewThread(
            comment="Rename this\nAnd this\n---\nlatest feedback:\nSee #12\n",
            files=["src/a.py", "src/b.py"],
        )
    ]
    assert pr.thread_comments == ["Please see #12"]
    # #9 is already a closing issue; #12 failed to load and is skipped.
    assert pr.closing_issues == ["Closing body", "Issue three"]
    fetched = [
        path for method, path in provider.seen("GET") if path.endswith(("/issues/3", "/issues/12"))
    ]
    assert fetched == [f"{REPO}/issues/3", f"{REPO}/issues/12"]
