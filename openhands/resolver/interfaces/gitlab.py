"""GitLab (gitlab.com or self-hosted) issue and merge-request handlers, over the REST v4
and GraphQL APIs."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.resolver.interfaces.handler_support import (
    MISSING_PUSH_PERMISSION,
    THREAD_REPLY_PREFIX,
    Comment,
    ReferencedIssueBodies,
    check_list_of_dicts,
    collect_comment_bodies,
    convert_pull_requests,
    fetch_pages,
    fold_review_thread,
    next_free_branch_name,
)
from openhands.resolver.interfaces.issue import Issue, IssueHandlerInterface, ReviewThread

DEFAULT_DOMAIN = "gitlab.com"

# The first 100 discussions of a merge request and 100 notes each are read.
_MR_DISCUSSIONS_QUERY = """
query($projectPath: ID!, $pr: String!) {
  project(fullPath: $projectPath) {
    mergeRequest(iid: $pr) {
      webUrl
      discussions(first: 100) {
        edges {
          node {
            id
            resolved
            resolvable
            notes(first: 100) { nodes { body id position { filePath } } }
          }
        }
      }
    }
  }
}
"""


def _global_id_number(global_id: str) -> str:
    """``gid://gitlab/Note/42`` → ``42`` (a plain id is returned as is)."""
    return global_id.split("/")[-1]


