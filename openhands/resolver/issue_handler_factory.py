"""Picks the provider handler and service context for a platform and issue type."""

from __future__ import annotations

from collections.abc import Callable

from openhands.core.config import LLMConfig
from openhands.integrations.service_types import ProviderType
from openhands.resolver.interfaces.bitbucket import BitbucketIssueHandler, BitbucketPRHandler
from openhands.resolver.interfaces.github import GithubIssueHandler, GithubPRHandler
from openhands.resolver.interfaces.gitlab import GitlabIssueHandler, GitlabPRHandler
from openhands.resolver.interfaces.issue import IssueHandlerInterface
from openhands.resolver.interfaces.issue_definitions import (
    ServiceContextIssue,
    ServiceContextPR,
)

# ``(owner, repo, token, username, base_domain) -> handler``
HandlerClass = Callable[[str, str, str, str | None, str], IssueHandlerInterface]


def _handler_classes() -> dict[ProviderType, dict[str, HandlerClass]]:
    # Built per call, so a handler class patched on this module is the one used.
    return {
        ProviderType.GITHUB: {"issue": GithubIssueHandler, "pr": GithubPRHandler},
        ProviderType.GITLAB: {"issue": GitlabIssueHandler, "pr": GitlabPRHandler},
        ProviderType.BITBUCKET: {"issue": BitbucketIssueHandler, "pr": BitbucketPRHandler},
    }


class IssueHandlerFactory:
    def __init__(
        self,
        owner: str,
        repo: str,
        token: str,
        username: str | None,
        platform: ProviderType,
        base_domain: str,
        issue_type: str,
        llm_config: LLMConfig | None = None,
    ) -> None:
        """``username`` is only needed for clone and push URLs, and ``llm_config`` only for
        the success check; a caller that does neither (the web route reading an issue)
        passes None."""
        self.owner = owner
        self.repo = repo
        self.token = token
        self.username = username
        self.platform = platform
        self.base_domain = base_domain
        self.issue_type = issue_type
        self.llm_config = llm_config

    def create(self) -> ServiceContextIssue | ServiceContextPR:
        """The service context for ``issue_type`` over the ``platform``'s handler."""
        if self.issue_type not in ("issue", "pr"):
            raise ValueError(f"Invalid issue type: {self.issue_type}")
        handlers = _handler_classes().get(self.platform)
        if handlers is None:
            raise ValueError(f"Unsupported platform: {self.platform}")
        handler = handlers[self.issue_type](
            self.owner, self.repo, self.token, self.username, self.base_domain
        )
        if self.issue_type == "issue":
            return ServiceContextIssue(handler, self.llm_config)
        return ServiceContextPR(handler, self.llm_config)
