"""Instructions and success checks of the service contexts, the LLM being a scripted
OpenAI-compatible server."""

from __future__ import annotations

import json

from openhands.events.action import MessageAction
from openhands.resolver.interfaces.github import GithubIssueHandler
from openhands.resolver.interfaces.issue import Issue, ReviewThread
from openhands.resolver.interfaces.issue_definitions import ServiceContextIssue, ServiceContextPR
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer


def offline() -> GithubIssueHandler:
    """A handler that is never asked anything: these checks need no provider."""
    return GithubIssueHandler("o", "r", "unused-token")


def prompt_of(llm: ScriptedLLMServer, index: int) -> str:
    content = llm.completion_requests[index].messages[0]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


HISTORY = [MessageAction(content="I changed the constant to 42.")]


def issue(**fields: object) -> Issue:
    return Issue(owner="o", repo="r", number=1, title="Wrong answer", body="Returns 41", **fields)


def test_issue_instruction_carries_title_body_comments_and_images() -> None:
    context = ServiceContextIssue(offline(), None)
    user, conversation, images = context.get_instruction(
        issue(thread_comments=["see ![s](https://img.example/s.png)", "+1"]),
        "{{ body }}",
        "{% if repo_instruction %}Repo: {{ repo_instruction }}{% endif %}",
        "use tabs",
    )
    assert user == (
        "Wrong answer\n\nReturns 41\n\nIssue Thread Comments:\nsee ![s](https://img.example/s.png)\n---\n+1"
    )
    assert conversation == "Repo: use tabs"
    assert images == ["https://img.example/s.png"]


def test_issue_success_is_read_from_the_verdict_format() -> None:
    answer = "--- success\ntrue\n--- explanation\nThe constant is fixed.\nTests pass."
    with ScriptedLLMServer([s.text(answer), s.text("I think it works")]) as llm:
        context = ServiceContextIssue(offline(), llm.llm_config())
        assert context.guess_success(issue(), HISTORY, "diff") == (
            True,
            None,
            "The constant is fixed.\nTests pass.",
        )
        prompt = prompt_of(llm, 0)
        assert "Returns 41" in prompt and "I changed the constant" in prompt and "diff" in prompt
        assert context.guess_success(issue(), HISTORY) == (
            False,
            None,
            "Failed to decode answer from LLM response: I think it works",
        )


def test_pr_success_asks_once_per_review_thread() -> None:
    threads = [
        ReviewThread(comment="rename x", files=["a.py"]),
        ReviewThread(comment="add test", files=[]),
    ]
    verdicts = [
        s.text("--- success\ntrue\n--- explanation\n renamed \n"),
        s.text("--- success\nfalse\n--- explanation\nno test yet"),
    ]
    with ScriptedLLMServer(verdicts) as llm:
        context = ServiceContextPR(offline(), llm.llm_config())
        success, each, explanations = context.guess_success(
            issue(review_threads=threads, thread_comments=["ignored while threads exist"]), HISTORY
        )
        assert (success, each, json.loads(explanations)) == (
            False,
            [True, False],
            ["renamed", "no test yet"],
        )
        assert len(llm.completion_requests) == 2
        first = prompt_of(llm, 0)
        assert "Feedback:\nrename x" in first and "Files locations:\n" in first


def test_pr_without_feedback_needs_no_llm() -> None:
    context = ServiceContextPR(offline(), None)
    assert context.guess_success(issue(), HISTORY) == (
        False,
        None,
        "No feedback was found to process",
    )
