"""Service contexts: what the resolver does with an issue (``ServiceContextIssue``) or a
pull request (``ServiceContextPR``), on top of a provider handler (the "strategy").

Both build the agent's instructions from an issue and ask an LLM whether the agent's work
resolved it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import jinja2

from openhands.core.config import LLMConfig
from openhands.llm.llm import LLM
from openhands.resolver.interfaces.issue import Issue, IssueHandlerInterface, ReviewThread
from openhands.resolver.utils import extract_image_urls

if TYPE_CHECKING:
    from openhands.events.event import Event

GUESS_SUCCESS_PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "guess_success"

# The verdict format every success-check prompt asks for: a ``--- success`` line, the
# lowercase verdict, then ``--- explanation`` and the explanation up to the end.
_VERDICT = re.compile(r"--- success\n*(true|false)\n*--- explanation*\n((?:.|\n)*)")


def render_guess_success_prompt(name: str, **values: Any) -> str:
    """Render ``prompts/guess_success/<name>``, read from disk at call time."""
    text = (GUESS_SUCCESS_PROMPTS / name).read_text(encoding="utf-8")
    return jinja2.Template(text).render(**values)


def parse_verdict(answer: str) -> tuple[bool, str] | None:
    """``(success, raw explanation)`` from an LLM answer, or None when it does not follow
    the verdict format."""
    match = _VERDICT.search(answer)
    if match is None:
        return None
    return match.group(1) == "true", match.group(2)


def _undecodable(answer: str) -> str:
    return f"Failed to decode answer from LLM response: {answer}"


class ServiceContext:
    """A provider handler plus the LLM the success checks use (none when no config)."""

    issue_type: ClassVar[str]
    default_git_patch: ClassVar[str] = "No changes made yet"
    llm: LLM

    def __init__(self, strategy: IssueHandlerInterface, llm_config: LLMConfig | None) -> None:
        self._strategy = strategy
        if llm_config is not None:
            self.llm = LLM(llm_config, service_id="resolver")

    def set_strategy(self, strategy: IssueHandlerInterface) -> None:
        self._strategy = strategy

    def _ask_llm(self, prompt: str) -> str:
        response = self.llm.completion(messages=[{"role": "user", "content": prompt}])
        content = response.choices[0].message.content
        return str(content or "").strip()


class ServiceContextIssue(ServiceContext):
    """Resolving an issue; also the handle ``send_pull_request`` uses to reach the provider."""

    issue_type: ClassVar[str] = "issue"

    def get_base_url(self) -> str:
        return self._strategy.get_base_url()

    def get_branch_url(self, branch_name: str) -> str:
        return self._strategy.get_branch_url(branch_name)

    def get_download_url(self) -> str:
        return self._strategy.get_download_url()

    def get_clone_url(self) -> str:
        return self._strategy.get_clone_url()

    def get_graphql_url(self) -> str:
        return self._strategy.get_graphql_url()

    def get_headers(self) -> dict[str, str]:
        return self._strategy.get_headers()

    def get_authorize_url(self) -> str:
        return self._strategy.get_authorize_url()

    def get_pull_url(self, pr_number: int) -> str:
        return self._strategy.get_pull_url(pr_number)

    def get_compare_url(self, branch_name: str) -> str:
        return self._strategy.get_compare_url(branch_name)

    def download_issues(self) -> list[Any]:
        return self._strategy.download_issues()

    def get_branch_name(self, base_branch_name: str) -> str:
        return self._strategy.get_branch_name(base_branch_name)

    def branch_exists(self, branch_name: str) -> bool:
        return self._strategy.branch_exists(branch_name)

    def get_default_branch_name(self) -> str:
        return self._strategy.get_default_branch_name()

    def create_pull_request(self, data: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._strategy.create_pull_request(data if data is not None else {})

    def request_reviewers(self, reviewer: str, pr_number: int) -> None:
        self._strategy.request_reviewers(reviewer, pr_number)

    def reply_to_comment(self, pr_number: int, comment_id: str, reply: str) -> None:
        self._strategy.reply_to_comment(pr_number, comment_id, reply)

    def send_comment_msg(self, issue_number: int, msg: str) -> None:
        self._strategy.send_comment_msg(issue_number, msg)

    def get_issue_comments(
        self, issue_number: int, comment_id: int | None = None
    ) -> list[str] | None:
        return self._strategy.get_issue_comments(issue_number, comment_id)

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        return self._strategy.get_converted_issues(issue_numbers, comment_id)

    @staticmethod
    def _thread_context(issue: Issue) -> str:
        if not issue.thread_comments:
            return ""
        return "\n\nIssue Thread Comments:\n" + "\n---\n".join(issue.thread_comments)

    def get_instruction(
        self,
        issue: Issue,
        user_instructions_prompt_template: str,
        conversation_instructions_prompt_template: str,
        repo_instruction: str | None = None,
    ) -> tuple[str, str, list[str]]:
        """``(user message, conversation instructions, image URLs)`` for the agent."""
        thread_context = self._thread_context(issue)
        user_instructions = jinja2.Template(user_instructions_prompt_template).render(
            body=f"{issue.title}\n\n{issue.body}{thread_context}"
        )
        conversation_instructions = jinja2.Template(
            conversation_instructions_prompt_template
        ).render(repo_instruction=repo_instruction)
        images = extract_image_urls(issue.body) + extract_image_urls(thread_context)
        return user_instructions, conversation_instructions, images

    def guess_success(
        self, issue: Issue, history: list[Event], git_patch: str | None = None
    ) -> tuple[bool, None, str]:
        """Ask the LLM whether the agent's last message and patch resolve the issue."""
        prompt = render_guess_success_prompt(
            "issue-success-check.jinja",
            issue_context=issue.body + self._thread_context(issue),
            last_message=history[-1].message,
            git_patch=git_patch or self.default_git_patch,
        )
        answer = self._ask_llm(prompt)
        verdict = parse_verdict(answer)
        if verdict is None:
            return False, None, _undecodable(answer)
        return verdict[0], None, verdict[1]


