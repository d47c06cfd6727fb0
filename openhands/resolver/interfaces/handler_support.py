"""Pieces the GitHub and GitLab handlers share: paginated comment downloads, folding a
review thread into one message, following issue references, and branch naming.

Every request goes through the module-level ``httpx.get``/``httpx.post`` functions (looked
up at call time), one call per request, so callers and tests see each request on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.resolver.interfaces.issue import Issue, ReviewThread
from openhands.resolver.utils import extract_issue_references

PAGE_SIZE = 100
THREAD_REPLY_PREFIX = "Openhands fix success summary\n\n\n"
MISSING_PUSH_PERMISSION = (
    "Failed to create pull request due to missing permissions. "
    "Make sure that the provided token has push permissions for the repository."
)

Comment = dict[str, Any]


def fetch_pages(url: str, headers: dict[str, str], **params: Any) -> Iterable[list[Any]]:
    """The pages of a paginated list endpoint, from page 1 up to the first empty page."""
    page = 1
    while True:
        response = httpx.get(
            url, headers=headers, params={**params, "per_page": PAGE_SIZE, "page": page}
        )
        response.raise_for_status()
        items = response.json()
        if not items:
            return
        yield items
        page += 1


def collect_comment_bodies(
    url: str,
    headers: dict[str, str],
    comment_id: int | None,
    keep: Callable[[Comment], bool] | None = None,
) -> list[str] | None:
    """The bodies of a paginated comment list, or None when there are none.

    With ``comment_id`` only that comment's body is returned (``[body]``), or None when no
    page holds it. ``keep`` filters each page first; a page left empty by it ends the
    download, as the reference does for GitLab's system notes.
    """
    bodies: list[str] = []
    for page in fetch_pages(url, headers):
        comments = [comment for comment in page if keep is None or keep(comment)]
        if not comments:
            break
        if comment_id is not None:
            match = next((c["body"] for c in comments if c["id"] == comment_id), None)
            if match:
                return [match]
        else:
            bodies.extend(comment["body"] for comment in comments)
    return bodies or None


def fold_review_thread(comments: list[tuple[str, str | None]]) -> ReviewThread:
    """One message for a thread's ``(body, file path)`` comments: each earlier comment on
    its own line, then the latest one under ``latest feedback:`` (after ``---`` when there
    were earlier ones). Files are the distinct paths in first-seen order."""
    message = ""
    files: list[str] = []
    for position, (body, path) in enumerate(comments):
        if position == len(comments) - 1:
            if len(comments) > 1:
                message += "---\n"
            message += f"latest feedback:\n{body}\n"
        else:
            message += f"{body}\n"
        if path and path not in files:
            files.append(path)
    return ReviewThread(comment=message, files=files)


def referenced_issue_numbers(
    issue_body: str,
    review_comments: list[str] | None,
    review_threads: list[ReviewThread] | None,
    thread_comments: list[str] | None,
    already_known: Iterable[int],
) -> list[int]:
    """The distinct issue numbers referenced from a PR's body, reviews, threads and
    comments, minus ``already_known``, in ascending order."""
    texts = [issue_body, *(review_comments or [])]
    texts += [thread.comment for thread in review_threads or []]
    texts += thread_comments or []
    numbers: set[int] = set()
    for text in texts:
        if text:
            numbers.update(extract_issue_references(text))
    return sorted(numbers.difference(already_known))


def append_referenced_bodies(
    closing_issues: list[str],
    numbers: list[int],
    fetch_body: Callable[[int], str | None],
) -> list[str]:
    """Append to ``closing_issues`` the non-empty body of each referenced issue; an issue
    that cannot be fetched is skipped with a warning."""
    for number in numbers:
        try:
            body = fetch_body(number)
        except httpx.HTTPError as error:
            logger.warning(f"Failed to fetch issue {number}: {error}")
            continue
        if body:
            closing_issues.append(body)
    return closing_issues


class ReferencedIssueBodies:
    """``get_context_from_external_issues_references`` for a handler that can fetch one
    issue's body (``_fetch_issue_body``): the closing issues plus every issue the PR's
    texts mention."""

    def _fetch_issue_body(self, number: int) -> str | None:
        raise NotImplementedError

    def get_context_from_external_issues_references(
        self,
        closing_issues: list[str],
        closing_issue_numbers: list[int],
        issue_body: str,
        review_comments: list[str] | None,
        review_threads: list[ReviewThread],
        thread_comments: list[str] | None,
    ) -> list[str]:
        numbers = referenced_issue_numbers(
            issue_body, review_comments, review_threads, thread_comments, closing_issue_numbers
        )
        return append_referenced_bodies(closing_issues, numbers, self._fetch_issue_body)


PRMetadata = tuple[list[str], list[int], list[str] | None, list[ReviewThread], list[str]]


class PRFeedbackSource(Protocol):
    """What ``convert_pull_requests`` reads from a provider's PR handler."""

    owner: str
    repo: str

    def download_pr_metadata(
        self, pull_number: int, comment_id: int | None = None
    ) -> PRMetadata: ...

    def get_pr_comments(
        self, pr_number: int, comment_id: int | None = None
    ) -> list[str] | None: ...

    def get_context_from_external_issues_references(
        self,
        closing_issues: list[str],
        closing_issue_numbers: list[int],
        issue_body: str,
        review_comments: list[str] | None,
        review_threads: list[ReviewThread],
        thread_comments: list[str] | None,
    ) -> list[str]: ...


def convert_pull_requests(
    handler: PRFeedbackSource,
    raw_prs: list[Comment],
    *,
    number_key: str,
    body_key: str,
    head_branch_of: Callable[[Comment], str],
    comment_id: int | None,
) -> list[Issue]:
    """Each raw PR (or merge request) as an ``Issue`` with its reviews, threads, comments and
    the bodies of the issues it refers to; a record without number or title is skipped."""
    issues = []
    for raw in raw_prs:
        if raw.get(number_key) is None or raw.get("title") is None:
            logger.warning(f"Skipping #{raw} as it is missing {number_key} or title.")
            continue
        number = raw[number_key]
        body = raw.get(body_key) or ""
        closing, closing_numbers, reviews, threads, thread_ids = handler.download_pr_metadata(
            number, comment_id=comment_id
        )
        thread_comments = handler.get_pr_comments(number, comment_id=comment_id)
        closing = handler.get_context_from_external_issues_references(
            closing, closing_numbers, body, reviews, threads, thread_comments
        )
        issues.append(
            Issue(
                owner=handler.owner,
                repo=handler.repo,
                number=number,
                title=raw["title"],
                body=body,
                closing_issues=closing,
                review_comments=reviews,
                review_threads=threads,
                thread_ids=thread_ids,
                head_branch=head_branch_of(raw),
                thread_comments=thread_comments,
            )
        )
    return issues


def next_free_branch_name(base_branch_name: str, exists: Callable[[str], bool]) -> str:
    """``base``, else ``base-try2``, ``base-try3``, ... whichever is free first."""
    branch_name = base_branch_name
    attempt = 1
    while exists(branch_name):
        attempt += 1
        branch_name = f"{base_branch_name}-try{attempt}"
    return branch_name


def check_list_of_dicts(items: Any, service: str) -> list[dict[str, Any]]:
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ValueError(f"Expected list of dictionaries from Service {service} API.")
    return items
