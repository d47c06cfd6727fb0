"""What the resolver knows about an issue or pull request, and the seam every provider
handler implements (``IssueHandlerInterface``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel


class ReviewThread(BaseModel):
    """An unresolved review thread: its comments folded into one message, and the files
    it is about."""

    comment: str
    files: list[str]


class Issue(BaseModel):
    """An issue or pull request as the resolver sees it. Unknown fields are dropped, so a
    provider's raw payload can be passed straight in."""

    owner: str
    repo: str
    number: int
    title: str
    body: str
    # Conversation comments (issue thread, or the PR's general comments).
    thread_comments: list[str] | None = None
    # Bodies of the issues a PR closes or references.
    closing_issues: list[str] | None = None
    # Bodies of PR reviews.
    review_comments: list[str] | None = None
    review_threads: list[ReviewThread] | None = None
    # Provider ids of ``review_threads``, in the same order (used to reply to them).
    thread_ids: list[str] | None = None
    head_branch: str | None = None
    base_branch: str | None = None


class IssueHandlerInterface(ABC):
    """One git provider's view of a repository's issues and pull requests."""

    @abstractmethod
    def set_owner(self, owner: str) -> None: ...

    @abstractmethod
    def download_issues(self) -> list[Any]: ...

    @abstractmethod
    def get_issue_comments(
        self, issue_number: int, comment_id: int | None = None
    ) -> list[str] | None: ...

    @abstractmethod
    def get_base_url(self) -> str: ...

    @abstractmethod
    def get_branch_url(self, branch_name: str) -> str: ...

    @abstractmethod
    def get_download_url(self) -> str: ...

    @abstractmethod
    def get_clone_url(self) -> str: ...

    @abstractmethod
    def get_pull_url(self, pr_number: int) -> str: ...

    @abstractmethod
    def get_graphql_url(self) -> str: ...

    @abstractmethod
    def get_headers(self) -> dict[str, str]: ...

    @abstractmethod
    def get_compare_url(self, branch_name: str) -> str: ...

    @abstractmethod
    def get_branch_name(self, base_branch_name: str) -> str: ...

    @abstractmethod
    def get_default_branch_name(self) -> str: ...

    @abstractmethod
    def branch_exists(self, branch_name: str) -> bool: ...

    @abstractmethod
    def reply_to_comment(self, pr_number: int, comment_id: str, reply: str) -> None: ...

    @abstractmethod
    def send_comment_msg(self, issue_number: int, msg: str) -> None: ...

    @abstractmethod
    def get_authorize_url(self) -> str: ...

    @abstractmethod
    def create_pull_request(self, data: dict[str, Any] | None = None) -> dict[str, Any]: ...

    @abstractmethod
    def request_reviewers(self, reviewer: str, pr_number: int) -> None: ...

    @abstractmethod
    def get_context_from_external_issues_references(
        self,
        closing_issues: list[str],
        closing_issue_numbers: list[int],
        issue_body: str,
        review_comments: list[str] | None,
        review_threads: list[ReviewThread],
        thread_comments: list[str] | None,
    ) -> list[str]: ...

    @abstractmethod
    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]: ...