class ServiceContextPR(ServiceContext):
    """Addressing the feedback on a pull request."""

    issue_type: ClassVar[str] = "pr"

    def get_clone_url(self) -> str:
        return self._strategy.get_clone_url()

    def download_issues(self) -> list[Any]:
        return self._strategy.download_issues()

    def get_converted_issues(
        self, issue_numbers: list[int] | None = None, comment_id: int | None = None
    ) -> list[Issue]:
        return self._strategy.get_converted_issues(issue_numbers, comment_id)

    def get_instruction(
        self,
        issue: Issue,
        user_instructions_prompt_template: str,
        conversation_instructions_prompt_template: str,
        repo_instruction: str | None = None,
    ) -> tuple[str, str, list[str]]:
        """``(user message, conversation instructions, image URLs)`` for the agent. The
        issues the PR closes only reach the conversation instructions."""
        images: list[str] = []

        issues_str = None
        if issue.closing_issues:
            issues_str = json.dumps(issue.closing_issues, indent=4)
            images += extract_image_urls(issues_str)

        review_comments_str = None
        if issue.review_comments:
            review_comments_str = json.dumps(issue.review_comments, indent=4)
            images += extract_image_urls(review_comments_str)

        review_threads_str = None
        files_str = None
        if issue.review_threads:
            review_threads_str = json.dumps([t.comment for t in issue.review_threads], indent=4)
            files_str = json.dumps([f for t in issue.review_threads for f in t.files], indent=4)
            images += extract_image_urls(review_threads_str)

        thread_context = "\n---\n".join(issue.thread_comments or [])
        images += extract_image_urls(thread_context)

        user_instructions = jinja2.Template(user_instructions_prompt_template).render(
            review_comments=review_comments_str,
            review_threads=review_threads_str,
            files=files_str,
            thread_context=thread_context,
        )
        conversation_instructions = jinja2.Template(
            conversation_instructions_prompt_template
        ).render(issues=issues_str, repo_instruction=repo_instruction)
        return user_instructions, conversation_instructions, images

    def guess_success(
        self, issue: Issue, history: list[Event], git_patch: str | None = None
    ) -> tuple[bool, list[bool] | None, str]:
        """Judge one kind of feedback, by priority: each review thread, else the thread
        comments, else the review bodies. Returns ``(all passed, verdicts, JSON list of
        explanations)``."""
        last_message = history[-1].message
        issues_context = json.dumps(issue.closing_issues, indent=4)
        verdicts: list[tuple[bool, str]] = []
        if issue.review_threads:
            for thread in issue.review_threads:
                if issues_context and last_message:
                    verdicts.append(
                        self._check_review_thread(thread, issues_context, last_message, git_patch)
                    )
                else:
                    verdicts.append((False, "Missing context or message"))
        elif issue.thread_comments:
            if issues_context and last_message:
                verdicts.append(
                    self._check_thread_comments(
                        issue.thread_comments, issues_context, last_message, git_patch
                    )
                )
            else:
                verdicts.append((False, "Missing thread comments, context or message"))
        elif issue.review_comments:
            if issues_context and last_message:
                verdicts.append(
                    self._check_review_comments(
                        issue.review_comments, issues_context, last_message, git_patch
                    )
                )
            else:
                verdicts.append((False, "Missing review comments, context or message"))
        else:
            return False, None, "No feedback was found to process"

        successes = [success for success, _ in verdicts]
        explanations = [explanation for _, explanation in verdicts]
        return all(successes), successes, json.dumps(explanations)

    def _check_feedback_with_llm(self, prompt: str) -> tuple[bool, str]:
        answer = self._ask_llm(prompt)
        verdict = parse_verdict(answer)
        if verdict is None:
            return False, _undecodable(answer)
        return verdict[0], verdict[1].strip()

    def _check_review_thread(
        self,
        review_thread: ReviewThread,
        issues_context: str,
        last_message: str,
        git_patch: str | None = None,
    ) -> tuple[bool, str]:
        prompt = render_guess_success_prompt(
            "pr-feedback-check.jinja",
            issue_context=issues_context,
            feedback=review_thread.comment,
            files_context=json.dumps(review_thread.files, indent=4),
            last_message=last_message,
            git_patch=git_patch or self.default_git_patch,
        )
        return self._check_feedback_with_llm(prompt)

    def _check_thread_comments(
        self,
        thread_comments: list[str],
        issues_context: str,
        last_message: str,
        git_patch: str | None = None,
    ) -> tuple[bool, str]:
        prompt = render_guess_success_prompt(
            "pr-thread-check.jinja",
            issue_context=issues_context,
            thread_context="\n---\n".join(thread_comments),
            last_message=last_message,
            git_patch=git_patch or self.default_git_patch,
        )
        return self._check_feedback_with_llm(prompt)

    def _check_review_comments(
        self,
        review_comments: list[str],
        issues_context: str,
        last_message: str,
        git_patch: str | None = None,
    ) -> tuple[bool, str]:
        prompt = render_guess_success_prompt(
            "pr-review-check.jinja",
            issue_context=issues_context,
            review_context="\n---\n".join(review_comments),
            last_message=last_message,
            git_patch=git_patch or self.default_git_patch,
        )
        return self._check_feedback_with_llm(prompt)