class GitlabIssueHandler(IssueHandlerInterface):
    """Issues of one GitLab project; also opens merge requests and posts notes."""

    def __init__(
        self,
        owner: str,
        repo: str,
        token: str,
        username: str | None = None,
        base_domain: str = DEFAULT_DOMAIN,
    ) -> None:
        self.owner = owner
        self.repo = repo
        self.token = token
        self.username = username
        self.base_domain = base_domain
        # Cached at construction: ``set_owner`` leaves the API URLs on the original project.
        self.base_url = self.get_base_url()
        self.download_url = self.get_download_url()
        self.clone_url = self.get_clone_url()
        self.headers = self.get_headers()

    # URLs and headers

    def set_owner(self, owner: str) -> None:
        self.owner = owner

    def get_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}

    def get_base_url(self) -> str:
        # GitLab addresses a project by its URL-encoded full path (``group%2Fsub%2Frepo``).
        project_path = quote(f"{self.owner}/{self.repo}", safe="")
        return f"https://{self.base_domain}/api/v4/projects/{project_path}"

    def get_authorize_url(self) -> str:
        return f"https://{self.username}:{self.token}@{self.base_domain}/"

    def get_branch_url(self, branch_name: str) -> str:
        return f"{self.get_base_url()}/repository/branches/{branch_name}"

    def get_download_url(self) -> str:
        return f"{self.base_url}/issues"

    def get_clone_url(self) -> str:
        credentials = f"{self.username}:{self.token}" if self.username else self.token
        return f"https://{credentials}@{self.base_domain}/{self.owner}/{self.repo}.git"

    def get_graphql_url(self) -> str:
        return f"https://{self.base_domain}/api/graphql"

    def get_compare_url(self, branch_name: str) -> str:
        default_branch = self.get_default_branch_name()
        return (
            f"https://{self.base_domain}/{self.owner}/{self.repo}/-/compare/"
            f"{default_branch}...{branch_name}"
        )

    def get_pull_url(self, pr_number: int) -> str:
        return f"https://{self.base_domain}/{self.owner}/{self.repo}/-/merge_requests/{pr_number}"

    # Reading

    def download_issues(self) -> list[Any]:
        """Every open issue of the project."""
        issues: list[Any] = []
        pages = fetch_pages(self.download_url, self.headers, state="opened", scope="all")
        for page in pages:
            issues.extend(check_list_of_dicts(page, "Gitlab"))
        return issues

    def get_issue_comments(
        self, issue_number: int, comment_id: int | None = None
    ) -> list[str] | None:
        return collect_comment_bodies(
            f"{self.download_url}/{issue_number}/notes", self.headers, comment_id or None
        )

    def branch_exists(self, branch_name: str) -> bool:
        logger.info(f"Checking if branch {branch_name} exists...")
        response = httpx.get(
            f"{self.base_url}/repository/branches/{branch_name}", headers=self.headers
        )
        exists = response.status_code == 200
        logger.info(f"Branch {branch_name} exists: {exists}")
        return bool(exists)

    def get_branch_name(self, base_branch_name: str) -> str:
        return next_free_branch_name(base_branch_name, self.branch_exists)

    def get_default_branch_name(self) -> str:
        response = httpx.get(self.base_url, headers=self.headers)
        response.raise_for_status()
        return str(response.json()["default_branch"])

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        """The listed open issues with their notes."""
        if not issue_numbers:
            raise ValueError("Unspecified issue number")
        logger.info(f"Limiting resolving to issues {issue_numbers}.")
        wanted = [raw for raw in self.download_issues() if raw.get("iid") in issue_numbers]
        if len(issue_numbers) == 1 and not wanted:
            raise ValueError(f"Issue {issue_numbers[0]} not found")

        issues = []
        for raw in wanted:
            if raw.get("iid") is None or raw.get("title") is None:
                logger.warning(f"Skipping issue {raw} as it is missing iid or title.")
                continue
            issues.append(
                Issue(
                    owner=self.owner,
                    repo=self.repo,
                    number=raw["iid"],
                    title=raw["title"],
                    body=raw.get("description") or "",
                    thread_comments=self.get_issue_comments(raw["iid"], comment_id=comment_id),
                    review_comments=None,
                )
            )
        return issues

    def get_context_from_external_issues_references(
        self,
        closing_issues: list[str],
        closing_issue_numbers: list[int],
        issue_body: str,
        review_comments: list[str] | None,
        review_threads: list[ReviewThread],
        thread_comments: list[str] | None,
    ) -> list[str]:
        return []

    # Writing

    def create_pull_request(self, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Open a merge request; the answer also carries GitHub's ``html_url``/``number``."""
        response = httpx.post(
            f"{self.base_url}/merge_requests", headers=self.headers, json=data or {}
        )
        if response.status_code == 403:
            raise RuntimeError(MISSING_PUSH_PERMISSION)
        response.raise_for_status()
        merge_request = dict(response.json())
        if "web_url" in merge_request:
            merge_request["html_url"] = merge_request["web_url"]
        if "iid" in merge_request:
            merge_request["number"] = merge_request["iid"]
        return merge_request

    def request_reviewers(self, reviewer: str, pr_number: int) -> None:
        response = httpx.get(
            f"https://{self.base_domain}/api/v4/users?username={reviewer}", headers=self.headers
        )
        response.raise_for_status()
        users = response.json()
        if not users:
            return
        review_response = httpx.put(
            f"{self.base_url}/merge_requests/{pr_number}",
            headers=self.headers,
            json={"reviewer_ids": [users[0]["id"]]},
        )
        if review_response.status_code != 200:
            logger.warning(f"Failed to request review from {reviewer}: {review_response.text}")

    def send_comment_msg(self, issue_number: int, msg: str) -> None:
        # Posted on the issue of that number, also when it is a merge request's number
        # (the reference does the same).
        response = httpx.post(
            f"{self.base_url}/issues/{issue_number}/notes",
            headers=self.headers,
            json={"body": msg},
        )
        if response.status_code != 201:
            logger.error(f"Failed to post comment: {response.status_code} {response.text}")
        else:
            logger.info(f"Comment added to the PR: {msg}")

    def reply_to_comment(self, pr_number: int, comment_id: str, reply: str) -> None:
        discussion_url = (
            f"{self.base_url}/merge_requests/{pr_number}/discussions/"
            f"{_global_id_number(comment_id)}"
        )
        response = httpx.get(discussion_url, headers=self.headers)
        response.raise_for_status()
        notes = response.json().get("notes", [])
        if not notes:
            return
        response = httpx.post(
            f"{discussion_url}/notes",
            headers=self.headers,
            json={"body": f"{THREAD_REPLY_PREFIX}{reply}", "note_id": notes[-1]["id"]},
        )
        response.raise_for_status()


def _is_discussion_note(note: Comment) -> bool:
    """A person's note that can be resolved (system notes — "added 1 commit" — are not)."""
    return bool(note.get("resolvable", True)) and not note.get("system", True)


class GitlabPRHandler(ReferencedIssueBodies, GitlabIssueHandler):
    """Merge requests of one GitLab project, with their unresolved feedback."""

    def __init__(
        self,
        owner: str,
        repo: str,
        token: str,
        username: str | None = None,
        base_domain: str = DEFAULT_DOMAIN,
    ) -> None:
        super().__init__(owner, repo, token, username, base_domain)
        self.download_url = f"{self.base_url}/merge_requests"

    def download_pr_metadata(
        self, pull_number: int, comment_id: int | None = None
    ) -> tuple[list[str], list[int], list[str] | None, list[ReviewThread], list[str]]:
        """``(related issue bodies, their numbers, None, unresolved threads, thread ids)``
        of one merge request. GitLab has no review bodies, hence the None."""
        response = httpx.get(
            f"{self.base_url}/merge_requests/{pull_number}/related_issues", headers=self.headers
        )
        response.raise_for_status()
        related = response.json()
        closing_bodies = [issue["description"] for issue in related]
        closing_numbers = [issue["iid"] for issue in related]

        response = httpx.post(
            self.get_graphql_url(),
            json={
                "query": _MR_DISCUSSIONS_QUERY,
                "variables": {"projectPath": f"{self.owner}/{self.repo}", "pr": str(pull_number)},
            },
            headers=self.headers,
        )
        response.raise_for_status()
        merge_request = response.json().get("data", {}).get("project", {}).get("mergeRequest", {})

        threads: list[ReviewThread] = []
        thread_ids: list[str] = []
        for edge in merge_request.get("discussions", {}).get("edges", []):
            node = edge.get("node", {})
            if node.get("resolved", True) or not node.get("resolvable", True):
                continue
            notes = node.get("notes", {}).get("nodes", [])
            if comment_id is not None and not any(
                int(_global_id_number(note["id"])) == comment_id for note in notes
            ):
                continue
            threads.append(
                fold_review_thread(
                    [(note["body"], (note.get("position") or {}).get("filePath")) for note in notes]
                )
            )
            thread_ids.append(node.get("id"))
        return closing_bodies, closing_numbers, None, threads, thread_ids

    def get_pr_comments(self, pr_number: int, comment_id: int | None = None) -> list[str] | None:
        """The merge request's discussion notes, system notes left out."""
        return collect_comment_bodies(
            f"{self.base_url}/merge_requests/{pr_number}/notes",
            self.headers,
            comment_id,
            keep=_is_discussion_note,
        )

    def _fetch_issue_body(self, number: int) -> str | None:
        response = httpx.get(f"{self.base_url}/issues/{number}", headers=self.headers)
        response.raise_for_status()
        return response.json().get("description", "")

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        """The listed open merge requests with their feedback and the issues they refer to."""
        if not issue_numbers:
            raise ValueError("Unspecified issue numbers")
        logger.info(f"Limiting resolving to issues {issue_numbers}.")
        wanted = [raw for raw in self.download_issues() if raw.get("iid") in issue_numbers]
        return convert_pull_requests(
            self,
            wanted,
            number_key="iid",
            body_key="description",
            head_branch_of=lambda raw: raw["source_branch"],
            comment_id=comment_id,
        )
