"""Bitbucket (bitbucket.org or a self-hosted domain) handlers.

Only what sending a pull request needs is implemented: opening a PR and commenting on it.
Listing issues and their comments is not (each such method logs that and returns nothing),
so resolving an issue on Bitbucket ends with "No issues found".
"""

from __future__ import annotations

import base64
from typing import Any

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.resolver.interfaces.handler_support import (
    ReferencedIssueBodies,
)
from openhands.resolver.interfaces.issue import Issue, IssueHandlerInterface, ReviewThread
from openhands.resolver.utils import extract_issue_references

DEFAULT_DOMAIN = "bitbucket.org"


def _not_implemented(method: str) -> None:
    logger.warning(f"BitbucketIssueHandler.{method} not implemented")


class BitbucketIssueHandler(ReferencedIssueBodies, IssueHandlerInterface):
    """One Bitbucket repository (``owner`` is the workspace)."""

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
        self.base_url = self.get_base_url()
        self.download_url = self.get_download_url()
        self.clone_url = self.get_clone_url()
        self.headers = self.get_headers()

    # URLs and headers

    def set_owner(self, owner: str) -> None:
        self.owner = owner

    def get_headers(self) -> dict[str, str]:
        # ``user:app-password`` goes as Basic credentials; anything else is a bearer token.
        if ":" in self.token:
            credentials = base64.b64encode(self.token.encode()).decode()
            authorization = f"Basic {credentials}"
        else:
            authorization = f"Bearer {self.token}"
        return {"Authorization": authorization, "Accept": "application/json"}

    def get_base_url(self) -> str:
        return f"https://api.{self.base_domain}/2.0"

    def _repo_api(self) -> str:
        return f"{self.base_url}/repositories/{self.owner}/{self.repo}"

    def get_repo_url(self) -> str:
        return f"https://{self.base_domain}/{self.owner}/{self.repo}"

    def get_download_url(self) -> str:
        return f"{self.get_repo_url()}/get/master.zip"

    def get_clone_url(self) -> str:
        # No credentials here: git gets them from its own credential configuration.
        return f"{self.get_repo_url()}.git"

    def get_issue_url(self, issue_number: int) -> str:
        return f"{self.get_repo_url()}/issues/{issue_number}"

    def get_pr_url(self, pr_number: int) -> str:
        return f"{self.get_repo_url()}/pull-requests/{pr_number}"

    def get_pull_url(self, pr_number: int) -> str:
        return self.get_pr_url(pr_number)

    def get_branch_url(self, branch_name: str) -> str:
        return f"{self.get_repo_url()}/branch/{branch_name}"

    def get_compare_url(self, branch_name: str) -> str:
        return f"{self.get_repo_url()}/compare/master...{branch_name}"

    def get_authorize_url(self) -> str:
        return f"https://oauth2:{self.token}@{self.base_domain}/"

    def get_graphql_url(self) -> str:
        return f"https://api.{self.base_domain}/graphql"

    # Reading

    async def get_issue(self, issue_number: int) -> Issue:
        async with httpx.AsyncClient() as client:
            response = await client.get(
                f"{self._repo_api()}/issues/{issue_number}", headers=self.headers
            )
            response.raise_for_status()
            data = response.json()
        return Issue(
            owner=self.owner,
            repo=self.repo,
            number=data.get("id"),
            title=data.get("title", ""),
            body=(data.get("content") or {}).get("raw", ""),
        )

    def download_issues(self) -> list[Any]:
        _not_implemented("download_issues")
        return []

    def get_issue_comments(
        self, issue_number: int, comment_id: int | None = None
    ) -> list[str] | None:
        _not_implemented("get_issue_comments")
        return []

    def get_issue_thread_comments(self, issue_number: int) -> list[str]:
        _not_implemented("get_issue_thread_comments")
        return []

    def get_issue_review_comments(self, issue_number: int) -> list[str]:
        _not_implemented("get_issue_review_comments")
        return []

    def get_issue_review_threads(self, issue_number: int) -> list[ReviewThread]:
        _not_implemented("get_issue_review_threads")
        return []

    def get_issue_references(self, body: str) -> list[int]:
        return extract_issue_references(body)

    def branch_exists(self, branch_name: str) -> bool:
        _not_implemented("branch_exists")
        return False

    def get_branch_name(self, base_branch_name: str) -> str:
        return f"{base_branch_name}-{self.owner}"

    def get_default_branch_name(self) -> str:
        return "master"

    def _fetch_issue_body(self, number: int) -> str | None:
        response = httpx.get(f"{self._repo_api()}/issues/{number}", headers=self.headers)
        response.raise_for_status()
        return (response.json().get("content") or {}).get("raw", "")

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        if not issue_numbers:
            raise ValueError("Unspecified issue numbers")
        logger.info(f"Limiting resolving to issues {issue_numbers}.")
        issues = []
        for raw in self.download_issues():
            if raw.get("id") not in issue_numbers:
                continue
            if raw.get("title") is None:
                logger.warning(f"Skipping #{raw} as it is missing id or title.")
                continue
            issues.append(
                Issue(
                    owner=self.owner,
                    repo=self.repo,
                    number=raw["id"],
                    title=raw["title"],
                    body=(raw.get("content") or {}).get("raw", ""),
                    closing_issues=[],
                    review_comments=[],
                    review_threads=[],
                    thread_ids=[],
                    head_branch=raw.get("source", {}).get("branch", {}).get("name", ""),
                    thread_comments=[],
                )
            )
        return issues

    # Writing

    def _post_pull_request(self, title: str, description: str, head: str, base: str) -> Any:
        response = httpx.post(
            f"{self._repo_api()}/pullrequests",
            headers=self.headers,
            json={
                "title": title,
                "description": description,
                "source": {"branch": {"name": head}},
                "destination": {"branch": {"name": base}},
                "close_source_branch": False,
            },
        )
        response.raise_for_status()
        return response.json() or {}

    def create_pr(self, title: str, body: str, head: str, base: str) -> str:
        """Open a pull request from ``head`` into ``base``; returns its web URL."""
        created = self._post_pull_request(title, body, head, base)
        return str(created.get("links", {}).get("html", {}).get("href", ""))

    def create_pull_request(self, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Open a pull request from ``data`` (``title``, ``description``, ``source_branch``,
        ``target_branch``; Bitbucket has no drafts)."""
        data = data or {}
        created = self._post_pull_request(
            data.get("title", ""),
            data.get("description", ""),
            data.get("source_branch", ""),
            data.get("target_branch", ""),
        )
        return {
            "html_url": created.get("links", {}).get("html", {}).get("href", ""),
            "number": created.get("id", 0),
        }

    def request_reviewers(self, reviewer: str, pr_number: int) -> None:
        _not_implemented("request_reviewers")

    def send_comment_msg(self, issue_number: int, msg: str) -> None:
        response = httpx.post(
            f"{self._repo_api()}/pullrequests/{issue_number}/comments",
            headers=self.headers,
            json={"content": {"raw": msg}},
        )
        response.raise_for_status()

    def reply_to_comment(self, pr_number: int, comment_id: str, reply: str) -> None:
        response = httpx.post(
            f"{self._repo_api()}/pullrequests/{pr_number}/comments/{comment_id}",
            headers=self.headers,
            json={"content": {"raw": reply}},
        )
        response.raise_for_status()


class BitbucketPRHandler(BitbucketIssueHandler):
    """Pull requests of one Bitbucket repository (the same as issues, for now)."""
