"""GitHub (and GitHub Enterprise) issue and pull-request handlers, over the REST v3 and
GraphQL APIs."""

from __future__ import annotations

from typing import Any

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.resolver.interfaces.handler_support import (
    MISSING_PUSH_PERMISSION,
    THREAD_REPLY_PREFIX,
    ReferencedIssueBodies,
    check_list_of_dicts,
    collect_comment_bodies,
    convert_pull_requests,
    fetch_pages,
    fold_review_thread,
    next_free_branch_name,
)
from openhands.resolver.interfaces.issue import Issue, IssueHandlerInterface, ReviewThread

DEFAULT_DOMAIN = "github.com"

_REPLY_MUTATION = """
            mutation($body: String!, $pullRequestReviewThreadId: ID!) {
                addPullRequestReviewThreadReply(input: { body: $body, pullRequestReviewThreadId: $pullRequestReviewThreadId }) {
                    comment {
                        id
                        body
                        createdAt
                    }
                }
            }
            """

# Only the first 10 closing issues, 100 reviews, 100 threads and 100 comments per thread
# are read: the resolver works on one PR's recent feedback, not its full history.
_PR_METADATA_QUERY = """
query($owner: String!, $repo: String!, $pr: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $pr) {
      closingIssuesReferences(first: 10) { edges { node { body number } } }
      url
      reviews(first: 100) { nodes { body state fullDatabaseId } }
      reviewThreads(first: 100) {
        edges {
          node {
            id
            isResolved
            comments(first: 100) { totalCount nodes { body path fullDatabaseId } }
          }
        }
      }
    }
  }
}
"""


