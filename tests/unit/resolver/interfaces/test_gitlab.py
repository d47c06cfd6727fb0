"""The GitLab handlers against a stand-in self-hosted GitLab (real HTTPS requests)."""

from __future__ import annotations

from typing import Any

from openhands.resolver.interfaces.gitlab import GitlabIssueHandler, GitlabPRHandler
from tests.unit.resolver.provider_stand_in import Seen, StandInProvider

PROJECT = "/api/v4/projects/group%2Fsub%2Fwidgets"


def test_nested_group_project_path_is_encoded(provider: StandInProvider) -> None:
    provider.pages(f"{PROJECT}/issues", [[{"iid": 2, "title": "Bug", "description": None}]])
    provider.pages(f"{PROJECT}/issues/2/notes", [[{"id": 1, "body": "me too"}]])

    handler = GitlabIssueHandler("group/sub", "widgets", "glpat", "bot", provider.domain)
    [issue] = handler.get_converted_issues([2])

    assert (issue.owner, issue.number, issue.body, issue.thread_comments) == (
        "group/sub",
        2,
        "",
        ["me too"],
    )
    listing = next(r for r in provider.requests if r.path == f"{PROJECT}/issues")
    assert listing.query["state"] == ["opened"] and listing.query["scope"] == ["all"]
    assert listing.headers["authorization"] == "Bearer glpat"
    assert (
        handler.get_pull_url(3) == f"https://{provider.domain}/group/sub/widgets/-/merge_requests/3"
    )


def _discussions(seen: Seen) -> tuple[int, Any]:
    assert seen.body["variables"] == {"projectPath": "group/sub/widgets", "pr": "3"}
    notes = [
        {
            "body": "Use a constant",
            "id": "gid://gitlab/DiffNote/41",
            "position": {"filePath": "a.py"},
        },
        {"body": "Done?", "id": "gid://gitlab/DiffNote/42", "position": None},
    ]
    edges = [
        {
            "node": {
                "id": "gid://gitlab/Discussion/d1",
                "resolved": False,
                "resolvable": True,
                "notes": {"nodes": notes},
            }
        },
        {
            "node": {
                "id": "gid://gitlab/Discussion/d2",
                "resolved": False,
                "resolvable": False,
                "notes": {"nodes": notes},
            }
        },
    ]
    return 200, {"data": {"project": {"mergeRequest": {"discussions": {"edges": edges}}}}}


def test_merge_request_conversion(provider: StandInProvider) -> None:
    provider.pages(
        f"{PROJECT}/merge_requests",
        [[{"iid": 3, "title": "MR", "description": "Body", "source_branch": "topic"}]],
    )
    provider.on(
        "GET",
        f"{PROJECT}/merge_requests/3/related_issues",
        (200, [{"iid": 8, "description": "Related"}]),
    )
    provider.on("POST", "/api/graphql", _discussions)
    provider.pages(
        f"{PROJECT}/merge_requests/3/notes",
        [
            [
                {"id": 5, "body": "general remark", "system": False},
                {"id": 6, "body": "added 1 commit", "system": True},
            ]
        ],
    )

    handler = GitlabPRHandler("group/sub", "widgets", "glpat", "bot", provider.domain)
    [mr] = handler.get_converted_issues([3], comment_id=42)

    assert mr.head_branch == "topic"
    assert mr.closing_issues == ["Related"]
    assert mr.review_comments is None
    assert mr.thread_ids == ["gid://gitlab/Discussion/d1"]
    assert mr.review_threads is not None
    assert mr.review_threads[0].files == ["a.py"]
    # With a comment id, only a note with that id would be kept.
    assert mr.thread_comments is None
    order = [path for _, path in provider.seen()]
    assert order.index(f"{PROJECT}/merge_requests/3/related_issues") < order.index("/api/graphql")


def test_reply_goes_to_the_discussion_after_its_last_note(provider: StandInProvider) -> None:
    discussion = f"{PROJECT}/merge_requests/3/discussions/d1"
    provider.on("GET", discussion, (200, {"notes": [{"id": 41}, {"id": 42}]}))
    provider.on("POST", f"{discussion}/notes", (201, {}))

    handler = GitlabIssueHandler("group/sub", "widgets", "glpat", "bot", provider.domain)
    handler.reply_to_comment(3, "gid://gitlab/Discussion/d1", "Done")

    assert provider.requests[-1].body == {
        "body": "Openhands fix success summary\n\n\nDone",
        "note_id": 42,
    }


def test_reviewer_is_looked_up_then_set(provider: StandInProvider) -> None:
    provider.on("GET", "/api/v4/users", (200, [{"id": 77}]))
    provider.on("PUT", f"{PROJECT}/merge_requests/3", (200, {}))
    GitlabIssueHandler("group/sub", "widgets", "glpat", "bot", provider.domain).request_reviewers(
        "dana", 3
    )
    lookup, update = provider.requests
    assert lookup.query == {"username": ["dana"]}
    assert (update.method, update.body) == ("PUT", {"reviewer_ids": [77]})