class GithubIssueHandler(IssueHandlerInterface):
    """Issues of one GitHub repository; also opens pull requests and posts comments."""

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
        # Cached at construction: ``set_owner`` (used to push to a fork) leaves the API
        # URLs on the original repository.
        self.base_url = self.get_base_url()
        self.download_url = self.get_download_url()
        self.clone_url = self.get_clone_url()
        self.headers = self.get_headers()

    # URLs and headers

    def _api_root(self) -> str:
        if self.base_domain == DEFAULT_DOMAIN:
            return "https://api.github.com"
        return f"https://{self.base_domain}/api/v3"

    def _repo_api(self) -> str:
        return f"{self._api_root()}/repos/{self.owner}/{self.repo}"

    def _graphql_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}

    def set_owner(self, owner: str) -> None:
        self.owner = owner

    def get_headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}", "Accept": "application/vnd.github.v3+json"}

    def get_base_url(self) -> str:
        return self._repo_api()

    def get_authorize_url(self) -> str:
        return f"https://{self.username}:{self.token}@{self.base_domain}/"

    def get_branch_url(self, branch_name: str) -> str:
        return f"{self.get_base_url()}/branches/{branch_name}"

    def get_download_url(self) -> str:
        return f"{self.base_url}/issues"

    def get_clone_url(self) -> str:
        credentials = (
            f"{self.username}:{self.token}" if self.username else f"x-auth-token:{self.token}"
        )
        return f"https://{credentials}@{self.base_domain}/{self.owner}/{self.repo}.git"

    def get_graphql_url(self) -> str:
        if self.base_domain == DEFAULT_DOMAIN:
            return "https://api.github.com/graphql"
        return f"https://{self.base_domain}/api/graphql"

    def get_compare_url(self, branch_name: str) -> str:
        return f"https://{self.base_domain}/{self.owner}/{self.repo}/compare/{branch_name}?expand=1"

    def get_pull_url(self, pr_number: int) -> str:
        return f"https://{self.base_domain}/{self.owner}/{self.repo}/pull/{pr_number}"

    # Reading

    def download_issues(self) -> list[Any]:
        """Every open issue (GitHub lists pull requests among them)."""
        issues: list[Any] = []
        for page in fetch_pages(self.download_url, self.headers, state="open"):
            issues.extend(check_list_of_dicts(page, "Github"))
        return issues

    def get_issue_comments(
        self, issue_number: int, comment_id: int | None = None
    ) -> list[str] | None:
        return collect_comment_bodies(
            f"{self.download_url}/{issue_number}/comments", self.headers, comment_id or None
        )

    def branch_exists(self, branch_name: str) -> bool:
        logger.info(f"Checking if branch {branch_name} exists...")
        response = httpx.get(f"{self.base_url}/branches/{branch_name}", headers=self.headers)
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
        """The listed open issues (pull requests excluded) with their comments."""
        if not issue_numbers:
            raise ValueError("Unspecified issue number")
        logger.info(f"Limiting resolving to issues {issue_numbers}.")
        wanted = [
            raw
            for raw in self.download_issues()
            if raw.get("number") in issue_numbers and "pull_request" not in raw
        ]
        if len(issue_numbers) == 1 and not wanted:
            raise ValueError(f"Issue {issue_numbers[0]} not found")

        issues = []
        for raw in wanted:
            if raw.get("number") is None or raw.get("title") is None:
                logger.warning(f"Skipping issue {raw} as it is missing number or title.")
                continue
            issues.append(
                Issue(
                    owner=self.owner,
                    repo=self.repo,
                    number=raw["number"],
                    title=raw["title"],
                    body=raw.get("body") or "",
                    thread_comments=self.get_issue_comments(raw["number"], comment_id=comment_id),
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
        response = httpx.post(f"{self.base_url}/pulls", headers=self.headers, json=data or {})
        if response.status_code == 403:
            raise RuntimeError(MISSING_PUSH_PERMISSION)
        response.raise_for_status()
        return dict(response.json())

    def request_reviewers(self, reviewer: str, pr_number: int) -> None:
        response = httpx.post(
            f"{self.base_url}/pulls/{pr_number}/requested_reviewers",
            headers=self.headers,
            json={"reviewers": [reviewer]},
        )
        if response.status_code != 201:
            logger.warning(f"Failed to request review from {reviewer}: {response.text}")

    def send_comment_msg(self, issue_number: int, msg: str) -> None:
        response = httpx.post(
            f"{self.base_url}/issues/{issue_number}/comments",
            headers=self.headers,
            json={"body": msg},
        )
        if response.status_code != 201:
            logger.error(f"Failed to post comment: {response.status_code} {response.text}")
        else:
            logger.info(f"Comment added to the PR: {msg}")

    def reply_to_comment(self, pr_number: int, comment_id: str, reply: str) -> None:
        # GraphQL, because the REST API cannot reply inside a review thread.
        response = httpx.post(
            self.get_graphql_url(),
            json={
                "query": _REPLY_MUTATION,
                "variables": {
                    "body": f"{THREAD_REPLY_PREFIX}{reply}",
                    "pullRequestReviewThreadId": comment_id,
                },
            },
            headers=self._graphql_headers(),
        )
        response.raise_for_status()


class GithubPRHandler(ReferencedIssueBodies, GithubIssueHandler):
    """Pull requests of one GitHub repository, with their unresolved feedback."""

    def __init__(
        self,
        owner: str,
        repo: str,
        token: str,
        username: str | None = None,
        base_domain: str = DEFAULT_DOMAIN,
    ) -> None:
        super().__init__(owner, repo, token, username, base_domain)
        self.download_url = f"{self._repo_api()}/pulls"

    def download_pr_metadata(
        self, pull_number: int, comment_id: int | None = None
    ) -> tuple[list[str], list[int], list[str], list[ReviewThread], list[str]]:
        """``(closing issue bodies, their numbers, review bodies, unresolved threads, thread
        ids)`` of one PR, from GraphQL (REST does not say whether a thread is resolved).
        With ``comment_id``, only the review or threads holding that comment are kept."""
        response = httpx.post(
            self.get_graphql_url(),
            json={
                "query": _PR_METADATA_QUERY,
                "variables": {"owner": self.owner, "repo": self.repo, "pr": pull_number},
            },
            headers=self._graphql_headers(),
        )
        response.raise_for_status()
        pr = response.json().get("data", {}).get("repository", {}).get("pullRequest", {})

        closing = pr.get("closingIssuesReferences", {}).get("edges", [])
        closing_bodies = [edge["node"]["body"] for edge in closing]
        closing_numbers = [edge["node"]["number"] for edge in closing]

        reviews = pr.get("reviews", {}).get("nodes", [])
        if comment_id is not None:
            reviews = [r for r in reviews if int(r["fullDatabaseId"]) == comment_id]
        review_bodies = [review["body"] for review in reviews]

        threads: list[ReviewThread] = []
        thread_ids: list[str] = []
        for edge in pr.get("reviewThreads", {}).get("edges", []):
            node = edge.get("node", {})
            if node.get("isResolved", True):
                continue
            comments = node.get("comments", {}).get("nodes", [])
            if comment_id is not None and not any(
                int(c["fullDatabaseId"]) == comment_id for c in comments
            ):
                continue
            threads.append(fold_review_thread([(c["body"], c.get("path")) for c in comments]))
            thread_ids.append(node.get("id"))
        return closing_bodies, closing_numbers, review_bodies, threads, thread_ids

    def get_pr_comments(self, pr_number: int, comment_id: int | None = None) -> list[str] | None:
        """The PR's conversation comments (its issue comments)."""
        return collect_comment_bodies(
            f"{self._repo_api()}/issues/{pr_number}/comments", self.get_headers(), comment_id
        )

    def _fetch_issue_body(self, number: int) -> str | None:
        response = httpx.get(
            f"{self._repo_api()}/issues/{number}",
            headers={
                "Authorization": f"Bearer {self.token}",
                "Accept": "application/vnd.github.v3+json",
            },
        )
        response.raise_for_status()
        return response.json().get("body", "")

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        """The listed open PRs with their feedback and the issues they refer to."""
        if not issue_numbers:
            raise ValueError("Unspecified issue numbers")
        logger.info(f"Limiting resolving to issues {issue_numbers}.")
        wanted = [raw for raw in self.download_issues() if raw.get("number") in issue_numbers]
        return convert_pull_requests(
            self,
            wanted,
            number_key="number",
            body_key="body",
            head_branch_of=lambda raw: raw["head"]["ref"],
            comment_id=comment_id,
        )
